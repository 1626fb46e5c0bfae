"""Chapter cuckoo-kick-chains, interactive: how full a cuckoo filter gets before its first failed
insert, for the reader's bucket size, fingerprint bits and table size.

No formula gives that load, so the figure looks it up in the stored simulation grid
(:class:`setlab.models.cuckoo_load.LoadGrid`: random victims, 500 kicks, three seeded fills per
cell; ``reference/measure_cuckoo_load_grid.py`` regenerates it). The grid goes into the page as an
array the browser indexes; bits per item (``f / load``) and the rate at that load are the chapter's
formulas, evaluated in the browser and checked against ``setlab calc cuckoo-load`` by the tests.
"""

from __future__ import annotations

import math
from typing import Any

from setlab.models.cuckoo_load import BUCKET_SIZES, FINGERPRINT_BITS, LOG_SLOTS, LoadGrid
from setlab.render.vega_lite import alt
from setlab.render.widgets import Command, Control, Readout, Settings, Widget
from setlab.tools.calc.cuckoo_load import cuckoo_load

#: The default setting: seed 003's "12 bits" with four-slot buckets, 2^14 slots.
DEFAULTS = {"b": 4, "f": 12, "logslots": 14}
#: The text fallback's other settings: RedisBloom's b = 2 with its 8-bit fingerprints, b = 1,
#: short fingerprints, b = 8 in the largest table.
SETTINGS = ({"b": 2, "f": 8, "logslots": 18}, {"b": 1, "f": 16, "logslots": 10},
            {"b": 4, "f": 4, "logslots": 16}, {"b": 8, "f": 16, "logslots": 18})  # fmt: skip


def grid_bucket(b: float) -> int:
    """The grid's bucket size nearest ``b`` in log scale (1, 2, 4 or 8)."""
    return 2 ** min(3, max(0, math.floor(math.log2(b) + 0.5)))


def grid_log_slots(value: float) -> int:
    """The grid's table size (log2 of the slots: 10, 12, … 18) nearest ``value``."""
    return min(LOG_SLOTS[-1], max(LOG_SLOTS[0], 2 * math.floor(value / 2 + 0.5)))


def _data(s: Settings) -> dict[str, Any]:
    """``setlab calc cuckoo-load``'s JSON at a setting of the controls."""
    setting = (grid_bucket(s["b"]), round(s["f"]), 2 ** grid_log_slots(s["logslots"]))
    return cuckoo_load(*setting).data


def _loads_expr(grid: LoadGrid) -> str:
    """The grid's mean loads as one array literal, indexed by (b, f, log slots)."""
    values = [
        grid.cell(b, f, ls).load for b in BUCKET_SIZES for f in FINGERPRINT_BITS for ls in LOG_SLOTS
    ]
    return "[" + ",".join(repr(v) for v in values) + "]"


def _chart(grid: LoadGrid) -> alt.LayerChart:
    rows = [{"b": c.bucket_size, "f": c.fingerprint_bits, "ls": c.log_slots, "load": c.load,
             "low": min(c.loads), "high": max(c.loads)} for c in grid.cells]  # fmt: skip
    base = alt.Chart(alt.Data(values=rows)).transform_filter("datum.ls == ls")
    x = alt.X("f:Q", title="fingerprint bits f", scale=alt.Scale(domain=[4, 16]),
              axis=alt.Axis(format="d", tickMinStep=1))  # fmt: skip
    y = alt.Y("load:Q", title="load at the first failed insert", axis=alt.Axis(format="%"),
              scale=alt.Scale(domain=[0, 1]))  # fmt: skip
    colour = alt.Color(
        "b:O", title="bucket size b", legend=alt.Legend(orient="bottom", direction="horizontal"),
        scale=alt.Scale(domain=list(BUCKET_SIZES), range=["#CC79A7", "#009E73", "#0072B2",
                                                          "#56B4E9"]),
    )  # fmt: skip
    lines = base.mark_line(point=True).encode(x=x, y=y, color=colour)
    band = base.mark_errorbar().encode(x=x, y=alt.Y("low:Q", title=""), y2="high:Q", color=colour)
    chosen = (
        base.transform_filter("datum.b == cb && datum.f == f")
        .mark_point(size=220, shape="diamond", filled=False, strokeWidth=2.5)
        .encode(x=x, y=y, color=alt.value("#E69F00"))
    )
    return alt.layer(band, lines, chosen).properties(
        width="container", height=260, title="How full before the first failure (simulated)"
    )


def figure() -> Widget:
    """The interactive figure: bucket size, fingerprint bits and table size → first-failure load,
    bits per item and false-positive rate."""
    grid = LoadGrid.load()
    index = f"(indexof([1,2,4,8], cb) * {len(FINGERPRINT_BITS)} + (f - 4)) * {len(LOG_SLOTS)}"
    index += " + (ls - 10) / 2"
    return Widget(
        "cuckoo-load", "Cuckoo filter: how full before the first failed insert", _chart(grid),
        controls=[
            Control("b", "bucket size b", DEFAULTS["b"], 1, 8, step=1, integer=True,
                    unit="slots (1, 2, 4, 8)", grid=BUCKET_SIZES,
                    check=lambda v: grid.cell(v, DEFAULTS["f"], DEFAULTS["logslots"])),
            Control("f", "fingerprint bits f", DEFAULTS["f"], 4, 16, step=1, integer=True,
                    unit="bits", grid=FINGERPRINT_BITS,
                    check=lambda v: grid.cell(DEFAULTS["b"], v, DEFAULTS["logslots"])),
            Control("logslots", "table size, log2 slots", DEFAULTS["logslots"], 10, 18, step=2,
                    integer=True, unit="(10 … 18)", grid=LOG_SLOTS,
                    check=lambda v: grid.cell(DEFAULTS["b"], DEFAULTS["f"], v)),
        ],
        readouts=[
            Readout("cb", "bucket size b", "pow(2, clamp(round(log(b) / LN2), 0, 3))",
                    lambda s: grid_bucket(s["b"]), kind="int"),
            Readout("ls", "log2 slots", "clamp(2 * round(logslots / 2), 10, 18)",
                    lambda s: grid_log_slots(s["logslots"]), kind="int"),
            Readout("slots", "slots", "pow(2, ls)", lambda s: _data(s)["slots"], kind="int"),
            Readout("load", "first failure at load", f"{_loads_expr(grid)}[{index}]",
                    lambda s: _data(s)["first_failure_load"], kind="percent"),
            Readout("bits", "bits per item", "f / load", lambda s: _data(s)["bits_per_item"]),
            Readout("fpr", "false-positive rate there",
                    "1 - pow(1 - 1 / (pow(2, f) - 1), 2 * cb * load)",
                    lambda s: _data(s)["fpr"], kind="rate"),
        ],
        caption="Move the bucket size, fingerprint length and table size: the diamond is your "
        "filter. Four-slot buckets fill to about 95% before an insert fails; one-slot buckets "
        "stop near half. Short fingerprints give few alternate buckets (i2 = i1 xor H(fp)), so "
        "chains loop and fail sooner — in small buckets and big tables most. Bars span the "
        "three seeded fills.",
        source="a grid simulated in Python with setlab.models.cuckoo (random victims, 500 kicks, "
        "three seeds per cell, stored in the package), looked up by the browser; bits per item "
        "and the rate are formulas; setlab calc cuckoo-load prints the same",
        settings=list(SETTINGS),
        commands=[Command("the same in a terminal:",
                          "setlab calc cuckoo-load -b {b} -f {f} --slots {slots}")],
    )  # fmt: skip
