"""Chapter sharded-bloom, interactive: seed 002's 8 × 10^8 items routed by hash over the reader's
number of shards, each a Bloom filter sized for the reader's per-shard capacity at 1% — and what
the fullest shard's false-positive rate becomes.

The fullest shard's load is a binomial quantile (:func:`setlab.models.bloom.worst_shard_load`)
the browser cannot compute, so it is precomputed at build time for every shard count of the slider
(:func:`setlab.models.sharded_bloom.worst_load_table`); the shard's bits, hashes and rates are the
Bloom formulas of :mod:`setlab.models.bloom`, evaluated in the browser and checked against
``setlab calc sharded-bloom`` by the tests.
"""

from __future__ import annotations

from functools import cache

from setlab.models.seeds import SEED_002_ITEMS
from setlab.models.sharded_bloom import worst_load_table
from setlab.render.vega_lite import alt
from setlab.render.widgets import Command, Control, Readout, Settings, Widget
from setlab.tools.calc.sharded_bloom import sharded_bloom

#: Seed 002's items (8 × 10^8), a whole number.
SEED_002_REAL = round(SEED_002_ITEMS)
#: The rate each shard is sized for at its capacity (seed 003's 1%).
P = 0.01
#: Shard counts of the slider: 2^0 … 2^17 (seed 002's layout is 2^17 keys).
MAX_LOG_SHARDS = 17
#: The default: seed 002's 2^17 shards, each sized for exactly the mean load.
DEFAULTS = {"logshards": 17, "capacity": round(SEED_002_REAL / 2**17)}
#: The largest capacity of the slider: about the most one Redis string (2^32 bits) holds at 1%.
MAX_CAPACITY = 400_000_000
#: The text fallback's other settings: 25% headroom; 1,024 big shards; four of the largest.
SETTINGS = ({"logshards": 17, "capacity": 7_630}, {"logshards": 10, "capacity": 800_000},
            {"logshards": 2, "capacity": 210_000_000})  # fmt: skip


def _data(s: Settings) -> dict[str, float]:
    """``setlab calc sharded-bloom``'s JSON at a setting of the controls."""
    return _calc(round(s["logshards"]), round(s["capacity"]))


@cache
def _calc(log_shards: int, capacity: int) -> dict[str, float]:
    return sharded_bloom(SEED_002_REAL, 2**log_shards, capacity, P).data


def _fpr_k(load: str, k: str) -> str:
    """``(1 - e^(-k·load/m))^k`` (:func:`setlab.models.bloom.fpr`) as a Vega expression."""
    return f"pow(1 - exp(-{k} * ({load}) / m), {k})"


def _fpr(load: str) -> str:
    """The rate of a shard holding ``load`` items, with the shard's ``k``."""
    return _fpr_k(load, "k")


def _chart() -> alt.LayerChart:
    curve = (
        alt.Chart(alt.sequence(0.01, 1.0001, 0.01, as_="t"))
        .transform_calculate(load="datum.t * xmax", rate=_fpr("datum.t * xmax"))
        .transform_filter("datum.rate >= 1e-6")
        .mark_line()
        .encode(
            x=alt.X("load:Q", title="items in a shard"),
            y=alt.Y(
                "rate:Q",
                title="false-positive rate of a shard",
                scale=alt.Scale(type="log", domain=[1e-6, 1], clamp=True),
            ),
        )
    )
    marks = (
        alt.Chart(alt.Data(values=[{"what": "mean load"}, {"what": "fullest shard"}]))
        .transform_calculate(load="datum.what == 'mean load' ? mean : worst")
        .transform_calculate(rate=_fpr("datum.load"))
        .mark_point(size=160, filled=True)
        .encode(
            x="load:Q",
            y="rate:Q",
            color=alt.Color("what:N", title=None, legend=alt.Legend(orient="bottom")),
            shape=alt.Shape("what:N", title=None),
        )
    )
    design = (
        alt.Chart(alt.Data(values=[{"rate": P}]))
        .mark_rule(strokeDash=[4, 4], color="grey")
        .encode(y="rate:Q")
    )
    # the load axis runs to twice the capacity, or past the fullest shard
    xmax = alt.param(name="xmax", expr="max(2 * capacity, 1.25 * worst)")
    return (
        alt.layer(curve, design, marks)
        .add_params(xmax)
        .properties(width="container", height=260, title="One shard's rate against its load")
    )


def _check_capacity(v: float) -> None:
    """``setlab calc sharded-bloom --capacity``, parsed as the CLI parses it."""
    from setlab.core.quantities import parse_count

    parse_count(str(v), "capacity")


def figure() -> Widget:
    """The interactive figure: shard count and per-shard capacity → the fullest shard's rate."""
    logs = tuple(range(MAX_LOG_SHARDS + 1))
    worst = [row["worst_load"] for row in worst_load_table((SEED_002_REAL,), logs)]
    n = f"{SEED_002_REAL}"
    return Widget(
        "sharded-bloom", f"Seed 002's {SEED_002_REAL:,} items over many Bloom filters",
        _chart(),
        controls=[
            Control("logshards", "shards, log2", DEFAULTS["logshards"], 0, MAX_LOG_SHARDS, step=1,
                    integer=True, unit="(2^0 … 2^17 keys)"),
            Control("capacity", "capacity per shard", DEFAULTS["capacity"], 100, MAX_CAPACITY,
                    log=True, integer=True, unit="items at 1%", check=_check_capacity,
                    cli=(1, 2**62)),
        ],
        readouts=[
            Readout("shards", "shards", "pow(2, logshards)", lambda s: _data(s)["shards"],
                    kind="int"),
            Readout("mean", "mean load", f"{n} / shards", lambda s: _data(s)["mean_load"]),
            Readout("worst", "fullest shard", f"[{','.join(map(str, worst))}][logshards]",
                    lambda s: _data(s)["worst_load"], kind="int"),
            Readout("m", "bits per shard", f"ceil(-capacity * log({P}) / (LN2 * LN2))",
                    lambda s: _data(s)["m"], kind="int"),
            Readout("k", "hashes k", f"({_fpr_k('capacity', 'kf')} <= {_fpr_k('capacity', 'kc')})"
                    " ? kf : kc", lambda s: _data(s)["k"], kind="int"),
            Readout("total", "all shards", "shards * ceil(m / 8)",
                    lambda s: _data(s)["total_bytes"], kind="bytes"),
            Readout("worstfpr", "rate of the fullest shard", _fpr("worst"),
                    lambda s: _data(s)["worst_fpr"], kind="rate"),
            Readout("meanfpr", "rate at the mean load", _fpr("mean"),
                    lambda s: _data(s)["fpr_at_mean"], kind="rate"),
        ],
        caption=f"Seed 002's {SEED_002_REAL:,} items routed by hash over a power of two of keys, "
        "each a Bloom filter sized for the capacity you choose at 1%. Sized for the mean load, "
        "the fullest shard is past its capacity and errs more than 1%; a little headroom fixes "
        "it — the smaller the shards, the more headroom they need.",
        source="Bloom formulas (setlab.models.bloom) in the browser; the fullest shard's load is "
        "the median of the maximum over routings (a binomial quantile), precomputed in Python "
        "at build time for each shard count; setlab calc sharded-bloom prints the same",
        settings=list(SETTINGS),
        # the whole k each side of (m / c) ln 2; the one with the lower rate wins (bloom.optimal_k)
        derived={"kf": "max(1, floor(m / capacity * LN2))",
                 "kc": "max(1, ceil(m / capacity * LN2))"},
        commands=[Command("the same in a terminal:",
                          f"setlab calc sharded-bloom -n {SEED_002_REAL} --shards {{shards}} "
                          "--capacity {capacity}")],
    )  # fmt: skip
