"""Bloom filters: the sizing and error math, a numpy simulator, and a filter on Redis bitmaps.

A Bloom filter is an array of ``m`` bits and ``k`` hash functions. Adding an item sets the ``k``
bits its hashes point at; a query answers "present" when all ``k`` are set. It never forgets an
item it was given (no false negatives), and it wrongly answers "present" for an item it was not
given with a probability that depends on how full the array is.

The math (``m`` bits, ``n`` items, ``k`` hashes; probabilities are fractions, not percents):

* fill ratio (expected fraction of bits set): ``1 - (1 - 1/m)^(kn) ≈ 1 - e^(-kn/m)``;
* false-positive rate, classic approximation (Bloom 1970; Broder & Mitzenmacher 2004, eq. 1):
  ``(1 - e^(-kn/m))^k``; finite-``m`` form: ``(1 - (1 - 1/m)^(kn))^k``. Both treat the ``k``
  probed bits as independent, which they are not; the error matters only for small ``m``;
* exact false-positive rate (Christensen, Roginsky & Jimeno 2010, "A new analysis of the false
  positive rate of a Bloom filter", Inf. Proc. Letters 110): throw ``kn`` balls into ``m`` bins,
  let ``X`` be the number of occupied bins, and the rate is ``E[(X/m)^k]``. :func:`fpr_exact`
  computes the distribution of ``X`` exactly (a dynamic programme over the throws), which costs
  ``O(k·n·m)``: it is used for small filters (tests, and the chapters' small-``m`` comparisons);
  for real filter sizes the classic form is indistinguishable from it;
* optimum: ``k = (m/n) ln 2`` hashes, which leaves the filter half full and gives
  ``m = -n ln p / (ln 2)^2`` bits, i.e. ``1.44 · log2(1/p)`` bits per item against the
  information-theoretic lower bound of ``log2(1/p)`` (Broder & Mitzenmacher 2004, §2.1; Carter et
  al. 1978 for the bound).

Hashing (shared by the simulator, the Redis filter and :mod:`setlab.lab.loading`, so they set the same
bits): each item gets two 64-bit base hashes ``h1, h2`` — unsigned integers through MurmurHash3's
64-bit finaliser, strings and bytes through MurmurHash3 x64_128 of their UTF-8 bytes. The ``k``
positions follow Kirsch & Mitzenmacher ("Less hashing, same performance", 2006):
``g_i = (a + i·b) mod m`` with ``a = h1 mod m`` and ``b = 1 + h2 mod (m - 1)`` — or, when ``m``
is a power of two, ``b = (h2 mod m) | 1``: an odd step visits all ``m`` bits before repeating, so
an item's ``k ≤ m`` positions are distinct. A sharded filter
first routes the item by the top ``shard_bits`` bits of ``h1`` (the key) and uses the remaining
low bits of ``h1`` inside that key — seed 002's "high bits pick the container, low bits index
inside it", with all ``k`` bits of an item in the one key it was routed to.

Redis bitmaps number bits from the most significant bit of byte 0 (``SETBIT k 0 1`` gives
``"\\x80"``); :meth:`BloomSimulator.shard_bytes` packs its bits the same way, so a filter built in
numpy can be written to Redis with ``SET`` and read back bit for bit.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mmh3
import numpy as np

from setlab.core.validate import check_int as _int
from setlab.core.validate import check_probability as _probability

if TYPE_CHECKING:
    from setlab.lab.backend import Lab

LN2 = math.log(2.0)
#: The most bits one Redis string can hold (``proto-max-bulk-len`` 512 MiB × 8).
MAX_BITS_PER_KEY = 2**32
#: Largest ``k`` the filters accept (real filters use 1–30; 64 keeps arrays small).
MAX_K = 64
#: Upper bound on ``k·n·m`` for :func:`fpr_exact` (about a second of numpy work).
EXACT_BUDGET = 5 * 10**8
_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_GOLDEN = 0x9E3779B97F4A7C15
_FMIX_1 = np.uint64(0xFF51AFD7ED558CCD)
_FMIX_2 = np.uint64(0xC4CEB9FE1A85EC53)
_CHUNK = 1 << 18  # items per vectorised step: keeps temporaries in the tens of MB


# -- validation -----------------------------------------------------------------------------------


def _array(name: str, value: object, low: float, integer: bool = False) -> np.ndarray:
    """``value`` as a float array, every element finite and ``>= low`` (and whole if asked)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if arr.dtype == bool or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers, got {value!r}")
    if np.any(arr < low):
        raise ValueError(f"{name} must be >= {low:g}; got {arr.min():g}")
    if integer and np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must be whole numbers; got {value!r}")
    return arr


def _out(arr: np.ndarray) -> float | np.ndarray:
    return float(arr) if arr.ndim == 0 else arr


# -- the math -------------------------------------------------------------------------------------


def fill_ratio(n: Any, m: Any, k: Any, *, finite: bool = True) -> float | np.ndarray:
    """Expected fraction of the ``m`` bits that are set after adding ``n`` items with ``k`` hashes.

    ``1 - (1 - 1/m)^(kn)`` (``finite=True``), or its large-``m`` limit ``1 - e^(-kn/m)``. Arguments
    broadcast like numpy arrays; ``n >= 0``, ``m >= 1``, ``k >= 1``.
    """
    n_, m_, k_ = _array("n", n, 0), _array("m", m, 1), _array("k", k, 1, integer=True)
    if finite:
        # m = 1: the one bit is set as soon as anything is added (log1p(-1) is -inf).
        with np.errstate(divide="ignore", invalid="ignore"):
            fill = -np.expm1(k_ * n_ * np.log1p(-1.0 / m_))
        return _out(np.where(m_ == 1, np.where(n_ > 0, 1.0, 0.0), fill))
    return _out(-np.expm1(-k_ * n_ / m_))


def fpr(n: Any, m: Any, k: Any) -> float | np.ndarray:
    """False-positive rate, the classic approximation ``(1 - e^(-kn/m))^k`` (a fraction).

    Bloom (1970); the form every sizing calculator uses. ``n >= 0`` items, ``m >= 1`` bits,
    ``k >= 1`` hashes; arrays broadcast.
    """
    return _out(np.power(fill_ratio(n, m, k, finite=False), _array("k", k, 1, integer=True)))


def fpr_finite(n: Any, m: Any, k: Any) -> float | np.ndarray:
    """False-positive rate with the finite-``m`` fill: ``(1 - (1 - 1/m)^(kn))^k`` (a fraction).

    Still assumes the ``k`` probed bits are independent, so it is a slight underestimate for
    small ``m`` (Bose et al. 2008); see :func:`fpr_exact`.
    """
    return _out(np.power(fill_ratio(n, m, k, finite=True), _array("k", k, 1, integer=True)))


def occupancy_distribution(throws: int, m: int) -> np.ndarray:
    """``P(X = i)`` for ``i = 0..m``: ``X`` occupied bins after ``throws`` uniform balls in ``m``.

    Exact up to float rounding (a stable dynamic programme: each throw lands in an occupied bin
    with probability ``i/m``). Costs ``O(throws · m)``.
    """
    throws = _int("throws", throws, 0)
    m = _int("m", m, 1)
    q = np.zeros(m + 1)
    q[0] = 1.0
    stay = np.arange(m + 1) / m
    move = 1.0 - stay
    for _ in range(throws):
        q[1:] = q[1:] * stay[1:] + q[:-1] * move[:-1]
        q[0] = 0.0
    return q


def fpr_exact(n: int, m: int, k: int) -> float:
    """Exact false-positive rate of a Bloom filter with independent uniform hashes (a fraction).

    Christensen, Roginsky & Jimeno (2010): ``E[(X/m)^k]`` where ``X`` is the number of set bits
    after ``kn`` uniform hash values. Exact for any ``m``, but it costs ``O(k·n·m)``, so it refuses
    ``k·n·m > EXACT_BUDGET``: use it for small filters, :func:`fpr` or :func:`fpr_finite` beyond.
    """
    n = _int("n", n, 0)
    m = _int("m", m, 1)
    k = _int("k", k, 1, MAX_K)
    if k * n * m > EXACT_BUDGET:
        raise ValueError(
            f"fpr_exact costs k·n·m = {k * n * m:,} steps, over the budget of {EXACT_BUDGET:,}; "
            "for a filter this big fpr_finite() agrees with it to many digits"
        )
    q = occupancy_distribution(k * n, m)
    return float(np.dot(q, (np.arange(m + 1) / m) ** k))


def optimal_k(m: float, n: float) -> int:
    """The whole number of hashes that minimises the false-positive rate: ``(m/n) ln 2`` rounded.

    Of ``floor`` and ``ceil`` of ``(m/n) ln 2`` it returns the one with the lower :func:`fpr`
    (at least 1). ``m`` bits, ``n`` items, both > 0.
    """
    m = float(_array("m", m, 1))
    n = float(_array("n", n, 1))
    best = m / n * LN2
    candidates = {max(1, math.floor(best)), max(1, math.ceil(best))}
    return min(sorted(candidates), key=lambda k: fpr(n, m, k))


def optimal_m(n: float, p: float) -> int:
    """Bits for ``n`` items at false-positive rate ``p`` with the best ``k``: ``-n ln p / (ln 2)²``.

    Rounded up to a whole bit. ``n`` items (> 0), ``p`` a fraction in (0, 1).
    """
    n = float(_array("n", n, 1))
    p = _probability("p", p)
    return math.ceil(-n * math.log(p) / LN2**2)


@dataclass(frozen=True)
class Sizing:
    """A filter sized for ``n`` items at rate ``p``: ``m`` bits, ``k`` hashes, what it achieves."""

    n: float
    p: float
    m: int
    k: int

    @property
    def bytes(self) -> int:
        """Bytes of the bit array, ``ceil(m / 8)``."""
        return -(-self.m // 8)

    @property
    def bits_per_item(self) -> float:
        return self.m / self.n

    @property
    def achieved_fpr(self) -> float:
        """:func:`fpr` at the design load with the whole-number ``k`` (a fraction)."""
        return float(fpr(self.n, self.m, self.k))


def size_for(n: float, p: float) -> Sizing:
    """``m`` and ``k`` for ``n`` items at false-positive rate ``p`` (seed 003's two formulas)."""
    m = optimal_m(n, p)
    return Sizing(float(n), p, m, optimal_k(m, n))


def capacity(m: float, p: float, k: int | None = None) -> float:
    """Items an ``m``-bit filter holds before its false-positive rate reaches ``p``.

    With ``k=None`` (the best ``k`` for that load): ``m (ln 2)^2 / -ln p``. With a fixed ``k``:
    solve ``(1 - e^(-kn/m))^k = p`` for ``n``, i.e. ``n = -(m/k) ln(1 - p^(1/k))``.
    """
    m = float(_array("m", m, 1))
    p = _probability("p", p)
    if k is None:
        return m * LN2**2 / -math.log(p)
    k = _int("k", k, 1, MAX_K)
    return -(m / k) * math.log1p(-(p ** (1.0 / k)))


def bits_per_item(p: float) -> float:
    """Bits per item a Bloom filter with the best ``k`` needs at rate ``p``: ``-ln p / (ln 2)²``."""
    return -math.log(_probability("p", p)) / LN2**2


def bits_per_item_lower_bound(p: float) -> float:
    """Bits per item ANY structure answering membership at rate ``p`` needs: ``log2(1/p)``.

    Carter, Floyd, Gill, Markowsky & Wegman (1978); a Bloom filter pays ``1/ln 2 ≈ 1.44×`` this.
    """
    return -math.log2(_probability("p", p))


def filters_bytes(capacities: Any, p: float) -> float:
    """Total bytes of one filter per capacity, each sized by :func:`optimal_m` for rate ``p``.

    Seed 003's 8000 per-campaign filters: each capacity (items, > 0) gets its own bit array of
    ``ceil(-n ln p / (ln 2)^2)`` bits, rounded up to whole bytes.
    """
    caps = _array("capacities", capacities, 1)
    p = _probability("p", p)
    bits = np.ceil(-caps * math.log(p) / LN2**2)
    return float(np.ceil(bits / 8).sum())


def skewed_daily_loads(
    rng: np.random.Generator,
    keys: int,
    days: int,
    daily_total: float,
    spread: float = 1.5,
    day_to_day: float = 0.5,
) -> np.ndarray:
    """Items per key per day, shape ``(days, keys)``: a model of seed 003's 8000 campaigns.

    Each key's typical size is lognormal with shape ``spread`` (a few big campaigns, many small
    ones); each day multiplies it by an independent lognormal factor of shape ``day_to_day``
    (mean 1). Scaled so that the expected total per day is ``daily_total`` items.
    """
    keys, days = _int("keys", keys, 1), _int("days", days, 1)
    daily_total = float(_array("daily_total", daily_total, 1))
    spread = float(_array("spread", spread, 0))
    day_to_day = float(_array("day_to_day", day_to_day, 0))
    typical = rng.lognormal(0.0, spread, size=keys)
    typical *= daily_total / typical.sum()
    noise = rng.lognormal(-(day_to_day**2) / 2, day_to_day, size=(days, keys))
    return typical * noise


def sharded_fpr(n: float, shards: int, bits_per_shard: int, k: int) -> float:
    """Mean false-positive rate of a filter split over ``shards`` keys, each item in one key.

    Shard loads are Binomial(n, 1/shards) (hash routing), and a query for a non-member lands in a
    uniformly random shard, so the rate is ``E[fpr(B, bits_per_shard, k)]`` — more than the rate at
    the mean load, because the rate is convex in the load (Jensen).
    """
    n = float(_array("n", n, 0))
    shards = _int("shards", shards, 1)
    bits_per_shard = _int("bits_per_shard", bits_per_shard, 1)
    k = _int("k", k, 1, MAX_K)
    if shards == 1:
        return float(fpr(n, bits_per_shard, k))
    loads, weights = _binomial_support(n, 1.0 / shards)
    return float(np.dot(weights, fpr(loads, bits_per_shard, k)))


def worst_shard_load(n: float, shards: int, quantile: float = 0.5) -> int:
    """The ``quantile`` of the largest shard's load when ``n`` items are routed to ``shards`` keys.

    Treats the loads as independent Binomial(n, 1/shards) (the multinomial's slight negative
    correlation makes this a touch pessimistic): the smallest ``x`` with ``F(x)^shards >= q``.
    """
    n = float(_array("n", n, 0))
    shards = _int("shards", shards, 1)
    quantile = _probability("quantile", quantile)
    from scipy import stats  # imported here: scipy.stats costs a second to import

    return int(stats.binom.ppf(quantile ** (1.0 / shards), round(n), 1.0 / shards))


def _binomial_support(n: float, p: float) -> tuple[np.ndarray, np.ndarray]:
    trials = round(n)
    mean, sd = trials * p, math.sqrt(trials * p * (1 - p))
    low, high = max(0, math.floor(mean - 12 * sd)), math.ceil(mean + 12 * sd)
    loads = np.arange(low, high + 1)
    from scipy import stats  # imported here: scipy.stats costs a second to import

    weights = stats.binom.pmf(loads, trials, p)
    return loads.astype(float), weights / weights.sum()


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
    seed = _int("seed", seed, 0, 2**31 - 1)
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
    ``(shard, bit offsets)``; :class:`BloomSimulator`, :class:`RedisBloomFilter` and
    :mod:`setlab.lab.loading` all use it, so they set exactly the same bits for the same items.
    """

    bits_per_shard: int
    k: int
    shard_bits: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        _int("bits_per_shard", self.bits_per_shard, 2, MAX_BITS_PER_KEY)
        _int("k", self.k, 1, MAX_K)
        _int("shard_bits", self.shard_bits, 0, 32)
        _int("seed", self.seed, 0, 2**31 - 1)

    @classmethod
    def for_items(
        cls, n: float, p: float, shard_bits: int = 0, seed: int = 0, k: int | None = None
    ) -> BloomLayout:
        """A layout whose every shard is sized for its share ``n / 2^shard_bits`` at rate ``p``."""
        shard_bits = _int("shard_bits", shard_bits, 0, 32)
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


def _chunks(items: object, size: int = _CHUNK) -> Iterator[object]:
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


class Progress:
    """A one-line text progress report (count done, rate, ETA) on stderr, rewritten in place."""

    def __init__(
        self,
        total: int | None,
        label: str,
        enabled: bool = True,
        every: float = 0.5,
        unit: str = "items",
    ):
        self.total, self.label, self.enabled, self.every = total, label, enabled, every
        self.unit = unit
        self.done = 0
        self.start = self.last = time.perf_counter()

    def update(self, count: int) -> None:
        self.done += count
        now = time.perf_counter()
        if self.enabled and now - self.last >= self.every:
            self.last = now
            self._print(now, end="")

    def close(self) -> None:
        if self.enabled:
            self._print(time.perf_counter(), end="\n")

    def _print(self, now: float, end: str) -> None:
        rate = self.done / max(now - self.start, 1e-9)
        text = f"\r{self.label}: {self.done:,}"
        if self.total:
            eta = (self.total - self.done) / rate if rate else float("inf")
            text += f"/{self.total:,} ({100 * self.done / self.total:.0f}%, ETA {eta:.0f} s)"
        text += f", {rate:,.0f} {self.unit}/s"
        print(text, end=end, file=sys.stderr, flush=True)


class BloomSimulator:
    """A Bloom filter in process memory: one numpy ``bool`` per bit, vectorised inserts/queries.

    Uses :class:`BloomLayout`'s hashing, so its bits are the ones a :class:`RedisBloomFilter` with
    the same layout would set. Memory: ``layout.total_bits`` bytes (one byte per bit, for speed).
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
        for chunk in _chunks(items):
            idx = self._indices(chunk)
            self.bits[idx] = True
            self.count += idx.shape[1]
            report.update(idx.shape[1])
        report.close()

    def contains(self, items: object) -> np.ndarray:
        """``True`` where every one of the item's ``k`` bits is set (a bool array)."""
        answers = [self.bits[self._indices(chunk)].all(axis=0) for chunk in _chunks(items)]
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
        shard = _int("shard", shard, 0, self.layout.shards - 1)
        m = self.layout.bits_per_shard
        return np.packbits(self.bits[shard * m : (shard + 1) * m]).tobytes()

    def measured_fpr(self, queries: np.ndarray) -> float:
        """Fraction of ``queries`` (items never added) that the filter calls present."""
        return float(np.mean(self.contains(queries)))


def fpr_confidence_interval(hits: int, trials: int, level: float = 0.999) -> tuple[float, float]:
    """Clopper–Pearson interval for a rate measured as ``hits`` out of ``trials`` (fractions)."""
    trials = _int("trials", trials, 1)
    hits = _int("hits", hits, 0, trials)
    level = _probability("level", level)
    alpha = 1.0 - level
    from scipy import stats  # imported here: scipy.stats costs a second to import

    low = 0.0 if hits == 0 else stats.beta.ppf(alpha / 2, hits, trials - hits + 1)
    high = 1.0 if hits == trials else stats.beta.ppf(1 - alpha / 2, hits + 1, trials - hits)
    return float(low), float(high)


def simulate_fpr(
    m: int, k: int, n: int, queries: int = 100_000, seed: int = 0, shard_bits: int = 0
) -> float:
    """Measured false-positive rate: add ``n`` random 64-bit integers, query ``queries`` others.

    Items and queries come from disjoint ranges (``[0, 2^62)`` and ``[2^62, 2^63)``), so every
    "present" answer for a query is a false positive. ``m`` is bits per shard.
    """
    n = _int("n", n, 0)
    queries = _int("queries", queries, 1)
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
    queries = _int("queries", queries, 1)
    loads = [_int("loads", n, 0) for n in loads]
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


# -- a Bloom filter on Redis bitmaps --------------------------------------------------------------


class RedisBloomFilter:
    """A Bloom filter stored in Redis strings (bitmaps): one key, or one key per shard.

    Keys are ``lab.key(name)`` (one key) or ``lab.key(name, shard)``. Every item's ``k`` bits live
    in the one key its hash routes it to, so an add or a query is one ``BITFIELD`` command on one
    key (atomic per item, and in Redis Cluster the whole item lives in one slot). Works on a real
    Redis and on fakeredis.
    """

    def __init__(self, lab: Lab, name: str, layout: BloomLayout, *, preallocate: bool = True):
        if not isinstance(layout, BloomLayout):
            raise ValueError(f"layout must be a BloomLayout, got {layout!r}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        lab.check_allocation(layout.total_bytes, f"Bloom filter {name!r}")
        self.lab, self.name, self.layout = lab, name, layout
        if preallocate:
            self.preallocate()

    def key_for(self, shard: int) -> str:
        """The Redis key of one shard."""
        return self.lab.key(self.name, *self.layout.key_suffix(shard))

    def keys(self) -> list[str]:
        return [self.key_for(s) for s in range(self.layout.shards)]

    def preallocate(self, batch: int = 1000) -> None:
        """Grow every shard to its full size now (``BITFIELD … INCRBY u1 <last bit> 0``).

        Adding 0 to the last bit changes nothing but makes Redis allocate the whole string at
        once, instead of growing it (and over-allocating) as bits arrive.
        """
        last = self.layout.bits_per_shard - 1
        pipe = self.lab.r.pipeline(transaction=False)
        for shard in range(self.layout.shards):
            pipe.execute_command("BITFIELD", self.key_for(shard), "INCRBY", "u1", last, 0)
            if len(pipe) >= batch:
                pipe.execute()
        pipe.execute()

    def _commands(self, items: object, op: str) -> Iterator[tuple[str, list[object]]]:
        shard, offsets = self.layout.locate(items)
        tail = ["SET", "u1"] if op == "SET" else ["GET", "u1"]
        for s, row in zip(shard.tolist(), offsets.tolist(), strict=True):
            args: list[object] = []
            for offset in row:
                args += [*tail, offset] + ([1] if op == "SET" else [])
            yield self.key_for(s), args

    def add(self, item: object) -> bool:
        """Add one item; ``True`` if it was new (at least one of its bits was 0)."""
        return bool(self.add_many([item]))

    def add_many(self, items: object, batch: int = 2000, progress: bool = False) -> int:
        """Add items in pipelined batches of ``batch`` BITFIELD commands; returns how many were
        new (had at least one bit unset). Shows progress on stderr when ``progress``."""
        batch = _int("batch", batch, 1)
        total = items.size if isinstance(items, np.ndarray) else None
        report = Progress(total, f"add to {self.name}", progress)
        new = 0
        for chunk in _chunks(items, batch):
            pipe = self.lab.r.pipeline(transaction=False)
            for key, args in self._commands(chunk, "SET"):
                pipe.execute_command("BITFIELD", key, *args)
            replies = pipe.execute()
            new += sum(1 for old in replies if 0 in old)
            report.update(len(replies))
        report.close()
        return new

    def contains(self, item: object) -> bool:
        """Whether the filter says the item is present (it may be a false positive)."""
        return bool(self.contains_many([item])[0])

    def contains_many(self, items: object, batch: int = 2000) -> np.ndarray:
        """``True`` where the filter says present, as a bool array (pipelined BITFIELD GETs)."""
        batch = _int("batch", batch, 1)
        answers: list[bool] = []
        for chunk in _chunks(items, batch):
            pipe = self.lab.r.pipeline(transaction=False)
            for key, args in self._commands(chunk, "GET"):
                pipe.execute_command("BITFIELD", key, *args)
            answers += [all(bits) for bits in pipe.execute()]
        return np.array(answers, dtype=bool)

    def shard_bytes(self, shard: int) -> bytes:
        """The shard's bitmap as Redis holds it, padded with zero bytes to its full size."""
        shard = _int("shard", shard, 0, self.layout.shards - 1)
        value = self.lab.r.get(self.key_for(shard)) or b""
        return value.ljust(self.layout.bytes_per_shard, b"\x00")

    def bits_set(self) -> int:
        """Number of 1 bits over all shards (``BITCOUNT``)."""
        pipe = self.lab.r.pipeline(transaction=False)
        for key in self.keys():
            pipe.bitcount(key)
        return int(sum(pipe.execute()))

    def fill_ratio(self) -> float:
        """Fraction of the filter's bits that are set."""
        return self.bits_set() / self.layout.total_bits

    def delete(self) -> int:
        """Remove the filter's keys (UNLINK); returns how many existed."""
        keys = self.keys()
        return sum(self.lab.r.unlink(*keys[i : i + 1000]) for i in range(0, len(keys), 1000))


# -- presentation ---------------------------------------------------------------------------------


def format_rate(p: float, digits: int = 3) -> str:
    """A probability as a percent for prose: ``0.1571`` → ``'15.7%'``, ``5e-5`` → ``'0.005%'``."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    percent = 100.0 * float(p)
    if percent == 0.0:
        return "0%"
    text = f"{percent:.{digits}g}"
    if "e" in text:
        text = f"{percent:.{digits - 1 + max(0, -math.floor(math.log10(percent)))}f}"
    return text + "%"


def draw_filter(
    ax: Any,
    m: int,
    items: dict[str, Sequence[int]],
    query: tuple[str, Sequence[int]] | None = None,
) -> Any:
    """Draw an ``m``-bit array, arrows from each item to the bits it sets, and optionally a query.

    ``items`` maps a label to its bit positions; ``query`` is ``(label, positions)``, drawn below
    the array with its arrows green where the bit is set and red where it is not. Returns ``ax``.
    """
    from matplotlib.patches import Rectangle

    m = _int("m", m, 1, 256)
    colours = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9"]
    set_bits = {p for positions in items.values() for p in positions}
    for i in range(m):
        ax.add_patch(
            Rectangle((i, 0), 1, 1, facecolor="#dddddd" if i in set_bits else "white",
                      edgecolor="black", linewidth=0.8)
        )  # fmt: skip
        ax.text(i + 0.5, 0.5, "1" if i in set_bits else "0", ha="center", va="center", fontsize=8)
        ax.text(i + 0.5, -0.25, str(i), ha="center", va="center", fontsize=6, color="grey")
    spread = max(1, len(items) - 1)
    for j, (label, positions) in enumerate(items.items()):
        x0 = m * (0.1 + 0.8 * j / spread) if len(items) > 1 else m / 2
        colour = colours[j % len(colours)]
        ax.text(x0, 2.6, label, ha="center", va="bottom", color=colour, fontsize=9)
        for p in positions:
            ax.annotate("", xy=(p + 0.5, 1.05), xytext=(x0, 2.55),
                        arrowprops={"arrowstyle": "->", "color": colour, "lw": 1})  # fmt: skip
    if query is not None:
        label, positions = query
        x0 = m / 2
        ax.text(x0, -2.4, label, ha="center", va="top", fontsize=9)
        for p in positions:
            hit = p in set_bits
            ax.annotate("", xy=(p + 0.5, -0.05), xytext=(x0, -2.35),
                        arrowprops={"arrowstyle": "->", "color": "#009E73" if hit else "#D55E00",
                                    "lw": 1.2, "linestyle": "-" if hit else "--"})  # fmt: skip
    ax.set_xlim(-0.5, m + 0.5)
    ax.set_ylim(-3.2 if query else -0.6, 3.3)
    ax.set_axis_off()
    return ax


# -- seed 004's filter, faithfully -----------------------------------------------------------------


class Seed004BloomFilter:
    """Seed 004's Java ``BloomFilter`` (§3-2), line for line, on a Redis bitmap — bug included.

    ``initializeHashFunctions`` fills ``hashFunctions`` with ``(int)(Math.random() *
    Integer.MAX_VALUE)``; ``add`` and ``contains`` use ``Math.abs(hashFunction % size)`` as the
    bit index. ``fixed=True`` applies the smallest fix: use each of those numbers as the *seed* of
    a real hash of the element (MurmurHash3 x86_32, as seed 004 §4 suggests).
    """

    def __init__(
        self,
        lab: Lab,
        filter_key: str,
        size: int,
        num_hash_functions: int,
        *,
        rng: np.random.Generator | None = None,
        fixed: bool = False,
    ) -> None:
        self.size = _int("size", size, 1, 2**31 - 1)
        num = _int("num_hash_functions", num_hash_functions, 1, MAX_K)
        lab.check_allocation(-(-self.size // 8), f"filter {filter_key!r}")
        self.r, self.filter_key, self.fixed = lab.r, lab.key(filter_key), fixed
        rng = rng if rng is not None else np.random.default_rng()
        # Java: hashFunctions[i] = (int) (Math.random() * Integer.MAX_VALUE);
        self.hash_functions = [int(rng.random() * (2**31 - 1)) for _ in range(num)]

    def _indices(self, element: str) -> list[int]:
        if self.fixed:
            return [mmh3.hash(element, h, signed=False) % self.size for h in self.hash_functions]
        return [abs(h % self.size) for h in self.hash_functions]  # never looks at element

    def add(self, element: str) -> None:
        for index in self._indices(element):
            self.r.setbit(self.filter_key, index, 1)

    def contains(self, element: str) -> bool:
        return all(self.r.getbit(self.filter_key, index) for index in self._indices(element))


# -- the field reports' claims (the figures setlab.chapters.claims checks them against) --------------------

#: Seed 002's traffic and population: lookups a day, the share for missing openids, openids.
SEED_002_DAILY, SEED_002_MISS_SHARE, SEED_002_MEMBERS = 10_000_000, 0.30, 800_000_000
#: Seed 002's containers: 2^17 bits; the plan (2 × 10^9 items over 2^16 containers, 15 hashes)
#: and the fix (2^17 containers, 10 hashes) with the load it carries (8 × 10^8).
SEED_002_BITS, SEED_002_PLANNED, SEED_002_REAL = 2**17, 2e9, 8e8
#: Seed 003: 1.2 × 10^8 devices at 1%; the overfill (sized for 10^8, filled with 2 × 10^8, k = 7).
SEED_003_ITEMS, SEED_003_SIZED, SEED_003_FILLED = 1.2e8, 1e8, 2e8
#: The campaign model behind seed 003's 8000 filters (a point of the sharded-bloom chapter's sweep).
CLAIM_CAMPAIGNS = {"keys": 8000, "days": 30, "daily_total": 1.2e8, "spread": 1.5,
                   "day_to_day": 0.55, "seed": 4}  # fmt: skip


@functools.cache
def claim_figures() -> dict[str, Any]:
    """The numbers behind the verdicts on seeds 002 and 003's Bloom arithmetic (chapters
    bloom-basics, nk-vs-m-saturation, sharded-bloom), all from the formulas of this module and a
    seeded campaign model (:data:`CLAIM_CAMPAIGNS`): deterministic and cached."""
    m = SEED_002_BITS
    per_plan = round(SEED_002_PLANNED / 2**16)
    plan = BloomLayout(m, 15, shard_bits=6)
    best_k = optimal_k(m, per_plan)
    shards = 2**17
    mean_8e8 = sharded_fpr(SEED_002_REAL, shards, m, 10)
    at_mean = float(fpr(SEED_002_REAL / shards, m, 10))
    worst = float(fpr(worst_shard_load(SEED_002_REAL, shards), m, 10))
    sizing = size_for(SEED_003_ITEMS, 0.01)
    over_m = optimal_m(SEED_003_SIZED, 0.01)
    c = CLAIM_CAMPAIGNS
    daily = skewed_daily_loads(np.random.default_rng(c["seed"]), c["keys"], c["days"],
                               c["daily_total"], c["spread"], c["day_to_day"])  # fmt: skip
    peaks = daily.max(axis=0)
    per_campaign = filters_bytes(peaks, 0.01)
    shared = size_for(daily.sum(axis=1).max(), 0.01).bytes
    return {
        "misses_per_day": SEED_002_DAILY * SEED_002_MISS_SHARE,
        "members_1pct_bytes": size_for(SEED_002_MEMBERS, 0.01).bytes,
        "misses_left_1pct": SEED_002_DAILY * SEED_002_MISS_SHARE * 0.01,
        "fix_rate_real": sharded_fpr(SEED_002_REAL, 2**17, m, 10),
        "fix_rate_planned": sharded_fpr(SEED_002_PLANNED, 2**17, m, 10),
        "per_plan": per_plan,
        "plan_rate": plan.expected_fpr(per_plan * plan.shards),
        "plan_fill": float(fill_ratio(per_plan, m, 15)),
        "plan_best_k": best_k,
        "plan_best_rate": float(fpr(per_plan, m, best_k)),
        "plan_bits_for_0.1pct": optimal_m(per_plan, 0.001),
        "rule_fill": -math.expm1(-1.0),
        "rule_rate_k10": (-math.expm1(-1.0)) ** 10,
        "best_load": LN2,
        "s003_bytes": sizing.bytes,
        "s003_bits_per_item": sizing.bits_per_item,
        "s003_k": sizing.k,
        "overfill_rate": float(fpr(SEED_003_FILLED, over_m, 7)),
        "overfill_bits_per_item": over_m / SEED_003_FILLED,
        "shard_mean_excess": mean_8e8 / at_mean - 1,
        "shard_worst_ratio": worst / mean_8e8,
        "campaign_bytes": per_campaign,
        "shared_bytes": shared,
        "campaign_ratio": per_campaign / shared,
        "utilisation": float(daily.sum(axis=1).mean() / peaks.sum()),
    }


def seed004_check(lab: Lab, strangers: int = 200) -> dict[str, Any]:
    """Seed 004's Java filter as published (size 10,000, 3 "hash functions", element1–3 added):
    what ``contains("element4")`` answers, how many never-added strings it calls present, and how
    many bits its adds set. Give it an embedded lab for an answer the same on every machine."""
    java = Seed004BloomFilter(lab, "claims-seed004", 10_000, 3, rng=np.random.default_rng(4))
    for element in ("element1", "element2", "element3"):
        java.add(element)
    others = [f"never-added-{i}" for i in range(_int("strangers", strangers, 1))]
    return {
        "element4": java.contains("element4"),
        "strangers": len(others),
        "strangers_present": sum(java.contains(s) for s in others),
        "bits_set": int(lab.r.bitcount(java.filter_key)),
    }
