"""What a set of IDs looks like to the structures that could hold it (``setlab advise``, step 1).

Seed 003's advice is "histogram your IDs first". :func:`analyse` does that for IDs read by
:mod:`setlab.models.ids`: how many, how many duplicates, their range and bit width, the density
of the range, and how they fall into Roaring's 2^16-value chunks (the per-chunk histogram: a
chunk with more than 4,096 IDs is a bitmap container). :func:`synthetic` gives the same
:class:`Analysis` for IDs described by a count and a shape (10^8 consecutive IDs, 1.2 × 10^8
hashed device IDs) without listing them. :func:`figure` draws the two histograms.

The sizes come from the book's models (:mod:`setlab.models.roaring`,
:mod:`setlab.models.redis_memory`); :mod:`setlab.tools.advise` prices the structures from them.
"""

from __future__ import annotations

import bisect
import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from setlab.core.outputs import open_output
from setlab.core.parallel import Started, cores
from setlab.core.validate import check_int
from setlab.models import roaring, roaring_sizes
from setlab.models.ids import IDs, set_members, texts
from setlab.models.roaring import ARRAY_MAX

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Bins of the per-chunk histogram: IDs in a 2^16 chunk (inclusive bounds). 4,096 is Roaring's
#: switch from an array container (2 bytes an ID) to a bitmap container (8 KiB).
CHUNK_BINS = ((1, 1), (2, 3), (4, 15), (16, 63), (64, 255), (256, 1023), (1024, 4096),
              (4097, 16383), (16384, 65535), (65536, 65536))  # fmt: skip
#: Bins of the histogram of IDs over their range.
RANGE_BINS = 64
#: Values handled per step by the passes over all IDs: temporaries of 512 KiB that stay in the
#: cache and are reused, not 80 MB that the kernel must find and zero for each pass.
_SLICE = 1 << 16


@dataclass(frozen=True)
class RoaringFigures:
    """What a Roaring bitmap of the IDs looks like (:mod:`setlab.models.roaring`'s model)."""

    serialized_bytes: int  #: portable serialization after run_optimize()
    plain_bytes: int  #: serialization without run containers
    containers: int
    buckets: int | None  #: 2^32-value buckets of a Roaring64 bitmap (None: 32-bit)
    estimated: bool = False  #: scaled from a sample (IDs too many to materialise)

    @classmethod
    def of(cls, layout: Any) -> RoaringFigures:
        """From a :class:`setlab.models.roaring.Layout` or
        :class:`~setlab.models.roaring.Layout64`."""

        wide = isinstance(layout, roaring.Layout64)
        plain = layout.layout if wide else layout
        kinds = roaring.choose_kinds(plain.cardinality, plain.runs, True)
        runs = roaring.Layout(plain.keys, plain.cardinality, plain.runs, kinds)
        if not wide:
            return cls(runs.serialized_bytes, plain.serialized_bytes, plain.containers, None)
        return cls(roaring.Layout64(runs).serialized_bytes, layout.serialized_bytes,
                   plain.containers, layout.buckets)  # fmt: skip


@dataclass(frozen=True)
class Analysis:
    """What a set of IDs looks like to the structures that could hold it."""

    source: str
    kind: str  #: "decimal", "hex" or "uuid"
    bits: int  #: 64, or 128 for UUIDs and long hex IDs
    ids: int  #: non-blank lines
    blank_lines: int
    distinct: int
    duplicates: int  #: ids - distinct
    most_repeated: tuple[str, int] | None  #: the ID seen most often and how often, if any twice
    low: int  #: smallest ID
    high: int  #: largest ID
    runs: int  #: runs of consecutive integers among the distinct IDs
    leading_zeros: int  #: decimal IDs written with leading zeros (Redis keeps them as strings)
    range_edges: np.ndarray  #: RANGE_BINS + 1 bin edges over [low, high] (floats)
    range_counts: np.ndarray  #: distinct IDs per bin
    chunk_counts: np.ndarray | None  #: distinct IDs in each non-empty 2^16 chunk (None: 128-bit)
    roaring: RoaringFigures | None  #: None for 128-bit IDs
    members: Any = field(repr=False)  #: redis_memory.Members of the distinct IDs as written
    notes: tuple[str, ...] = ()

    @property
    def bit_width(self) -> int:
        """Bits needed for the largest ID."""
        return max(1, self.high.bit_length())

    @property
    def span(self) -> int:
        """Values from the smallest to the largest ID, both included."""
        return self.high - self.low + 1

    @property
    def density(self) -> float:
        """Share of the values in ``[low, high]`` that are IDs."""
        return self.distinct / self.span

    @property
    def chunks(self) -> int | None:
        return None if self.chunk_counts is None else int(self.chunk_counts.size)

    @property
    def bitmap_chunks(self) -> int:
        """Chunks with more than 4,096 IDs: Roaring stores them as 8 KiB bitmaps."""
        return 0 if self.chunk_counts is None else int((self.chunk_counts > ARRAY_MAX).sum())

    def chunk_histogram(self) -> list[tuple[int, int, int]]:
        """``(low, high, chunks)`` for each of :data:`CHUNK_BINS` (IDs per chunk, inclusive)."""
        if self.chunk_counts is None:
            return []
        per_count = np.cumsum(np.bincount(self.chunk_counts, minlength=CHUNK_BINS[-1][1] + 1))
        return [(a, b, int(per_count[b] - per_count[a - 1])) for a, b in CHUNK_BINS]


def _sorted_distinct(
    ids: IDs,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, tuple[int, int] | None]:
    """Distinct values ascending (low, high halves; the low half is uint32 when the fast path
    below finds every ID under 2^32), the index of each one's first occurrence, and the most
    repeated value (its index among the distinct values, and how often it occurs;
    None when no ID repeats).

    64-bit IDs whose text follows from their value (:func:`_text_fixed`) are sorted without
    their indices (:func:`_sorted`, several times faster than a stable ``argsort``) and the
    first occurrences are left out (None): nothing needs them."""
    if ids.high is None and _text_fixed(ids):
        distinct, most = _distinct(_sorted(ids.values))
        return distinct, None, None, most
    if ids.high is None:
        order = np.argsort(ids.values, kind="stable")
        low = ids.values[order]
        new = np.r_[True, low[1:] != low[:-1]] if low.size else np.zeros(0, dtype=bool)
        high = None
    else:
        order = np.lexsort((ids.values, ids.high))
        low, high = ids.values[order], ids.high[order]
        new = np.r_[True, (low[1:] != low[:-1]) | (high[1:] != high[:-1])]
        high = high[new]
    starts = np.flatnonzero(new)
    counts = np.diff(np.r_[starts, order.size])
    most = None
    if counts.max() > 1:
        j = int(np.argmax(counts))
        most = (j, int(counts[j]))
    return low[new], high, order[starts], most


#: From this many IDs, the two halves are sorted on two threads (when two cores are there).
PARALLEL_SORT = 1 << 20


def _sorted(values: np.ndarray) -> np.ndarray:
    """A sorted copy of uint64 ``values``, as uint32 when they all fit (a third faster); from
    :data:`PARALLEL_SORT` values on, two halves are sorted on two threads, then merged by
    timsort (which finds the two ascending runs and merges them in one linear pass)."""
    kind = _sort_kind(values)
    narrow = values.size > 0 and int(values.max()) < 2**32
    work = np.empty(values.size, dtype=np.uint32 if narrow else np.uint64)

    def copy_and_sort(part: slice) -> None:  # the copy too: its pages fault in on both cores
        np.copyto(work[part], values[part], casting="unsafe")
        work[part].sort(kind=kind)

    if work.size >= PARALLEL_SORT and cores() >= 2:
        half = work.size // 2
        other = Started(copy_and_sort, slice(half, None))
        copy_and_sort(slice(0, half))
        other.result()
        work.sort(kind="stable")
    else:
        copy_and_sort(slice(None))
    return work


def _sort_kind(values: np.ndarray) -> str:
    """numpy's sort for these values: "stable" (timsort, linear on long ascending runs) when at
    most one value in 16 is below its predecessor — exports sorted by ID, or nearly, like
    snowflake IDs by time — else "quicksort" (introsort, vectorised: best for shuffled IDs)."""
    descents = 0
    for lo in range(1, values.size, _SLICE):
        hi = min(values.size, lo + _SLICE)
        descents += int(np.count_nonzero(values[lo:hi] < values[lo - 1 : hi - 1]))
    return "stable" if 16 * descents <= values.size else "quicksort"


def _distinct(ordered: np.ndarray) -> tuple[np.ndarray, tuple[int, int] | None]:
    """The distinct values of sorted ``ordered`` (of its dtype), compacted in place when some
    repeat (``ordered`` is the caller's own copy), and the most repeated value as
    :func:`_sorted_distinct` gives it.

    A value repeated ``t`` times is ``t − 1`` consecutive positions that equal their
    predecessor, so the repeats are found from those positions alone (few, usually)."""
    repeats = []
    for lo in range(1, ordered.size, _SLICE):
        hi = min(ordered.size, lo + _SLICE)
        repeats.append(np.flatnonzero(ordered[lo:hi] == ordered[lo - 1 : hi - 1]) + lo)
    at = np.concatenate(repeats) if repeats else np.zeros(0, dtype=np.intp)
    if at.size == 0:
        return ordered, None
    # groups of consecutive positions: one repeated value each
    group_starts = np.flatnonzero(np.r_[True, np.diff(at) != 1])
    sizes = np.diff(np.r_[group_starts, at.size])
    g = int(np.argmax(sizes))  # the first largest: the smallest of the most repeated values
    first = int(at[group_starts[g]]) - 1  # its first position in ordered
    j = first - int(np.searchsorted(at, first))  # its index among the distinct values
    # compact: keep every position not in ``at``, slice by slice, moving values down
    write = 0
    for lo in range(0, ordered.size, _SLICE):
        hi = min(ordered.size, lo + _SLICE)
        keep = np.ones(hi - lo, dtype=bool)
        keep[at[slice(*np.searchsorted(at, [lo, hi]))] - lo] = False
        kept = ordered[lo:hi][keep]
        ordered[write : write + kept.size] = kept
        write += kept.size
    return ordered[:write], (j, int(sizes[g]) + 1)


def _runs(ascending: np.ndarray) -> int:
    """Runs of consecutive integers in sorted distinct uint64 values (slice by slice: no
    full-size temporary)."""
    breaks = 0
    for lo in range(1, ascending.size, _SLICE):
        hi = min(ascending.size, lo + _SLICE)
        breaks += int(np.count_nonzero(ascending[lo:hi] - ascending[lo - 1 : hi - 1] != 1))
    return breaks + 1


def _text_fixed(ids: IDs) -> bool:
    """Whether every occurrence of a value is written the same way (as far as a Redis SET
    cares): canonical decimals (the digits of the value), or IDs all of one length (the value
    zero-padded to it)."""
    if ids.kind == "decimal" and ids.canonical.all():
        return True
    return bool(ids.lengths.min() == ids.lengths.max())


def analyse(ids: IDs) -> Analysis:
    """Count, range, density, duplicates and the per-chunk histogram of ``ids``."""

    if len(ids) == 0:
        raise ValueError(f"{ids.source}: no IDs to analyse")
    low_half, high_half, first, repeated = _sorted_distinct(ids)
    distinct = int(low_half.size)
    most = None
    if repeated is not None:
        j, times = repeated
        at = first[j] if first is not None else np.argmax(ids.values == low_half[j])
        most = (texts(ids, np.array([at]))[0], times)
    notes: list[str] = []
    if high_half is None:
        low, high = int(low_half[0]), int(low_half[-1])
        runs = _runs(low_half)
        edges, range_counts = _range_histogram(low_half, low, high, True)
        sized = roaring_sizes.sizes(low_half)
        chunk_counts = sized.cardinality
        figures = RoaringFigures(
            sized.run_bytes, sized.plain_bytes, sized.containers, sized.buckets
        )
        notes += _integer_notes(ids, low, high)
    else:
        low = (int(high_half[0]) << 64) | int(low_half[0])
        high = (int(high_half[-1]) << 64) | int(low_half[-1])
        runs = distinct
        top = high_half.astype(np.float64) * 2.0**64 + low_half.astype(np.float64)
        edges, range_counts = _range_histogram(top, low, high)
        figures, chunk_counts = None, None
        if ids.kind == "uuid":
            notes.append(_uuid_note(high_half))
    leading = len(ids) - int(np.count_nonzero(ids.canonical)) if ids.kind == "decimal" else 0
    if leading:
        notes.append(f"{leading:,} IDs are written with leading zeros: Redis stores those as "
                     "strings, and '007' and '7' are different members")  # fmt: skip
    members = set_members(ids, first, distinct=low_half if first is None else None)
    return Analysis(
        ids.source, ids.kind, ids.bits, len(ids), ids.blank_lines, distinct, len(ids) - distinct,
        most, low, high, runs, leading, edges, np.asarray(range_counts), chunk_counts, figures,
        members, tuple(notes),
    )  # fmt: skip


def _range_histogram(
    values: np.ndarray, low: int, high: int, ascending: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """:data:`RANGE_BINS` equal bins over ``[low, high]`` (one bin around a single value).

    ``ascending`` values are binned as ``np.histogram`` bins them after sorting (each edge
    searched in the values as float64, the last bin closed), by bisection: the same counts,
    with no float copy and no sort of the values."""
    if high == low:
        half = max(0.5, abs(float(low)) * 1e-6)  # a visible bin even around 2^127
        return np.array([low - half, low + half]), np.array([values.size])
    edges = np.linspace(float(low), float(high), RANGE_BINS + 1)
    if not ascending:
        return edges, np.histogram(values, bins=edges)[0]
    cut = [bisect.bisect_left(values, e, key=float) for e in edges[:-1].tolist()]
    cut.append(bisect.bisect_right(values, float(edges[-1]), key=float))
    return edges, np.diff(np.array(cut, dtype=np.intp))


def _integer_notes(ids: IDs, low: int, high: int) -> list[str]:
    from setlab.models import snowflake

    notes = []
    if high >= 2**63 and ids.kind == "decimal":
        notes.append("IDs at or above 2^63 are not Redis integers (signed 64-bit): a SET keeps "
                     "them as strings, and Java's long cannot hold them")  # fmt: skip
    if high > snowflake.JS_MAX_SAFE_INTEGER:
        notes.append("IDs above 2^53 lose precision as JavaScript numbers: send them as strings")
    if 2**55 <= high < 2**63:
        first, last = snowflake.TWITTER.unix_ms(low), snowflake.TWITTER.unix_ms(high)
        if last - first <= 3 * 365 * 86_400_000:
            notes.append(
                f"these look like snowflake IDs: with Twitter's epoch they were minted between "
                f"{snowflake.utc(first):%Y-%m-%d} and {snowflake.utc(last):%Y-%m-%d}; the time "
                "in the top bits spreads them over 2^64 (chapter snowflake-ranges)"
            )
    return notes


def _uuid_note(high_half: np.ndarray) -> str:
    versions = (high_half >> np.uint64(12)) & np.uint64(0xF)
    found, counts = np.unique(versions, return_counts=True)
    main = int(found[np.argmax(counts)])
    share = counts.max() / versions.size
    what = {4: "random (122 random bits)", 7: "time-ordered (48-bit ms timestamp first)",
            1: "time-based (v1)"}.get(main, f"version {main}")  # fmt: skip
    return (
        f"{share:.0%} are UUIDv{main}: {what}; as integers they are 128 bits wide, so no "
        "bitmap or Roaring bitmap can hold them without a dense remap"
    )


# -- populations described, not listed ------------------------------------------------------------

SHAPES = ("dense", "random32", "hashed64")
#: Random 64-bit IDs sampled to price a Roaring64 bitmap of many more (they share no chunk).
ROARING64_SAMPLE = 200_000


def _flat_histogram(low: int, high: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal bins over ``[low, high]`` holding ``count`` IDs spread evenly (largest-remainder)."""
    edges = np.linspace(float(low), float(high), RANGE_BINS + 1)
    share = np.full(RANGE_BINS, count / RANGE_BINS)
    counts = np.floor(share).astype(np.int64)
    counts[: count - int(counts.sum())] += 1
    return edges, counts


def _random_decimal_members(count: int, universe: int) -> Any:
    """Members for ``count`` distinct integers drawn uniformly from ``0 … universe-1``, sent in
    decimal: members of each digit count in proportion to the values that have it."""
    from setlab.models import redis_memory

    parts, assigned = [], 0
    for digits in range(1, len(str(universe - 1)) + 1):
        start, stop = (0 if digits == 1 else 10 ** (digits - 1)), min(10**digits, universe)
        share = round(count * (stop - start) / universe) if stop < universe else count - assigned
        assigned += share
        if share:
            parts.append(redis_memory.Members.fixed_length(share, digits))
    width = redis_memory.intset_width(universe - 1)
    # one summary with its lengths, so the set model can price it for any allocator
    return redis_memory.Members.disjoint_union(parts, integers=True, int_width=width)


@functools.cache
def _roaring64_sample(seed: int, sample: int) -> RoaringFigures:
    values = np.random.default_rng(seed).integers(0, 2**64 - 1, sample, dtype=np.uint64)
    return RoaringFigures.of(roaring.layout64(values))


def synthetic(count: int, shape: str, *, universe: int = 2**32, seed: int = 0) -> Analysis:
    """An :class:`Analysis` of IDs described by a count and a shape, without listing them:

    * ``dense`` — the integers ``0 … count-1`` (auto-increment IDs, order numbers);
    * ``random32`` — ``count`` distinct integers drawn uniformly from ``0 … universe − 1``
      (``universe`` at most 2^32; per-chunk counts drawn exactly by
      :func:`setlab.models.roaring.random_layout`);
    * ``hashed64`` — ``count`` distinct uniform 64-bit hashes written as 16 hex digits (device
      IDs); the Roaring64 figures are scaled from :data:`ROARING64_SAMPLE` random IDs, exact in
      expectation while IDs rarely share a 2^32 bucket.

    The range is taken as the whole space the shape allows. ``seed`` fixes the random draws.
    """
    from setlab.models import redis_memory

    count = check_int("count", count, 1, 2**40)
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}")
    rng = np.random.default_rng(seed)
    common = {"source": f"a described set ({shape})", "ids": count, "blank_lines": 0,
              "distinct": count, "duplicates": 0, "most_repeated": None, "low": 0,
              "leading_zeros": 0, "bits": 64}  # fmt: skip
    if shape == "dense":
        layout = roaring.dense_layout(count)
        edges, counts = _flat_histogram(0, count - 1, count)
        return Analysis(
            **common, kind="decimal", high=count - 1, runs=1, range_edges=edges,
            range_counts=counts, chunk_counts=layout.cardinality,
            roaring=RoaringFigures.of(layout),
            members=redis_memory.Members.decimal_range(0, count),
        )  # fmt: skip
    if shape == "random32":
        universe = check_int("universe", universe, 1, 2**32)
        count = check_int("count", count, 1, universe)
        layout = roaring.random_layout(count, rng, universe=universe)
        edges = np.linspace(0.0, universe - 1.0, RANGE_BINS + 1)
        centres = (layout.keys.astype(np.float64) + 0.5) * roaring.CHUNK
        counts = np.histogram(np.minimum(centres, universe - 1.0), bins=edges,
                              weights=layout.cardinality)[0].astype(np.int64)  # fmt: skip
        return Analysis(
            **common, kind="decimal", high=universe - 1, runs=int(layout.runs.sum()),
            range_edges=edges, range_counts=counts, chunk_counts=layout.cardinality,
            roaring=RoaringFigures.of(layout),
            members=_random_decimal_members(count, universe),
        )  # fmt: skip
    sample = min(count, ROARING64_SAMPLE)
    base = _roaring64_sample(seed, sample)
    scale = count / sample
    figures = RoaringFigures(
        round(8 + (base.serialized_bytes - 8) * scale), round(8 + (base.plain_bytes - 8) * scale),
        round(base.containers * scale), round((base.buckets or 0) * scale), estimated=scale > 1,
    )  # fmt: skip
    edges, counts = _flat_histogram(0, 2**64 - 1, count)
    return Analysis(
        **common, kind="hex", high=2**64 - 1, runs=count, range_edges=edges,
        range_counts=counts, chunk_counts=None, roaring=figures,
        members=redis_memory.Members.fixed_length(count, 16),
    )  # fmt: skip


# -- the picture ----------------------------------------------------------------------------------


def figure(a: Analysis) -> Figure:
    """Two histograms: IDs over their range, and chunks by how many IDs they hold (log-log),
    with Roaring's array/bitmap threshold marked."""
    from setlab.render.plots import PALETTE, new_figure

    fig, (left, right) = new_figure(ncols=2, width=9.5, height=3.6)
    widths = np.diff(a.range_edges)
    left.bar(a.range_edges[:-1], a.range_counts, width=widths, align="edge", color=PALETTE[0])
    left.set(xlabel="ID value", ylabel="distinct IDs per bin",
             title=f"{a.distinct:,} IDs over {a.low:,.3g} … {a.high:,.3g}")  # fmt: skip
    if a.chunk_counts is None:
        what = "128-bit IDs: no 2^16 chunks" if a.bits == 128 else "no per-chunk counts"
        right.text(0.5, 0.5, what, ha="center", va="center",
                   transform=right.transAxes)  # fmt: skip
        right.set_axis_off()
        return fig
    edges = np.unique(np.r_[np.logspace(0, 16, 33, base=2.0), 65537]).astype(float)
    right.hist(a.chunk_counts, bins=edges, color=PALETTE[2])
    right.axvline(ARRAY_MAX + 0.5, color=PALETTE[3], ls="--", lw=1)
    right.text(ARRAY_MAX * 1.15, 0.95, "bitmap\ncontainers", transform=right.get_xaxis_transform(),
               va="top", fontsize=9, color=PALETTE[3])  # fmt: skip
    right.text(ARRAY_MAX / 1.15, 0.95, "array\ncontainers", transform=right.get_xaxis_transform(),
               va="top", ha="right", fontsize=9, color=PALETTE[3])  # fmt: skip
    right.set(xscale="log", yscale="log", xlabel="IDs in a 2^16 chunk",
              ylabel="chunks", title=f"{a.chunks:,} non-empty chunks")  # fmt: skip
    return fig


def save_figure(a: Analysis, path: str | Path) -> Path:
    """Draw :func:`figure` into a PNG at ``path`` (the directory must exist).

    ``path`` is the user's (``setlab advise --plot``): it is written through
    :func:`setlab.core.outputs.open_output`, which refuses a symbolic link there (a PNG
    written through a planted link lands on the file it points at)."""
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from setlab.render.plots import use_book_style

    target = Path(path)
    if not target.parent.is_dir():
        raise ValueError(f"cannot save the plot: directory {target.parent} does not exist")
    with open_output(target) as out:  # refused before anything is drawn
        use_book_style()
        fig = figure(a)
        fig.savefig(out, format="png", dpi=110)
        plt.close(fig)
    return target
