"""The cuckoo chapter's first-failure load as a distribution: the values its figures quote and the
figure that shows the spread.

The load at a cuckoo filter's first failed insert depends on the table's size and on the item
stream, so the chapter quotes it as a median and a range over streams at a stated size
(:data:`AT_LOG_SLOTS`), read from the stored run of RedisBloom's module
(:class:`setlab.lab.full_scale.cuckoo_walls.CuckooWallsReference`,
``reference/measure_cuckoo_walls.py``), with the paper's rules (random victims, 16-bit fingerprints)
simulated beside it at small sizes. The chapter module (:mod:`setlab.chapters.cuckoo_kick_chains`)
registers the figures.
"""

from __future__ import annotations

from functools import cache

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from setlab.core.figure_cache import kept
from setlab.lab.full_scale.cuckoo_walls import CuckooWallsReference, WallFill, stored
from setlab.models import cuckoo
from setlab.models.cuckoo_walls import Spread, simulated_first_failure
from setlab.render.plots import PALETTE, describe, new_figure

#: The size every quoted spread is stated at: 2^20 slots (1 MiB of 8-bit slots in RedisBloom).
AT_LOG_SLOTS = 20
#: Bucket sizes and MAXITERATIONS of the stored grid.
BUCKETS, ITERATIONS = (1, 2, 4), (20, 500)
#: The paper's rules, simulated at build time: sizes (log2 slots) and streams.
SIM_LOG_SLOTS, SIM_STREAMS = (12, 14, 16), 5
#: Seed 003's volume of inserts.
SEED_INSERTS = 120_000_000


def walls() -> CuckooWallsReference:
    """The stored run (read once)."""
    return stored()


def source_text() -> str:
    """The stored run's label with the RedisBloom version it measured."""
    run = walls().run
    module = run.modules.get("bf")
    return f"{run.label}, RedisBloom {module}" if module else run.label


def first_fail(bucket_size: int, max_iterations: int, log_slots: int = AT_LOG_SLOTS) -> Spread:
    """The module's first "full" over streams at ``2^log_slots`` slots (loads)."""
    return walls().first_fail(log_slots, bucket_size, max_iterations)


def reach(bucket_size: int, max_iterations: int, log_slots: int = AT_LOG_SLOTS) -> Spread:
    """Load at which the module's refusals reach 0.03% of the attempts, over streams."""
    return walls().reach(log_slots, bucket_size, max_iterations)


def size_text(log_slots: int = AT_LOG_SLOTS) -> str:
    """``"2^20 slots, 10 streams"``: the size and how many streams a spread is over."""
    streams = len(walls().fills(log_slots, 2, 20))
    return f"2^{log_slots} slots, {streams} streams"


@cache
@kept("cuckoo-walls-simulated")
def simulated(bucket_size: int, log_slots: int) -> Spread:
    """The paper's rules (random victims, 16-bit fingerprints, 500 kicks) over
    :data:`SIM_STREAMS` streams at ``2^log_slots`` slots."""
    return Spread.of(simulated_first_failure(log_slots, bucket_size, s) for s in range(SIM_STREAMS))


def seed_fill(bucket_size: int = 4, max_iterations: int = 500) -> WallFill:
    """The module at seed 003's size, one stream: ``CF.RESERVE key 1.2e8 BUCKETSIZE 4
    MAXITERATIONS 500`` (2^27 slots) run through the seed's 1.2 × 10^8 inserts, or RedisBloom's
    default ``BUCKETSIZE 2 MAXITERATIONS 20`` (also 2^27 slots) up to its first refusal."""
    return walls().at_seed_scale(bucket_size, max_iterations)


def seed_failures() -> int:
    """Refused inserts among the seed's first 1.2 × 10^8 (the stored fill counts per million)."""
    return seed_fill().failures_within(SEED_INSERTS)


def seed_load() -> float:
    """Load of 1.2 × 10^8 items in the 2^27-slot filter ``CF.RESERVE key 1.2e8 BUCKETSIZE 4``
    makes (a fraction)."""
    return SEED_INSERTS / seed_fill().marks.slots


def plot_walls() -> Figure:
    """First-failure load against table size per bucket size: the module's median and range over
    streams (MAXITERATIONS 20 and 500), the seed-scale fill, the paper's rules simulated, and the
    paper's figures."""
    ref = walls()
    sizes = ref.sizes()
    fig, axes = new_figure(ncols=2, width=7.5, height=4.8)
    right = max([sizes[-1], *(f.log_slots for f in ref.seed_scale)]) + 2
    for ax, iterations in zip(axes, ITERATIONS, strict=True):
        for colour, b in zip(PALETTE, BUCKETS, strict=False):
            spreads = [ref.first_fail(k, b, iterations) for k in sizes]
            ax.fill_between(sizes, [s.low for s in spreads], [s.high for s in spreads],
                            color=colour, alpha=0.25, linewidth=0)  # fmt: skip
            ax.plot(sizes, [s.median for s in spreads], "o-", color=colour, ms=3.5)
            if iterations == 500:
                sim = [simulated(b, k) for k in SIM_LOG_SLOTS]
                ax.plot(SIM_LOG_SLOTS, [s.median for s in sim], "x--", color=colour, ms=6)
                ax.plot([right], [cuckoo.PAPER_LOAD_FACTORS[b]], "*", color=colour,
                        ms=11, markeredgecolor="black")  # fmt: skip
        for fill in ref.seed_scale:
            if fill.max_iterations == iterations:
                ax.plot([fill.log_slots], [fill.marks.first_fail_load], "D", ms=7,
                        color=PALETTE[BUCKETS.index(fill.bucket_size)],
                        markeredgecolor="black")  # fmt: skip
        ticks = sorted({*sizes[::4], *(f.log_slots for f in ref.seed_scale)})
        ax.set_xticks(ticks, [f"2^{k}" for k in ticks])
        ax.set_xticks(sizes, minor=True)
        ax.set(ylim=(0.1, 1.0), xlabel="slots in the table", title=f"MAXITERATIONS {iterations}")
    axes[0].set_ylabel("load at the first failed insert")
    handles = [Line2D([], [], color=c, marker="o", ms=4, label=f"b = {b}")
               for c, b in zip(PALETTE, BUCKETS, strict=False)]  # fmt: skip
    handles += [
        Patch(color="grey", alpha=0.35, label="module: median, range over streams"),
        Line2D([], [], color="grey", ls="--", marker="x", label="paper's rules, simulated"),
        Line2D(
            [],
            [],
            color="grey",
            ls="",
            marker="D",
            markeredgecolor="black",
            label="module at seed 003's size",
        ),
        Line2D(
            [],
            [],
            color="grey",
            ls="",
            marker="*",
            ms=10,
            markeredgecolor="black",
            label="paper (Fan et al. 2014)",
        ),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=9)
    fig.suptitle("RedisBloom's first 'full' is a spread, and it drifts with the table's size")
    return describe(
        fig,
        "With b = 4 and 500 iterations RedisBloom first fails near 96% at every size; with one- "
        "or two-slot buckets, or 20 iterations, the first failure comes at a lower load the "
        "bigger the table, and streams of one size lie tens of points apart.",
    )
