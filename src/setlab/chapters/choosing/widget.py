"""Chapter choosing, interactive: bytes per ID of every structure for the reader's number of IDs
and the range they are spread over, with the advisor's pick.

Each point is the advisor's pricing (:func:`setlab.tools.widget_calcs.price_density`: a Redis SET,
a plain bitmap, Roaring, Bloom and cuckoo filters at 1%, a HyperLogLog, for IDs drawn uniformly
from the range) — too much model for the browser, so the grid of counts × ranges is computed in
Python at build time and the browser only looks it up. ``setlab calc density`` prints the same.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from setlab.render.plots import STRUCTURE_COLOURS
from setlab.render.vega_lite import alt
from setlab.render.widgets import Control, Readout, Settings, Widget, text_lookup
from setlab.tools import scale, widget_calcs
from setlab.tools.widget_calcs import STRUCTURES

#: The sliders: IDs 10^3 … 10^9, ranges 2^10 … 2^32 values, and 2^64: uniform 64-bit hashes
#: (what `setlab calc density --range` takes; 2^33 … 2^63 it refuses, and so does the page).
LOG_COUNTS, LOG_RANGES = tuple(range(3, 10)), (*range(10, 33), 64)
#: Where 2^64 is drawn on the range axis: one step past 2^32, labelled "2^64 (hashed)".
HASHED_AT = 34
#: The default: a million IDs spread over 32-bit integers.
DEFAULTS = {"logn": 6, "logrange": 32}
#: The text fallback's other settings: dense auto-increment IDs, a crowded 2^24, 10^8 over 2^32.
SETTINGS = ({"logn": 6, "logrange": 20}, {"logn": 7, "logrange": 24}, {"logn": 8, "logrange": 32},
            {"logn": 4, "logrange": 16}, {"logn": 8, "logrange": 64})  # fmt: skip
#: The lookup arrays' index of a setting of the sliders (2^64 is the last range).
_INDEX = (f"(logn - {LOG_COUNTS[0]}) * {len(LOG_RANGES)} + "
          f"(logrange == 64 ? {len(LOG_RANGES) - 1} : logrange - {LOG_RANGES[0]})")  # fmt: skip
#: A readout name per structure.
SHORT = dict(zip(STRUCTURES, ("set", "bitmap", "roaring", "bloom", "cuckoo", "hll"), strict=True))
X_TITLE = "ID range (values the IDs are spread over)"


@cache
def table() -> tuple[dict[str, Any], ...]:
    """The grid: one row per (IDs, range, structure) with bytes per ID and the pick."""
    rows = widget_calcs.density_table(tuple(10**e for e in LOG_COUNTS),
                                      tuple(2**e for e in LOG_RANGES))  # fmt: skip
    return tuple({**r, "logn": round(math.log10(r["count"])), "lr": r["universe"].bit_length() - 1,
                  "x": _axis(r["universe"].bit_length() - 1)} for r in rows)  # fmt: skip


def _axis(log_range: int) -> int:
    """Where a range is drawn: its exponent, and 2^64 one step past 2^32."""
    return HASHED_AT if log_range == 64 else log_range


def _data(s: Settings) -> dict[str, Any] | None:
    """``setlab calc density``'s JSON at a setting of the controls (None when the IDs outnumber
    the values of their range)."""
    return _calc(round(s["logn"]), round(s["logrange"]))


@cache
def _calc(log_count: int, log_range: int) -> dict[str, Any] | None:
    count, universe = 10**log_count, 2**log_range
    return None if count > universe else widget_calcs.density(count, universe).data


def _per_id(structure: str) -> Any:
    def model(s: Settings) -> float:
        data = _data(s)
        value = None if data is None else data["bytes_per_id"][structure]
        return math.nan if value is None else value

    return model


def _lookup(structure: str) -> str:
    """Bytes per ID of ``structure`` for every (IDs, range) as an array literal, indexed by the
    sliders (NaN where there is no such set of IDs, or the structure cannot hold it)."""
    found = {
        (r["logn"], r["lr"]): r["bytes_per_id"] for r in table() if r["structure"] == structure
    }
    return _numbers([found.get((n, lr)) for n in LOG_COUNTS for lr in LOG_RANGES])


def _numbers(values: list[float | None]) -> str:
    """A Vega expression looking up the setting's value in ``values`` (one per setting, in
    lookup order; None is NaN, a dash on the page)."""
    array = ",".join("NaN" if v is None else repr(float(v)) for v in values)
    return f"[{array}][{_INDEX}]"


def _cells() -> list[dict[str, Any] | None]:
    """``setlab calc density``'s JSON at every setting of the sliders, in lookup order."""
    return [_calc(n, lr) for n in LOG_COUNTS for lr in LOG_RANGES]


def _said(field: str) -> Any:
    """The CLI's ``pick`` or ``reason`` at a setting ("" where the IDs outnumber the range)."""

    def model(s: Settings) -> str:
        data = _data(s)
        return "" if data is None else data[field]

    return model


def _pick_bytes(s: Settings) -> float:
    data = _data(s)
    return math.nan if data is None else data["pick_bytes"]


def _chart() -> alt.LayerChart:
    keep = ("logn", "lr", "x", "structure", "bytes_per_id", "pick")
    rows = [{k: r[k] for k in keep} for r in table() if r["bytes_per_id"] is not None]
    base = alt.Chart(alt.Data(values=rows)).transform_filter("datum.logn == logn")
    domain = alt.Scale(domain=[LOG_RANGES[0] - 0.5, HASHED_AT + 0.5], nice=False, zero=False)
    ticks = alt.Axis(
        labelExpr=f"datum.value == {HASHED_AT} ? '2^64 (hashed)' : '2^' + datum.value",
        values=[*range(LOG_RANGES[0], 33, 4), HASHED_AT],
    )  # fmt: skip
    x = alt.X("x:Q", title=X_TITLE, scale=domain, axis=ticks)
    colour = alt.Color("structure:N", title=None, sort=list(STRUCTURES),
                       scale=alt.Scale(domain=list(STRUCTURES),
                                       range=[STRUCTURE_COLOURS[s] for s in STRUCTURES]),
                       legend=alt.Legend(orient="bottom", columns=2, symbolOpacity=1))  # fmt: skip
    y = alt.Y("bytes_per_id:Q", title="bytes per ID", scale=alt.Scale(type="log"))
    lines = base.mark_line(point=True).encode(x=x, y=y, color=colour)
    picks = (
        base.transform_filter("datum.pick")
        .transform_calculate(x0="datum.x - 0.5", x1="datum.x + 0.5")
        .mark_rect(opacity=0.15)
        .encode(
            x=alt.X("x0:Q", title=X_TITLE, scale=domain),
            x2="x1:Q",
            color=alt.Color("structure:N", legend=None),
        )
    )
    here = (
        alt.Chart(alt.Data(values=[{}]))
        .transform_calculate(x=f"logrange == 64 ? {HASHED_AT} : logrange")
        .mark_rule(strokeDash=[4, 3], color="#888888")
        .encode(x=x)
    )
    label = (
        base.transform_filter("datum.pick && datum.lr == logrange")
        .transform_calculate(label="'pick at 2^' + datum.lr + ': ' + datum.structure")
        .mark_text(align="left", baseline="top", fontWeight="bold", fontSize=12)
        .encode(x=alt.value(6), y=alt.value(6), text="label:N", color=colour)
    )
    return alt.layer(lines, picks, here, label).properties(
        width="container", height=300,
        title="Bytes per ID by range (shaded: the pick)",
    )  # fmt: skip


def figure() -> Widget:
    """The interactive figure: IDs and range → bytes per ID of every structure, and the pick."""
    readouts = [
        Readout("n", "IDs", "pow(10, logn)", lambda s: 10 ** round(s["logn"]), kind="int"),
        Readout("range", "range (values)", "pow(2, logrange)", lambda s: 2 ** round(s["logrange"]),
                kind="int"),
        Readout("density", "density", "n / range", lambda s: 10 ** s["logn"] / 2 ** s["logrange"],
                kind="rate"),
    ]  # fmt: skip
    cells = _cells()
    readouts += [
        Readout("pick", "the advisor's pick",
                text_lookup(_INDEX, ["" if c is None else c["pick"] for c in cells]),
                _said("pick"), kind="text"),
        Readout("pick_bytes", "it takes",
                _numbers([None if c is None else c["pick_bytes"] for c in cells]),
                _pick_bytes, kind="bytes"),
        Readout("reason", "why", text_lookup(_INDEX, ["" if c is None else c["reason"]
                                                      for c in cells]),
                _said("reason"), kind="text"),
    ]  # fmt: skip
    readouts += [
        Readout(SHORT[name], name, _lookup(name), _per_id(name), unit="B per ID")
        for name in STRUCTURES
    ]
    sets, at_scale = scale.widget_parts("pick_bytes", _pick_bytes)
    return Widget(
        "bytes-per-id", "Bytes per ID: every structure for your IDs", _chart(),
        controls=[
            Control("logn", "IDs, log10", DEFAULTS["logn"], LOG_COUNTS[0], LOG_COUNTS[-1], step=1,
                    integer=True, unit="(10^3 … 10^9 IDs)"),
            Control("logrange", "ID range, log2", DEFAULTS["logrange"], LOG_RANGES[0],
                    LOG_RANGES[-1], step=1, integer=True, grid=LOG_RANGES,
                    check=lambda v: widget_calcs.check_universe(2 ** int(v)),
                    unit="(2^10 … 2^32 values, or 2^64: hashed IDs)"),
            sets,
        ],
        readouts=readouts + at_scale,
        caption="Choose how many IDs you hold and the range they are spread over (uniformly). "
        "Dense IDs are cheapest as a plain bitmap, one bit per possible ID; as they spread out, "
        "Roaring's containers win, and when the range is far larger than the IDs a 1% Bloom "
        "filter costs less than any exact structure; 2^64 is IDs hashed to 64 bits, where no "
        "plain bitmap can go. HyperLogLog only counts. A dash: more IDs than values in the "
        "range. Set how many such sets you keep for the total the pick takes.",
        source="the advisor's models (setlab.tools.advise over setlab.models) computed in Python "
        "at build time for every setting, looked up by the browser; setlab calc density … "
        "--sets N prints the same",
        settings=list(SETTINGS),
    )  # fmt: skip
