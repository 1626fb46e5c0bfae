"""Chapter "HyperLogLog: counting readers without storing them": its figures, claims, plots, tables.

Every number the page shows is a figure here, computed once: from the model
(:mod:`setlab.models.hyperloglog`, Redis 7.0's HyperLogLog bit for bit, on a key named ``k``),
from seeded simulations, and from the stored reference run
(:class:`setlab.lab.runs.hyperloglog.HyperLogLogReference`). What a live server measures on this run
is shown by the page beside them, labelled, never instead of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from setlab.chapters import open_page
from setlab.chapters.hyperloglog import claims, per_release
from setlab.core.figure_cache import kept
from setlab.core.formats import format_bytes
from setlab.core.hashing import murmur64a, murmur64a_rows
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, live_or_reference
from setlab.lab.runs.hyperloglog import (
    REPLY_EDGES,
    HllGrowthRow,
    HyperLogLogReference,
    WeekResult,
    ZeroReplies,
    measure_hll_growth,
    observe,
    pfadd_replies,
    zero_replies,
)
from setlab.models import hyperloglog as hll
from setlab.models.redis_memory import as_bytes
from setlab.render.claims import Figures
from setlab.render.plots import (
    PALETTE,
    bytes_axis,
    describe,
    legend_below,
    new_figure,
    short_count,
)

FIGURES = Figures("hyperloglog")

#: The key name the page's figures price (the key's own bytes count in MEMORY USAGE).
KEY = "k"
#: Readers of the page's first experiment, and the cardinalities of the error study.
READERS = 100_000
CARDINALITIES = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8)
#: Simulated sketches per cardinality, and the seed of the generators.
ERROR_TRIALS = 400
ERROR_SEED = 1
#: Real-hash sketches of HASHED_ELEMENTS random 8-byte elements each (the spot check).
HASHED_SKETCHES = 40
HASHED_ELEMENTS = 100_000
HASHED_SEED = 4
#: The growth curve runs to this many readers (past the switch to dense).
CURVE_READERS = 3_000


def start() -> Lab:
    """Open the page (:func:`open_page`), naming the stored run its figures come from."""
    return open_page(FIGURES, reference().run.label)


@cache
def reference() -> HyperLogLogReference:
    """The stored run (read once)."""
    return HyperLogLogReference.load()


# -- what the page measures: this run on a real Redis, else the stored run ---------------------


def key_memory(lab: Lab, key: str, readers: int) -> Measurement[HllGrowthRow]:
    """``MEMORY USAGE`` (bytes) and ``PFCOUNT`` of the HyperLogLog ``key`` holding ``readers``
    readers, read on a real Redis; elsewhere (fakeredis keeps no HyperLogLog string) the stored
    run's key of :data:`READERS` readers."""
    ref = reference()
    return live_or_reference(
        lab,
        lambda lab: observe(lab, key, readers),
        lambda: ref.growth_at(READERS),
        run_info=ref.run,
    )


def key_memory_text(seen: Measurement[HllGrowthRow]) -> str:
    """Two lines: where ``seen`` was measured, then its readers and ``MEMORY USAGE`` beside the
    model's (:class:`setlab.models.hyperloglog.HyperLogLog` of as many readers)."""
    row = seen.value
    model = hll.sketch_of_readers(row.n).cost(row.key).memory_usage
    return (
        f"{seen.label}\n{row.n:,} readers: MEMORY USAGE {row.memory_usage:,} B, model {model:,} B"
    )


def growth_measurement(lab: Lab, sizes: Sequence[int]) -> Measurement[list[HllGrowthRow]]:
    """One key grown through ``sizes`` readers (ascending) and observed at each, on a real
    Redis; else the stored run's rows."""
    ref = reference()
    return live_or_reference(
        lab, lambda lab: measure_hll_growth(lab, sizes), lambda: ref.growth, run_info=ref.run
    )


def zero_replies_measurement(lab: Lab, count: int) -> Measurement[list[ZeroReplies]]:
    """How often ``PFADD`` replied 0 to each of ``count`` brand-new readers, binned by the
    readers already added (:data:`~setlab.lab.runs.hyperloglog.REPLY_EDGES`, the last bin
    ending at ``count``): on a real Redis, else the stored run's bins (100,000 readers)."""
    ref = reference()
    edges = [*REPLY_EDGES[:-1], count]
    return live_or_reference(
        lab,
        lambda lab: zero_replies(pfadd_replies(lab, count), edges),
        lambda: list(ref.zero_replies),
        run_info=ref.run,
    )


@cache
def growth_curve(key: str = KEY) -> tuple[np.ndarray, np.ndarray, int]:
    """``MEMORY USAGE`` after each of the first :data:`CURVE_READERS` readers (model)."""
    return hll.hll_growth_curve(CURVE_READERS, key)


@cache
def dense_sketch() -> hll.HyperLogLog:
    """A dense HyperLogLog (any register above 32 forces the dense encoding)."""
    dense = hll.HyperLogLog()
    dense.set_register(0, hll.HLL_Q + 1)
    return dense


@cache
@kept("hll-simulated-errors")
def simulated_errors(
    cardinality: int, trials: int = ERROR_TRIALS, seed: int = ERROR_SEED
) -> np.ndarray:
    """Relative errors of ``trials`` simulated sketches of ``cardinality`` elements (each
    cardinality draws from its own generator, seeded with ``[seed, cardinality]``)."""
    rng = np.random.default_rng([seed, cardinality])
    return hll.simulated_estimates(cardinality, trials, rng) / cardinality - 1


@cache
@kept("hll-hashed-errors")
def hashed_errors(sketches: int = HASHED_SKETCHES) -> np.ndarray:
    """Relative errors of sketches of real MurmurHash64A hashes of random 8-byte elements."""
    rng = np.random.default_rng(HASHED_SEED)
    errors = []
    for _ in range(sketches):
        rows = rng.integers(0, 256, (HASHED_ELEMENTS, 8), dtype=np.uint8)
        registers = hll.registers_of_hashes(murmur64a_rows(rows, hll.HLL_SEED))
        errors.append(hll.hll_estimate_registers(registers) / HASHED_ELEMENTS - 1)
    return np.array(errors)


def _std(cardinality: int) -> float:
    return float(simulated_errors(cardinality).std())


# -- figures: the model -------------------------------------------------------------------------


@FIGURES.figure("hll-se")
def _se() -> str:
    return f"{hll.HLL_STANDARD_ERROR:.2%}"


@FIGURES.figure("hll-register-bytes")
def _register_bytes() -> str:
    return f"{hll.HLL_DENSE_BYTES - hll.HLL_HEADER_BYTES:,} B"


@FIGURES.figure("hll-alloc")
def _alloc() -> str:
    return format_bytes(dense_sketch().allocation)


@FIGURES.figure("hll-dense")
def _dense() -> str:
    return f"{dense_sketch().cost(KEY).memory_usage:,} B"


@FIGURES.figure("hll-100")
def _hundred() -> str:
    return format_bytes(growth_curve()[1][99])


@FIGURES.figure("hll-1000")
def _thousand() -> str:
    return format_bytes(growth_curve()[1][999])


@FIGURES.figure("hll-dense-at")
def _dense_at() -> str:
    return f"{growth_curve()[2]:,}"


@FIGURES.figure("hll-bitmap-1e8")
def _bitmap_1e8() -> str:
    return format_bytes(hll.counting_costs(10**8)["bitmap"])


@FIGURES.figure("hll-trials")
def _trials() -> str:
    return f"{ERROR_TRIALS}"


@FIGURES.figure("hll-std-range")
def _std_range() -> str:
    big = [_std(c) for c in CARDINALITIES if c >= 10**5]
    return f"{min(big):.2%} to {max(big):.2%}"


@FIGURES.figure("hll-std-small")
def _std_small() -> str:
    return f"{_std(10**3):.2%} and {_std(10**4):.2%}"


@FIGURES.figure("hll-std-hashed")
def _std_hashed() -> str:
    return f"{np.std(hashed_errors()):.2%}"


@FIGURES.figure("hll-beyond-1")
def _beyond_1() -> str:
    return f"{np.mean(np.abs(simulated_errors(10**6)) > 0.01):.0%}"


# -- figures: the reference run -----------------------------------------------------------------


def model_mismatches(rows: Sequence[HllGrowthRow]) -> int:
    """How many rows (one key, readers added in order) differ from the model's MEMORY USAGE."""
    sketch, done, differ = hll.HyperLogLog(), 0, 0
    for row in sorted(rows, key=lambda r: r.n):
        sketch.add_hashes(hll.hll_hashes(hll.reader_ids(done, row.n)))
        done = row.n
        differ += sketch.cost(row.key).memory_usage != row.memory_usage
    return differ


def growth_check_text(rows: Sequence[HllGrowthRow]) -> str:
    """Measured rows against the model, in a clause (for the page's live- glue)."""
    differ = model_mismatches(rows)
    if not differ:
        return f"all {len(rows)} measurements equal the model"
    return f"{differ} of {len(rows)} measurements differ from the model"


@FIGURES.figure("hll-growth-check")
def _growth_check() -> str:
    rows = reference().growth
    differ = model_mismatches(rows)
    if not differ:
        return f"all {len(rows)} measurements of the reference run equal it"
    return f"{differ} of the reference run's {len(rows)} measurements differ from it"


@FIGURES.figure("hll-n")
def _n() -> str:
    return f"{READERS:,}"


@FIGURES.figure("hll-count")
def _count() -> str:
    return f"{reference().count_at(READERS).pfcount:,}"


@FIGURES.figure("hll-err")
def _err() -> str:
    return f"{reference().count_at(READERS).pfcount / READERS - 1:+.2%}"


@FIGURES.figure("hll-ref-counts")
def _ref_counts() -> str:
    return ", ".join(f"{r.pfcount:,} for {r.n:,}" for r in reference().counts)


@FIGURES.figure("hll-week-sum")
def _week_sum() -> str:
    week = reference().week
    return f"{sum(week.true_daily) / week.true_union:.1f}"


@FIGURES.figure("hll-week-err")
def _week_err() -> str:
    week = reference().week
    return f"{week.model_union / week.true_union - 1:+.2%}"


@FIGURES.figure("hll-week-bytes")
def _week_bytes() -> str:
    return format_bytes(reference().week.model_merged_bytes)


@FIGURES.figure("hll-zero-late")
def _zero_late() -> str:
    return f"{reference().zeros(10_000, 100_000).share:.0%}"


@FIGURES.figure("hll-zero-first")
def _zero_first() -> str:
    ref = reference()
    return f"{ref.zeros(0, 10).zero_replies + ref.zeros(10, 100).zero_replies}"


# -- tables -------------------------------------------------------------------------------------


@cache
@kept("hll-counting-costs")
def counting_costs(readers: int) -> dict[str, float]:
    """:func:`setlab.models.hyperloglog.counting_costs`, kept: the table's counts take about
    2 s together (SET models of up to 10^7 members), the same in every kernel."""
    return hll.counting_costs(readers)


@kept("hll-sketch-of-readers")
def sketch_of_readers(readers: int) -> hll.HyperLogLog:
    """:func:`setlab.models.hyperloglog.sketch_of_readers`, kept: hashing and adding a million
    readers takes 1.6 s, and the result is a function of ``readers`` alone."""
    return hll.sketch_of_readers(readers)


def counting_markdown(stds: dict[int, float]) -> str:
    """Bytes to count readers exactly (SET, bitmap) and approximately (HyperLogLog)."""
    lines = [
        "| readers | SET | bitmap (dense IDs) | HyperLogLog | its error (std) |",
        "|--:|--:|--:|--:|--:|",
    ]
    for c, std in stds.items():
        cost = counting_costs(c)
        lines.append(
            f"| {c:,} | {format_bytes(cost['SET'])} | {format_bytes(cost['bitmap'])} "
            f"| {format_bytes(cost['HyperLogLog'])} | {std:.2%} |"
        )
    return "\n".join(lines)


def week_markdown(result: WeekResult, server: str) -> str:
    """The seven days and the week: true counts, the server's replies, the model's."""
    lines = [
        f"| | true | PFCOUNT ({server}) | Redis's reply (model) |",
        "|:--|--:|--:|--:|",
    ]
    days = zip(result.true_daily, result.server_daily, result.model_daily, strict=True)
    for day, (t, s, m) in enumerate(days, start=1):
        lines.append(f"| day {day} | {t:,} | {s:,} | {m:,} |")
    lines.append(f"| sum of the days | {sum(result.true_daily):,} | | |")
    lines.append(
        f"| **week** (PFCOUNT of 7 keys / PFMERGE) | **{result.true_union:,}** "
        f"| {result.server_union:,} / {result.server_merged:,} | **{result.model_union:,}** |"
    )
    return "\n".join(lines)


def zero_replies_markdown(
    redis: Sequence[ZeroReplies], label: str, backend: ZeroReplies, backend_name: str
) -> str:
    """How often ``PFADD`` replied 0 to a brand-new reader: Redis's bins (from ``label``), then
    this backend's first readers."""
    lines = [
        f"| readers already added | new readers | PFADD replied 0 ({label}) |",
        "|:--|--:|--:|",
    ]
    for b in redis:
        lines.append(f"| {b.start:,} – {b.stop:,} | {b.stop - b.start:,} | {b.share:.1%} |")
    lines.append(
        f"| ({backend_name}, first {backend.stop:,}) | {backend.stop - backend.start:,} "
        f"| {backend.share:.1%} |"
    )
    return "\n".join(lines)


# -- plots --------------------------------------------------------------------------------------


def mechanism_figure(element: str = "reader:42", readers: int = 1_000_000) -> Figure:
    """How one element updates a register, and the registers after ``readers`` elements.

    Left: the element's 64-bit MurmurHash64A, low 14 bits choosing the register and the run of
    zeros above them setting its value. Right: how many registers hold each value.
    """
    h = murmur64a(as_bytes(element), hll.HLL_SEED)
    index, count = (int(x[0]) for x in hll.hll_register_updates([h]))
    sketch = sketch_of_readers(readers)
    fig, (top, bottom) = new_figure(ncols=2, width=10, height=3.4)
    top.set_xlim(0, 64)
    top.set_ylim(-2.2, 2.4)
    top.axis("off")
    p = hll.HLL_P
    for bit in range(64):  # bit 63 on the left
        value = (h >> bit) & 1
        colour = PALETTE[5] if bit < p else PALETTE[1] if bit < p + count else "#dddddd"
        top.add_patch(Rectangle((63 - bit, 0), 1, 1, facecolor=colour, edgecolor="white"))
        top.text(63.5 - bit, 0.5, str(value), ha="center", va="center", fontsize=9)
    top.text(64 - p / 2, -0.6, f"low 14 bits → register {index:,}", ha="center", fontsize=9)
    top.text(63.5 - p - count / 2, 1.5, f"{count - 1} zeros, then a 1:\nvalue {count}",
             ha="center", fontsize=9)  # fmt: skip
    top.text(20, -1.6, "the other bits are not used", ha="center", fontsize=9, color="grey")
    top.set_title(f"MurmurHash64A({element!r}), bit 63 on the left", fontsize=9)
    values = np.bincount(sketch.registers, minlength=hll.HLL_Q + 2)
    used = np.flatnonzero(values)
    bottom.bar(used, values[used], color=PALETTE[0])
    bottom.set_yscale("log")
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set(
        xlabel="register value (longest run of zeros + 1)",
        ylabel="registers",
        title=f"The 16,384 registers after {readers:,} readers",
    )
    return fig


def growth_figure(rows: Sequence[HllGrowthRow], label: str) -> Figure:
    """``MEMORY USAGE`` as readers arrive: the model (for the rows' key) and the rows."""
    key = rows[0].key if rows else KEY
    readers, memory, dense_at = growth_curve(key)
    points = [(r.n, r.memory_usage) for r in rows if r.n <= CURVE_READERS]
    fig, ax = new_figure(height=3.4)
    ax.semilogx(readers, memory, label="model (setlab.models.hyperloglog.HyperLogLog)")
    ax.semilogx(*zip(*points, strict=True), "o", ms=4, label=label)
    ax.axvline(dense_at, color="grey", lw=0.8)
    ax.set(xlabel="distinct readers added", ylabel="bytes (MEMORY USAGE)",
           title="A HyperLogLog key: sparse, then dense at a fixed 14 KiB")  # fmt: skip
    bytes_axis(ax)
    ax.legend()
    return fig


def error_figure(errors: dict[int, np.ndarray], hashed: np.ndarray) -> Figure:
    """Box plots of simulated relative errors per cardinality, the ±standard error lines, and
    the spread of the real-hash sketches."""
    trials = len(next(iter(errors.values())))
    fig, ax = new_figure(height=4.4)
    ax.boxplot([100 * e for e in errors.values()], whis=(1, 99), showfliers=False,
               tick_labels=[short_count(c) for c in errors])  # fmt: skip
    for sign in (1, -1):
        ax.axhline(sign * 100 * hll.HLL_STANDARD_ERROR, color=PALETTE[3], ls="--", lw=1)
    position = 1 + list(errors).index(HASHED_ELEMENTS) if HASHED_ELEMENTS in errors else 1
    ax.plot([position], [100 * np.std(hashed)], "D", color=PALETTE[2],
            label=f"std of real-hash sketches, {HASHED_ELEMENTS:,}")  # fmt: skip
    title = f"PFCOUNT's error over {trials} sketches each (box: quartiles, whiskers: 1–99%)"
    ax.set(xlabel="distinct readers", ylabel="relative error (%)", title=title)
    standard = f"± the standard error, {100 * hll.HLL_STANDARD_ERROR:.2f}%"
    ax.plot([], [], color=PALETTE[3], ls="--", lw=1, label=standard)
    legend_below(ax)
    return describe(fig, "The error stays within a few standard errors at every size.")


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)

# every release measured: the stored per-release run (reference/measure_releases.py)
per_release.register(FIGURES)
