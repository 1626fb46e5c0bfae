"""Bloom filters: the sizing and error math (pure formulas; numpy and scipy only).

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
  al. 1978 for the bound);
* sharding: a filter split over keys by hash has Binomial shard loads, so its mean rate is
  :func:`sharded_fpr` and its fullest shard :func:`worst_shard_load`.

How an item's ``k`` positions are computed, the layout over Redis keys and the in-memory
simulator are in :mod:`setlab.models.bloom_sim`; the filter on Redis bitmaps is
:mod:`setlab.lab.runs.bloom`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.core.validate import check_int, check_probability

LN2 = math.log(2.0)
#: The most bits one Redis string can hold (``proto-max-bulk-len`` 512 MiB × 8).
MAX_BITS_PER_KEY = 2**32
#: Largest ``k`` the filters accept (real filters use 1–30; 64 keeps arrays small).
MAX_K = 64
#: Upper bound on ``k·n·m`` for :func:`fpr_exact` (about a second of numpy work).
EXACT_BUDGET = 5 * 10**8


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
    throws = check_int("throws", throws, 0)
    m = check_int("m", m, 1)
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
    n = check_int("n", n, 0)
    m = check_int("m", m, 1)
    k = check_int("k", k, 1, MAX_K)
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
    p = check_probability("p", p)
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
    p = check_probability("p", p)
    if k is None:
        return m * LN2**2 / -math.log(p)
    k = check_int("k", k, 1, MAX_K)
    return -(m / k) * math.log1p(-(p ** (1.0 / k)))


def bits_per_item(p: float) -> float:
    """Bits per item a Bloom filter with the best ``k`` needs at rate ``p``: ``-ln p / (ln 2)²``."""
    return -math.log(check_probability("p", p)) / LN2**2


def bits_per_item_lower_bound(p: float) -> float:
    """Bits per item ANY structure answering membership at rate ``p`` needs: ``log2(1/p)``.

    Carter, Floyd, Gill, Markowsky & Wegman (1978); a Bloom filter pays ``1/ln 2 ≈ 1.44×`` this.
    """
    return -math.log2(check_probability("p", p))


def filters_bytes(capacities: Any, p: float) -> float:
    """Total bytes of one filter per capacity, each sized by :func:`optimal_m` for rate ``p``.

    Seed 003's 8000 per-campaign filters: each capacity (items, > 0) gets its own bit array of
    ``ceil(-n ln p / (ln 2)^2)`` bits, rounded up to whole bytes.
    """
    caps = _array("capacities", capacities, 1)
    p = check_probability("p", p)
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
    keys, days = check_int("keys", keys, 1), check_int("days", days, 1)
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
    shards = check_int("shards", shards, 1)
    bits_per_shard = check_int("bits_per_shard", bits_per_shard, 1)
    k = check_int("k", k, 1, MAX_K)
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
    shards = check_int("shards", shards, 1)
    quantile = check_probability("quantile", quantile)
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


def fpr_confidence_interval(hits: int, trials: int, level: float = 0.999) -> tuple[float, float]:
    """Clopper–Pearson interval for a rate measured as ``hits`` out of ``trials`` (fractions)."""
    trials = check_int("trials", trials, 1)
    hits = check_int("hits", hits, 0, trials)
    level = check_probability("level", level)
    alpha = 1.0 - level
    from scipy import stats  # imported here: scipy.stats costs a second to import

    low = 0.0 if hits == 0 else stats.beta.ppf(alpha / 2, hits, trials - hits + 1)
    high = 1.0 if hits == trials else stats.beta.ppf(1 - alpha / 2, hits + 1, trials - hits)
    return float(low), float(high)


# -- presentation ---------------------------------------------------------------------------------
