"""User IDs hashed into bitmap offsets the seeds' way, and a Monte Carlo of their collisions.

The formulas of :mod:`setlab.models.birthday` assume a perfect hash. This module checks that
assumption with the real thing: it generates realistic IDs (snowflake-layout 64-bit integers as
seed 000's users have, or UUID strings as seed 004 hashes), hashes them with MurmurHash3 (the
vectorised, ``mmh3``-identical versions in :mod:`setlab.core.hashing`), reduces them the seeds'
way and counts collisions:

* :func:`abs_mod`, :func:`id_offsets`, :func:`seed_004_offsets`, :func:`user_offset`: the
  seeds' mappings ``Math.abs(hash) % m`` (seed 000 §2, seed 004 §2).
* :func:`find_colliding_users`: the first two real IDs of a stream that share an offset.
* :func:`collision_counts`, :func:`colliding_fraction`: lost bits and users who share a bit.
* :func:`simulate_collisions`: many items' worth of likers, with a Wilson confidence interval
  (:func:`wilson_interval`) for the estimated collision probability.

References: Wilson (1927) for the score interval; Newcombe (1998) for its behaviour at 0 hits.
"""

from __future__ import annotations

import math
import numbers
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import mmh3
import numpy as np

from setlab.core.hashing import (
    LONG_MAX,
    LONG_MIN,
    java_long_hash64,
    murmur3_32_rows,
    murmur3_x64_128_rows,
)
from setlab.core.validate import check_int, check_probability
from setlab.models.snowflake import SEED_MODULUS_INTENDED, TWITTER_EPOCH_MS

IdKind = Literal["snowflake", "uuid"]
HashKind = Literal["x64_128", "x86_32"]

_U64 = np.uint64


def _check_nm(n: object, m: object) -> tuple[int, int]:
    return check_int("n (users)", n, 0), check_int("m (offsets)", m, 1)


# -- the seeds' reductions -----------------------------------------------------------------------


def abs_mod(h1: np.ndarray, m: int) -> np.ndarray:
    """The seeds' reduction ``Math.abs(h) % m`` of signed 64-bit hashes, as int64 offsets.

    ``h1`` holds the hash bits as uint64 (or int64). For the single value ``Long.MIN_VALUE``
    Java's ``Math.abs`` stays negative and Redis would reject the offset; here it is taken as
    2^63 (a 1-in-2^64 event either way).
    """
    m = check_int("m (offsets)", m, 1, 2**63 - 1)
    bits = np.asarray(h1)
    if bits.dtype == np.int64:
        bits = bits.view(_U64)
    elif bits.dtype != _U64:
        raise ValueError(f"h1 must be a uint64 or int64 array of hashes; got dtype {bits.dtype}")
    negative = (bits >> _U64(63)).astype(bool)
    magnitude = np.where(negative, ~bits + _U64(1), bits)
    return (magnitude % _U64(m)).astype(np.int64)


def user_offset(user_id: int, m: int = SEED_MODULUS_INTENDED) -> int:
    """The bit of ``user_id``: ``|hash64(user_id)| mod m`` (seed 000's ``toOffset``, with the
    modulus it means, 2^32 - 1).

    ``hash64`` is :func:`~setlab.core.hashing.java_long_hash64`. As in :func:`abs_mod`, the one
    hash ``Long.MIN_VALUE`` is taken as 2^63 (Java would give a negative offset, see
    :func:`setlab.models.snowflake.java_offset`). ``m`` from 1 to 2^32 - 1 offsets.
    """
    user_id = check_int("user_id", user_id, LONG_MIN, LONG_MAX)
    return abs(java_long_hash64(user_id)) % check_int("m (offsets)", m, 1, SEED_MODULUS_INTENDED)


def seed_004_offsets(uuids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Seed 004's two hashed bitmaps for a list of UUID strings, with the ``mmh3`` package.

    ``bitMap10w_hash``: ``Murmur3.hash_x86_32(uuid.getBytes(), 36, 0)``, an unsigned 32-bit
    offset (``mmh3.hash(u, 0, signed=False)``). ``bitMap10w_hash_size``:
    ``Math.abs(Murmur3.hash_x64_128(...)[0] % 100000)`` (``|mmh3.hash64(u)[0]| % 100000``; the
    remainder has the hash's sign in Java, so abs-then-mod gives the same offset).
    """
    if isinstance(uuids, str) or not all(isinstance(u, str) for u in uuids):
        raise ValueError("uuids must be a sequence of UUID strings")
    raw = np.array([mmh3.hash(u, 0, signed=False) for u in uuids], dtype=np.int64)
    sized = np.array([abs(mmh3.hash64(u)[0]) % 100_000 for u in uuids], dtype=np.int64)
    return raw, sized


@dataclass(frozen=True)
class CollidingPair:
    """Two distinct users that the mapping sends to the same offset."""

    first: int
    second: int
    offset: int
    m: int
    searched: int  #: IDs hashed before the collision showed up (including both)


def find_colliding_users(user_ids: Iterable[int], m: int = SEED_MODULUS_INTENDED) -> CollidingPair:
    """The first pair of IDs in ``user_ids`` (in order) that share an offset mod ``m``.

    Hashes each ID once, with a dict from offset to the first ID seen there; by the birthday
    bound the expected search length is about ``sqrt(pi m / 2)`` IDs (1,283 for 2^20, about
    82,000 for 2^32 - 1). Raises ``ValueError`` if ``user_ids`` runs out first.
    """
    m = check_int("m (offsets)", m, 1, SEED_MODULUS_INTENDED)
    seen: dict[int, int] = {}
    count = 0
    for user in user_ids:
        user = check_int("user_ids[i]", user, LONG_MIN, LONG_MAX)
        count += 1
        offset = user_offset(user, m)
        other = seen.setdefault(offset, user)
        if other != user:
            return CollidingPair(other, user, offset, m, count)
    raise ValueError(f"no two of the {count:,} IDs share an offset mod {m:,}; pass more IDs")


# -- realistic IDs -----------------------------------------------------------------------------

# IDs here are (ms since Twitter's epoch) << 22 | worker << 12 | sequence.
_SPAN_START_MS = 1_735_689_600_000 - TWITTER_EPOCH_MS  # 2025-01-01
_SPAN_MS = 3 * 365 * 86_400_000  # users who signed up over three years


def _uuid_bytes(rng: np.random.Generator, n: int) -> np.ndarray:
    raw = np.frombuffer(rng.bytes(16 * n), dtype=np.uint8).reshape(n, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    return raw


def uuid4_strings(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` random version-4 UUIDs as Java's ``UUID.randomUUID().toString()`` prints them.

    Drawn from ``rng`` (16 bytes each), so a seeded generator gives the same UUIDs every run;
    the same draws as :func:`uuid4_text`.
    """
    n = check_int("n", n, 0)
    return [str(uuid.UUID(bytes=row.tobytes())) for row in _uuid_bytes(rng, n)]


#: Byte → its two lowercase hex digits, as a little-endian uint16 (first digit in the low byte).
_HEX_PAIRS = np.array(
    [ord(f"{b:02x}"[0]) | ord(f"{b:02x}"[1]) << 8 for b in range(256)], dtype="<u2"
)
#: (bytes, text columns) of the five dash-separated groups of a UUID's text form.
_UUID_GROUPS = (((0, 4), 0), ((4, 6), 9), ((6, 8), 14), ((8, 10), 19), ((10, 16), 24))


def uuid4_text(rng: np.random.Generator, n: int) -> np.ndarray:
    """The UUIDs of :func:`uuid4_strings` as an ``(n, 36)`` uint8 array of ASCII (for hashing)."""
    n = check_int("n", n, 0)
    digits = _HEX_PAIRS[_uuid_bytes(rng, n)].view(np.uint8)  # (n, 32) hex digits
    text = np.full((n, 36), ord("-"), dtype=np.uint8)
    for (first, last), column in _UUID_GROUPS:
        text[:, column : column + 2 * (last - first)] = digits[:, 2 * first : 2 * last]
    return text


def snowflake_like_ids(rng: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray:
    """Random user IDs in Twitter's snowflake layout (int64), distinct along the last axis.

    41-bit ms timestamp over three years from 2025-01-01 (Twitter epoch), 10-bit worker
    0-1023, 12-bit sequence (small: 0-63, as at real sign-up rates). Each row is a sample of
    distinct users.
    """
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    for i, size in enumerate(shape):
        check_int(f"shape[{i}]", size, 0)

    def draw(size: tuple[int, ...]) -> np.ndarray:
        ms = _SPAN_START_MS + rng.integers(0, _SPAN_MS, size=size, dtype=np.int64)
        worker = rng.integers(0, 1024, size=size, dtype=np.int64)
        seq = rng.integers(0, 64, size=size, dtype=np.int64)
        return (ms << 22) | (worker << 12) | seq

    ids = draw(shape)
    if ids.size:
        rows = ids.reshape(-1, shape[-1])
        while True:
            ordered = np.sort(rows, axis=1)
            bad = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
            if not bad.size:
                break
            rows[bad] = draw((bad.size, shape[-1]))
    return ids


def id_offsets(ids: np.ndarray, m: int, hash_kind: HashKind = "x64_128") -> np.ndarray:
    """Offsets of the seed's mapping for an array of IDs (any shape), as int64.

    ``ids``: int64 snowflake IDs (hashed as 8 little-endian bytes, like Guava's
    ``hashLong``), or a uint8 array whose last axis is the key bytes (UUID text).
    ``hash_kind="x64_128"``: ``|h1| mod m`` with ``h1`` = ``mmh3.hash64(key)[0]`` (seed 000's
    ``Math.abs(hash64(id)) % M``; seed 004's ``Math.abs(hash_x64_128(...)[0] % 100000)``).
    ``"x86_32"``: ``murmur3_32_rows(key) mod m`` (seed 004's raw x86_32 offsets when m = 2^32).
    """
    ids = np.asarray(ids)
    if ids.dtype == np.uint8:
        shape, keys = ids.shape[:-1], ids.reshape(-1, ids.shape[-1])
    elif ids.dtype == np.int64:
        shape, keys = ids.shape, ids.astype("<i8").reshape(-1, 1).view(np.uint8)
    else:
        raise ValueError(f"ids must be int64 IDs or uint8 key bytes; got dtype {ids.dtype}")
    if hash_kind == "x64_128":
        offsets = abs_mod(murmur3_x64_128_rows(keys)[0], m)
    elif hash_kind == "x86_32":
        m = check_int("m (offsets)", m, 1)
        offsets = (murmur3_32_rows(keys).astype(np.int64) % m).astype(np.int64)
    else:
        raise ValueError(f"hash_kind must be 'x64_128' or 'x86_32'; got {hash_kind!r}")
    return offsets.reshape(shape)


# -- collisions, counted and simulated ----------------------------------------------------------


def _normal_quantile(q: float) -> float:
    """The standard normal quantile (``scipy.stats.norm.ppf``, which is ``scipy.special.ndtri``;
    imported here because ``scipy.stats`` takes a second to import and most callers never get
    here)."""
    from scipy.special import ndtri

    return float(ndtri(q))


def rank_correlation(x, y):
    """Spearman's rank correlation of two sequences: ``scipy.stats.spearmanr(x, y)`` (its
    ``statistic`` and ``pvalue``), imported on the first call because scipy.stats takes a
    second to import."""
    from scipy.stats import spearmanr

    return spearmanr(x, y)


def wilson_interval(hits: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``hits / trials``.

    The set of ``p`` for which ``|hits/trials - p| <= z sqrt(p (1-p) / trials)``; unlike the
    plain normal interval it behaves at 0 hits and near 1 (Wilson 1927; Newcombe 1998).
    """
    trials = check_int("trials", trials, 1)
    hits = check_int("hits", hits, 0, trials)
    confidence = check_probability("confidence", confidence)
    z = _normal_quantile(0.5 + confidence / 2)
    phat = hits / trials
    denom = 1 + z * z / trials
    centre = (phat + z * z / (2 * trials)) / denom
    half = z / denom * math.sqrt(phat * (1 - phat) / trials + z * z / (4 * trials * trials))
    # At 0 hits the lower bound is exactly 0, at all hits the upper one exactly 1: say so,
    # rather than leave them to rounding (1 - 1e-16 would exclude a probability of 1).
    low = 0.0 if hits == 0 else max(0.0, centre - half)
    high = 1.0 if hits == trials else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class SimulationResult:
    """Outcome of :func:`simulate_collisions`: per-trial counts and the derived estimates."""

    n: int  #: users per trial
    m: int  #: offsets
    id_kind: str
    hash_kind: str
    confidence: float
    lost_bits: np.ndarray  #: per trial, ``n - distinct offsets`` (``n - BITCOUNT``)
    colliding_users: np.ndarray  #: per trial, users sharing their offset with someone

    @property
    def trials(self) -> int:
        return int(self.lost_bits.size)

    @property
    def hits(self) -> int:
        """Trials with at least one collision."""
        return int(np.count_nonzero(self.lost_bits))

    @property
    def probability(self) -> float:
        """Estimated probability of at least one collision."""
        return self.hits / self.trials

    @property
    def probability_ci(self) -> tuple[float, float]:
        """Wilson interval for :attr:`probability`."""
        return wilson_interval(self.hits, self.trials, self.confidence)

    def _mean_ci(self, values: np.ndarray) -> tuple[float, float]:
        z = _normal_quantile(0.5 + self.confidence / 2)
        half = z * float(np.std(values, ddof=1)) / math.sqrt(values.size) if values.size > 1 else 0
        mean = float(np.mean(values))
        return mean - half, mean + half

    @property
    def mean_lost_bits(self) -> float:
        return float(np.mean(self.lost_bits))

    @property
    def lost_bits_ci(self) -> tuple[float, float]:
        """Normal-approximation interval for the mean number of lost bits."""
        return self._mean_ci(self.lost_bits)

    @property
    def mean_colliding_users(self) -> float:
        return float(np.mean(self.colliding_users))

    @property
    def colliding_users_ci(self) -> tuple[float, float]:
        return self._mean_ci(self.colliding_users)

    def agrees_with(self, p: float) -> bool:
        """Whether probability ``p`` lies inside :attr:`probability_ci`."""
        low, high = self.probability_ci
        return low <= p <= high


def collision_counts(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of offsets: (lost bits, colliding users) — ``n - distinct`` and the number
    of entries whose value occurs more than once in the row."""
    rows = np.sort(np.atleast_2d(offsets), axis=1)
    same = rows[:, 1:] == rows[:, :-1]
    lost = same.sum(axis=1)
    shared = np.zeros(rows.shape, dtype=bool)
    shared[:, 1:] |= same
    shared[:, :-1] |= same
    return lost, shared.sum(axis=1)


def colliding_fraction(offsets: Iterable[int]) -> float:
    """Share of the entries whose value some other entry has too: users who share a bit.

    One row of :func:`collision_counts`'s colliding users, divided by the row's length.
    """
    values = np.asarray(list(offsets))
    if values.size == 0:
        raise ValueError("offsets must contain at least one value")
    _, colliding = collision_counts(values.reshape(1, -1))
    return int(colliding[0]) / values.size


def simulate_collisions(
    n: int,
    m: int,
    trials: int,
    rng: np.random.Generator,
    id_kind: IdKind = "snowflake",
    hash_kind: HashKind = "x64_128",
    confidence: float = 0.95,
) -> SimulationResult:
    """Monte Carlo: ``trials`` times, draw ``n`` distinct realistic IDs, hash, reduce mod ``m``.

    ``id_kind``: ``"snowflake"`` (64-bit snowflake-layout integers, :func:`snowflake_like_ids`)
    or ``"uuid"`` (UUID-4 strings, :func:`uuid4_text`). ``hash_kind``: see :func:`id_offsets`.
    Work is vectorised in batches of about 2^21 hashes; ~10^7 hashes take a few seconds.
    """
    n, m = _check_nm(n, m)
    if n < 1:
        raise ValueError("n (users) must be at least 1 for a simulation; got 0")
    trials = check_int("trials", trials, 1)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy Generator (np.random.default_rng(seed)); got {rng!r}"
        )
    if id_kind not in ("snowflake", "uuid"):
        raise ValueError(f"id_kind must be 'snowflake' or 'uuid'; got {id_kind!r}")
    if hash_kind not in ("x64_128", "x86_32"):
        raise ValueError(f"hash_kind must be 'x64_128' or 'x86_32'; got {hash_kind!r}")
    confidence = check_probability("confidence", confidence)
    lost, shared = [], []
    batch = max(1, (1 << 21) // n)
    for start in range(0, trials, batch):
        size = min(batch, trials - start)
        if id_kind == "snowflake":
            ids = snowflake_like_ids(rng, (size, n))
        else:
            ids = uuid4_text(rng, size * n).reshape(size, n, 36)
        got_lost, got_shared = collision_counts(id_offsets(ids, m, hash_kind))
        lost.append(got_lost)
        shared.append(got_shared)
    return SimulationResult(
        n, m, id_kind, hash_kind, confidence, np.concatenate(lost), np.concatenate(shared)
    )
