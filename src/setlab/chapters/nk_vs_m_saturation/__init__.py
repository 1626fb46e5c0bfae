"""Chapter nk-vs-m-saturation: hash count, fill ratio and overfill (seed 002 §6–7, seed 003 坑一).

The seed constants of seed 002's container plan and fix and of seed 003's sizing, the chapter's
figures (formulas of :mod:`setlab.models.bloom` and seeded simulations of
:mod:`setlab.models.bloom_sim`, the same on every backend) and its claims. The page glues the
figures; its cells call the simulation functions here with the reader's ``SETLAB_SCALE``, and
at scale 1 print exactly the figures the prose shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from matplotlib.figure import Figure

from setlab.chapters import open_page
from setlab.chapters.nk_vs_m_saturation import claims
from setlab.core.figure_cache import kept
from setlab.core.formats import format_bytes, format_count, format_rate
from setlab.lab.backend import Lab
from setlab.lab.full_scale.redisbloom import FullScale003, FullScaleRow
from setlab.models import bloom, bloom_sim
from setlab.models.bloom import LN2
from setlab.models.redisbloom import ChainLayout
from setlab.models.seeds import (
    SEED_002_BITS,
    SEED_002_FIX_CONTAINERS,
    SEED_002_FIX_K,
    SEED_002_PLAN_CONTAINERS,
    SEED_002_PLAN_K,
    SEED_002_PLANNED,
    SEED_002_TARGET,
    seed_002_fix_rate,
)
from setlab.models.seeds import SEED_002_ITEMS as SEED_002_REAL
from setlab.render.claims import Figures
from setlab.render.plots import count_axis, describe, legend_below, new_figure, share_axis

FIGURES = Figures("nk-vs-m-saturation")

# Seed 002's containers (§6) and its fix (§7) are stated in setlab.models.seeds: bloom-basics and
# sharded-bloom quote them too.

# -- seed 003: one filter, sized, then overfilled (坑一) ----------------------------------------

#: Items and rate of seed 003's sizing; the capacity of its first version and the load it got.
SEED_003_ITEMS, SEED_003_P = 1.2e8, 0.01
SEED_003_SIZED, SEED_003_FILLED, SEED_003_K = 1e8, 2e8, 7

#: Containers simulated out of seed 002's layout (2^6 = 64 keys, each item routed by its top
#: hash bits, as in the real thing).
SIM_SHARD_BITS = 6


def start() -> Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


def per_plan_container() -> int:
    """Items per container in seed 002's plan: 2 × 10^9 over 2^16 containers (about 30 thousand)."""
    return round(SEED_002_PLANNED / SEED_002_PLAN_CONTAINERS)


# -- the simulations (the page calls them with its scale; the figures use the defaults) -----------


@dataclass(frozen=True)
class Plan:
    """Seed 002's plan in one container: load, fill, rates by the formula and by simulation."""

    per_container: int
    fill: float  #: fraction of bits set
    formula: float  #: mean false-positive rate over the containers (a fraction)
    simulated: float  #: measured on a 64-container slice
    best_k: int  #: the whole k with the lowest rate at this load


@cache
@kept("nk-plan")
def plan(queries: int = 200_000) -> Plan:
    """Seed 002's plan (2^17-bit containers, k = 15, 2 × 10^9 items over 2^16 of them), on a
    slice of 64 containers filled to the planned load; ``queries`` fresh non-members."""
    m, k, per = SEED_002_BITS, SEED_002_PLAN_K, per_plan_container()
    layout = bloom_sim.BloomLayout(m, k, shard_bits=SIM_SHARD_BITS)
    total = per * layout.shards
    simulated = bloom_sim.simulate_fpr(m, k, total, queries, seed=1, shard_bits=SIM_SHARD_BITS)
    return Plan(
        per, float(bloom.fill_ratio(per, m, k)), layout.expected_fpr(total), simulated,
        bloom.optimal_k(m, per),
    )  # fmt: skip


@dataclass(frozen=True)
class FixRow:
    """Seed 002's fix (2^17 containers, k = 10) at one total load."""

    total: float  #: items over all 2^17 containers
    per_container: float
    formula: float  #: mean rate over the containers (binomial loads; a fraction)
    simulated: float  #: measured on a 64-container slice
    best_k: int  #: the best whole k for this load


@cache
def fix(queries: int = 2_000_000) -> tuple[FixRow, FixRow]:
    """The fix at the planned 2 × 10^9 and at the real 8 × 10^8 items (in that order)."""
    m, k = SEED_002_BITS, SEED_002_FIX_K
    rows = []
    for total in (SEED_002_PLANNED, SEED_002_REAL):
        per = total / SEED_002_FIX_CONTAINERS
        items = round(per * 2**SIM_SHARD_BITS)
        simulated = bloom_sim.simulate_fpr(m, k, items, queries, seed=7, shard_bits=SIM_SHARD_BITS)
        formula = seed_002_fix_rate(total)
        rows.append(FixRow(total, per, formula, simulated, bloom.optimal_k(m, per)))
    return rows[0], rows[1]


@dataclass(frozen=True)
class Overfill:
    """Seed 003's overfill simulated at a smaller scale (the rate depends on n/m and k only)."""

    capacity: int  #: items the small filter is sized for at 1%
    bits: int  #: its m
    simulated: float  #: measured rate after twice its capacity


@cache
def overfill(capacity: int = 1_000_000, queries: int = 200_000) -> Overfill:
    """A filter sized for ``capacity`` items at 1%, filled with twice that, k = 7: measured."""
    m = bloom.optimal_m(capacity, SEED_003_P)
    simulated = bloom_sim.simulate_fpr(m, SEED_003_K, 2 * capacity, queries, seed=3)
    return Overfill(capacity, m, simulated)


def seed_003_sizing() -> bloom.Sizing:
    """Seed 003's filter: 1.2 × 10^8 items at 1%."""
    return bloom.size_for(SEED_003_ITEMS, SEED_003_P)


def overfill_bits() -> int:
    """Bits of seed 003's first version, sized for 10^8 items at 1%."""
    return bloom.optimal_m(SEED_003_SIZED, SEED_003_P)


# -- figures: the rule of thumb ------------------------------------------------------------------

_RULE_FILL = -math.expm1(-1.0)  # the fill at load k·n/m = 1

FIGURES.add("nk-fill-at-rule", lambda: format_rate(_RULE_FILL))
FIGURES.add("nk-rule-p10", lambda: format_rate(_RULE_FILL**10))
FIGURES.add("nk-rule-p15", lambda: format_rate(_RULE_FILL**15))
FIGURES.add("nk-best-load", lambda: f"{LN2:.2f}")

# -- figures: seed 002's plan --------------------------------------------------------------------

FIGURES.add("nk-plan-n", lambda: format_count(plan().per_container))
FIGURES.add("nk-plan-fill", lambda: format_rate(plan().fill))
FIGURES.add("nk-plan-fpr", lambda: format_rate(plan().formula))
FIGURES.add("nk-plan-sim", lambda: format_rate(plan().simulated))
FIGURES.add("nk-plan-bestk", lambda: str(plan().best_k))
FIGURES.add("nk-plan-ratio", lambda: f"{SEED_002_BITS / plan().per_container:.1f}")
FIGURES.add("nk-plan-load", lambda: f"{SEED_002_PLAN_K * plan().per_container / SEED_002_BITS:.1f}")
FIGURES.add(
    "nk-plan-bestp",
    lambda: format_rate(bloom.fpr(plan().per_container, SEED_002_BITS, plan().best_k)),
)
FIGURES.add(
    "nk-bits-needed",
    lambda: format_count(bloom.optimal_m(plan().per_container, SEED_002_TARGET)),
)
FIGURES.add(
    "nk-k-for-8e8",
    lambda: str(bloom.optimal_k(SEED_002_FIX_CONTAINERS * SEED_002_BITS, SEED_002_REAL)),
)
FIGURES.add(
    "nk-old-layout-8e8",
    lambda: format_rate(
        bloom.sharded_fpr(SEED_002_REAL, SEED_002_PLAN_CONTAINERS, SEED_002_BITS, SEED_002_PLAN_K)
    ),
)

# -- figures: seed 002's fix ---------------------------------------------------------------------

FIGURES.add("nk-fix-bytes", lambda: format_bytes(SEED_002_FIX_CONTAINERS * SEED_002_BITS / 8))
FIGURES.add("nk-fix-2e9", lambda: format_rate(fix()[0].formula))
FIGURES.add("nk-fix-2e9-sim", lambda: format_rate(fix()[0].simulated))
FIGURES.add("nk-fix-8e8", lambda: format_rate(fix()[1].formula))
FIGURES.add("nk-fix-8e8-sim", lambda: format_rate(fix()[1].simulated))
FIGURES.add("nk-fix-2e9-over", lambda: f"{fix()[0].formula / SEED_002_TARGET:.0f}×")
FIGURES.add("nk-fix-8e8-better", lambda: f"{SEED_002_TARGET / fix()[1].formula:.0f}×")
FIGURES.add("nk-fix-2e9-bestk", lambda: str(fix()[0].best_k))
FIGURES.add(
    "nk-fix-2e9-bestp",
    lambda: format_rate(bloom.fpr(fix()[0].per_container, SEED_002_BITS, fix()[0].best_k)),
)
FIGURES.add(
    "nk-need-2e9", lambda: format_bytes(bloom.optimal_m(SEED_002_PLANNED, SEED_002_TARGET) / 8)
)

# -- figures: seed 003 ---------------------------------------------------------------------------


def _full_003() -> FullScaleRow:
    return FullScale003.load().row("seed-sizing")


FIGURES.add("nk-003-m", lambda: f"{seed_003_sizing().m:.3g}")
FIGURES.add("nk-003-bytes", lambda: format_bytes(seed_003_sizing().bytes, 4))
FIGURES.add("nk-003-bpi", lambda: f"{seed_003_sizing().bits_per_item:.2f}")
FIGURES.add("nk-003-kreal", lambda: f"{seed_003_sizing().m / seed_003_sizing().n * LN2:.2f}")
FIGURES.add("nk-003-k", lambda: str(seed_003_sizing().k))
FIGURES.add("nk-003-p", lambda: format_rate(seed_003_sizing().achieved_fpr))
# measured at full scale: RedisBloom's BF.INFO Size and FPR for BF.RESERVE 0.01 1.2e8 NONSCALING
# with 1.2 × 10^8 items (reference run of reference/measure_full_scale_003.py)
FIGURES.add("nk-003-measured", lambda: format_bytes(_full_003().info_size, 4))
FIGURES.add("nk-003-measured-fpr", lambda: format_rate(_full_003().fpr_measured))
# what the seed's BF.RESERVE 0.01 1.2e8 allocates with the module's default expansion: its first
# sub-filter is built for half the rate (ERROR_TIGHTENING_RATIO), so it is bigger (model)
FIGURES.add(
    "nk-003-default",
    lambda: format_bytes(ChainLayout(SEED_003_P, int(SEED_003_ITEMS)).memory(), 4),
)
FIGURES.add(
    "nk-003-default-rate",
    lambda: format_rate(ChainLayout(SEED_003_P, int(SEED_003_ITEMS)).sub_filter(0).error),
)
FIGURES.add("nk-003-lb", lambda: f"{bloom.bits_per_item_lower_bound(SEED_003_P):.2f}")
FIGURES.add(
    "nk-003-over", lambda: format_rate(bloom.fpr(SEED_003_FILLED, overfill_bits(), SEED_003_K))
)
# the same overfill in RedisBloom with its defaults: the chain adds a sub-filter instead
FIGURES.add(
    "nk-003-over-default",
    lambda: format_rate(ChainLayout(SEED_003_P, int(SEED_003_SIZED)).expected_fpr(SEED_003_FILLED)),
)
FIGURES.add(
    "nk-003-over-default-filters",
    lambda: str(ChainLayout(SEED_003_P, int(SEED_003_SIZED)).filters_for(int(SEED_003_FILLED))),
)
FIGURES.add("nk-003-over-sim", lambda: format_rate(overfill().simulated))
FIGURES.add("nk-003-over-ratio", lambda: f"{overfill_bits() / SEED_003_FILLED:.2f}")
FIGURES.add("nk-003-scale", lambda: format_count(overfill().capacity))
FIGURES.add(
    "nk-over-15",
    lambda: format_rate(bloom.fpr(1.5 * overfill().capacity, overfill().bits, SEED_003_K)),
)

# -- the rest of seed 002 §6–7 and seed 003 坑一 -----------------------------------------------

#: Seed 003 坑一: BF.RESERVE key 0.01 150000000 (seed 002 §6's "预留一倍空间 → 20 亿" is
#: :data:`SEED_002_PLANNED`).
SEED_003_RESERVE = 150_000_000
FIGURES.add("nk-doubled", lambda: f"{int(2 * SEED_002_REAL):,}")
FIGURES.add("nk-2-16", lambda: format_count(2**16))
FIGURES.add("nk-2-17", lambda: format_count(2**17))
FIGURES.add("nk-15n", lambda: format_count(15 * (SEED_002_PLANNED / 2**16)))
FIGURES.add("nk-one-in", lambda: f"{1 / bloom.fpr(SEED_003_FILLED, overfill_bits(), 7):.1f}")


def _reserve_bits() -> int:
    """Bits of a fixed filter for 1.5 × 10^8 items at 1% (the formula m = -n ln p / ln² 2)."""
    return math.ceil(-SEED_003_RESERVE * math.log(SEED_003_P) / LN2**2)


FIGURES.add(
    "nk-reserve-over",
    lambda: format_rate(bloom.fpr(SEED_003_FILLED, _reserve_bits(), SEED_003_K)),
)
FIGURES.add(
    "nk-reserve-over-default",
    lambda: format_rate(ChainLayout(SEED_003_P, SEED_003_RESERVE).expected_fpr(SEED_003_FILLED)),
)


# -- seed 002 §4–§9's sharding arithmetic ---------------------------------------------------------

#: Seed 002 §4: the worked example, 821697800 = 0x30FA1D08.
SEED_002_EXAMPLE = 821_697_800
#: Seed 002 §9: 20 hours pipelined, MULTI 50 times slower.
SEED_002_PIPE_HOURS, SEED_002_MULTI_FACTOR = 20, 50
FIGURES.add(
    "nk-hex-split",
    lambda: (
        f"{SEED_002_EXAMPLE:#X} → high {SEED_002_EXAMPLE >> 16:#X}, low "
        f"{SEED_002_EXAMPLE & 0xFFFF:#X} = {SEED_002_EXAMPLE & 0xFFFF:,}".replace("0X", "0x")
    ),
)
FIGURES.add("nk-more-keys", lambda: f"{2**17 - 2**16:,}")
FIGURES.add("nk-multi-days", lambda: f"{SEED_002_PIPE_HOURS * SEED_002_MULTI_FACTOR / 24:.0f} days")


# -- plots --------------------------------------------------------------------------------------

#: The designs of the fill-curve figure: label → (items per container or filter, bits, hashes).
DESIGNS = {
    "002 plan: 30.5k items, 2^17 bits, k=15": (2e9 / 2**16, 2**17, 15),
    "002 fix, at the planned 2e9: k=10": (2e9 / 2**17, 2**17, 10),
    "002 fix, at the real 8e8: k=10": (8e8 / 2**17, 2**17, 10),
    "003 design: 1.2e8 at 1%, k=7": (1.2e8, bloom.optimal_m(1.2e8, 0.01), 7),
    "003 overfill: 2e8 in a 1e8 filter, k=7": (2e8, bloom.optimal_m(1e8, 0.01), 7),
}


def plot_fill_curve(designs: dict[str, tuple[float, float, int]] = DESIGNS) -> Figure:
    """The fill ratio 1 − e^(−kn/m) against the load, with each design's point on it."""
    load = np.linspace(0, 4, 400)
    fig, ax = new_figure(height=4.6)
    ax.plot(load, 1 - np.exp(-load), color="black", label="fill ratio 1 − e^(−kn/m)")
    ax.axvline(np.log(2), color="grey", ls=":")
    ax.axvline(1.0, color="grey", ls="--")
    for label, (n, m, k) in designs.items():
        rate = format_rate(bloom.fpr(n, m, k))
        ax.plot(k * n / m, bloom.fill_ratio(n, m, k), "o", ms=8, label=f"{label} (p = {rate})")
    ax.set(xlabel="load k·n/m (hash values per bit)", ylabel="bits set",
           title="Every Bloom filter lives on one curve")  # fmt: skip
    share_axis(ax)
    ax.text(np.log(2) + 0.03, 0.05, "best: ln 2, half full", fontsize=9)
    ax.text(1.03, 0.15, "rule of thumb: n·k = m", fontsize=9)
    legend_below(ax, ncols=1)
    return describe(fig, "The plan sits far up the curve, past the rule of thumb.")


def plot_container_fill(m: int, queries: int) -> Figure:
    """The false-positive rate of one ``m``-bit container as it fills, for k = 3, 10 and 15:
    the formula, and a simulation with ``queries`` lookups per point."""
    loads = list(range(2000, 40_001, 2000))
    grid = np.linspace(1, 40_000, 300)
    fig, ax = new_figure(height=4.6)
    for k in (3, 10, 15):
        layout = bloom_sim.BloomLayout(m, k)
        curve = bloom_sim.simulate_fpr_curve(layout, loads, queries=queries, seed=k)
        ax.plot(grid, bloom.fpr(grid, m, k), label=f"k = {k}, formula")
        seen = [(n, r) for n, r, hits in curve if hits >= 10]
        ax.plot(*zip(*seen, strict=True), "o", ms=4, color=ax.lines[-1].get_color(),
                label=f"k = {k}, simulated")  # fmt: skip
    marks = ((2e9 / 2**16, "plan: 2e9 over 2^16"), (2e9 / 2**17, "2e9 over 2^17"),
             (8e8 / 2**17, "8e8 over 2^17"))  # fmt: skip
    for n, text in marks:
        ax.axvline(n, color="grey", ls=":")
        ax.text(n, 2e-6, " " + text, rotation=90, fontsize=9, va="bottom")
    ax.axhline(1e-3, color="black", ls="--", lw=0.8)
    ax.set(yscale="log", ylim=(1e-6, 1), xlabel="items in one 2^17-bit container",
           ylabel="false-positive rate", title="One 2^17-bit container as it fills")  # fmt: skip
    share_axis(ax)
    count_axis(ax, "x")
    legend_below(ax, ncols=3)
    return describe(fig, "At the plan's 30,500 items every k is far above one in a thousand.")


def plot_rate_against_k(ratios: dict[str, float], queries: int) -> Figure:
    """The rate against k for each bits-per-item ratio (★ = best k), with simulations (dots) of
    the first and third ratio, ``queries`` lookups each."""
    ks = np.arange(1, 21)
    sim_m = 2**20
    fig, ax = new_figure(height=4.6)
    for label, ratio in ratios.items():
        ax.plot(ks, bloom.fpr(1.0, ratio, ks), label=label)
        best = bloom.optimal_k(ratio, 1.0)
        ax.plot(best, bloom.fpr(1.0, ratio, best), "*", ms=12, color=ax.lines[-1].get_color())
    simulated = list(ratios.values())[0::2]
    for ratio in simulated:
        n = round(sim_m / ratio)
        sims = [bloom_sim.simulate_fpr(sim_m, int(k), n, queries, seed=int(k)) for k in ks]
        ax.plot(ks, sims, "o", ms=3, color="black")
    ax.set(yscale="log", xticks=ks[::2], xlabel="number of hashes k",
           ylabel="false-positive rate",
           title="For a given m/n the rate is U-shaped in k (★ = best k)")  # fmt: skip
    share_axis(ax)
    legend_below(ax)
    return describe(fig, "Each curve has one best k; more hashes past it only fill the filter.")


def plot_overfill(capacity: int, bits: int, queries: int) -> Figure:
    """A filter sized for 1% at ``capacity`` items (``bits`` bits), overfilled: the formula for
    k = 3, 7, 12 and a simulation of k = 7 (``queries`` lookups per point)."""
    over = np.linspace(0.25, 3, 200)
    fig, ax = new_figure()
    for k in (3, 7, 12):
        ax.plot(over, bloom.fpr(over * capacity, bits, k), label=f"k = {k}")
    points = [0.5, 1.0, 1.5, 2.0, 2.5]
    layout = bloom_sim.BloomLayout(bits, 7)
    curve = bloom_sim.simulate_fpr_curve(layout, [round(x * capacity) for x in points], queries,
                                         seed=11)  # fmt: skip
    ax.plot(points, [r for _, r, _ in curve], "o", color="black", label="k = 7, simulated")
    ax.axhline(0.01, color="grey", ls="--", lw=0.8)
    ax.axvline(1.5, color="grey", ls=":")
    ax.text(1.52, 2e-4, "seed 003's advice: 1.5× peak", fontsize=9)
    ax.set(yscale="log", ylim=(1e-4, 1), xlabel="items added / capacity the filter was sized for",
           ylabel="false-positive rate",
           title="A filter sized for 1% at capacity, overfilled")  # fmt: skip
    share_axis(ax)
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}×")
    ax.legend(loc="lower right")
    return describe(fig, "Past its capacity the rate climbs fast, whatever k.")


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
