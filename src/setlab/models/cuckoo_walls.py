"""The load at a cuckoo filter's first failed insert, as a distribution over item streams.

A cuckoo filter (:mod:`setlab.models.cuckoo`) does not fill to a fixed "wall": the first insert
that fails is a random event. For one table size, bucket size ``b`` and kick limit, every stream
of items reaches it at a different load, and the load itself moves with the table's size (with
RedisBloom's round-robin victims and one- or two-slot buckets it falls steeply: a bigger table
makes more inserts, each with some chance of a looping chain). So the book reports the
first-failure load as a median and a range over several streams at a stated table size, never as
one run's number.

This module holds what that needs and that is pure:

* :func:`stream_values`: numbered, distinct 64-bit item streams (the same values go to the
  module on a server and to the models here);
* :class:`FillMarks`, :class:`MarkCounter`, :func:`marks`: where, in one run of inserts, the
  first failure came and where the failed inserts, counted from the first one, first made up
  a given share of all attempts (seed 003's "0.03% of inserts failed");
* :func:`model_fill`: RedisBloom's ``CF.*`` with ``EXPANSION 0`` run with the bit-exact model
  (:class:`~setlab.models.redisbloom_cuckoo.RedisBloomCuckoo`) until that share is reached;
* :func:`simulated_first_failure`: the paper's rules (random victims, 16-bit fingerprints) in the
  simulator, for comparison with Fan et al. 2014's table;
* :class:`Spread`: median and range over streams.

Loads are fractions: items held over slots, just before the insert in question.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from setlab.core.hashing import SPLITMIX64_MUL1, SPLITMIX64_MUL2
from setlab.core.validate import check_int, check_probability
from setlab.models.cuckoo import CuckooFilter
from setlab.models.redisbloom_cuckoo import RedisBloomCuckoo

#: Streams are numbered below 2^STREAM_BITS; each has 2^INDEX_BITS values.
STREAM_BITS, INDEX_BITS = 20, 40


def stream_values(stream: int, start: int, count: int) -> np.ndarray:
    """Values ``start … start + count − 1`` of item stream ``stream`` (uint64 array).

    Value ``j`` of stream ``s`` is SplitMix64's finaliser (a bijection of 64-bit words, Steele,
    Lea & Flood 2014) applied to ``s · 2^40 + j``: values never repeat within a stream or across
    streams, look like hashed device IDs, and any slice can be made without the ones before it
    (a run of 1.3 × 10^8 inserts is generated in chunks).
    """
    stream = check_int("stream", stream, 0, 2**STREAM_BITS - 1)
    start = check_int("start", start, 0, 2**INDEX_BITS)
    count = check_int("count", count, 0, 2**INDEX_BITS - start)
    x = np.arange(start, start + count, dtype=np.uint64) | np.uint64(stream << INDEX_BITS)
    x ^= x >> np.uint64(30)
    x *= SPLITMIX64_MUL1
    x ^= x >> np.uint64(27)
    x *= SPLITMIX64_MUL2
    x ^= x >> np.uint64(31)
    return x


@dataclass(frozen=True)
class FillMarks:
    """Where things happened in one run of inserts into a filter of ``slots`` slots that rolls a
    failed insert back (so a failure leaves the table as it was).

    Attributes:
        slots: slots of the table.
        attempts: inserts tried.
        first_fail_at: index of the first failed insert (None if none failed); as many items
            were held just before it.
        reach_at: index of the first insert after which the failed inserts, counted from the
            first attempt, make up at least ``share`` of all attempts (None if they never did).
        held_at_reach: items held just before that insert.
        failures: failed inserts among all attempts.
    """

    slots: int
    attempts: int
    first_fail_at: int | None
    reach_at: int | None
    held_at_reach: int | None
    failures: int

    @property
    def first_fail_load(self) -> float:
        """Load at the first failure (NaN if none failed)."""
        return math.nan if self.first_fail_at is None else self.first_fail_at / self.slots

    @property
    def reach_load(self) -> float:
        """Load at which the failures first made up the share (NaN if they never did)."""
        return math.nan if self.held_at_reach is None else self.held_at_reach / self.slots


class MarkCounter:
    """:class:`FillMarks` of a run fed in chunks (a run of 10^8 attempts is never held whole):
    :meth:`add` each chunk's failures in order, then read :meth:`marks`."""

    def __init__(self, slots: int, share: float) -> None:
        self.slots = check_int("slots", slots, 1)
        self.share = check_probability("share", share)
        self.attempts = self.failures = 0
        self.first_fail_at: int | None = None
        self.reach_at: int | None = None
        self.held_at_reach: int | None = None

    @property
    def reached(self) -> bool:
        """True once the failures have made up the share of the attempts."""
        return self.reach_at is not None

    def add(self, failed: np.ndarray) -> None:
        """The next attempts: True where one failed."""
        failed = np.asarray(failed, dtype=bool)
        where = np.flatnonzero(failed)
        if self.first_fail_at is None and where.size:
            self.first_fail_at = self.attempts + int(where[0])
        if not self.reached and where.size:
            cumulative = self.failures + np.cumsum(failed)
            tried = self.attempts + np.arange(1, failed.size + 1)
            hit = np.flatnonzero(cumulative >= self.share * tried)
            if hit.size:
                j = int(hit[0])
                self.reach_at = self.attempts + j
                self.held_at_reach = self.reach_at - int(cumulative[j] - failed[j])
        self.attempts += int(failed.size)
        self.failures += int(where.size)

    def marks(self) -> FillMarks:
        """The marks so far."""
        return FillMarks(self.slots, self.attempts, self.first_fail_at, self.reach_at,
                         self.held_at_reach, self.failures)  # fmt: skip


def marks(failed: np.ndarray, slots: int, share: float) -> FillMarks:
    """:class:`FillMarks` of a run whose attempt ``j`` failed where ``failed[j]`` is True."""
    counter = MarkCounter(slots, share)
    counter.add(failed)
    return counter.marks()


def model_fill(
    log_slots: int,
    bucket_size: int,
    max_iterations: int,
    stream: int,
    share: float,
    chunk: int = 2**10,
) -> FillMarks:
    """RedisBloom's ``CF.RESERVE key 2^log_slots BUCKETSIZE b MAXITERATIONS n EXPANSION 0``
    given values of ``stream`` until the failed inserts reach ``share`` of the attempts (or
    every slot had an attempt), replayed by the bit-exact model. The module gives the same
    marks (``tests/lab/full_scale/test_cuckoo_walls.py`` checks it on a live server)."""
    log_slots = check_int("log_slots", log_slots, 2, 30)
    cf = RedisBloomCuckoo(2**log_slots, bucket_size, max_iterations, expansion=0)
    counter = MarkCounter(cf.num_buckets * cf.bucket_size, share)
    chunk = check_int("chunk", chunk, 1)
    while counter.attempts < counter.slots and not counter.reached:
        count = min(chunk, counter.slots - counter.attempts)
        counter.add(cf.add(stream_values(stream, counter.attempts, count)) == -1)
    return counter.marks()


def simulated_first_failure(
    log_slots: int,
    bucket_size: int,
    stream: int,
    *,
    max_kicks: int = 500,
    fingerprint_bits: int = 16,
    victim: str = "random",
) -> float:
    """Load at the first failed insert of a simulated filter of ``2^log_slots`` slots fed
    ``stream`` (the paper's rules by default: random victims, 16-bit fingerprints, 500 kicks;
    the victims' random generator is seeded with the stream number). A fraction."""
    log_slots = check_int("log_slots", log_slots, 2, 26)
    slots = 2**log_slots
    cf = CuckooFilter(slots // bucket_size, bucket_size, fingerprint_bits, max_kicks, victim,
                      seed=stream)  # fmt: skip
    return cf.fill_until_failure(stream_values(stream, 0, slots + 1)) / slots


@dataclass(frozen=True)
class Spread:
    """Median and range of a quantity over streams (loads: fractions)."""

    median: float
    low: float
    high: float
    count: int

    @classmethod
    def of(cls, values: Iterable[float]) -> Spread:
        """The spread of ``values`` (NaNs, runs where nothing happened, are left out)."""
        array = np.array([v for v in values if not math.isnan(v)], dtype=float)
        if array.size == 0:
            raise ValueError("values must hold at least one number that is not NaN")
        return cls(float(np.median(array)), float(array.min()), float(array.max()), array.size)

    def percent(self, digits: int = 1) -> str:
        """``"62.0% (61.5–62.4%)"``: the median, then the range, as percentages; one value
        alone when a single run was measured."""
        if self.count == 1:
            return f"{self.median:.{digits}%}"
        low, high = f"{self.low * 100:.{digits}f}", f"{self.high:.{digits}%}"
        return f"{self.median:.{digits}%} ({low}–{high})"
