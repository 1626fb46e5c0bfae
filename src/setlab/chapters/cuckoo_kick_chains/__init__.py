"""Chapter "Cuckoo filters and kick chains" (seed 003, 坑三): its seed figures, claims, tables and
plots.

Every number the page shows is a figure here, computed once: the paper's formulas and seeded fills
of the simulator (:mod:`setlab.models.cuckoo`, 2^15 slots), RedisBloom's ``CF.*`` from its bit-exact
model (:mod:`setlab.models.redisbloom_cuckoo`) and from the stored reference runs of the module
(:class:`setlab.lab.runs.redisbloom_reference.RedisBloomReference`,
:class:`setlab.lab.full_scale.cuckoo_walls.CuckooWallsReference`). The page may draw its plots at
another ``SETLAB_SCALE`` (``log_slots`` arguments); the figures stay those of the stored sizes.

One figure, one statement: the load at a first failure is a random event, so every figure that
quotes one is a median and range over streams at a stated size (:mod:`.walls`: ``ck-rb-b2-20``
is RedisBloom's default at 2^20 slots, ``ck-wall-size`` says so), or the one fill at seed 003's
own size (``ck-seed-wall``), never one run at a convenient size.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from setlab.chapters import open_page
from setlab.chapters.cuckoo_kick_chains import claims, walls
from setlab.core.figure_cache import kept
from setlab.core.formats import format_bytes, format_count, format_rate
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, beside
from setlab.lab.runs import cuckoo as cuckoo_runs
from setlab.lab.runs.cuckoo import CuckooFill
from setlab.lab.runs.redisbloom_reference import RedisBloomReference
from setlab.models import bloom, cuckoo
from setlab.models.cuckoo import CuckooFilter, FillRecord, KickDemo
from setlab.models.redisbloom import FreshValues
from setlab.models.redisbloom_cuckoo import (
    RB_BUCKET_SIZE,
    RB_MAX_ITERATIONS,
    RedisBloomCuckoo,
    info_size,
)
from setlab.render.claims import Figures
from setlab.render.plots import new_figure

FIGURES = Figures("cuckoo-kick-chains")

#: Seed 003's failure rate and volume.
SEED_003_FAILURE_SHARE, SEED_003_INSERTS = 3e-4, 1.2e8
#: The simulated filters have 2^LOG_SLOTS slots at SETLAB_SCALE 1.
LOG_SLOTS = 15
#: The load of seed 003's "12 bits at 95%" (the paper's b = 4 wall).
SEED_LOAD = cuckoo.PAPER_LOAD_FACTORS[4]
#: Strangers for the false-positive rates (a stream disjoint from every fill's values).
STRANGERS_SEED, STRANGERS = 99, 400_000
#: Load-factor bins of the kick-chain figure.
KICK_EDGES = (0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99, 1.0)


def start() -> Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


@cache
def reference() -> RedisBloomReference:
    """The stored RedisBloom run (read once)."""
    return RedisBloomReference.load()


# -- the simulations (cached; the figures use 2^LOG_SLOTS slots) --------------------------------


#: The fills of :func:`kick_fills`, by label.
B4_500, B4_20, RB_SIM = (
    "b = 4, 500 kicks",
    "b = 4, 20 kicks",
    "RedisBloom default: b = 2, 20, round-robin",
)


@cache
def kick_fills(log_slots: int = LOG_SLOTS) -> dict[str, FillRecord]:
    """One filter of each configuration filled to the brim (seed 3): b = 4 with 500 and with 20
    kicks, and RedisBloom's defaults in the simulator (b = 2, 8-bit, 20 round-robin kicks)."""
    slots = 2**log_slots
    return {
        B4_500: cuckoo.fill(slots // 4, 4, slots, max_kicks=500, seed=3).record(),
        B4_20: cuckoo.fill(slots // 4, 4, slots, max_kicks=20, seed=3).record(),
        RB_SIM: cuckoo.fill(
            slots // 2, 2, slots, fingerprint_bits=8, max_kicks=20, victim="round-robin", seed=3
        ).record(),
    }


def _fill(label: str) -> FillRecord:
    return kick_fills()[label]


@cache
@kept("cuckoo-loop-fills")
def loop_fills(log_slots: int = LOG_SLOTS) -> dict[str, FillRecord]:
    """b = 2, 8-bit, 500 kicks, half full plus as many again (seed 5), per victim rule."""
    return {
        victim: cuckoo.fill(
            2 ** (log_slots - 2),
            2,
            2 ** (log_slots - 1),
            fingerprint_bits=8,
            max_kicks=500,
            victim=victim,
            seed=5,
        ).record()
        for victim in ("random", "round-robin")
    }


def _median_spread(victim: str) -> float:
    rec = loop_fills()[victim]
    return float(np.median(rec.spread[rec.failed]))


def strangers(count: int = STRANGERS) -> np.ndarray:
    """Values never inserted in any fill of the chapter (uint64)."""
    rng = np.random.default_rng(STRANGERS_SEED)
    return rng.integers(2**63, 2**64 - 1, size=count, dtype=np.uint64)


@cache
@kept("cuckoo-fpr-by-bits")
def fpr_by_bits(
    log_slots: int = LOG_SLOTS, queries: int = STRANGERS
) -> dict[int, tuple[float, float]]:
    """Fingerprint bits f → (measured, expected) false-positive rate of a b = 4 filter at 95%."""
    out, asked = {}, strangers(queries)
    for f in range(4, 13):
        cf = cuckoo.fill(
            2 ** (log_slots - 2), 4, int(2**log_slots * 0.95), fingerprint_bits=f, seed=f
        )
        out[f] = (cf.measured_fpr(asked), cuckoo.expected_fpr(4, f, cf.load_factor))
    return out


@dataclass(frozen=True)
class FalseDelete:
    """Deleting one false positive from a b = 4, 8-bit filter of 450 members."""

    members: np.ndarray
    pool: np.ndarray  #: strangers the impostor was picked from
    impostor: np.ndarray  #: one stranger the filter reported present
    lost: np.ndarray  #: members reported absent after deleting the impostor


@cache
def false_delete() -> FalseDelete:
    """The chapter's deletion of a false positive (deterministic)."""
    members = FreshValues(0).take(450)
    cf = CuckooFilter(128, 4, 8, seed=2)
    cf.insert(members)
    pool = FreshValues(1).take(20_000)
    impostor = pool[cf.contains(pool)][:1]
    cf.delete(impostor)
    return FalseDelete(members, pool, impostor, members[~cf.contains(members)])


def false_delete_on_module(lab: Lab) -> str:
    """:func:`false_delete` again on RedisBloom's ``CF.*`` where ``lab`` has the module (its
    members and strangers, ``CF.RESERVE`` 512 slots, ``BUCKETSIZE 4``, ``MAXITERATIONS 500``,
    ``EXPANSION 0``: :func:`setlab.lab.runs.cuckoo.cf_false_delete`), as the line the page
    prints; elsewhere a line saying the simulator is the demonstration (fakeredis's ``CF.*`` is
    pyprobables', not the module)."""
    if not lab.has_redisbloom:
        return (
            "no RedisBloom on this backend (fakeredis's CF.* is pyprobables): the simulator "
            "above is the demonstration"
        )
    deleted = false_delete()
    model = RedisBloomCuckoo(512, 4, 500, 0)
    lost = cuckoo_runs.cf_false_delete(lab, "false-delete", model, deleted.members, deleted.pool)
    return f"RedisBloom: members reported absent after deleting one impostor: {lost}"


@cache
@kept("cuckoo-model-first-full")
def model_first_full(bucket_size: int, max_iterations: int, capacity: int) -> tuple[int, int]:
    """The bit-exact model's ``EXPANSION 0`` fill with as many fresh values as slots:
    ``(index of the first -1, slots)``."""
    m = RedisBloomCuckoo(capacity, bucket_size, max_iterations, 0)
    replies = m.add(FreshValues(0).take(m.num_buckets * bucket_size))
    return int(np.flatnonzero(replies == -1)[0]), m.num_buckets * bucket_size


def rb_default_wall() -> float:
    """Median load at which RedisBloom's default ``BUCKETSIZE 2, MAXITERATIONS 20`` first reported
    full, over the stored streams at 2^20 slots (the module)."""
    return walls.first_fail(RB_BUCKET_SIZE, RB_MAX_ITERATIONS).median


# -- figures: the simulator -------------------------------------------------------------------

for _b in walls.BUCKETS:
    FIGURES.add(
        f"ck-load-b{_b}", lambda b=_b: walls.simulated(b, walls.SIM_LOG_SLOTS[-1]).percent()
    )
FIGURES.add(
    "ck-sim-size", lambda: f"2^{walls.SIM_LOG_SLOTS[-1]} slots, {walls.SIM_STREAMS} streams"
)


def _kicks_in(low: float) -> dict[str, float]:
    return {r["load_low"]: r for r in _fill(B4_500).by_load(KICK_EDGES)}[low]


FIGURES.add("ck-mean-90", lambda: f"{_kicks_in(0.9)['mean_kicks']:.1f}")
FIGURES.add("ck-mean-95", lambda: f"{_kicks_in(0.95)['mean_kicks']:.0f}")
FIGURES.add("ck-p99-95", lambda: f"{_kicks_in(0.95)['p99_kicks']:.0f}")
FIGURES.add("ck-spread-rr", lambda: f"{_median_spread('round-robin'):.0f}")
FIGURES.add("ck-spread-rnd", lambda: f"{_median_spread('random'):.0f}")
FIGURES.add("ck-fpr-f8", lambda: format_rate(fpr_by_bits()[8][0]))
FIGURES.add("ck-fpr-f8-bound", lambda: format_rate(8 / 2**8))
FIGURES.add("ck-lost", lambda: str(false_delete().lost.size))


@FIGURES.figure("ck-copies-b2")
def _copies_b2() -> str:
    twice = CuckooFilter(1024, 2, 16, seed=1)
    return str(int(np.count_nonzero(twice.insert(np.full(5, 42, dtype=np.uint64)))))


# -- figures: formulas ----------------------------------------------------------------------------

FIGURES.add("ck-seed-failures", lambda: format_count(SEED_003_FAILURE_SHARE * SEED_003_INSERTS))
FIGURES.add("ck-cuckoo-1pc", lambda: f"{cuckoo.bits_per_item(0.01, 4, SEED_LOAD):.1f}")
FIGURES.add("ck-bloom-1pc", lambda: f"{bloom.bits_per_item(0.01):.1f}")
FIGURES.add("ck-seed-eps", lambda: format_rate(cuckoo.error_for_bits(12, 4, SEED_LOAD)))
FIGURES.add(
    "ck-bloom-at-seed-eps",
    lambda: f"{bloom.bits_per_item(cuckoo.error_for_bits(12, 4, SEED_LOAD)):.1f}",
)
FIGURES.add("ck-cross", lambda: format_rate(cuckoo.break_even_error(4, SEED_LOAD), 2))
FIGURES.add("ck-default-fpr", lambda: format_rate(cuckoo.expected_fpr(2, 8, 1.0)))

# -- figures: the module (reference runs) --------------------------------------------------------

FIGURES.add("ck-source", lambda: reference().run.label)
FIGURES.add("ck-walls-source", walls.source_text)
FIGURES.add("ck-wall-size", walls.size_text)
FIGURES.add(
    "ck-model-checked",
    lambda: "{identical:,} of {fills:,}".format(**walls.walls().model_checked),
)
for _b in walls.BUCKETS:
    for _it in walls.ITERATIONS:
        FIGURES.add(f"ck-rb-b{_b}-{_it}", lambda b=_b, it=_it: walls.first_fail(b, it).percent())
for _b, _it in ((4, 500), (4, 20), (2, 20)):
    FIGURES.add(f"ck-reach-b{_b}-{_it}", lambda b=_b, it=_it: walls.reach(b, it).percent())
for _end, _at in (("small", 0), ("large", -1)):
    FIGURES.add(f"ck-wall-{_end}-size", lambda at=_at: walls.size_text(walls.walls().sizes()[at]))
    for _b, _it in ((2, 20), (4, 500)):
        FIGURES.add(
            f"ck-rb-b{_b}-{_it}-{_end}",
            lambda b=_b, it=_it, at=_at: walls.first_fail(
                b, it, walls.walls().sizes()[at]
            ).percent(),
        )
FIGURES.add("ck-seed-slots", lambda: f"2^{walls.seed_fill().log_slots}")
FIGURES.add("ck-seed-wall", lambda: f"{walls.seed_fill().marks.first_fail_load:.1%}")
FIGURES.add("ck-seed-wall-b2", lambda: f"{walls.seed_fill(2, 20).marks.first_fail_load:.1%}")
FIGURES.add("ck-seed-reach", lambda: f"{walls.seed_fill().marks.reach_load:.1%}")
FIGURES.add("ck-seed-load", lambda: f"{walls.seed_load():.1%}")
FIGURES.add("ck-seed-fails", lambda: format_count(walls.seed_failures()))
FIGURES.add("ck-rb2-bits", lambda: f"{8 / rb_default_wall():.1f}")
FIGURES.add("ck-rb2-fpr", lambda: format_rate(cuckoo.expected_fpr(2, 8, rb_default_wall())))
FIGURES.add("ck-default-filters", lambda: str(reference().cuckoo_default.info["Number of filters"]))
FIGURES.add("ck-default-size", lambda: format_bytes(reference().cuckoo_default.info["Size"]))
FIGURES.add("ck-default-one", lambda: format_bytes(info_size(reference().cuckoo_default.slots)))


# -- the module, live or stored (for live_or_reference) -------------------------------------------


def wall_table() -> str:
    """The module's first "full" per bucket size and ``MAXITERATIONS`` (Markdown; the figures
    ``ck-rb-b{b}-{it}``: median and range over streams at 2^20 slots)."""
    lines = ["| b | MAXITERATIONS 20 | MAXITERATIONS 500 |", "|---|---|---|"]
    for b in walls.BUCKETS:
        lines.append(f"| {b} | {FIGURES[f'ck-rb-b{b}-20']} | {FIGURES[f'ck-rb-b{b}-500']} |")
    return "\n".join(lines)


def fill_grid() -> list[tuple[int, int]]:
    """``(BUCKETSIZE, MAXITERATIONS)`` of the reference run's ``EXPANSION 0`` fills."""
    return [(f.bucket_size, f.max_iterations) for f in reference().cuckoo]


def measure_module(lab: Lab) -> list[CuckooFill]:
    """The reference run's ``EXPANSION 0`` fills again, on ``lab``'s RedisBloom."""
    return cuckoo_runs.fill_grid(lab, reference().cuckoo_capacity, fill_grid())


def reference_module() -> list[CuckooFill]:
    """The same fills from the reference run."""
    return list(reference().cuckoo)


def module_bytes() -> int:
    """Bytes of the largest filter :func:`measure_module` reserves."""
    capacity = reference().cuckoo_capacity
    return max(RedisBloomCuckoo(capacity, b, it, 0).memory() for b, it in fill_grid())


def live_module_text(module: Measurement[list[CuckooFill]]) -> str:
    """This run's first "full" for RedisBloom's defaults, or why nothing was measured."""

    def describe(fills: list[CuckooFill]) -> str:
        first = {(f.bucket_size, f.max_iterations): f.first_full_load for f in fills}
        return (
            f"one stream into {fills[0].slots:,} slots: the module first answered full at "
            f"{first[2, 20]:.1%} load with BUCKETSIZE 2 and {first[4, 20]:.1%} with BUCKETSIZE 4 "
            "(MAXITERATIONS 20)"
        )

    return beside(module, describe)


def module_table(module: Measurement[list[CuckooFill]]) -> str:
    """The module's first "full" per configuration (one stream) beside the bit-exact model's
    prediction and the spread over the stored streams at the same size (Markdown)."""
    size = module.value[0].slots.bit_length() - 1
    lines = [
        f"| b | MAXITERATIONS | first `-1` at load (module, one stream, {module.source}) "
        f"| model predicts | failures in one fill | {walls.size_text(size)} (reference run) |",
        "|---|---|---|---|---|---|",
    ]
    for fill in module.value:
        b, it = fill.bucket_size, fill.max_iterations
        predicted, slots = model_first_full(b, it, fill.capacity)
        lines.append(
            f"| {b} | {it} | {fill.first_full_load:.1%} | {predicted / slots:.1%} "
            f"| {fill.failure_share:.1%} | {walls.first_fail(b, it, size).percent()} |"
        )
    return "\n".join(lines)


# -- plots --------------------------------------------------------------------------------------


def plot_kick_chain(demo: KickDemo) -> Figure:
    """The table before ``demo``'s insert: one row per bucket, one cell per slot, the new item's
    two buckets outlined, and an arrow for every move of the chain."""
    fig, ax = new_figure(width=7.5, height=4.6)
    b = demo.bucket_size
    cell = {}
    for bucket in range(demo.num_buckets):
        y = demo.num_buckets - 1 - bucket
        ax.text(-0.3, y + 0.5, f"bucket {bucket}", ha="right", va="center", fontsize=9)
        for slot in range(b):
            pos = bucket * b + slot
            fp = demo.before[pos]
            moved = pos in demo.path or pos == demo.final
            ax.add_patch(Rectangle((slot, y), 1, 1, edgecolor="black", linewidth=0.8,
                                   facecolor="#fde7c4" if moved else "white"))  # fmt: skip
            ax.text(slot + 0.5, y + 0.5, str(fp) if fp else "·", ha="center", va="center",
                    fontsize=9)  # fmt: skip
            cell[pos] = (slot + 0.5, y + 0.5)
    for bucket, label in ((demo.i1, "i1"), (demo.i2, "i2 = i1 xor H(fp)")):
        y = demo.num_buckets - 1 - bucket
        ax.add_patch(Rectangle((0, y), b, 1, fill=False, edgecolor="#0072B2", linewidth=2.2))
        ax.text(b + 0.15, y + 0.5, label, va="center", fontsize=9, color="#0072B2")
    start = (-2.6, demo.num_buckets + 0.4)
    ax.text(*start, f"new item, fp = {demo.fp}", fontsize=9, color="#D55E00", va="bottom")
    stops = [*demo.path, demo.final]
    movers = [demo.fp] + [demo.before[pos] for pos in demo.path]
    origin = (start[0] + 1.0, start[1])
    for n, (pos, fp) in enumerate(zip(stops, movers, strict=True)):
        target = cell[pos]
        colour = "#D55E00" if n == 0 else "#555555"
        ax.add_patch(FancyArrowPatch(origin, target, arrowstyle="-|>", mutation_scale=12,
                                     color=colour, linewidth=1.4, connectionstyle="arc3,rad=0.35",
                                     shrinkA=6, shrinkB=8))  # fmt: skip
        what = f"evicts {demo.before[pos]}" if n < len(demo.path) else "a free slot"
        step = f"{n + 1}. {fp} → bucket {pos // b}, {what}"
        ax.text(b + 2.6, demo.num_buckets - 0.6 - 0.7 * n, step, fontsize=9, color=colour)
        origin = target
    x, y = cell[demo.final]
    ax.add_patch(
        Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor="#009E73", linewidth=2.2)
    )
    ax.set_xlim(-3, b + 8.5)
    ax.set_ylim(-0.3, demo.num_buckets + 1.2)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(
        f"Inserting one item into a full pair of buckets: a kick chain of {len(demo.path)}"
    )
    return fig


def plot_kick_chains(log_slots: int = LOG_SLOTS) -> Figure:
    """Mean, 99th percentile and longest kick chain of successful inserts by load (b = 4, 500)."""
    chains = kick_fills(log_slots)[B4_500].by_load(KICK_EDGES)
    mid = [(r["load_low"] + r["load_high"]) / 2 for r in chains]
    fig, ax = new_figure()
    ax.plot(mid, [r["mean_kicks"] for r in chains], "o-", label="mean")
    ax.plot(mid, [r["p99_kicks"] for r in chains], "s-", label="99th percentile")
    ax.plot(mid, [r["max_kicks"] for r in chains], "^-", label="longest")
    ax.axhline(500, color="grey", ls="--")
    ax.text(0.52, 560, "max_kicks = 500", fontsize=9)
    ax.set(yscale="symlog", ylim=(0, 2000), xlabel="load factor when the insert started",
           ylabel="evictions in the chain (successful inserts)",
           title="Kick chains grow steeply past 90% load (b = 4, 500 kicks)")  # fmt: skip
    ax.legend()
    return fig


def plot_failure_rates(log_slots: int = LOG_SLOTS) -> Figure:
    """Share of failed inserts by load for the three configurations of :func:`kick_fills`."""
    bins = np.linspace(0.4, 1.0, 25)
    fig, ax = new_figure()
    for label, rec in kick_fills(log_slots).items():
        rows = [r for r in rec.by_load(bins) if r["failure_rate"] > 0]
        ax.plot([(r["load_low"] + r["load_high"]) / 2 for r in rows],
                [r["failure_rate"] for r in rows], "o-", ms=4, label=label)  # fmt: skip
    ax.axhline(SEED_003_FAILURE_SHARE, color="grey", ls="--")
    ax.text(0.61, 3.6e-4, "seed 003: 0.03%", fontsize=9)
    ax.set(yscale="log", xlim=(0.6, 1.0), ylim=(1e-4, 1.2), xlabel="load factor when the insert "
           "started", ylabel="share of inserts that fail",
           title="Failures start at a load set by b, victims and kicks")  # fmt: skip
    fig.legend(loc="outside lower center", ncols=2, fontsize=9)  # clear of curves and line
    return fig


def plot_loops(log_slots: int = LOG_SLOTS) -> Figure:
    """Distinct slots each failed chain evicted from, round-robin against random victims."""
    fig, ax = new_figure()
    for victim, rec in loop_fills(log_slots).items():
        ax.hist(rec.spread[rec.failed], bins=np.arange(0, 505, 10), alpha=0.7,
                label=f"{victim} victims")  # fmt: skip
    ax.set(xlabel="distinct slots evicted in a failed chain of 500 kicks", ylabel="failed inserts",
           title="Round-robin chains loop; random chains wander (b = 2)")  # fmt: skip
    ax.legend()
    return fig


def plot_fpr(log_slots: int = LOG_SLOTS, queries: int = STRANGERS) -> Figure:
    """Measured and expected false-positive rates by fingerprint bits, with the paper's bound."""
    measured = fpr_by_bits(log_slots, queries)
    bits = list(measured)
    fig, ax = new_figure()
    ax.plot(bits, [m for m, _ in measured.values()], "o", label="simulated, b = 4 at 95% load")
    ax.plot(bits, [e for _, e in measured.values()], "-", label="1 − (1 − 1/(2^f − 1))^(2bα)")
    ax.plot(bits, [8 / 2**f for f in bits], "--", label="paper's bound 2b/2^f")
    ax.set(yscale="log", xlabel="fingerprint bits f", ylabel="false-positive rate",
           title="Each fingerprint bit halves the false-positive rate")  # fmt: skip
    ax.legend()
    return fig


def plot_space() -> Figure:
    """Bits per item against the false-positive rate: Bloom, cuckoo at 95%, seed 003's two
    points, and RedisBloom's default (b = 2) and b = 4 filters at their median first "full" at
    2^20 slots (8-bit fingerprints, ``MAXITERATIONS 20``; the stored walls run)."""
    eps = np.logspace(-5, -0.7, 300)
    fig, ax = new_figure()
    ax.plot(eps, [bloom.bits_per_item(e) for e in eps], label="Bloom filter, best k")
    ax.plot(eps, [cuckoo.bits_per_item(e, 4, SEED_LOAD) for e in eps],
            label="cuckoo filter, b = 4, 95% load")  # fmt: skip
    ax.plot([0.01], [9.6], "k*", ms=12, label="seed 003: Bloom, 9.6 bits at 1%")
    ax.plot([cuckoo.error_for_bits(12, 4, SEED_LOAD)], [12], "D", color="#D55E00", ms=8,
            label="seed 003: cuckoo, 12 bits at 95%")  # fmt: skip
    for b in (2, 4):
        load = walls.first_fail(b, RB_MAX_ITERATIONS).median
        ax.plot([cuckoo.expected_fpr(b, 8, load)], [8 / load], "s", ms=7,
                label=f"RedisBloom CF, 8-bit fp, b = {b} at its median first 'full'")  # fmt: skip
    ax.set(xscale="log", xlabel="false-positive rate ε", ylabel="bits per item",
           title=f"Space at equal error: the curves cross near {FIGURES['ck-cross']}")  # fmt: skip
    ax.invert_xaxis()
    ax.legend()
    return fig


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
