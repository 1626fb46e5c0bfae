"""Chapter choosing, interactive: bytes per ID of every structure for the reader's number of IDs,
the range they are spread over and the filters' false-positive rate, with the advisor's pick and
why.

Each structure's memory is the advisor's pricing (:mod:`setlab.tools.advise` over
:func:`setlab.tools.analysis.synthetic`: a Redis SET, a plain bitmap, Roaring, Bloom and cuckoo
filters, a HyperLogLog, for IDs drawn uniformly from the range) — too much model for the browser
(Roaring's containers come from a seeded draw of the IDs), so it is computed in Python at build
time on a grid and the browser only looks it up: the exact structures for every count × range, the
filters for every count × rate (they do not depend on the range). The pick and its reason are the
advisor's rule (:func:`setlab.tools.calc.choice.recommend`) written as Vega expressions over those
prices, with Python's number formats; ``tests/chapters/test_widgets_filters_density.py`` compares
both with ``setlab calc density`` at a seeded sample of the grid and at each way the advisor words
its pick. A count or rate off the grid is refused with a message that gives the line to run
instead: the CLI prices any.
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

from setlab.core.figure_cache import kept
from setlab.core.formats import format_rate
from setlab.render.plots import STRUCTURE_COLOURS
from setlab.render.vega_lite import alt
from setlab.render.widgets import Command, Control, Readout, Settings, Widget, text_lookup
from setlab.tools.calc import choice, density
from setlab.tools.calc.density import STRUCTURES
from setlab.tools.capacity import widget_parts

#: The counts the page prices: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 and 8 × 10^3 … 10^8, and 10^9 (the
#: seeds' 1.2 × 10^8 and 8 × 10^8 among them).
MANTISSAS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)
COUNTS = tuple(sorted({round(m * 10**e) for e in range(3, 9) for m in MANTISSAS} | {10**9}))
COUNTS_TEXT = "1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^3 … 10^8, or 10^9"
#: The filters' rates the page prices (the advisor's default, 1%, among them).
RATES = (0.0001, 0.001, 0.01, 0.02, 0.05)
#: Ranges 2^10 … 2^32 values, and 2^64: uniform 64-bit hashes (what `setlab calc density --range`
#: takes; 2^33 … 2^63 it refuses, and so does the page).
LOG_RANGES = (*range(10, 33), 64)
#: Where 2^64 is drawn on the range axis: one step past 2^32, labelled "2^64 (hashed)".
HASHED_AT = 34
#: The default: a million IDs spread over 32-bit integers, filters at 1%.
DEFAULTS = {"n": 1_000_000, "logrange": 32, "p": 0.01}
#: The text fallback's other settings: dense IDs, a crowded 2^24, the seeds' 8 × 10^8 over 2^32,
#: and hashed 64-bit IDs at 0.1%.
SETTINGS = ({"n": 1_000_000, "logrange": 20}, {"n": 10_000_000, "logrange": 24},
            {"n": 800_000_000, "logrange": 32}, {"n": 10_000, "logrange": 16},
            {"n": 120_000_000, "logrange": 64, "p": 0.001})  # fmt: skip
#: A readout name per structure.
SHORT = dict(zip(STRUCTURES, ("set", "bitmap", "roaring", "bloom", "cuckoo", "hll"), strict=True))
EXACT, FILTERS = STRUCTURES[:3], STRUCTURES[3:5]
X_TITLE = "ID range (values the IDs are spread over)"
#: the lookup index of the count, the range and the rate (they are on the grid once accepted)
_NI = "indexof(counts, n)"
_RI = f"(logrange == 64 ? {len(LOG_RANGES) - 1} : logrange - {LOG_RANGES[0]})"
_PI = "indexof(rates, p)"


@cache
@kept("choosing-density-grid")  # the chapter and the calculators page build it, seconds each
def grid() -> dict[str, list]:
    """The advisor's prices on the grid, in lookup order: per count × range (``count`` major)
    each exact structure's bytes (None where it cannot hold the IDs, or the IDs outnumber the
    range); per count × rate each filter's bytes and the rate it achieves as the advisor writes
    it; per count the HyperLogLog's bytes.

    Two of the advisor's reasons never arise for uniform IDs (runs of consecutive IDs that
    ``run_optimize()`` collapses; a Redis SET as the smallest exact structure), and the page does
    not word them: a grid where one would arise is refused here."""
    from setlab.tools.analysis import synthetic

    out: dict[str, list] = {name: [] for name in (*EXACT, *FILTERS, "HyperLogLog")}
    out.update({f"{f} error": [] for f in FILTERS})
    for n in COUNTS:
        for lr in LOG_RANGES:
            universe = 2**lr
            if n > universe:
                for name in EXACT:
                    out[name].append(None)
                continue
            shape = "hashed64" if universe == density.HASHED64 else "random32"
            a = synthetic(n, shape, universe=min(universe, 2**32))
            exact = choice.candidates(a)[:3]
            for c in exact:
                out[c.name].append(c.memory)
            smallest = min((c for c in exact if c.possible), key=lambda c: c.memory)
            r = a.roaring
            native = min(c.memory for c in exact[:2] if c.possible)
            roaring_stays = smallest.name == "Roaring bitmap" and not (
                native <= choice.NATIVE_PREMIUM * smallest.memory
                or native - smallest.memory <= choice.NATIVE_SLACK
            )
            runs = roaring_stays and r.serialized_bytes < 0.5 * r.plain_bytes
            if runs or smallest.name == "Redis SET":
                raise RuntimeError(f"{n:,} IDs in 2^{lr}: a reason the page does not word")
        a = synthetic(n, "hashed64")
        out["HyperLogLog"].append(choice.hll_candidate(a).memory)
        for p in RATES:
            needs = choice.Needs(error=p)
            for c in (choice.bloom_candidate(a, needs), choice.cuckoo_candidate(a, needs)):
                name = _short(c.name)
                out[name].append(c.memory)
                out[f"{name} error"].append(c.error)
    return out


def _short(name: str) -> str:
    return name.split(",")[0]


def _array(values: list) -> str:
    return "[" + ",".join("NaN" if v is None else repr(float(v)) for v in values) + "]"


def _texts(values: list[str]) -> str:
    return "[" + ",".join(json.dumps(v) for v in values) + "]"


# -- Python's number formats, in Vega ------------------------------------------------------------


def _even(x: str, decimals: str) -> str:
    """``x`` nudged down where it is an exact tie at ``decimals`` decimal places whose lower
    neighbour is even: Python rounds such ties to even (1.125 → "1.12"), d3 up ("1.13"); byte
    counts in KiB are often exact binary fractions."""
    scaled = f"(({x}) * pow(10, {decimals}))"
    # a tie a double can hold exactly: (2k + 1) / (2 × 10^d) with 5^d dividing 2k + 1 (2.205 is
    # no tie: its double is a little above it, and Python rounds it up)
    exact = f"(2 * floor({scaled}) + 1) % pow(5, {decimals}) == 0"
    return (f"({scaled} - floor({scaled}) == 0.5 && {exact} && floor({scaled}) % 2 == 0"
            f" ? ({x}) * (1 - 1e-12) : ({x}))")  # fmt: skip


def py_g(x: str, digits: int = 3) -> str:
    """Python's ``f"{x:.3g}"`` (d3's "g" writes exponents as JavaScript does, e+5, and at other
    magnitudes): an exponent, with two digits, where the rounded value is below 10^-4 or has more
    than ``digits`` digits; otherwise trailing zeros dropped."""
    rounded = f"toNumber(format({x}, '.{digits - 1}e'))"
    expo = f"replace(format({x}, '.{digits - 1}~e'), regexp('e([+-])(\\\\d)$'), 'e$10$2')"
    decimals = f"({digits - 1} - floor(log({x}) / LN10))"
    return (f"({rounded} != 0 && ({rounded} < 0.0001 || {rounded} >= {10**digits})"
            f" ? {expo} : format({_even(x, decimals)}, '.{digits}~g'))")  # fmt: skip


def bytes_text(x: str) -> str:
    """:func:`setlab.core.formats.format_bytes`: binary units, three significant digits, whole
    bytes below 1 KiB."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    scaled = {i: f"(({x}) / {1024**i})" for i in range(len(units))}

    def significant(v: str) -> str:
        return f"({v} >= 100 ? format({_even(v, '0')}, '.0f') : {py_g(v)})"

    expr = f"{significant(scaled[len(units) - 1])} + ' {units[-1]}'"
    for i in range(len(units) - 2, 0, -1):
        expr = (f"(({x}) < {1024 ** (i + 1)} ? {significant(scaled[i])} + ' {units[i]}'"
                f" : {expr})")  # fmt: skip
    return f"(({x}) < 1024 ? format(round({x}), 'd') + ' B' : {expr})"


def _share(x: str) -> str:
    """The advisor's share of a range: ``.1%`` from 0.1% up, ``.3g`` below."""
    return f"({x} >= 0.001 ? format({_even(x, '3')}, '.1%') : {py_g(x)})"


# -- the advisor's rule, in Vega -----------------------------------------------------------------


def _pick(mem: dict[str, str]) -> dict[str, str]:
    """The steps of :func:`setlab.tools.calc.choice.recommend` (one set, membership, no deletes)
    over the memory expressions ``mem`` (structure → bytes, NaN where impossible), as named Vega
    expressions: ``best`` (0 SET, 1 plain bitmap, 2 Roaring: the smallest exact one, or a
    structure built into Redis when Roaring saves too little), ``builtin`` (that happened),
    ``approx`` (3 Bloom, 4 cuckoo: the smaller filter) and ``pick_i``, with their bytes."""
    s, b, r, bl, cu = (mem[name] for name in STRUCTURES[:5])
    native = f"(!isNaN({b}) && {b} < {s} ? 1 : 0)"
    native_mem = f"({native} == 1 ? {b} : {s})"
    exact = f"(!isNaN({r}) && {r} < {native_mem} ? 2 : {native})"
    builtin = (f"({exact} == 2 && ({native_mem} <= {choice.NATIVE_PREMIUM} * {r}"
               f" || {native_mem} - {r} <= {choice.NATIVE_SLACK}) ? 1 : 0)")  # fmt: skip
    best = f"({builtin} == 1 ? {native} : {exact})"
    best_mem = f"({best} == 0 ? {s} : {best} == 1 ? {b} : {r})"
    approx = f"({cu} < {bl} ? 4 : 3)"
    approx_mem = f"({cu} < {bl} ? {cu} : {bl})"
    keep = (f"({best_mem} <= {approx_mem} || {best_mem} <= {choice.EXACT_PREMIUM} * {approx_mem}"
            f" || {best_mem} - {approx_mem} <= {choice.EXACT_SLACK})")  # fmt: skip
    return {"best": best, "best_mem": best_mem, "builtin": builtin, "approx": approx,
            "approx_mem": approx_mem, "pick_i": f"({keep} ? {best} : {approx})"}  # fmt: skip


def _reason() -> str:
    """:func:`setlab.tools.calc.choice.recommend`'s reason (and ``_why``'s) over the derived
    parameters ``best`` … ``approx_mem`` of :func:`_pick`, as the advisor words it."""
    names = text_lookup("best", list(EXACT))
    per_id = py_g("(best_mem / n)")
    head = f"'exact and deletable at ' + {bytes_text('best_mem')} + ' (' + {per_id} + ' B per ID)'"
    # a Redis SET is best only where it is built in and Roaring saves too little (grid())
    why = (
        f"{head} + (best == 1 ? ': the IDs fill ' + {_share('density')} + ' of their range, "
        "one bit per possible ID' : best == 2 ? ': too sparse for a plain bitmap, clustered "
        "enough for Roaring\\'s containers' : '')"
    )
    builtin = (
        f"(builtin == 1 ? '; one key built into Redis, where a Roaring bitmap (module or "
        f"client) would save only ' + {bytes_text('best_mem - c_roaring')} : '')"
    )
    approx = "(approx == 3 ? 'Bloom filter, ' : 'cuckoo filter, ') + rate_name"
    error = "(approx == 3 ? bloom_error : cuckoo_error)"
    return (
        f"pick_i == best ? (best_mem <= approx_mem ? {why} + ', smaller even than a ' + "
        f"{approx} + {builtin} : {why} + '; a ' + {approx} + ' would save only ' + "
        f"{bytes_text('best_mem - approx_mem')} + ' and err' + {builtin}) : "
        f"format({_even('best_mem / approx_mem', '0')}, '.0f') + '× smaller than the smallest "
        f"exact structure (' + {names} + ', ' + {bytes_text('best_mem')} + ', ' + {per_id} + "
        f"' B per ID), for ' + {error}"
    )


# -- the page -------------------------------------------------------------------------------------


def _axis(log_range: int) -> int:
    """Where a range is drawn: its exponent, and 2^64 one step past 2^32."""
    return HASHED_AT if log_range == 64 else log_range


def _data(s: Settings) -> dict[str, Any] | None:
    """``setlab calc density``'s JSON at a setting of the controls (None when the IDs outnumber
    the values of their range)."""
    return _calc(round(s["n"]), round(s["logrange"]), s["p"])


@cache
def _calc(count: int, log_range: int, p: float) -> dict[str, Any] | None:
    universe = 2**log_range
    return None if count > universe else density.density(count, universe, p).data


def _per_id(structure: str) -> Any:
    def model(s: Settings) -> float:
        data = _data(s)
        value = None if data is None else data["bytes_per_id"][structure]
        return math.nan if value is None else value

    return model


def _said(field: str) -> Any:
    """The CLI's ``pick`` or ``reason`` at a setting ("" where the IDs outnumber the range)."""

    def model(s: Settings) -> str:
        data = _data(s)
        return "" if data is None else data[field]

    return model


def _pick_bytes(s: Settings) -> float:
    data = _data(s)
    return math.nan if data is None else data["pick_bytes"]


def _derived() -> dict[str, str]:
    """The grid as array parameters, the setting's prices looked up in them, and the advisor's
    steps (:func:`_pick`)."""
    g, cells = grid(), len(LOG_RANGES)
    derived = {"counts": _array(list(COUNTS)), "rates": _array(list(RATES))}
    derived |= {f"a_{SHORT[name]}": _array(g[name]) for name in EXACT}
    derived |= {f"a_{SHORT[name]}": _array(g[name]) for name in (*FILTERS, "HyperLogLog")}
    derived |= {f"a_{SHORT[f]}_error": _texts(g[f"{f} error"]) for f in FILTERS}
    derived["cell"] = f"{_NI} * {cells} + {_RI}"
    derived["fcell"] = f"{_NI} * {len(RATES)} + {_PI}"
    derived |= {f"c_{SHORT[name]}": f"a_{SHORT[name]}[cell]" for name in EXACT}
    derived |= {f"c_{SHORT[name]}": f"a_{SHORT[name]}[fcell]" for name in FILTERS}
    derived["c_hll"] = f"a_hll[{_NI}]"
    derived |= {f"{SHORT[f]}_error": f"a_{SHORT[f]}_error[fcell]" for f in FILTERS}
    derived["rate_name"] = text_lookup(_PI, [format_rate(p) for p in RATES])
    derived["range"] = "pow(2, logrange)"
    derived["density"] = "n / range"
    derived |= _pick({name: f"c_{SHORT[name]}" for name in STRUCTURES})
    return derived


def _chart() -> alt.LayerChart:
    cells = len(LOG_RANGES)
    base = alt.Chart(alt.Data(values=[{"ri": i, "lr": lr, "x": _axis(lr)}
                                      for i, lr in enumerate(LOG_RANGES)]))  # fmt: skip
    # the setting's count and rate at every range: the exact structures' prices per range, the
    # filters' and the HyperLogLog's the same at every range
    prices = {name: (f"datum.{SHORT[name]}" if name in EXACT else f"c_{SHORT[name]}")
              for name in STRUCTURES}  # fmt: skip
    at_range = base.transform_calculate(
        **{SHORT[name]: f"a_{SHORT[name]}[{_NI} * {cells} + datum.ri]" for name in EXACT}
    ).transform_calculate(pick=_pick(prices)["pick_i"])
    labels = {SHORT[name]: name for name in STRUCTURES}
    names = "{" + ", ".join(f"'{k}': '{v}'" for k, v in labels.items()) + "}"
    long = (
        at_range.transform_calculate(**{SHORT[n]: prices[n] for n in STRUCTURES if n not in EXACT})
        .transform_calculate(**{f"per_{SHORT[n]}": f"datum.{SHORT[n]} / n" for n in STRUCTURES})
        .transform_fold([f"per_{SHORT[n]}" for n in STRUCTURES], as_=["key", "bytes_per_id"])
        .transform_calculate(structure=f"{names}[slice(datum.key, 4)]")
        .transform_filter(
            "n <= pow(2, datum.lr) && isValid(datum.bytes_per_id) && !isNaN(datum.bytes_per_id)"
        )
    )
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
    lines = long.mark_line(point=True).encode(x=x, y=y, color=colour)
    picked = long.transform_filter(
        f"datum.key == 'per_' + {text_lookup('datum.pick', [SHORT[s] for s in STRUCTURES[:5]])}"
    )
    picks = (
        picked.transform_calculate(x0="datum.x - 0.5", x1="datum.x + 0.5")
        .mark_rect(opacity=0.15)
        .encode(x=alt.X("x0:Q", title=X_TITLE, scale=domain), x2="x1:Q",
                color=alt.Color("structure:N", legend=None))
    )  # fmt: skip
    here = (
        alt.Chart(alt.Data(values=[{}]))
        .transform_calculate(x=f"logrange == 64 ? {HASHED_AT} : logrange")
        .mark_rule(strokeDash=[4, 3], color="#888888")
        .encode(x=x)
    )
    label = (
        picked.transform_filter("datum.lr == logrange")
        .transform_calculate(label="'pick at 2^' + datum.lr + ': ' + datum.structure")
        .mark_text(align="left", baseline="top", fontWeight="bold", fontSize=12)
        .encode(x=alt.value(6), y=alt.value(6), text="label:N", color=colour)
    )
    return alt.layer(lines, picks, here, label).properties(
        width="container", height=300,
        title="Bytes per ID by range (shaded: the pick)",
    )  # fmt: skip


def _check_count(v: float) -> None:
    """``setlab calc density -n``: a count of at least 1, at most the advisor's 2^40."""
    from setlab.core.quantities import parse_count
    from setlab.core.validate import check_int

    check_int("count", parse_count(str(v), "count"), 1, 2**40)


def _check_rate(v: float) -> None:
    from setlab.core.quantities import parse_probability

    parse_probability(repr(v), "p")


def figure() -> Widget:
    """The interactive figure: IDs, range and rate → bytes per ID of every structure, the pick,
    why, and what it takes."""
    readouts = [
        Readout("range_values", "range (values)", "range", lambda s: 2 ** round(s["logrange"]),
                kind="int"),
        Readout("dens", "density", "density", lambda s: s["n"] / 2 ** s["logrange"],
                kind="rate"),
        Readout("pick", "the advisor's pick",
                f"n > range ? '' : {text_lookup('pick_i', list(STRUCTURES[:5]))}",
                _said("pick"), kind="text"),
        Readout("pick_bytes", "it takes",
                "n > range ? NaN : pick_i == best ? best_mem : approx_mem", _pick_bytes,
                kind="bytes"),
        Readout("reason", "why", f"n > range ? '' : {_reason()}", _said("reason"), kind="text"),
    ]  # fmt: skip
    readouts += [
        Readout(
            SHORT[name],
            name,
            f"n > range ? NaN : c_{SHORT[name]} / n",
            _per_id(name),
            unit="B per ID",
        )
        for name in STRUCTURES
    ]
    sets, at_scale = widget_parts("pick_bytes", _pick_bytes)
    return Widget(
        "bytes-per-id", "Bytes per ID: every structure for your IDs", _chart(),
        controls=[
            Control("n", "IDs", DEFAULTS["n"], COUNTS[0], COUNTS[-1], log=True, integer=True,
                    grid=COUNTS, grid_text=COUNTS_TEXT, check=_check_count, cli=(1, 2**40),
                    unit="(10^3 … 10^9: 8e8 is 8 × 10^8)"),
            Control("logrange", "ID range, log2", DEFAULTS["logrange"], LOG_RANGES[0],
                    LOG_RANGES[-1], step=1, integer=True, grid=LOG_RANGES,
                    check=lambda v: density.check_universe(2 ** int(v)),
                    unit="(2^10 … 2^32 values, or 2^64: hashed IDs)"),
            Control("p", "filters' false-positive rate", DEFAULTS["p"], RATES[0], RATES[-1],
                    log=True, grid=RATES, grid_text=", ".join(format_rate(p) for p in RATES),
                    check=_check_rate, cli=(math.nextafter(0.0, 1.0), math.nextafter(1.0, 0.0)),
                    unit="(0.0001 … 0.05: 0.01 is 1%)"),
            sets,
        ],
        readouts=readouts + at_scale,
        caption="Choose how many IDs you hold, the range they are spread over (uniformly) and "
        "the false-positive rate a filter may have. Dense IDs are cheapest as a plain bitmap, one "
        "bit per possible ID; as they spread out, Roaring's containers win, and when the range "
        "is far larger than the IDs a Bloom filter costs less than any exact structure; 2^64 is "
        "IDs hashed to 64 bits, where no plain bitmap can go. HyperLogLog only counts. A dash: "
        "more IDs than values in the range. Set how many such sets you keep for the total the "
        "pick takes.",
        source="the advisor's prices (setlab.tools.advise over setlab.models) computed in Python "
        "at build time for every count, range and rate the controls offer, its rule for the pick "
        "run in your browser; setlab calc density prints the same, for any count and rate",
        settings=list(SETTINGS),
        derived=_derived(),
        commands=[Command("the same in a terminal:",
                          "setlab calc density -n {n} --range {range_values} -p {p} "
                          "--sets {sets}")],
    )  # fmt: skip
