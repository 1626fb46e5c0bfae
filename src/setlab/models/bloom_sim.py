"""A Bloom filter in memory: how an item's bits are chosen, where they live, and a simulator.

Hashing (shared by the simulator, the Redis filter of :mod:`setlab.lab.runs.bloom` and the bulk
loader of :mod:`setlab.lab.wire.loading`, so they set the same bits): each item gets two 64-bit base
hashes ``h1, h2`` — unsigned integers through MurmurHash3's 64-bit finaliser, strings and bytes
through MurmurHash3 x64_128 of their UTF-8 bytes. The ``k`` positions follow Kirsch &
Mitzenmacher ("Less hashing, same performance", 2006): ``g_i = (a + i·b) mod m`` with
``a = h1 mod m`` and ``b = 1 + h2 mod (m - 1)`` — or, when ``m`` is a power of two,
``b = (h2 mod m) | 1``: an odd step visits all ``m`` bits before repeating, so an item's
``k ≤ m`` positions are distinct. A sharded filter first routes the item by the top
``shard_bits`` bits of ``h1`` (the key) and uses the remaining low bits of ``h1`` inside that
key — seed 002's "high bits pick the container, low bits index inside it", with all ``k`` bits
of an item in the one key it was routed to.

Redis bitmaps number bits from the most significant bit of byte 0 (``SETBIT k 0 1`` gives
``"\\x80"``); :meth:`BloomSimulator.shard_bytes` packs its bits the same way, so a filter built in
numpy can be written to Redis with ``SET`` and read back bit for bit.

The formulas these are checked against (fill ratio, false-positive rate, sizing) are in
:mod:`setlab.models.bloom`.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import mmh3
import numpy as np

from setlab.core.progress import Progress
from setlab.core.validate import check_int
from setlab.models.bloom import MAX_BITS_PER_KEY, MAX_K, _array, optimal_k, optimal_m, sharded_fpr

_GOLDEN = 0x9E3779B97F4A7C15
_FMIX_1 = np.uint64(0xFF51AFD7ED558CCD)
_FMIX_2 = np.uint64(0xC4CEB9FE1A85EC53)
_CHUNK = 1 << 18  # items per vectorised step: keeps temporaries in the tens of MB


# -- hashing and layout ---------------------------------------------------------------------------


def _fmix64(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser (a bijection on uint64), vectorised; wraps mod 2^64."""
    x = x ^ (x >> np.uint64(33))
    x = x * _FMIX_1
    x = x ^ (x >> np.uint64(33))
    x = x * _FMIX_2
    return x ^ (x >> np.uint64(33))


def _as_uint64(items: object) -> np.ndarray | None:
    """Integer items as a uint64 array, ``None`` if they are strings/bytes; ValueError if bad."""
    if isinstance(items, np.ndarray):
        if items.dtype.kind == "u":
            return items.astype(np.uint64, copy=False).ravel()
        if items.dtype.kind == "i":
            if items.size and items.min() < 0:
                raise ValueError(f"integer items must be >= 0; got {items.min()}")
            return items.astype(np.uint64).ravel()
        if items.dtype.kind in "SUO":
            return None
        raise ValueError(f"items must be integers, strings or bytes; got a {items.dtype} array")
    return None


def _hash_objects(items: Sequence[object], seed: int) -> tuple[np.ndarray, np.ndarray]:
    h1 = np.empty(len(items), dtype=np.uint64)
    h2 = np.empty(len(items), dtype=np.uint64)
    ints: list[int] = []
    where: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            item = item.encode()
        if isinstance(item, bytes | bytearray | memoryview):
            h1[i], h2[i] = mmh3.hash64(bytes(item), seed, signed=False)
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            if not 0 <= int(item) < 2**64:
                raise ValueError(f"integer items must be in [0, 2^64); got {item!r}")
            ints.append(int(item))
            where.append(i)
        else:
            raise ValueError(
                f"items must be non-negative integers, str or bytes; got {item!r} "
                f"({type(item).__name__})"
            )
    if ints:
        a, b = _hash_uint64(np.array(ints, dtype=np.uint64), seed)
        h1[where], h2[where] = a, b
    return h1, h2


def _hash_uint64(x: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    s1 = np.uint64((_GOLDEN * (2 * seed + 1)) & 0xFFFFFFFFFFFFFFFF)
    s2 = np.uint64((_GOLDEN * (2 * seed + 2) + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF)
    return _fmix64(x ^ s1), _fmix64(x ^ s2)


def base_hashes(items: object, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The two 64-bit base hashes ``(h1, h2)`` of each item, as uint64 arrays.

    ``items``: a numpy integer array (vectorised), or any iterable of non-negative ints (< 2^64),
    ``str`` (hashed as UTF-8) or ``bytes``. Integers go through MurmurHash3's ``fmix64`` with two
    seeds, strings and bytes through MurmurHash3 x64_128 (``mmh3.hash64``).
    """
    seed = check_int("seed", seed, 0, 2**31 - 1)
    arr = _as_uint64(items)
    if arr is not None:
        return _hash_uint64(arr, seed)
    if isinstance(items, str | bytes):
        items = [items]
    if not isinstance(items, Sequence):
        if not isinstance(items, Iterable):
            raise ValueError(f"items must be an iterable of items, got {items!r}")
        items = list(items)
    return _hash_objects(items, seed)


@dataclass(frozen=True)
class BloomLayout:
    """Where a Bloom filter keeps its bits: ``shards`` keys of ``bits_per_shard`` bits each.

    ``k`` hashes per item; ``shard_bits = 0`` is one key. The layout is pure: it maps items to
    ``(shard, bit offsets)``; :class:`BloomSimulator`,
    :class:`setlab.lab.runs.bloom.RedisBloomFilter` and :mod:`setlab.lab.wire.loading` all use it,
    so they set exactly the same bits for the same items.
    """

    bits_per_shard: int
    k: int
    shard_bits: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("bits_per_shard", self.bits_per_shard, 2, MAX_BITS_PER_KEY)
        check_int("k", self.k, 1, MAX_K)
        check_int("shard_bits", self.shard_bits, 0, 32)
        check_int("seed", self.seed, 0, 2**31 - 1)

    @classmethod
    def for_items(
        cls, n: float, p: float, shard_bits: int = 0, seed: int = 0, k: int | None = None
    ) -> BloomLayout:
        """A layout whose every shard is sized for its share ``n / 2^shard_bits`` at rate ``p``."""
        shard_bits = check_int("shard_bits", shard_bits, 0, 32)
        share = float(_array("n", n, 1)) / (1 << shard_bits)
        m = max(2, optimal_m(share, p))
        if m > MAX_BITS_PER_KEY:
            raise ValueError(
                f"each shard would need {m:,} bits, over the {MAX_BITS_PER_KEY:,} bits one Redis "
                "string holds: raise shard_bits"
            )
        return cls(m, optimal_k(m, share) if k is None else k, shard_bits, seed)

    @property
    def shards(self) -> int:
        return 1 << self.shard_bits

    @property
    def total_bits(self) -> int:
        return self.shards * self.bits_per_shard

    @property
    def bytes_per_shard(self) -> int:
        """Bytes of one shard's Redis string, ``ceil(bits_per_shard / 8)``."""
        return -(-self.bits_per_shard // 8)

    @property
    def total_bytes(self) -> int:
        return self.shards * self.bytes_per_shard

    def expected_fpr(self, n: float) -> float:
        """Mean false-positive rate after ``n`` items (:func:`sharded_fpr`; a fraction)."""
        return sharded_fpr(n, self.shards, self.bits_per_shard, self.k)

    def locate_hashes(self, h1: np.ndarray, h2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(shard, offsets)`` from base hashes: shard ids (uint64, shape ``(n,)``) and the
        ``k`` bit offsets inside that shard (uint64, shape ``(n, k)``)."""
        m = np.uint64(self.bits_per_shard)
        if self.shard_bits:
            low_bits = np.uint64(64 - self.shard_bits)
            shard = h1 >> low_bits
            h1 = h1 & np.uint64((1 << (64 - self.shard_bits)) - 1)
        else:
            shard = np.zeros(h1.shape, dtype=np.uint64)
        # Rows are hash numbers, columns items: contiguous rows keep the loop fast. The returned
        # (n, k) array is a transposed view of it. ``minimum(g, g - m)`` is ``g mod m`` for
        # ``g < 2m`` without a branch: when ``g < m``, ``g - m`` wraps around to a huge value.
        by_hash = np.empty((self.k, h1.size), dtype=np.uint64)
        g = h1 % m
        if self.bits_per_shard & (self.bits_per_shard - 1) == 0:  # a power of two: odd steps
            step = (h2 & (m - np.uint64(1))) | np.uint64(1)
        else:
            step = np.uint64(1) + h2 % (m - np.uint64(1))
        by_hash[0] = g
        for i in range(1, self.k):
            np.add(g, step, out=g)
            np.minimum(g, g - m, out=g)
            by_hash[i] = g
        offsets = by_hash.T
        return shard, offsets

    def locate(self, items: object) -> tuple[np.ndarray, np.ndarray]:
        """``(shard, offsets)`` for items (see :meth:`locate_hashes` and :func:`base_hashes`)."""
        return self.locate_hashes(*base_hashes(items, self.seed))

    def key_suffix(self, shard: int) -> tuple[object, ...]:
        """Parts after the filter's name in a shard's key: none for one key, else the shard id in
        zero-padded hex (``0a3f``), so that every shard key has the same length, like seed 002's
        hex containers (bulk loaders rely on the equal lengths)."""
        if self.shard_bits == 0:
            return ()
        return (f"{int(shard):0{-(-self.shard_bits // 4)}x}",)


# -- the in-process simulator ---------------------------------------------------------------------


def iter_chunks(items: object, size: int = _CHUNK) -> Iterator[object]:
    """``items`` in pieces of at most ``size``: slices of a numpy array, lists of anything else
    (a lone ``str`` or ``bytes`` is one item)."""
    if isinstance(items, np.ndarray):
        flat = items.ravel()
        for start in range(0, flat.size, size):
            yield flat[start : start + size]
        return
    if isinstance(items, str | bytes):
        yield [items]
        return
    batch: list[object] = []
    for item in items:  # type: ignore[union-attr]
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class BloomSimulator:
    """A Bloom filter in process memory: one numpy ``bool`` per bit, vectorised inserts/queries.

    Uses :class:`BloomLayout`'s hashing, so its bits are the ones a
    :class:`setlab.lab.runs.bloom.RedisBloomFilter` with the same layout would set. Memory:
    ``layout.total_bits`` bytes (one byte per bit, for speed).
    """

    def __init__(self, layout: BloomLayout) -> None:
        if not isinstance(layout, BloomLayout):
            raise ValueError(f"layout must be a BloomLayout, got {layout!r}")
        self.layout = layout
        self.bits = np.zeros(layout.total_bits, dtype=bool)
        self.count = 0

    @classmethod
    def sized(cls, m: int, k: int, seed: int = 0) -> BloomSimulator:
        """A single-array filter of ``m`` bits and ``k`` hashes."""
        return cls(BloomLayout(m, k, 0, seed))

    def _indices(self, items: object) -> np.ndarray:
        """Global bit indices, shape ``(k, n)`` (int64: every index is below 2^63)."""
        shard, offsets = self.layout.locate(items)
        by_hash = offsets.T
        if self.layout.shard_bits:
            by_hash = by_hash + shard * np.uint64(self.layout.bits_per_shard)
        return by_hash.view(np.int64)

    def add(self, items: object, progress: bool = False) -> None:
        """Insert items (a numpy integer array is fastest; see :func:`base_hashes`)."""
        total = items.size if isinstance(items, np.ndarray) else None
        report = Progress(total, "bloom add", progress)
        for chunk in iter_chunks(items):
            idx = self._indices(chunk)
            self.bits[idx] = True
            self.count += idx.shape[1]
            report.update(idx.shape[1])
        report.close()

    def contains(self, items: object) -> np.ndarray:
        """``True`` where every one of the item's ``k`` bits is set (a bool array)."""
        answers = [self.bits[self._indices(chunk)].all(axis=0) for chunk in iter_chunks(items)]
        return np.concatenate(answers) if answers else np.zeros(0, dtype=bool)

    def fill_ratio(self) -> float:
        """Fraction of bits set."""
        return float(np.count_nonzero(self.bits)) / self.bits.size

    def shard_fill(self) -> np.ndarray:
        """Fraction of bits set in each shard."""
        per_shard = self.bits.reshape(self.layout.shards, self.layout.bits_per_shard)
        return np.count_nonzero(per_shard, axis=1) / self.layout.bits_per_shard

    def shard_bytes(self, shard: int) -> bytes:
        """One shard packed the way Redis stores a bitmap (bit 0 = MSB of byte 0)."""
        shard = check_int("shard", shard, 0, self.layout.shards - 1)
        m = self.layout.bits_per_shard
        return np.packbits(self.bits[shard * m : (shard + 1) * m]).tobytes()

    def measured_fpr(self, queries: np.ndarray) -> float:
        """Fraction of ``queries`` (items never added) that the filter calls present."""
        return float(np.mean(self.contains(queries)))


def simulate_fpr(
    m: int, k: int, n: int, queries: int = 100_000, seed: int = 0, shard_bits: int = 0
) -> float:
    """Measured false-positive rate: add ``n`` random 64-bit integers, query ``queries`` others.

    Items and queries come from disjoint ranges (``[0, 2^62)`` and ``[2^62, 2^63)``), so every
    "present" answer for a query is a false positive. ``m`` is bits per shard.
    """
    n = check_int("n", n, 0)
    queries = check_int("queries", queries, 1)
    rng = np.random.default_rng(seed)
    sim = BloomSimulator(BloomLayout(m, k, shard_bits, seed))
    sim.add(rng.integers(0, 2**62, size=n, dtype=np.uint64))
    return sim.measured_fpr(rng.integers(2**62, 2**63, size=queries, dtype=np.uint64))


def simulate_fpr_curve(
    layout: BloomLayout, loads: Sequence[int], queries: int = 100_000, seed: int = 0
) -> list[tuple[int, float, int]]:
    """Fill one simulated filter step by step; at each total load in ``loads`` (items, rising)
    measure the false-positive rate on ``queries`` fresh non-members.

    Returns ``(load, measured rate, false positives)`` per load (same disjoint item ranges as
    :func:`simulate_fpr`).
    """
    queries = check_int("queries", queries, 1)
    loads = [check_int("loads", n, 0) for n in loads]
    if any(b < a for a, b in itertools.pairwise(loads)):
        raise ValueError(f"loads must be non-decreasing; got {loads}")
    rng = np.random.default_rng(seed)
    sim = BloomSimulator(layout)
    rows, done = [], 0
    for n in loads:
        sim.add(rng.integers(0, 2**62, size=n - done, dtype=np.uint64))
        done = n
        hits = int(
            np.count_nonzero(
                sim.contains(rng.integers(2**62, 2**63, size=queries, dtype=np.uint64))
            )
        )
        rows.append((n, hits / queries, hits))
    return rows
