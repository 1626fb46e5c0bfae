"""Chapter "SETBIT is O(offset) on first write": its seed figures, claims and plots.

Every number the page shows is a figure here, computed once: memory from the model
(:mod:`setlab.models.bitmap`, exact against ``MEMORY USAGE`` on Redis 7.0.15 / jemalloc 5.3) and
timings from the stored reference run (:class:`setlab.lab.runs.setbit.SetbitReference`). What a live
server measures on this run is glued by the page beside them, under ``live-`` names.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from matplotlib.figure import Figure

from setlab.chapters import open_page
from setlab.chapters.setbit_offset import claims, per_release
from setlab.core.formats import format_bytes, format_duration
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, beside, live_or_reference
from setlab.lab.runs.setbit import (
    SEED_000_SEQUENCE,
    OffsetSummary,
    SequenceStep,
    SetbitReference,
    StallTimeline,
    median_by_offset,
    sweep_first_writes,
)
from setlab.models import bitmap
from setlab.render.claims import Figures
from setlab.render.plots import bytes_axis, describe, legend_below, new_figure, seconds_axis

FIGURES = Figures("setbit-offset")

#: Seed 000 §1: the offset of the incident's first favourite.
SEED_INCIDENT_OFFSET = 1_823_456_789
#: The expected offset of a uniformly hashed id (seed 000 §3.2: "2.14 billion").
HASHED_OFFSET = 2**31
#: Offsets of the memory-breakdown figure.
BREAKDOWN_OFFSETS = (100, 10**6, 10**9, bitmap.MAX_OFFSET)


#: The first-write sweep's offsets: 12, log-spaced from 1,000 to the largest.
SWEEP_OFFSETS = bitmap.log_spaced_offsets(1_000, bitmap.MAX_OFFSET, 12)


def start() -> Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


@cache
def reference() -> SetbitReference:
    """The stored first-write run (read once)."""
    return SetbitReference.load()


def first_write_sweep(lab: Lab) -> Measurement[list[OffsetSummary]]:
    """A first ``SETBIT`` at each of :data:`SWEEP_OFFSETS`, the median per offset: measured on
    the lab's server where it can, else the stored run's medians (labelled either way)."""
    return live_or_reference(
        lab,
        lambda lab: median_by_offset(sweep_first_writes(lab, SWEEP_OFFSETS)),
        reference().summaries,
        run_info=reference().run,
    )


def _top() -> OffsetSummary:
    return reference().median(bitmap.MAX_OFFSET)


def _memory(offset: int) -> str:
    return format_bytes(bitmap.first_setbit_memory_usage(offset))


def _length(offset: int) -> str:
    return format_bytes(bitmap.bytes_for_offset(offset))


def memory_ratios(count: int = 400) -> list[tuple[int, float]]:
    """``(offset, MEMORY USAGE / STRLEN)`` for a first SETBIT at log-spaced large offsets."""
    return [
        (o, bitmap.first_setbit_memory_usage(o) / bitmap.bytes_for_offset(o))
        for o in bitmap.log_spaced_offsets(10**5, bitmap.MAX_OFFSET, count)
    ]


# -- figures: the model ------------------------------------------------------------------------

for _name, _offset in (
    ("1e6", 10**6),
    ("1e8", 10**8),
    ("1e9", 10**9),
    ("2e9", HASHED_OFFSET),
    ("incident", SEED_INCIDENT_OFFSET),
):
    FIGURES.add(f"sb-{_name}-len", lambda o=_offset: _length(o))
    FIGURES.add(f"sb-{_name}-mem", lambda o=_offset: _memory(o))

FIGURES.add("sb-worst-len", lambda: _length(bitmap.MAX_OFFSET))
FIGURES.add("sb-worst-mem", lambda: _memory(bitmap.MAX_OFFSET))
FIGURES.add("sb-half-len", lambda: _length(HASHED_OFFSET))
FIGURES.add("sb-max-offset", lambda: f"{bitmap.MAX_OFFSET:,}")


@FIGURES.figure("sb-worst-header")
def _worst_header() -> str:
    return f"{bitmap.memory_breakdown(bitmap.MAX_OFFSET)['sds header + NUL']} bytes"


@FIGURES.figure("sb-worst-alloc")
def _worst_alloc() -> str:
    parts = bitmap.memory_breakdown(bitmap.MAX_OFFSET)
    return format_bytes(
        bitmap.first_setbit_memory_usage(bitmap.MAX_OFFSET) - parts["key, robj, dictEntry"]
    )


@FIGURES.figure("sb-key-overhead")
def _key_overhead() -> str:
    return f"{bitmap.key_overhead_bytes('k')} bytes"


@FIGURES.figure("sb-classes")
def _classes() -> str:
    classes = (bitmap.jemalloc_size_class(2**20 + i * 2**18) for i in range(5))
    return "…, " + ", ".join(format_bytes(c) for c in classes) + ", …"


@FIGURES.figure("sb-ratio-max")
def _ratio_max() -> str:
    return f"{max(r for _, r in memory_ratios()):.2f}"


# -- figures: the reference run ----------------------------------------------------------------

FIGURES.add("sb-source", lambda: reference().run.label)
#: what the SETBIT timings measure (one quantity, one value: Figures.add's ``quantity``)
_SWEEP = "inside Redis (SLOWLOG) | median of the first-write sweep"
FIGURES.add(
    "sb-first-ms",
    lambda: format_duration(reference().median(SEED_INCIDENT_OFFSET).server_s),
    quantity=f"first SETBIT at offset {SEED_INCIDENT_OFFSET:,} | {_SWEEP}",
)
FIGURES.add(
    "sb-max-ms",
    lambda: format_duration(_top().server_s),
    quantity=f"first SETBIT at offset {bitmap.MAX_OFFSET:,} | {_SWEEP}",
)
#: seed 000 §3.2's offsets: 10^6, 10^8, 10^9, 2.14 × 10^9 (2^31) and 4.29 × 10^9 (2^32 − 1)
SEED_TIME_COLUMN_OFFSETS = (10**6, 10**8, 10**9, 2**31, bitmap.MAX_OFFSET)
FIGURES.add(
    "sb-time-column",
    lambda: " / ".join(
        format_duration(reference().median(o).server_s) for o in SEED_TIME_COLUMN_OFFSETS
    ),
)


@FIGURES.figure("sb-time-column-ratio")
def _time_column_ratio() -> str:
    """How many times the seed's lower bound for each of its first four rows (1 ms, 100 ms,
    1 s, 2 s) exceeds the reference median at that offset: the smallest and the largest."""
    seed_low = (1e-3, 0.1, 1.0, 2.0)
    ratios = [
        low / reference().median(o).server_s
        for low, o in zip(seed_low, SEED_TIME_COLUMN_OFFSETS, strict=False)
    ]
    return f"{min(ratios):.0f}× to {max(ratios):.0f}×"


FIGURES.add("sb-max-second", lambda: format_duration(_top().second_s))
FIGURES.add("sb-ms-per-gib", lambda: format_duration(_median_per_gib()))


@FIGURES.figure("sb-max-mem")
def _max_mem() -> str:
    usage = _top().memory_usage
    if usage is None:
        raise ValueError("the reference run has no MEMORY USAGE at the largest offset")
    return format_bytes(usage)


@FIGURES.figure("sb-max-range")
def _max_range() -> str:
    top = _top()
    if top.runs == 1 or top.server_us_min is None or top.server_us_max is None:
        return "; a single run"
    low, high = format_duration(top.server_us_min / 1e6), format_duration(top.server_us_max / 1e6)
    return f"; {low} to {high} across {top.runs} runs"


def _median_per_gib() -> float:
    """Median seconds per GiB over the reference offsets that create strings above 64 MiB."""
    per_gib = sorted(s.seconds_per_gib for s in reference().summaries() if s.strlen > 2**26)
    return per_gib[len(per_gib) // 2]


def _timeline() -> StallTimeline:
    return reference().timeline


def _sequence() -> list[SequenceStep]:
    return reference().sequence_steps()


def _sequence_run_label() -> str:
    run = reference().sequence_run
    if run is None:
        raise ValueError("the reference run has no replay of seed 000's sequence")
    return run.label


def _step_time(step: int) -> str:
    return format_duration(_sequence()[step - 1].server_us / 1e6)


FIGURES.add("sb-seq-source", _sequence_run_label)
FIGURES.add("sb-seq-1-ratio", lambda: f"{1.5 / (_sequence()[0].server_us / 1e6):.0f}")
for _step in (1, 2, 3):
    FIGURES.add(
        f"sb-seq-{_step}-time",
        lambda i=_step: _step_time(i),
        quantity=f"SETBIT {_step} of seed 000's sequence (offset {SEED_000_SEQUENCE[_step - 1]:,}) "
        "| inside Redis (SLOWLOG) | median of the sequence replay",
    )
    FIGURES.add(
        f"sb-seq-{_step}-mem",
        lambda i=_step: format_bytes(bitmap.bitmap_memory_usage(SEED_000_SEQUENCE[:i])),
    )
FIGURES.add(
    "sb-seq-2-added",
    lambda: format_bytes(
        bitmap.bytes_for_offset(SEED_000_SEQUENCE[1])
        - bitmap.bytes_for_offset(SEED_000_SEQUENCE[0])
    ),
)


@FIGURES.figure("sb-seq-2-range")
def _seq_2_range() -> str:
    times = [s.server_us / 1e6 for s in reference().sequence if s.step == 2]
    return f"{format_duration(min(times))} to {format_duration(max(times))} over {len(times)} runs"


def sequence_table(measured: Measurement[list[SequenceStep]]) -> str:
    """Seed 000's three favourites as a Markdown table: what each write does, the string and
    ``MEMORY USAGE`` after it, and its time inside Redis (the measurement's own numbers)."""
    lines = [
        "| # | offset | the write | STRLEN after | MEMORY USAGE | inside Redis |",
        "|--:|--:|:--|--:|--:|--:|",
    ]
    for s in measured.value:
        inside = "—" if s.server_us is None else format_duration(s.server_us / 1e6)
        usage = format_bytes(s.model if s.memory_usage is None else s.memory_usage)
        lines.append(
            f"| {s.step} | {s.offset:,} | {s.kind} | {format_bytes(s.strlen)} | {usage} "
            f"| {inside} |"
        )
    return "\n".join(lines)


FIGURES.add(
    "sb-stall-worst",
    lambda: format_duration(_timeline().worst_ms / 1e3),
    quantity=f"worst GET behind a first SETBIT at offset {bitmap.MAX_OFFSET:,} | round trip "
    "| stall timeline",
)
FIGURES.add("sb-stall-median", lambda: format_duration(_timeline().median_ms / 1e3))
FIGURES.add("sb-stall-ratio", lambda: f"{_timeline().worst_ms / _timeline().median_ms:,.0f}")


# -- bitmap command semantics of seeds 000 §7.5, 002 §1/§3 and 004 §1 -----------------------------

#: Seed 004 §1-1's range examples: BITCOUNT bitmap001 0 1000000 and BITPOS bitmap001 1 0 100.
SEED_004_RANGES = (1_000_000, 100)
FIGURES.add(
    "sb-range-bits",
    lambda: "; ".join(f"0 {end:,} covers bits 0–{8 * (end + 1) - 1:,}" for end in SEED_004_RANGES),
)
FIGURES.add("sb-1e9-strlen", lambda: f"{bitmap.bytes_for_offset(10**9):,} bytes")


# -- what this run measured (glued by the page under live- names) -----------------------------


def live_sweep_text(sweep: Measurement[list[OffsetSummary]]) -> str:
    """This run's largest first write and its model check, or why nothing was measured."""

    def describe(rows: list[OffsetSummary]) -> str:
        top = rows[-1]
        checked = [r for r in rows if r.memory_usage is not None]
        exact = sum(r.memory_usage == r.model for r in checked)
        check = (
            f"the model equals MEMORY USAGE at {exact} of {len(checked)} offsets"
            if checked
            else "this server has no MEMORY USAGE to check the model against"
        )
        return (
            f"a first SETBIT at offset {top.offset:,} took {format_duration(top.server_s)} "
            f"inside Redis, the second {format_duration(top.second_s)}; {check}"
        )

    text = beside(sweep, describe)
    if not sweep.live:
        text += (
            " The test suite checks the model against a real server's MEMORY USAGE on every CI run."
        )
    return text


def live_stall_text(stall: Measurement[StallTimeline]) -> str:
    """This run's worst and typical GET while the big SETBIT ran, or why nothing was measured."""
    return beside(
        stall,
        lambda t: (
            f"the worst GET waited {format_duration(t.worst_ms / 1e3)}, "
            f"a typical one {format_duration(t.median_ms / 1e3)}"
        ),
    )


# -- plots --------------------------------------------------------------------------------------


def plot_memory_ratio() -> Figure:
    """MEMORY USAGE / STRLEN of a first SETBIT against its offset (the allocator's rounding)."""
    fig, ax = new_figure(height=3)
    ax.semilogx(*zip(*memory_ratios(), strict=True))
    ax.set(
        xlabel="offset of the first SETBIT (bits)",
        ylabel="MEMORY USAGE / STRLEN",
        title="The allocator's rounding: up to a quarter more than the string",
    )
    return fig


def plot_sweep(
    sweep: Measurement[list[OffsetSummary]], key_of: Callable[[int], str] | None = None
) -> Figure:
    """Latency and memory of first writes against the offset: the reference run, this run's
    measurement beside it when there is one, and the memory model (for the key ``key_of(offset)``
    the experiment used, ``"k"`` if None)."""
    fig, (ax_t, ax_m) = new_figure(ncols=2, width=9, height=4.8)
    sources = [(f"reference ({reference().run.redis_version})", reference().summaries(), "o")]
    if sweep.live:
        sources.append(("this run", sweep.value, "x"))
    for name, rows, marker in sources:
        xs = [r.offset for r in rows]
        ax_t.loglog(xs, [r.server_s for r in rows], marker, label=f"{name}: first SETBIT")
        ax_t.loglog(
            xs, [r.second_s for r in rows], marker, mfc="none",
            label=f"{name}: second SETBIT (round trip)",
        )  # fmt: skip
        if all(r.memory_usage is not None for r in rows):
            ax_m.loglog(xs, [r.memory_usage for r in rows], marker, label=f"{name}: MEMORY USAGE")
    model_x = bitmap.log_spaced_offsets(1_000, bitmap.MAX_OFFSET, 200)
    ax_m.loglog(
        model_x,
        [bitmap.first_setbit_memory_usage(o, key_of(o) if key_of else "k") for o in model_x],
        "-", lw=1, label="model (setlab.models.bitmap)",
    )  # fmt: skip
    ax_t.set(xlabel="offset (bits)", ylabel="time", title="Latency")
    ax_m.set(xlabel="offset (bits)", ylabel="memory", title="Memory of the new key")
    seconds_axis(ax_t)
    bytes_axis(ax_m)
    legend_below(ax_t, ncols=1)
    legend_below(ax_m, ncols=1)
    return describe(fig, "Both grow in proportion to the offset; the second write stays flat.")


def plot_stall(stall: Measurement[StallTimeline]) -> Figure:
    """Another client's GET latency over time, with the big SETBIT's run shaded and the one GET
    that waited for it drawn as what it was: sent before the SETBIT began, answered when it
    ended (a bar from its start to its answer, at its latency)."""
    t = stall.value
    worst = max(range(len(t.latency_ms)), key=t.latency_ms.__getitem__)
    start, wait = t.starts_ms[worst], t.latency_ms[worst]
    fig, ax = new_figure(height=3.4)
    ax.axvspan(
        t.action_start_ms, t.action_end_ms, alpha=0.15, color="C1",
        label="SETBIT at offset 2^32 − 1 running",
    )  # fmt: skip
    others = [i for i in range(len(t.latency_ms)) if i != worst]
    ax.semilogy([t.starts_ms[i] for i in others], [t.latency_ms[i] / 1e3 for i in others], ".",
                ms=3, color="C0", label="a GET: when it was sent, how long it took")  # fmt: skip
    ax.plot([start, start + wait], [wait / 1e3] * 2, "-", lw=2.5, color="#D55E00",
            solid_capstyle="butt", label="the GET that waited for the SETBIT")  # fmt: skip
    ax.plot([start], [wait / 1e3], "o", ms=6, color="#D55E00")
    ax.annotate(f"sent at {start:.0f} ms, answered {format_duration(wait / 1e3)} later",
                xy=(start + wait / 2, wait / 1e3), xytext=(0, -14), textcoords="offset points",
                ha="center", va="top", fontsize=9, color="#D55E00")  # fmt: skip
    ax.set(
        xlabel="time since the probe started (ms)",
        ylabel="GET latency",
        title=f"Another client's GETs while one SETBIT runs ({stall.source})",
    )
    ax.set_ylim(top=wait / 1e3 * 3)  # room above the bar: it is not cut by the frame
    seconds_axis(ax)
    legend_below(ax, ncols=2)
    return describe(fig, f"One GET waited {format_duration(wait / 1e3)}: the whole SETBIT.")


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)

# every release measured: the stored per-release run (reference/measure_releases.py)
per_release.register(FIGURES)
