"""Birthday collisions: ``n`` distinct user IDs hashed into ``m`` bitmap offsets.

The like/favourite bitmap of seed 000 maps a user to a bit with ``offset = |hash64(id)| mod m``
and shrinks ``m`` to make the bitmap small (seed 000 §3.4). Two users who land on the same
offset share one bit. Seed 004 §3 does the same with murmur3 of UUID strings. This module
computes what that costs, four ways that answer different questions:

* :func:`collision_probability` — the chance that at least two of ``n`` users share an offset
  (the seed's table). Exact: ``1 - prod_{i<n} (1 - i/m)``, summed in log space with ``log1p``
  (and, for very large ``n``, the Euler–Maclaurin or log-gamma form), so it stays accurate from
  1e-20 to 1 - 1e-16.
* :func:`expected_colliding_users` — how many users share their bit with someone else:
  ``n (1 - (1 - 1/m)^(n-1))``.
* :func:`expected_lost_bits` — how far ``BITCOUNT`` falls short of ``n``:
  ``n - m (1 - (1 - 1/m)^n)`` (the classic occupancy result).
* :func:`false_positive_rate` — the chance that a user who never liked reads as "liked":
  the fraction of set bits, ``1 - (1 - 1/m)^n``. The hashed bitmap is a one-hash Bloom filter.

It also judges a printed table of such probabilities (:func:`judge_cells`): which cells are
right at the precision printed, and which of :data:`CANDIDATE_FORMULAS` the author used.

Every formula assumes the hash spreads IDs uniformly over ``0..m-1``;
:mod:`setlab.models.hashed_offsets` checks that assumption with the real hash on realistic IDs.

References: Feller, *An Introduction to Probability Theory*, vol. 1, §II.3 (birthdays) and §IV.2
(occupancy).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext

import numpy as np

from setlab.core.formats import format_probability
from setlab.core.validate import check_int, check_probability

#: Up to this many users the exact probability is a plain sum of ``log1p`` terms.
_DIRECT_MAX = 1 << 22
#: Euler–Maclaurin needs ``m - n`` this large for its truncation error to be below 1e-30.
_EM_MIN_GAP = 1 << 16
_CHUNK = 1 << 20


# -- validation ----------------------------------------------------------------------------------


def _check_nm(n: object, m: object) -> tuple[int, int]:
    return check_int("n (users)", n, 0), check_int("m (offsets)", m, 1)


# -- exact and approximate probability ----------------------------------------------------------


def _log_no_collision_direct(n: int, m: int) -> float:
    """``sum_{i=1}^{n-1} log1p(-i/m)``, in chunks (numpy's pairwise summation inside each)."""
    total = 0.0
    for start in range(1, n, _CHUNK):
        i = np.arange(start, min(n, start + _CHUNK), dtype=np.float64)
        total += float(np.sum(np.log1p(-i / m)))
    return total


def _g(x: float) -> float:
    """``(1 - x) log(1 - x) + x`` for 0 <= x < 1, without cancellation for small x."""
    if x < 0.05:
        return sum(x**k / (k * (k - 1)) for k in range(2, 24))
    return (1 - x) * math.log1p(-x) + x


def _log_no_collision_em(n: int, m: int) -> float:
    """Euler–Maclaurin for ``sum_{i=0}^{n-1} log(1 - i/m)`` (needs ``m - n >= 2^16``).

    With ``f(t) = log(1 - t/m)``, ``f^(j)(t) = -(j-1)!/(m-t)^j``: the integral is ``-m g(n/m)``,
    the end correction ``-f(n)/2``, then the B2, B4, B6 terms. The next term is below
    ``1/(m-n)^7``.
    """
    a = float(m - n)
    x = n / m
    integral = -m * _g(x)
    ends = -0.5 * math.log1p(-x)
    b2 = -(1 / a - 1 / m) / 12
    b4 = (1 / a**3 - 1 / m**3) / 360
    b6 = -(1 / a**5 - 1 / m**5) / 1260
    return integral + ends + b2 + b4 + b6


def _log_no_collision_gamma(n: int, m: int) -> float:
    """``log(m! / ((m-n)! m^n))`` through log-gamma: fine when the result is large in magnitude."""
    from scipy.special import gammaln  # here: importing scipy.special costs 0.3 s

    return float(gammaln(m + 1) - gammaln(m - n + 1) - n * math.log(m))


def log_no_collision(n: int, m: int) -> float:
    """Natural log of the probability that ``n`` users get ``n`` distinct offsets out of ``m``.

    ``log prod_{i=0}^{n-1} (1 - i/m)``; ``-inf`` when ``n > m`` (pigeonhole). Up to 2^22 users it
    is the sum of ``log1p(-i/m)`` (relative error ~1e-15); beyond, Euler–Maclaurin when
    ``m - n >= 2^16``, else the log-gamma form (whose result is then below -10^6 anyway).
    """
    n, m = _check_nm(n, m)
    if n > m:
        return -math.inf
    if n <= 1:
        return 0.0
    if n <= _DIRECT_MAX:
        return _log_no_collision_direct(n, m)
    if m - n >= _EM_MIN_GAP:
        return _log_no_collision_em(n, m)
    return _log_no_collision_gamma(n, m)


def collision_probability(n: int, m: int) -> float:
    """Exact probability that at least two of ``n`` distinct users share one of ``m`` offsets.

    ``1 - prod_{i=0}^{n-1} (1 - i/m)`` (the birthday problem), assuming the hash maps users
    uniformly and independently. Computed as ``-expm1(log P(no collision))``, so tiny
    probabilities keep their digits. ``n`` >= 0 users, ``m`` >= 1 offsets.
    """
    return -math.expm1(log_no_collision(n, m))


def collision_probabilities(ns: Sequence[int] | np.ndarray, m: int) -> np.ndarray:
    """:func:`collision_probability` for many ``n`` at once (for curves), same accuracy.

    The ``n`` up to 2^22 share one cumulative sum of ``log1p(-i/m)``.
    """
    m = check_int("m (offsets)", m, 1)
    values = [check_int("ns[i] (users)", v, 0) for v in np.asarray(ns).ravel().tolist()]
    out = np.empty(len(values))
    small = [v for v in values if v <= min(m, _DIRECT_MAX)]
    if small:
        top = max(small)
        terms = np.log1p(-np.arange(1, max(top, 1), dtype=np.float64) / m)
        cum = np.concatenate(([0.0, 0.0], np.cumsum(terms)))
    for i, v in enumerate(values):
        if v <= min(m, _DIRECT_MAX):
            out[i] = -math.expm1(cum[v])
        else:
            out[i] = collision_probability(v, m)
    return out.reshape(np.shape(ns))


def expected_colliding_pairs(n: int, m: int) -> float:
    """Expected number of user pairs that share an offset: ``n (n-1) / (2m)``.

    Also the union bound on :func:`collision_probability` (it exceeds 1 for large ``n``).
    """
    n, m = _check_nm(n, m)
    return n * (n - 1) / (2 * m)


def collision_probability_approx(n: int, m: int) -> float:
    """The standard approximation ``1 - exp(-n (n-1) / (2m))`` (Poisson count of pairs).

    Always slightly below the exact value (because ``log(1 - x) <= -x``); close while ``n`` is
    small against ``m``.
    """
    return -math.expm1(-expected_colliding_pairs(n, m))


def max_users(m: int, p: float) -> int:
    """The largest ``n`` whose exact :func:`collision_probability` with ``m`` offsets is ``<= p``.

    Bisection on the exact form, started from the approximation ``sqrt(2 m ln(1/(1-p)))``.
    ``m`` >= 1 offsets, ``0 < p < 1``.
    """
    m = check_int("m (offsets)", m, 1)
    p = check_probability("p", p)
    guess = math.isqrt(int(2 * m * -math.log1p(-p))) + 2
    lo, hi = 1, min(m + 1, 2 * guess)  # P(lo) = 0 <= p
    while hi <= m and collision_probability(hi, m) <= p:
        lo, hi = hi, min(m + 1, 2 * hi)
    while hi - lo > 1:  # invariant: P(lo) <= p < P(hi), with P(m + 1) = 1
        mid = (lo + hi) // 2
        if collision_probability(mid, m) <= p:
            lo = mid
        else:
            hi = mid
    return lo


# -- expected damage ---------------------------------------------------------------------------


def _pow_one_minus(m: int, k: float) -> float:
    """``log((1 - 1/m)^k)`` (``-inf`` for m = 1 and k > 0)."""
    if m == 1:
        return 0.0 if k == 0 else -math.inf
    return k * math.log1p(-1 / m)


def expected_colliding_users(n: int, m: int) -> float:
    """Expected number of users whose offset is shared with at least one other user.

    ``n (1 - (1 - 1/m)^(n-1))``: each of them can read someone else's like as theirs, and
    each one's unlike can erase someone else's like.
    """
    n, m = _check_nm(n, m)
    if n <= 1:
        return 0.0
    return -n * math.expm1(_pow_one_minus(m, n - 1))


def _expm1_minus_x(t: float) -> float:
    """``exp(t) - 1 - t`` without cancellation for small ``|t|``."""
    if abs(t) < 0.1:
        return sum(t**k / math.factorial(k) for k in range(2, 20))
    return math.expm1(t) - t


def expected_lost_bits(n: int, m: int) -> float:
    """Expected ``n - BITCOUNT`` after ``n`` distinct users each set their bit: ``n - E[distinct]``.

    ``n - m (1 - (1 - 1/m)^n)`` (occupancy). Computed as ``n (1 + m log1p(-1/m)) +
    m (e^t - 1 - t)`` with ``t = n log1p(-1/m)``, which keeps its digits when the result is a
    tiny fraction of ``n`` (100,000 users into 2^32 offsets lose 1.16 bits).
    """
    n, m = _check_nm(n, m)
    if n <= 1:
        return 0.0
    if m == 1:
        return float(n - 1)
    inv = 1 / m
    # c = 1 + m log1p(-1/m) = -sum_{k>=2} m^{1-k}/k, summed as a series where it cancels
    c = -sum(inv ** (k - 1) / k for k in range(2, 18)) if m >= 16 else 1 + m * math.log1p(-inv)
    t = n * math.log1p(-inv)
    return n * c + m * _expm1_minus_x(t)


def expected_distinct_offsets(n: int, m: int) -> float:
    """Expected number of distinct offsets (= expected ``BITCOUNT``) for ``n`` users."""
    return n - expected_lost_bits(n, m)


def lost_bits_sd(n: int, m: int) -> float:
    """Standard deviation of the number of lost bits (``n - BITCOUNT``), exact.

    Lost bits = ``n - m + E`` with ``E`` the empty offsets, so the variance is the occupancy
    variance ``m q1^n + m(m-1) q2^n - m^2 q1^(2n)`` (``q1 = 1 - 1/m``, ``q2 = 1 - 2/m``; Feller
    §IV.2). Its terms are of size ``n`` while the result can be as small as ``n^2/m``, so it is
    evaluated in 60-digit decimal arithmetic.
    """
    n, m = _check_nm(n, m)
    if n <= 1 or m == 1:
        return 0.0
    with localcontext() as ctx:
        ctx.prec = 60
        dm = Decimal(m)
        q1, q2 = 1 - 1 / dm, 1 - 2 / dm
        variance = dm * q1**n + dm * (dm - 1) * q2**n - dm * dm * q1 ** (2 * n)
    return math.sqrt(max(float(variance), 0.0))


def false_positive_rate(n: int, m: int) -> float:
    """Chance that a user who never liked reads as "liked" (``GETBIT`` returns 1).

    The fraction of set bits after ``n`` users: ``1 - (1 - 1/m)^n``, the false-positive rate of
    a Bloom filter with one hash function.
    """
    n, m = _check_nm(n, m)
    return -math.expm1(_pow_one_minus(m, n))


# -- formatting probabilities -------------------------------------------------------------------


def format_collision_probability(n: int, m: int) -> str:
    """:func:`collision_probability` formatted by :func:`format_probability`, with the
    complement taken from the log so that 2^20 offsets and 10,000 users print as
    ``100% − 1.7e-19%``, not 100%."""
    log_q = log_no_collision(n, m)
    return format_probability(-math.expm1(log_q), math.exp(log_q))


# -- a printed table of probabilities, and what its author probably computed ---------------------

#: Formulas a table author might have used, each capped at 100%.
CANDIDATE_FORMULAS: dict[str, Callable[[int, int], float]] = {
    "exact": collision_probability,
    "1 − e^(−n(n−1)/2M)": collision_probability_approx,
    "1 − e^(−n²/2M)": lambda n, m: -math.expm1(-n * n / (2 * m)),
    "n(n−1)/2M": lambda n, m: min(1.0, n * (n - 1) / (2 * m)),
    "n²/2M": lambda n, m: min(1.0, n * n / (2 * m)),
    "n²/M": lambda n, m: min(1.0, n * n / m),
    "n/M": lambda n, m: min(1.0, n / m),
}


def parse_percent(text: str) -> tuple[float, int]:
    """``"0.19%"`` → ``(0.0019, 2)``: the value as a fraction and its significant figures."""
    digits = text.strip().removeprefix("≈").strip().removesuffix("%").strip()
    try:
        value = Decimal(digits)
    except ArithmeticError:
        raise ValueError(f"not a percentage: {text!r}") from None
    if not value.is_finite() or value < 0:
        raise ValueError(f"not a percentage: {text!r}")
    mantissa = digits.replace(".", "").lstrip("0")
    if "." not in digits:  # "100": trailing zeros of an integer are not significant
        mantissa = mantissa.rstrip("0")
    return float(value) / 100, max(1, len(mantissa))


def round_significant(x: float, figures: int) -> float:
    """``x`` rounded to ``figures`` significant figures (0 stays 0)."""
    figures = check_int("figures", figures, 1)
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, figures - 1 - math.floor(math.log10(abs(x))))


def matches_printed(value: float, printed: str) -> bool:
    """Whether ``value`` (a fraction) prints as ``printed`` at the printed precision."""
    target, figures = parse_percent(printed)
    return math.isclose(round_significant(value * 100, figures), target * 100, rel_tol=1e-9)


@dataclass(frozen=True)
class SeedCell:
    """One cell of a printed collision table (seed 000 §3.4), recomputed."""

    log2_m: int
    n: int
    printed: str  #: the seed's figure as printed
    seed_value: float  #: the printed figure as a fraction
    exact: float  #: our exact probability
    approx: float  #: 1 − e^(−n(n−1)/2M)
    verdict: str  #: "correct", "imprecise" or "wrong"
    reproduced_by: tuple[str, ...]  #: candidate formulas that print as the seed's figure

    @property
    def m(self) -> int:
        return 1 << self.log2_m

    @property
    def ratio(self) -> float:
        """Seed's figure divided by ours."""
        return self.seed_value / self.exact

    @property
    def difference_pp(self) -> float:
        """Seed's figure minus ours, in percentage points."""
        return (self.seed_value - self.exact) * 100


def judge_cells(table: Mapping[tuple[int, int], str]) -> list[SeedCell]:
    """Recompute every cell of a printed collision table and judge it.

    ``table`` maps ``(log2 M, users n)`` to the printed probability (``"0.19%"``), as seed
    000 §3.4 prints it.

    Verdict: ``correct`` when the exact value rounds to the seed's figure at the precision the
    seed printed; ``imprecise`` when it does not but is within 10% of it; ``wrong`` otherwise.
    ``reproduced_by`` lists the :data:`CANDIDATE_FORMULAS` that do print as the seed's figure,
    which shows what the author most likely computed.
    """
    cells = []
    for (log2_m, n), printed in table.items():
        m = 1 << check_int("log2 M", log2_m, 1, 62)
        n = check_int("n (users)", n, 0)
        seed_value, _ = parse_percent(printed)
        exact = collision_probability(n, m)
        if matches_printed(exact, printed):
            verdict = "correct"
        elif abs(seed_value / exact - 1) <= 0.1:
            verdict = "imprecise"
        else:
            verdict = "wrong"
        reproduced = tuple(
            name for name, f in CANDIDATE_FORMULAS.items() if matches_printed(f(n, m), printed)
        )
        approx = collision_probability_approx(n, m)
        cells.append(SeedCell(log2_m, n, printed, seed_value, exact, approx, verdict, reproduced))
    return cells
