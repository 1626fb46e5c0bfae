"""Roaring bitmaps: which containers a set of IDs gets, and the bytes each takes.

A Roaring bitmap (Lemire et al., "Consistently faster and smaller compressed bitmaps with
Roaring", 2016) splits a 32-bit value into a 16-bit *key* (its chunk of 65,536 values) and a
16-bit low part, and stores each non-empty chunk in the smallest of three containers:

* **array** — the sorted low parts, 2 bytes each, while the chunk holds at most 4,096 values
  (4,096 × 2 B = 8 KiB, the size of the alternative);
* **bitset** — 65,536 bits, always 8,192 bytes;
* **run** — (start, length − 1) pairs, 4 bytes each plus a 2-byte count, used only after
  *run optimisation* (``run_optimize()``), when it is strictly smaller than the other two.

The model follows CRoaring 5 as shipped in pyroaring 1.2 (``roaring_array.c``,
``containers/convert.c``) and is checked exactly against pyroaring's ``get_statistics()`` and
the length of ``serialize()`` (the portable format shared with Java and Go) in
``tests/lab/runs/test_roaring.py``:

* without run optimisation a chunk is an array if it has at most 4,096 values, else a bitset;
* with it, an array becomes a run container when ``2 + 4 r < 2 c`` and a bitset when
  ``2 + 4 r < 8192`` (``r`` runs, ``c`` values): only when strictly smaller;
* the portable serialization is a 4-byte cookie, then (with runs) one flag bit per container or
  (without) a 4-byte count, 4 bytes per container of key and cardinality, 4 bytes per container
  of offset (omitted with runs below 4 containers), then the containers' payloads;
* 64-bit bitmaps (``BitMap64``) serialize as an 8-byte count of 32-bit buckets, then per bucket a
  4-byte high half and a 32-bit portable bitmap.

Memory in RAM is the payload that ``get_statistics()`` counts plus per-container bookkeeping that
it does not (:data:`CONTAINER_OVERHEAD_BYTES`, a model).

Pure computation only: the bitmap shared through Redis (seed 000 §6's read-modify-write and its
``WATCH``/``MULTI`` fix) and the timed seven-day window are experiments, in
:mod:`setlab.lab.runs.roaring`; the chapter's figures and claims are in
:mod:`setlab.chapters.roaring_containers`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from pyroaring import BitMap, BitMap64

from setlab.core.validate import check_int

CHUNK_BITS = 16
CHUNK = 1 << CHUNK_BITS  #: values per container
ARRAY_MAX = 4096  #: DEFAULT_MAX_SIZE: an array holds at most this many values
BITSET_BYTES = CHUNK // 8  #: 8192
KINDS = ("array", "bitset", "run")
ARRAY, BITSET, RUN = 0, 1, 2
NO_OFFSET_THRESHOLD = 4  #: with runs, offsets are written only from this many containers
#: Bookkeeping per container in RAM besides its payload (a model, not counted by pyroaring):
#: the container struct (16 B), its key (2 B), pointer (8 B) and type code (1 B).
CONTAINER_OVERHEAD_BYTES = 16 + 2 + 8 + 1


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (``np.sort`` and a neighbour mask: faster than ``np.unique``)."""
    ordered = np.sort(values, kind="stable")
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if ordered.size else ordered


def _values32(values: Iterable[int] | np.ndarray) -> np.ndarray:
    """Sorted distinct uint32 values, with a clear error for anything outside 0 … 2^32 − 1."""
    arr = np.asarray(values if isinstance(values, np.ndarray) else list(values))
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint32)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"values must be integers; got an array of {arr.dtype}")
    if arr.min() < 0 or arr.max() > 2**32 - 1:
        raise ValueError(
            f"values must be in 0 … 2^32 − 1 for a 32-bit Roaring bitmap; got {arr.min()} … "
            f"{arr.max()} (use layout64 for 64-bit IDs)"
        )
    return _sorted_unique(arr.astype(np.uint32))


#: Values compared per step in :func:`_neighbours` (temporaries of 8 MiB, not one per value).
_SLICE = 1 << 20


def _neighbours(v: np.ndarray, shift: int) -> tuple[np.ndarray, np.ndarray]:
    """For each sorted uint64 value: whether it starts a new chunk, and whether it is the
    previous value + 1 — computed slice by slice, so that 10^7 values need no 80 MB temporary."""
    new_chunk = np.empty(v.size, dtype=bool)
    follows = np.empty(v.size, dtype=bool)
    new_chunk[:1], follows[:1] = True, False
    bits, one = np.uint64(shift), np.uint64(1)
    for lo in range(1, v.size, _SLICE):
        hi = min(v.size, lo + _SLICE)
        now, before = v[lo:hi], v[lo - 1 : hi - 1]
        np.not_equal(now >> bits, before >> bits, out=new_chunk[lo:hi])
        np.equal(now - before, one, out=follows[lo:hi])
    return new_chunk, follows


def _chunks(sorted_values: np.ndarray, shift: int = CHUNK_BITS) -> tuple[np.ndarray, ...]:
    """Keys, cardinalities and run counts per chunk of sorted distinct integers."""
    if sorted_values.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    v = sorted_values.astype(np.uint64, copy=False)
    new_chunk, follows = _neighbours(v, shift)
    starts = np.flatnonzero(new_chunk)
    keys = v[starts]
    keys >>= np.uint64(shift)
    cards = np.empty(starts.size, dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=cards[:-1])
    cards[-1] = v.size - starts[-1]
    # runs = values - values that follow the previous one inside their chunk
    follows &= ~new_chunk
    inside = np.flatnonzero(follows)
    runs = cards.copy()
    if inside.size:
        chunk_of = np.searchsorted(starts, inside, side="right") - 1
        if inside.size >= starts.size:
            runs -= np.bincount(chunk_of, minlength=starts.size)
        else:
            np.subtract.at(runs, chunk_of, 1)
    return keys, cards, runs


def choose_kinds(cardinality: np.ndarray, runs: np.ndarray, run_optimize: bool) -> np.ndarray:
    """Container kind per chunk (0 array, 1 bitset, 2 run), as CRoaring picks it."""
    card = np.asarray(cardinality, dtype=np.int64)
    runs = np.asarray(runs, dtype=np.int64)
    kind = np.empty(card.size, dtype=np.int8)
    for lo in range(0, card.size, _SLICE):  # slice by slice: no full-size temporaries
        c, r, out = card[lo : lo + _SLICE], runs[lo : lo + _SLICE], kind[lo : lo + _SLICE]
        np.greater(c, ARRAY_MAX, out=out, casting="unsafe")  # ARRAY (0) or BITSET (1)
        if run_optimize:  # a run container only when strictly smaller: 2c (array) or 8192
            out[2 + 4 * r < np.minimum(2 * c, BITSET_BYTES)] = RUN
    return kind


@dataclass(frozen=True)
class Layout:
    """The containers of one 32-bit Roaring bitmap: key, values, runs and kind of each."""

    keys: np.ndarray  #: chunk keys (value >> 16), ascending
    cardinality: np.ndarray  #: values per container
    runs: np.ndarray  #: runs of consecutive values per container
    kind: np.ndarray  #: 0 array, 1 bitset, 2 run

    @property
    def containers(self) -> int:
        return int(self.keys.size)

    @property
    def values(self) -> int:
        return int(self.cardinality.sum())

    def container_bytes(self) -> np.ndarray:
        """Payload bytes of each container: 2c (array), 8192 (bitset), 2 + 4r (run)."""
        sizes = 2 * np.asarray(self.cardinality, dtype=np.int64)
        sizes[self.kind == BITSET] = BITSET_BYTES
        run = self.kind == RUN
        if run.any():
            sizes[run] = 2 + 4 * np.asarray(self.runs, dtype=np.int64)[run]
        return sizes

    @property
    def payload_bytes(self) -> int:
        """Bytes of all container payloads (what ``get_statistics()`` counts)."""
        if np.any(self.kind == RUN):
            return int(self.container_bytes().sum())
        bitsets = int(np.count_nonzero(self.kind == BITSET))
        in_arrays = int(self.cardinality.sum()) - int(self.cardinality[self.kind == BITSET].sum())
        return 2 * in_arrays + BITSET_BYTES * bitsets

    @property
    def header_bytes(self) -> int:
        """Bytes of the portable serialization before the payloads."""
        n = self.containers
        if np.any(self.kind == RUN):
            offsets = 4 * n if n >= NO_OFFSET_THRESHOLD else 0
            return 4 + (n + 7) // 8 + 4 * n + offsets
        return 4 + 4 + 8 * n

    @property
    def serialized_bytes(self) -> int:
        """``len(bitmap.serialize())``: the portable format (Java, Go and C agree on it)."""
        return self.header_bytes + self.payload_bytes

    @property
    def memory_bytes(self) -> int:
        """Bytes in RAM: payloads plus :data:`CONTAINER_OVERHEAD_BYTES` a container (a model)."""
        return self.payload_bytes + CONTAINER_OVERHEAD_BYTES * self.containers

    def statistics(self) -> dict[str, int]:
        """The container counts and bytes of pyroaring's ``get_statistics()``."""
        stats = {"n_containers": self.containers, "cardinality": self.values}
        sizes = self.container_bytes()
        for code, name in enumerate(KINDS):
            mask = self.kind == code
            stats[f"n_{name}_containers"] = int(mask.sum())
            stats[f"n_values_{name}_containers"] = int(self.cardinality[mask].sum())
            stats[f"n_bytes_{name}_containers"] = int(sizes[mask].sum())
        return stats

    def counts(self) -> dict[str, int]:
        """How many containers of each kind."""
        return {name: int((self.kind == code).sum()) for code, name in enumerate(KINDS)}


def layout(values: Iterable[int] | np.ndarray, *, run_optimize: bool = False) -> Layout:
    """The containers a 32-bit Roaring bitmap of ``values`` uses (duplicates count once).

    ``run_optimize=False`` is a bitmap built by adding values (``BitMap(values,
    optimize=False)``, Java's ``add``); ``True`` is after ``run_optimize()`` (pyroaring's
    ``BitMap(values)`` does that by default). :mod:`setlab.models.roaring_sizes` gives the
    serialized sizes of sorted IDs without building the layout.
    """
    keys, cards, runs = _chunks(_values32(values))
    return Layout(keys, cards, runs, choose_kinds(cards, runs, run_optimize))


def layout_from_counts(
    cardinality: Sequence[int] | np.ndarray,
    runs: Sequence[int] | np.ndarray | None = None,
    *,
    run_optimize: bool = False,
) -> Layout:
    """A layout from per-chunk value counts (and run counts), without the values.

    Empty chunks are dropped. ``runs`` defaults to one run per value (no two values adjacent),
    which is what sparse random IDs look like.
    """
    cards = np.asarray(cardinality, dtype=np.int64)
    if cards.ndim != 1 or cards.size > CHUNK:
        raise ValueError(f"cardinality must be a 1-D array of at most {CHUNK} chunk counts")
    if cards.size and (cards.min() < 0 or cards.max() > CHUNK):
        raise ValueError(
            f"each chunk count must be in 0 … {CHUNK}; got {cards.min()} … {cards.max()}"
        )
    runs = cards.copy() if runs is None else np.asarray(runs, dtype=np.int64)
    if runs.shape != cards.shape or np.any((runs > cards) | ((runs < 1) & (cards > 0))):
        raise ValueError("runs must have one entry per chunk, between 1 and the chunk's count")
    keep = cards > 0
    keys = np.flatnonzero(keep).astype(np.int64)
    cards, runs = cards[keep], runs[keep]
    return Layout(keys, cards, runs, choose_kinds(cards, runs, run_optimize))


def random_layout(
    count: int, rng: np.random.Generator, *, universe: int = 2**32, run_optimize: bool = False
) -> Layout:
    """The layout of ``count`` distinct IDs drawn uniformly from ``0 … universe-1``.

    Per-chunk counts are drawn from the multivariate hypergeometric distribution (exact for
    distinct IDs; above 2^29 IDs of universe, numpy's limit, groups of 2^29 first get their
    share multinomially). Runs are their expectation: of a chunk's ``s − 1`` adjacent pairs
    each is fully present with probability ``c(c−1) / (s(s−1))``, and each such pair merges two
    runs, so ``runs = c − c(c−1)/s``. Nothing is materialised: 10^9 IDs cost no more than 10^3.
    """
    universe = check_int("universe", universe, 1, 2**32)
    count = check_int("count", count, 0, universe)
    full, tail = divmod(universe, CHUNK)
    sizes = np.r_[np.full(full, CHUNK), [tail] if tail else []].astype(np.int64)
    cards = _hypergeometric_counts(sizes, min(count, universe - count), rng)
    if count > universe - count:  # draw the missing IDs instead: fewer, and never overfill
        cards = sizes - cards
    pairs = cards * (cards - 1) / np.maximum(sizes, 1)
    runs = np.maximum(np.minimum(cards, 1), np.rint(cards - pairs)).astype(np.int64)
    return layout_from_counts(cards, runs, run_optimize=run_optimize)


def _hypergeometric_counts(sizes: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """Per-chunk counts of ``count`` distinct values drawn from chunks of ``sizes`` values."""
    group = 1 << (29 - CHUNK_BITS)  # chunks per group: 2^29 values, below numpy's 10^9 limit
    bounds = [*range(0, sizes.size, group), sizes.size]
    populations = np.array([sizes[a:b].sum() for a, b in itertools.pairwise(bounds)])
    shares = rng.multinomial(count, populations / populations.sum())
    while np.any(shares > populations):  # with replacement can overfill a group: redraw
        shares = rng.multinomial(count, populations / populations.sum())
    parts = [
        rng.multivariate_hypergeometric(sizes[a:b], share, method="marginals")
        for (a, b), share in zip(itertools.pairwise(bounds), shares, strict=True)
    ]
    return np.concatenate(parts).astype(np.int64)


def dense_layout(count: int, *, run_optimize: bool = False) -> Layout:
    """The layout of the IDs ``0 … count-1`` (seed 003's dense case)."""
    count = check_int("count", count, 0, 2**32)
    full, tail = divmod(count, CHUNK)
    cards = np.r_[np.full(full, CHUNK), [tail] if tail else []].astype(np.int64)
    return layout_from_counts(cards, np.minimum(cards, 1), run_optimize=run_optimize)


def random_ids(count: int, rng: np.random.Generator, universe: int = 2**32) -> np.ndarray:
    """``count`` distinct uniformly random IDs in ``0 … universe-1``, sorted (uint32)."""
    universe = check_int("universe", universe, 1, 2**32)
    count = check_int("count", count, 0, universe)
    if count > universe // 2:  # dense: choose the IDs that are missing instead
        missing = random_ids(universe - count, rng, universe)
        return np.setdiff1d(np.arange(universe, dtype=np.uint32), missing, assume_unique=True)
    # draw a little more than the expected duplicates (count² / 2·universe), top up if short
    draws = count + int(count * count / universe) + 64
    ids = _sorted_unique(rng.integers(0, universe, draws, dtype=np.uint64))
    while ids.size < count:
        extra = rng.integers(0, universe, 2 * (count - ids.size) + 64, dtype=np.uint64)
        ids = _sorted_unique(np.r_[ids, extra])
    if ids.size > count:  # drop surplus IDs chosen at random, keeping the rest uniform
        ids = np.delete(ids, rng.choice(ids.size, ids.size - count, replace=False))
    return ids.astype(np.uint32)


def measure(values: np.ndarray) -> dict[str, int]:
    """Build ``values`` with pyroaring, without and with run optimisation, beside the model."""
    values = _values32(values)
    keys, cards, runs = _chunks(values)
    bitmap = BitMap(values, optimize=False)
    row = {
        "values": len(bitmap),
        "containers": bitmap.get_statistics()["n_containers"],
        "serialized": len(bitmap.serialize()),
        "model": Layout(keys, cards, runs, choose_kinds(cards, runs, False)).serialized_bytes,
    }
    bitmap.run_optimize()
    row["serialized_runs"] = len(bitmap.serialize())
    row["model_runs"] = Layout(keys, cards, runs, choose_kinds(cards, runs, True)).serialized_bytes
    return row


# -- 64-bit bitmaps ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout64:
    """A 64-bit Roaring bitmap: containers keyed by the high 48 bits, grouped by the high 32.

    CRoaring's ``roaring64`` keeps the containers in a radix tree; its portable serialization is
    one 32-bit Roaring bitmap per distinct high 32 bits (a *bucket*).
    """

    layout: Layout  #: all containers; ``keys`` are value >> 16 (48 bits)

    @property
    def containers(self) -> int:
        return self.layout.containers

    def _new_buckets(self) -> np.ndarray:
        """Whether each container (keys ascending) starts a new bucket of 2^32 values."""
        return _neighbours(np.asarray(self.layout.keys, dtype=np.uint64), CHUNK_BITS)[0]

    @property
    def buckets(self) -> int:
        return int(np.count_nonzero(self._new_buckets()))

    @property
    def serialized_bytes(self) -> int:
        """``len(BitMap64.serialize())``: 8-byte bucket count, then 4-byte key + 32-bit format."""
        if self.layout.containers == 0:
            return 8
        new = self._new_buckets()
        if not np.any(self.layout.kind == RUN):  # every bucket's header: 8 + 8 per container
            buckets = int(np.count_nonzero(new))
            return int(8 + 12 * buckets + 8 * new.size + self.layout.payload_bytes)
        sizes = self.layout.container_bytes()
        starts = np.flatnonzero(new)
        n = np.diff(starts, append=new.size)
        payload = np.add.reduceat(sizes, starts)
        has_run = np.add.reduceat((self.layout.kind == RUN).astype(np.int64), starts) > 0
        offsets = np.where(n >= NO_OFFSET_THRESHOLD, 4 * n, 0)
        header = np.where(has_run, 4 + (n + 7) // 8 + 4 * n + offsets, 8 + 8 * n)
        return int(8 + (4 + header + payload).sum())

    def statistics(self) -> dict[str, int]:
        """Container counts and bytes, as ``BitMap64.get_statistics()`` reports them."""
        return self.layout.statistics()


def layout64(values: Iterable[int] | np.ndarray, *, run_optimize: bool = False) -> Layout64:
    """The containers of a 64-bit Roaring bitmap (``pyroaring.BitMap64``) of ``values``."""
    arr = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=np.uint64)
    keys, cards, runs = _chunks(_sorted_unique(arr))
    return Layout64(Layout(keys, cards, runs, choose_kinds(cards, runs, run_optimize)))


def pyroaring_statistics(bitmap: BitMap | BitMap64) -> dict[str, int]:
    """pyroaring's ``get_statistics()``, limited to the fields :meth:`Layout.statistics` models."""
    stats = bitmap.get_statistics()
    keys = ["n_containers", "cardinality"] + [
        f"n{part}_{name}_containers" for name in KINDS for part in ("", "_values", "_bytes")
    ]
    return {k: int(stats[k]) for k in keys}


# -- seed 003's comparison: bytes per ID as the density changes ----------------------------------


def bytes_per_id(
    densities: Sequence[float], rng: np.random.Generator, universe: int = 2**32
) -> dict[str, np.ndarray]:
    """Bytes per ID of several structures holding ``density × universe`` random IDs.

    ``roaring`` / ``roaring (run-optimized)``: serialized size of :func:`random_layout`;
    ``plain bitmap``: ``universe / 8`` bytes whatever the count; ``Redis SET``: ``MEMORY USAGE``
    of a hashtable of the IDs as decimal strings (Redis 7.0 model); ``Bloom filter, 1%``: the
    optimal ``-ln(0.01) / (ln 2)²`` bits.
    """
    from setlab.models import bloom, redis_memory

    out: dict[str, list[float]] = {
        "roaring": [],
        "roaring (run-optimized)": [],
        "plain bitmap": [],
        "Redis SET": [],
        "Bloom filter, 1%": [],
    }
    for density in densities:
        if not 0 < density <= 1:
            raise ValueError(f"densities must be in (0, 1]; got {density!r}")
        count = max(1, round(density * universe))
        plain = random_layout(count, rng, universe=universe)
        runs = Layout(
            plain.keys,
            plain.cardinality,
            plain.runs,
            choose_kinds(plain.cardinality, plain.runs, True),
        )
        members = redis_memory.Members.decimal_range(2**31, 2**31 + count)
        out["roaring"].append(plain.serialized_bytes / count)
        out["roaring (run-optimized)"].append(runs.serialized_bytes / count)
        out["plain bitmap"].append(universe / 8 / count)
        out["Redis SET"].append(redis_memory.set_cost(members).memory_usage / count)
        out["Bloom filter, 1%"].append(bloom.bits_per_item(0.01) / 8)
    return {name: np.array(values) for name, values in out.items()}


def crossover_density(bytes_per_id: float, *, run_optimize: bool = False) -> float:
    """The lowest density of random 32-bit IDs at which Roaring costs under ``bytes_per_id``.

    Density is IDs present / 2^32. Each of the 65,536 chunks is given the mean count
    ``c = density × 65,536`` and its expected runs (as in :func:`random_layout`); the
    serialized bytes per ID fall as ``c`` grows (arrays: 2 B a value plus a fixed header per
    chunk; bitsets: 8,192 B shared by more values), so a bisection over ``c`` finds the first
    count that is cheaper. Returns ``c / 65,536``, or ``nan`` if even a full space is not.
    A 1% Bloom filter (``bytes_per_id`` ≈ 1.2) is beaten near 10%: 8,200 B / 1.2 B per chunk.
    """
    if not bytes_per_id > 0:
        raise ValueError(f"bytes_per_id must be a positive number of bytes; got {bytes_per_id!r}")

    def cheaper(count: int) -> bool:
        cards = np.full(CHUNK, count, dtype=np.int64)
        runs = np.maximum(1, np.rint(cards - cards * (cards - 1) / CHUNK)).astype(np.int64)
        built = layout_from_counts(cards, runs, run_optimize=run_optimize)
        return built.serialized_bytes < bytes_per_id * built.values

    if not cheaper(CHUNK):
        return float("nan")
    low, high = 0, CHUNK  # cheaper(high) holds; cheaper(low) does not (no IDs, no cost per ID)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if cheaper(middle) else (middle, high)
    return high / CHUNK


# -- seed 003's 7-day window ---------------------------------------------------------------------


def daily_bitmaps(
    rng: np.random.Generator, days: int = 7, daily: int = 1_000_000, population: int = 10_000_000
) -> list[BitMap]:
    """One bitmap of active user IDs per day: ``daily`` of ``population`` dense IDs."""
    days = check_int("days", days, 1)
    population = check_int("population", population, 1, 2**32)
    daily = check_int("daily", daily, 1, population)
    return [
        BitMap(np.sort(rng.choice(population, daily, replace=False)).astype(np.uint32))
        for _ in range(days)
    ]


def redis_bitmap_bytes(bitmap: BitMap) -> bytes:
    """The same set as a plain Redis bitmap string (bit ``i`` = byte ``i // 8``, MSB first)."""
    bits = np.zeros(bitmap.max() + 1 if bitmap else 0, dtype=bool)
    bits[np.asarray(bitmap.to_array(), dtype=np.int64)] = True
    return np.packbits(bits, bitorder="big").tobytes()
