"""Chapter "Roaring containers" (seed 000 §6, seed 003 Roaring): its figures, claims and plots.

Every number the chapter's prose and verdict table show is a figure on :data:`FIGURES`,
computed once from :mod:`setlab.models.roaring` (and the other models) or from the stored
reference run (:class:`setlab.lab.runs.roaring.RoaringReference`). What a live server measures
on this run comes from :func:`contention_measurement`, :func:`window_measurement` and
:func:`operators_measurement` (Redis 8.2's new ``BITOP`` operators, whose stored run is on 8.2),
which return the stored run's record, labelled as such, where the backend cannot measure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np
import pyroaring
from matplotlib.figure import Figure
from pyroaring import BitMap, BitMap64

from setlab.chapters import open_page
from setlab.chapters.roaring_containers import claims
from setlab.chapters.roaring_containers import plots as roaring_plots
from setlab.core.figure_cache import kept
from setlab.core.formats import format_bytes, format_bytes_si, format_duration
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, live_or_reference
from setlab.lab.runs import window_operators as wo
from setlab.lab.runs.roaring import (
    METHODS,
    Contention,
    RoaringReference,
    WindowTimings,
    contention_runs,
    window_timings,
)
from setlab.models import bitmap, bloom, redis_memory
from setlab.models import roaring as ro
from setlab.render.claims import Figures

FIGURES = Figures("roaring-containers")

#: Seed 000 §6.1's offset: two billion, one value in one array container.
SEED_OFFSET = 2_000_000_000
#: Seed 003's dense case: the IDs 0 … 10^8 − 1.
SEED_DENSE_IDS = 10**8
#: Seed 003's sparse case: 1.2 × 10^8 device hashes over 2^32, against a 1% Bloom filter.
SEED_SPARSE_IDS = 120_000_000
SEED_BLOOM_ERROR = 0.01
#: Densities (IDs present / 2^32) of the bytes-per-ID comparison.
DENSITIES = np.geomspace(1e-6, 1, 40)
#: The bitmap :func:`structure_figure` draws, one chunk per container kind (int64): an array
#: (1, 2, 3, 70 in chunk 0), a run (100 … 5,000 in chunk 5), a bitset (every third value of
#: chunk 17) and seed 000's offset two billion alone in chunk 30,517.
STRUCTURE_IDS = np.r_[
    [1, 2, 3, 70],
    5 * 65536 + np.arange(100, 5001),
    17 * 65536 + np.arange(0, 65536, 3),
    SEED_OFFSET,
]
#: The population the snowflake users are re-mapped into, as dense 32-bit IDs.
REMAPPED_POPULATION = 100_000_000


def start() -> Lab:
    """Open the page (:func:`open_page`), naming the stored run its figures come from and the
    pyroaring that built it."""
    ref = reference_run()
    return open_page(FIGURES, f"{ref.run.label} — pyroaring {ref.pyroaring}")


@cache
def reference_run() -> RoaringReference:
    """The stored reference run (read once)."""
    return RoaringReference.load()


@cache
def operators_run() -> wo.OperatorsReference:
    """The stored run of Redis 8.2's ``BITOP`` operators on the window (read once)."""
    return wo.OperatorsReference.load()


@cache
def _one() -> ro.Layout:
    return ro.layout([SEED_OFFSET])


@cache
def _dense(run_optimize: bool) -> ro.Layout:
    return ro.dense_layout(SEED_DENSE_IDS, run_optimize=run_optimize)


@cache
def _sparse() -> ro.Layout:
    return ro.random_layout(SEED_SPARSE_IDS, np.random.default_rng(3))


@cache
def density_curves() -> dict[str, np.ndarray]:
    """Bytes per ID of each structure at :data:`DENSITIES` (:func:`ro.bytes_per_id`, seeded)."""
    return ro.bytes_per_id(DENSITIES, np.random.default_rng(2026))


def _bloom_bytes_per_id() -> float:
    return bloom.bits_per_item(SEED_BLOOM_ERROR) / 8


# -- figures: one value per name, for the prose, the verdict table and the errata ----------------


@FIGURES.figure("rc-croaring")
def _croaring() -> str:
    return pyroaring.__croaring_version__


@FIGURES.figure("rc-one-payload")
def _one_payload() -> str:
    return f"{_one().payload_bytes} B"


@FIGURES.figure("rc-one-serialized")
def _one_serialized() -> str:
    return f"{_one().serialized_bytes} B"


@FIGURES.figure("rc-one-redis")
def _one_redis() -> str:
    stored = redis_memory.string_cost(BitMap([SEED_OFFSET]).serialize(), "like:post:42")
    return format_bytes(stored.memory_usage)


@FIGURES.figure("rc-one-setbit")
def _one_setbit() -> str:
    return format_bytes(bitmap.first_setbit_memory_usage(SEED_OFFSET))


@FIGURES.figure("rc-array-max")
def _array_max() -> str:
    return f"{ro.ARRAY_MAX:,}"


@FIGURES.figure("rc-bitset-bytes")
def _bitset_bytes() -> str:
    return f"{ro.BITSET_BYTES:,} B"


@FIGURES.figure("rc-dense")
def _dense_mb() -> str:
    return format_bytes_si(_dense(False).serialized_bytes)


@FIGURES.figure("rc-dense-containers")
def _dense_containers() -> str:
    return f"{_dense(False).containers:,}"


@FIGURES.figure("rc-dense-runs")
def _dense_runs() -> str:
    return format_bytes(_dense(True).serialized_bytes)


@FIGURES.figure("rc-dense-ratio")
def _dense_ratio() -> str:
    return f"{_dense(False).serialized_bytes / _dense(True).serialized_bytes:,.0f}"


@FIGURES.figure("rc-sparse")
def _sparse_mb() -> str:
    return format_bytes_si(_sparse().serialized_bytes)


@FIGURES.figure("rc-sparse-per")
def _sparse_per() -> str:
    return f"{_sparse().serialized_bytes / _sparse().values:.2f} bytes"


@FIGURES.figure("rc-bloom")
def _bloom() -> str:
    return format_bytes(bloom.size_for(SEED_SPARSE_IDS, SEED_BLOOM_ERROR).bytes)


@FIGURES.figure("rc-bloom-per")
def _bloom_per() -> str:
    return f"{_bloom_bytes_per_id():.1f} bytes"


@FIGURES.figure("rc-sparse-check")
def _sparse_check() -> str:
    exact = all(row.serialized == row.model for row in built_sizes(1.0))
    return "equal the model exactly" if exact else "differ from the model"


@FIGURES.figure("rc-cross")
def _cross() -> str:
    return f"{ro.crossover_density(_bloom_bytes_per_id()):.0%}"


@FIGURES.figure("rc-low")
def _low() -> str:
    return f"{density_curves()['roaring'][0]:.0f} bytes"


@FIGURES.figure("rc-set")
def _set() -> str:
    return f"{np.median(density_curves()['Redis SET']):.0f} bytes"


@FIGURES.figure("rc-snow-ids")
def _snow_ids() -> str:
    return f"{reference_run().snowflake.ids:,}"


@FIGURES.figure("rc-snow-per")
def _snow_per() -> str:
    return f"{reference_run().snowflake.bitmap64_per_id:.1f} B"


@FIGURES.figure("rc-remap-per")
def _remap_per() -> str:
    return f"{reference_run().snowflake.dense_per_id:.2f} B"


@FIGURES.figure("rc-forced-lost")
def _forced_lost() -> str:
    forced = reference_run().lost_update
    return f"{len(forced.lost)} of {len(forced.added)}"


def _naive(clients: int) -> Contention:
    return reference_run().contended(METHODS[0], clients)


def _watched(clients: int) -> Contention:
    return reference_run().contended(METHODS[1], clients)


@FIGURES.figure("rc-ref-lost4")
def _lost4() -> str:
    return f"{_naive(4).lost:,} of {_naive(4).adds:,}"


@FIGURES.figure("rc-ref-lost8")
def _lost8() -> str:
    return f"{_naive(8).lost / _naive(8).adds:.0%}"


@FIGURES.figure("rc-ref-watch-lost4")
def _watch_lost4() -> str:
    return f"{_watched(4).lost:,}"


@FIGURES.figure("rc-ref-retry4")
def _retry4() -> str:
    return f"{_watched(4).retries_per_add:.1f}"


@FIGURES.figure("rc-ref-retry8")
def _retry8() -> str:
    return f"{_watched(8).retries_per_add:.1f}"


@FIGURES.figure("rc-ref-add4")
def _add4() -> str:
    return format_duration(_watched(4).seconds_per_add)


@FIGURES.figure("rc-ref-add8")
def _add8() -> str:
    return format_duration(_watched(8).seconds_per_add)


@FIGURES.figure("rc-rmw-big")
def _rmw_big() -> str:
    return format_duration(reference_run().largest_rmw.seconds)


@FIGURES.figure("rc-rmw-size")
def _rmw_size() -> str:
    return format_bytes(reference_run().largest_rmw.serialized)


@FIGURES.figure("rc-rmw-ids")
def _rmw_ids() -> str:
    return f"{reference_run().largest_rmw.values:,}"


@FIGURES.figure("rc-rb-error")
def _rb_error() -> str:
    return reference_run().rb_error


@FIGURES.figure("rc-rb-module")
def _rb_module() -> str:
    return reference_run().run.modules.get("bf", "?")


@FIGURES.figure("rc-w-in")
def _w_in() -> str:
    return format_duration(reference_run().window.in_process)


@FIGURES.figure("rc-w-redis")
def _w_redis() -> str:
    return format_duration(reference_run().window.from_redis)


@FIGURES.figure("rc-w-bitop")
def _w_bitop() -> str:
    return format_duration(reference_run().window.bitop_or)


@FIGURES.figure("rc-w-size")
def _w_size() -> str:
    return format_bytes(reference_run().window.serialized_bytes_per_day)


@FIGURES.figure("rc-ops-server")
def _ops_server() -> str:
    run = operators_run().run
    return run.server_name or f"Redis {run.redis_version}"


@FIGURES.figure("rc-ops-old-commands")
def _ops_old_commands() -> str:
    counts = [a.old_way.commands for a in operators_run().window.answers]
    return f"{min(counts)} to {max(counts)}"


def _ops_speedup(operator: str) -> float:
    answer = operators_run().window.answer(operator)
    if answer.operator_way is None:
        raise ValueError(f"the stored run has no BITOP {operator} (it lacked the operators)")
    return answer.old_way.server_s / answer.operator_way.server_s


@FIGURES.figure("rc-ops-one-new")
def _ops_one_new() -> str:
    way = operators_run().window.answer("ONE").operator_way
    return format_duration(way.server_s) if way else "not measured"


@FIGURES.figure("rc-ops-one-old")
def _ops_one_old() -> str:
    return format_duration(operators_run().window.answer("ONE").old_way.server_s)


@FIGURES.figure("rc-ops-one-speedup")
def _ops_one_speedup() -> str:
    return f"{_ops_speedup('ONE'):.1f}"


@FIGURES.figure("rc-ops-others-speedup")
def _ops_others_speedup() -> str:
    ratios = [_ops_speedup(op) for op in wo.OPERATORS if op != "ONE"]
    return f"{min(ratios):.1f} to {max(ratios):.1f}"


# -- the rest of seed 000 §6.1 and seed 003's comparison ------------------------------------------

FIGURES.add("rc-chunks", lambda: f"{2**ro.CHUNK_BITS:,}")


def _bloom_over_dense() -> str:
    bloom_bytes = bloom.size_for(SEED_SPARSE_IDS, SEED_BLOOM_ERROR).bytes
    return f"{bloom_bytes / _dense(False).serialized_bytes:.1f}"


FIGURES.add("rc-bloom-over-dense", _bloom_over_dense)


# -- the experiment cells: pyroaring beside the model, and what a live server measures -----------


def beside_model(built: BitMap, model: ro.Layout, run_optimize: bool) -> str:
    """One line: ``model``'s container counts and serialized bytes beside pyroaring's ``built``
    (``len(serialize())``), and whether their per-kind statistics are equal
    (:func:`setlab.models.roaring.pyroaring_statistics`); ``run_optimize`` says which state both
    are in."""
    same = model.statistics() == ro.pyroaring_statistics(built)
    return (
        f"run_optimize={run_optimize!s:5}: {model.counts()}, "
        f"{len(built.serialize()):,} B serialized (model {model.serialized_bytes:,} B, "
        f"statistics equal: {same})"
    )


@dataclass(frozen=True)
class Built:
    """One bitmap built with pyroaring: its serialized size beside the model's."""

    name: str
    serialized: int  #: ``len(bitmap.serialize())``
    model: int  #: :attr:`setlab.models.roaring.Layout.serialized_bytes`


@cache
@kept("roaring-built-sizes")
def built_sizes(scale: float = 1.0) -> tuple[Built, ...]:
    """Seed 003's two cases built with pyroaring at ``scale`` (``SETLAB_SCALE``), with the model.

    The dense case from a range at full size (one run per chunk) and value by value at
    ``scale`` × 10^7 IDs; the sparse case at seed 003's density (1.2 × 10^8 over 2^32) on
    ``scale`` × 1.2 × 10^7 IDs. Seeded: the same sizes on every run.
    """
    if not scale > 0:
        raise ValueError(f"scale must be a positive number; got {scale!r}")
    rng = np.random.default_rng(2026)
    n_dense = max(65_536, int(10**7 * scale))
    dense = ro.measure(np.arange(n_dense))
    whole = len(BitMap(range(SEED_DENSE_IDS)).serialize())
    n_sparse = max(100_000, int(SEED_SPARSE_IDS / 10 * scale))
    universe = min(2**32, round(2**32 * n_sparse / SEED_SPARSE_IDS))
    sparse = ro.measure(ro.random_ids(n_sparse, rng, universe))
    return (
        Built("IDs 0…10⁸ from a range (runs)", whole, _dense(True).serialized_bytes),
        Built(f"IDs 0…{n_dense:,} value by value", dense["serialized"], dense["model"]),
        Built(f"{n_sparse:,} random IDs, same density", sparse["serialized"], sparse["model"]),
    )


def built_table(scale: float = 1.0) -> str:
    """:func:`built_sizes` as a Markdown table."""
    lines = ["| built with pyroaring | serialized | model |", "|:--|--:|--:|"]
    lines += [
        f"| {b.name} | {format_bytes(b.serialized)} | {format_bytes(b.model)} |"
        for b in built_sizes(scale)
    ]
    return "\n".join(lines)


def snowflake_sizes(snow: np.ndarray, rng: np.random.Generator) -> dict[str, int]:
    """Bytes that hold the users ``snow`` (snowflake IDs, int64) five ways: pyroaring's
    ``BitMap64`` serialized, its model (:func:`setlab.models.roaring.layout64`, run-optimized),
    a ``BitMap`` of as many users re-mapped to random dense IDs below
    :data:`REMAPPED_POPULATION` (drawn from ``rng``), a Redis 7.0 SET of as many consecutive
    snowflake IDs as decimal strings (``MEMORY USAGE``,
    :func:`setlab.models.redis_memory.set_cost`) and a 1% Bloom filter
    (:func:`setlab.models.bloom.size_for`)."""
    n = len(snow)
    model = ro.layout64(snow, run_optimize=True)
    remapped = BitMap(ro.random_ids(n, rng, universe=REMAPPED_POPULATION))
    members = redis_memory.Members.decimal_range(snow.min(), snow.min() + n)
    return {
        "BitMap64 of snowflake IDs": len(BitMap64(snow).serialize()),
        "model (setlab.models.roaring.layout64)": model.serialized_bytes,
        "BitMap of re-mapped dense IDs": len(remapped.serialize()),
        "Redis SET of the snowflake IDs": redis_memory.set_cost(members).memory_usage,
        "Bloom filter, 1%": bloom.size_for(n, SEED_BLOOM_ERROR).bytes,
    }


def per_id_table(sizes: Mapping[str, int], ids: int) -> str:
    """``sizes`` (bytes by structure, as :func:`snowflake_sizes` gives them) as a text table,
    one line a structure: its name, its size and its bytes per ID of ``ids`` IDs."""
    if ids < 1:
        raise ValueError(f"ids must be at least 1; got {ids!r}")
    return "\n".join(
        f"{name:32} {format_bytes(size):>10}  {size / ids:6.2f} B per ID"
        for name, size in sizes.items()
    )


def contention_measurement(
    lab: Lab, clients: tuple[int, ...] = (1, 2, 4, 8), adds_per_client: int = 150
) -> Measurement[tuple[Contention, ...]]:
    """Several clients sharing one bitmap, both ways: this run on a real Redis, else the
    reference run (whose grid used 250 adds per client)."""
    ref = reference_run()
    return live_or_reference(
        lab,
        lambda lab: tuple(contention_runs(lab, lab.key("shared"), clients, adds_per_client)),
        lambda: ref.contention,
        run_info=ref.run,
    )


def contention_table(measured: Measurement[tuple[Contention, ...]]) -> str:
    """The contention grid as a Markdown table, headed by where it was measured."""
    lines = [
        f"*{measured.label}*",
        "",
        "| method | clients | IDs added | in the bitmap | lost | retries per add |",
        "|:--|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {r.method} | {r.clients} | {r.adds:,} | {r.final:,} | {r.lost:,} "
        f"| {r.retries_per_add:.2f} |"
        for r in measured.value
    ]
    return "\n".join(lines)


def window_measurement(
    lab: Lab, rng: np.random.Generator, daily: int = 1_000_000
) -> Measurement[WindowTimings]:
    """The union of seven daily bitmaps (``daily`` users of ``10 × daily`` each) three ways:
    this run on a real Redis, else the reference run (a million users a day)."""
    ref = reference_run()

    def measure(lab: Lab) -> WindowTimings:
        days = ro.daily_bitmaps(rng, daily=daily, population=10 * daily)
        return WindowTimings.from_row(window_timings(lab, days))

    return live_or_reference(lab, measure, lambda: ref.window, run_info=ref.run)


def window_text(measured: Measurement[WindowTimings]) -> str:
    """One line: the three ways to get the week's union, and where they were measured."""
    w = measured.value
    bitop = format_duration(w.bitop_or) if w.has_bitop else "not measured"
    return (
        f"{measured.label}: union of 7 days = {w.union_size:,} users; in process "
        f"{format_duration(w.in_process)}, fetched from Redis and deserialized "
        f"{format_duration(w.from_redis)}, BITOP OR on plain bitmaps {bitop}"
    )


def operators_measurement(
    lab: Lab, rng: np.random.Generator, daily: int = 1_000_000
) -> Measurement[wo.WindowOperators]:
    """Four questions about seven daily bitmaps (``daily`` users of ``10 × daily`` each), each
    answered with Redis 8.2's ``BITOP`` operator and with the fewest Redis 7.0 commands
    (:func:`setlab.lab.runs.window_operators.window_operators`): this run where the server has
    the operators, else the stored run on Redis 8.2.3 (a million users a day), saying why."""
    ref = operators_run()
    absent = wo.missing_operators(lab) if lab.is_real else ""
    if absent:
        return Measurement(ref.window, False, ref.run.label, f"{lab.profile.name} has {absent}")

    def measure(lab: Lab) -> wo.WindowOperators:
        days = ro.daily_bitmaps(rng, daily=daily, population=10 * daily)
        return wo.window_operators(lab, days)

    return live_or_reference(lab, measure, lambda: ref.window, run_info=ref.run)


def _users(answer: wo.Answer) -> str:
    if answer.agrees:
        return f"{answer.expected:,}"
    new = f"8.2 {answer.operator_way.count:,}, " if answer.operator_way else ""
    return f"differ: {new}7.0 {answer.old_way.count:,}, pyroaring {answer.expected:,}"


def operators_table(measured: Measurement[wo.WindowOperators]) -> str:
    """The questions × (8.2 operator, 7.0 way) as a Markdown table: commands, time inside Redis
    and users in the answer (equal to pyroaring's where it says so), headed by where it was
    measured and, for a stored run, why this run measured none of it."""
    why = measured.why_not_live.rstrip(".")
    why = f" (this run measured none of it: {why})" if why else ""
    lines = [
        f"*{measured.label}*{why}",
        "",
        "| question | Redis 8.2, one command | inside Redis | Redis 7.0 way | inside Redis "
        "| users (= pyroaring) |",
        "|:--|:--|--:|:--|--:|--:|",
    ]
    for a in measured.value.answers:
        new, old = a.operator_way, a.old_way
        spare = f", {old.temporaries} temporary keys" if old.temporaries else ""
        new_time = format_duration(new.server_s) if new else "no such operator"
        lines.append(
            f"| {a.question} | `BITOP {a.operator}` | {new_time} | {old.commands} commands{spare} "
            f"| {format_duration(old.server_s)} | {_users(a)} |"
        )
    return "\n".join(lines)


# -- plots ---------------------------------------------------------------------------------------


def density_figure() -> Figure:
    """Bytes per ID against density over the 32-bit ID space (:func:`density_curves`)."""
    return roaring_plots.density_figure(DENSITIES, density_curves())


structure_figure = roaring_plots.structure_figure


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
