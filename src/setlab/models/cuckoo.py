"""Cuckoo filters: a partial-key cuckoo filter simulator that records every kick chain, and a
bit-for-bit model of RedisBloom 2.8's ``CF.*``.

A cuckoo filter (Fan, Andersen, Kaminsky & Mitzenmacher, "Cuckoo Filter: Practically Better Than
Bloom", CoNEXT 2014) keeps a short *fingerprint* of each item in a table of ``num_buckets``
buckets of ``b`` slots. An item may live in two buckets: ``i1 = hash mod num_buckets`` and
``i2 = i1 xor H(fp)`` ("partial-key cuckoo hashing": the second bucket is computed from the first
and the fingerprint alone, so a fingerprint can be moved without the item). When both buckets are
full, insertion evicts ("kicks") a fingerprint to its other bucket, which may evict another, and
so on: a *kick chain*. A chain longer than ``max_kicks`` ends the attempt.

The knobs (:class:`CuckooFilter`):

* ``bucket_size`` b and ``fingerprint_bits`` f: a stranger matches one occupied slot with
  probability ``1/(2^f - 1)`` and meets ``2·b·α`` occupied slots at load α, so the false-positive
  rate is about ``1 - (1 - 1/(2^f - 1))^(2bα) ≤ 2b/2^f`` (paper §4, eq. 5 ff.);
* ``max_kicks`` (paper and reference implementation: 500; RedisBloom's ``MAXITERATIONS``
  default: 20);
* ``victim``: which slot a kick evicts: ``"random"`` (the paper's Algorithm 1, the reference
  implementation) or ``"round-robin"`` (RedisBloom: slot 0, 1, 2, … of successive buckets);
* ``on_failure``, what happens when kicks run out: ``"rollback"`` (RedisBloom undoes every swap:
  the filter is unchanged and the new item is refused), ``"victim-slot"`` (the reference
  implementation keeps the last evicted fingerprint in a one-entry stash, reports success, and
  refuses every later insert until a delete frees room), or ``"drop"`` (a naive implementation
  that reports failure and silently loses the evicted fingerprint: an earlier item becomes a
  false negative).

Hashing is RedisBloom's, so the simulator and the module agree exactly: each item is sent as 8
little-endian bytes, ``h = MurmurHash64A(item, 0)``; ``fp = 1 + h mod (2^f - 1)`` (for f = 8 this
is RedisBloom's ``h % 255 + 1``); ``i1 = h mod num_buckets``; ``i2 = i1 xor (fp · 0x5bd1e995)``
mod ``num_buckets`` (the multiplier both RedisBloom and the reference implementation use).
``num_buckets`` is a power of two, which makes ``i1 = i2 xor H(fp)`` hold both ways.
RedisBloom's ``CF.*`` (its sizing, and the same filter with its own rules on top) is
:mod:`setlab.models.redisbloom_cuckoo`; the commands that talk to the module are in
:mod:`setlab.lab.runs.cuckoo`.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from setlab.core.hashing import murmur64a_u64
from setlab.core.validate import check_int, check_probability

#: Multiplier of the alternate-bucket hash, ``i xor (fp · 0x5bd1e995)`` (MurmurHash2's constant).
ALT_MULTIPLIER = 0x5BD1E995
VICTIMS = ("random", "round-robin")
ON_FAILURE = ("rollback", "victim-slot", "drop")
#: Load factor reached before the first failure, by bucket size, with 2 hashes and up to 500
#: kicks (Fan et al. 2014, §2: "50% when b = 1 … 84%, 95% or 98% using b = 2, 4 or 8").
PAPER_LOAD_FACTORS = {1: 0.50, 2: 0.84, 4: 0.95, 8: 0.98}


# -- hashing and theory ---------------------------------------------------------------------------


def item_hashes(values: object) -> np.ndarray:
    """``MurmurHash64A`` (seed 0) of each value's 8 little-endian bytes: RedisBloom's
    ``CUCKOO_GEN_HASH`` for the bytes the book sends (uint64 array)."""
    return murmur64a_u64(values, 0)


def fingerprints(hashes: np.ndarray, fingerprint_bits: int) -> np.ndarray:
    """``1 + hash mod (2^f - 1)``: fingerprints in ``1 … 2^f - 1`` (0 marks an empty slot)."""
    f = check_int("fingerprint_bits", fingerprint_bits, 2, 32)
    return np.uint64(1) + hashes % np.uint64(2**f - 1)


def next_pow2(n: int) -> int:
    """``getNextN2`` of ``src/cuckoo.c``: the smallest power of two >= ``n`` (0 stays 0)."""
    n = check_int("n", n, 0, 2**63)
    return 0 if n == 0 else 1 << (n - 1).bit_length()


def expected_fpr(bucket_size: int, fingerprint_bits: int, load: float = 1.0) -> float:
    """False-positive rate of a stranger at load ``load``: ``1 - (1 - 1/(2^f-1))^(2·b·load)``.

    The stranger's two buckets hold ``2·b·load`` fingerprints on average, each equal to its
    fingerprint with probability ``1/(2^f - 1)``. At full load this is just below the paper's
    bound ``2b/2^f``. A fraction.
    """
    b = check_int("bucket_size", bucket_size, 1)
    f = check_int("fingerprint_bits", fingerprint_bits, 2, 32)
    if not 0.0 <= load <= 1.0:
        raise ValueError(f"load must be in [0, 1], got {load!r}")
    return -math.expm1(2 * b * load * math.log1p(-1.0 / (2**f - 1)))


def fingerprint_bits_for(error: float, bucket_size: int) -> int:
    """Smallest fingerprint for rate ``error``: ``ceil(log2(2b / error))`` bits (paper eq. 6)."""
    error = check_probability("error", error)
    return math.ceil(math.log2(2 * check_int("bucket_size", bucket_size, 1) / error))


def bits_per_item(error: float, bucket_size: int, load: float) -> float:
    """Bits a cuckoo filter spends per item at ``load``: ``ceil(log2(2b/ε)) / load``."""
    if not 0.0 < load <= 1.0:
        raise ValueError(f"load must be in (0, 1], got {load!r}")
    return fingerprint_bits_for(error, bucket_size) / load


def error_for_bits(bits: float, bucket_size: int, load: float) -> float:
    """The rate a cuckoo filter reaches with ``bits`` bits per item at ``load``: fingerprints of
    ``bits · load`` bits, rate ``2b / 2^(bits·load)`` (the paper's bound; a fraction)."""
    if not bits > 0 or not 0.0 < load <= 1.0:
        raise ValueError(f"bits must be > 0 and load in (0, 1]; got {bits!r}, {load!r}")
    return min(1.0, 2 * check_int("bucket_size", bucket_size, 1) / 2 ** (bits * load))


def break_even_error(bucket_size: int, load: float) -> float:
    """The rate below which a cuckoo filter is smaller than a Bloom filter (a fraction).

    Solves ``(log2(1/ε) + log2(2b)) / load = log2(1/ε) / ln 2`` (fingerprints of real-valued
    length against the Bloom filter's ``1.44 log2(1/ε)``); needs ``load > ln 2``.
    """
    b = check_int("bucket_size", bucket_size, 1)
    if not math.log(2) < load <= 1.0:
        raise ValueError(f"load must be in (ln 2, 1] for a break-even point, got {load!r}")
    bits = math.log2(2 * b) / load / (1 / math.log(2) - 1 / load)
    return 2.0**-bits


# -- one table ------------------------------------------------------------------------------------


class BucketTable:
    """``num_buckets × b`` fingerprint slots in a flat list (0 = empty): one table of a cuckoo
    filter, with the moves every variant shares (place, find, remove, kick, undo)."""

    __slots__ = ("b", "mask", "num_buckets", "slots")

    def __init__(self, num_buckets: int, b: int) -> None:
        self.num_buckets, self.b, self.mask = num_buckets, b, num_buckets - 1
        self.slots = [0] * (num_buckets * b)

    def alt(self, i: int, fp: int) -> int:
        return (i ^ (fp * ALT_MULTIPLIER)) & self.mask

    def place(self, i: int, fp: int) -> bool:
        """Put ``fp`` in the first empty slot of bucket ``i``; False if there is none."""
        s, base = self.slots, i * self.b
        for j in range(base, base + self.b):
            if s[j] == 0:
                s[j] = fp
                return True
        return False

    def has(self, i: int, fp: int) -> bool:
        base = i * self.b
        return fp in self.slots[base : base + self.b]

    def copies(self, i: int, fp: int) -> int:
        base = i * self.b
        return self.slots[base : base + self.b].count(fp)

    def remove(self, i: int, fp: int) -> bool:
        s, base = self.slots, i * self.b
        for j in range(base, base + self.b):
            if s[j] == fp:
                s[j] = 0
                return True
        return False

    def kick(
        self, i: int, fp: int, max_kicks: int, victim: str, rng: random.Random | None = None
    ) -> tuple[int, int, list[int]]:
        """Evict along a chain starting at bucket ``i`` until a slot is free.

        Returns ``(kicks, homeless, path)``: evictions made, the fingerprint left without a slot
        (0 when the chain ended in a free slot) and the slots swapped, in order.
        """
        b, s = self.b, self.slots
        path: list[int] = []
        v = 0
        for kick in range(1, max_kicks + 1):
            if victim == "random":
                v = rng.randrange(b)  # type: ignore[union-attr]
            pos = i * b + v
            fp, s[pos] = s[pos], fp
            path.append(pos)
            i = (i ^ (fp * ALT_MULTIPLIER)) & self.mask
            if self.place(i, fp):
                return kick, 0, path
            v = (v + 1) % b
        return max_kicks, fp, path

    def undo(self, path: list[int], fp: int) -> int:
        """Swap back along ``path`` (last swap first); returns the fingerprint that started it."""
        s = self.slots
        for pos in reversed(path):
            fp, s[pos] = s[pos], fp
        return fp

    def array(self) -> np.ndarray:
        return np.array(self.slots, dtype=np.uint64).reshape(self.num_buckets, self.b)

    def occupied(self) -> int:
        return len(self.slots) - self.slots.count(0)


def bucket_matches(array: np.ndarray, index: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """True where bucket ``index[j]`` of ``array`` (``num_buckets × b``) holds ``fp[j]``."""
    return (array[index.astype(np.int64)] == fp[:, None]).any(axis=1)


# -- the simulator --------------------------------------------------------------------------------


class CuckooFilter:
    """A partial-key cuckoo filter in process memory, recording every kick chain.

    ``num_buckets`` (a power of two) × ``bucket_size`` slots of ``fingerprint_bits``-bit
    fingerprints. Insertion tries bucket ``i1`` then ``i2`` for a free slot, then kicks starting
    at ``i1`` (as RedisBloom and the reference implementation do) for up to ``max_kicks``
    evictions. :attr:`kicks` and :attr:`failed` hold one entry per insert attempt; :attr:`loads`
    the load factor just before it.
    """

    def __init__(
        self,
        num_buckets: int,
        bucket_size: int = 4,
        fingerprint_bits: int = 8,
        max_kicks: int = 500,
        victim: str = "random",
        on_failure: str = "rollback",
        seed: int = 0,
    ) -> None:
        num_buckets = check_int("num_buckets", num_buckets, 1, 2**26)
        if num_buckets & (num_buckets - 1):
            raise ValueError(
                f"num_buckets must be a power of two (i2 = i1 xor H(fp) needs it); got "
                f"{num_buckets:,}"
            )
        self.bucket_size = check_int("bucket_size", bucket_size, 1, 64)
        self.fingerprint_bits = check_int("fingerprint_bits", fingerprint_bits, 2, 32)
        self.max_kicks = check_int("max_kicks", max_kicks, 0, 100_000)
        if victim not in VICTIMS:
            raise ValueError(f"victim must be one of {VICTIMS}, got {victim!r}")
        if on_failure not in ON_FAILURE:
            raise ValueError(f"on_failure must be one of {ON_FAILURE}, got {on_failure!r}")
        self.victim, self.on_failure = victim, on_failure
        self.table = BucketTable(num_buckets, self.bucket_size)
        self._slots = num_buckets * self.bucket_size
        self.rng = random.Random(check_int("seed", seed, 0))
        self.stash: tuple[int, int] | None = None  # (bucket, fp) in "victim-slot" mode
        self.count = 0  #: fingerprints held (table + stash)
        self.lost = 0  #: fingerprints dropped by "drop" failures (false negatives created)
        self.kicks: list[int] = []
        self.spread: list[int] = []  #: distinct slots each chain evicted from
        self.last_path: list[int] = []  #: slots the last insert's chain swapped, in order
        self.failed: list[bool] = []
        self.loads: list[float] = []

    @property
    def num_buckets(self) -> int:
        return self.table.num_buckets

    @property
    def capacity(self) -> int:
        """Slots: ``num_buckets × bucket_size``."""
        return self.table.num_buckets * self.bucket_size

    @property
    def load_factor(self) -> float:
        """Fingerprints held / slots."""
        return self.count / self.capacity

    def locate(self, values: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(fp, i1, i2)`` of each value (uint64 arrays)."""
        h = item_hashes(values)
        fp = fingerprints(h, self.fingerprint_bits)
        mask = np.uint64(self.num_buckets - 1)
        i1 = h & mask
        return fp, i1, (i1 ^ (fp * np.uint64(ALT_MULTIPLIER))) & mask

    def insert(self, values: object, stop_at_failure: bool = False) -> np.ndarray:
        """Insert values in order; True where the filter reports success (bool array).

        A failure leaves the table as ``on_failure`` says. Duplicates are inserted again (a
        cuckoo filter cannot tell a duplicate from a fingerprint collision). With
        ``stop_at_failure`` the values after the first failure are not tried, and the array ends
        with that failure.
        """
        fps, i1s, _ = self.locate(values)
        ok = np.zeros(fps.size, dtype=bool)
        for j, (fp, i1) in enumerate(zip(fps.tolist(), i1s.tolist(), strict=True)):
            ok[j] = self._insert(i1, fp)
            if stop_at_failure and not ok[j]:
                return ok[: j + 1]
        return ok

    def _insert(self, i1: int, fp: int) -> bool:
        self.loads.append(self.count / self._slots)
        t = self.table
        if self.stash is not None:  # the reference implementation refuses while stashing
            self._record(0, 0, stored=False, ok=False)
            return False
        self.last_path = []
        if t.place(i1, fp) or t.place(t.alt(i1, fp), fp):
            self._record(0, 0, stored=True, ok=True)
            return True
        kicks, homeless, path = t.kick(i1, fp, self.max_kicks, self.victim, self.rng)
        self.last_path = path
        spread = len(set(path))
        if not homeless:
            self._record(kicks, spread, stored=True, ok=True)
        elif self.on_failure == "rollback":
            t.undo(path, homeless)
            self._record(kicks, spread, stored=False, ok=False)
        elif self.on_failure == "victim-slot":
            last_bucket = path[-1] // self.bucket_size if path else i1
            self.stash = (t.alt(last_bucket, homeless), homeless)
            self._record(kicks, spread, stored=True, ok=True)
        else:  # "drop": the new item is in, an earlier one is gone
            self.lost += 1
            self._record(kicks, spread, stored=False, ok=False)
        return not self.failed[-1]

    def _record(self, kicks: int, spread: int, *, stored: bool, ok: bool) -> None:
        self.count += stored
        self.kicks.append(kicks)
        self.spread.append(spread)
        self.failed.append(not ok)

    def contains(self, values: object) -> np.ndarray:
        """True where either bucket (or the stash) holds the value's fingerprint (bool array)."""
        fp, i1, i2 = self.locate(values)
        array = self.table.array()
        found = bucket_matches(array, i1, fp) | bucket_matches(array, i2, fp)
        if self.stash is not None:
            bucket, sfp = self.stash
            found |= (fp == np.uint64(sfp)) & (
                (i1 == np.uint64(bucket)) | (i2 == np.uint64(bucket))
            )
        return found

    def copies(self, values: object) -> np.ndarray:
        """How many copies of each value's fingerprint its two buckets hold (int array)."""
        fp, i1, i2 = self.locate(values)
        t = self.table
        return np.array(
            [
                t.copies(a, f) + (t.copies(b, f) if b != a else 0)
                for f, a, b in zip(fp.tolist(), i1.tolist(), i2.tolist(), strict=True)
            ]
        )

    def delete(self, values: object) -> np.ndarray:
        """Remove one copy of each value's fingerprint from bucket i1, else i2, else the stash.

        True where something was removed. Deleting a value never inserted removes whatever
        item shares its fingerprint and a bucket, if any: that item becomes a false negative.
        """
        fps, i1s, i2s = self.locate(values)
        done = np.zeros(fps.size, dtype=bool)
        t = self.table
        for j, (fp, i1, i2) in enumerate(
            zip(fps.tolist(), i1s.tolist(), i2s.tolist(), strict=True)
        ):
            if t.remove(i1, fp) or t.remove(i2, fp):
                done[j] = True
                self.count -= 1
                self._retry_stash()
            elif self.stash is not None and self.stash[1] == fp and self.stash[0] in (i1, i2):
                self.stash, done[j] = None, True
                self.count -= 1
        return done

    def _retry_stash(self) -> None:
        """After a delete, put the stashed fingerprint back in the table (reference impl.)."""
        if self.stash is None:
            return
        bucket, fp = self.stash
        self.stash = None
        t = self.table
        if t.place(bucket, fp) or t.place(t.alt(bucket, fp), fp):
            return
        _, homeless, path = t.kick(bucket, fp, self.max_kicks, self.victim, self.rng)
        if homeless:
            last_bucket = path[-1] // self.bucket_size
            self.stash = (t.alt(last_bucket, homeless), homeless)

    def fill_until_failure(self, values: object) -> int:
        """Insert values until the first failure; returns how many were inserted before it
        (all of them if none failed)."""
        ok = self.insert(values, stop_at_failure=True)
        return int(ok.size - (0 if ok.all() else 1))

    def measured_fpr(self, strangers: object) -> float:
        """Fraction of ``strangers`` (values never inserted) reported present."""
        return float(np.mean(self.contains(strangers)))

    def record(self) -> FillRecord:
        """The kick chains so far, as arrays."""
        return FillRecord(
            np.array(self.loads),
            np.array(self.kicks, dtype=np.int64),
            np.array(self.spread, dtype=np.int64),
            np.array(self.failed, dtype=bool),
        )


@dataclass(frozen=True)
class FillRecord:
    """One entry per insert attempt: load factor just before it, evictions made, distinct slots
    the chain evicted from (a chain caught in a loop evicts the same few again and again), and
    whether it failed."""

    loads: np.ndarray
    kicks: np.ndarray
    spread: np.ndarray
    failed: np.ndarray

    def by_load(self, edges: Sequence[float]) -> list[dict[str, float]]:
        """Per load bin ``[edges[i], edges[i+1])``: attempts, failure rate, mean kicks, 99th
        percentile and maximum of the kicks of successful inserts."""
        rows = []
        for low, high in itertools.pairwise(edges):
            mask = (self.loads >= low) & (self.loads < high)
            if not mask.any():
                continue
            ok = mask & ~self.failed
            kicks = self.kicks[ok] if ok.any() else np.zeros(1)
            rows.append(
                {
                    "load_low": low,
                    "load_high": high,
                    "attempts": int(mask.sum()),
                    "failure_rate": float(self.failed[mask].mean()),
                    "mean_kicks": float(kicks.mean()),
                    "p99_kicks": float(np.percentile(kicks, 99)),
                    "max_kicks": int(kicks.max()),
                }
            )
        return rows

    def load_at_failure_share(self, share: float) -> float:
        """Load factor at which the failed attempts, counted from the first insert, first make up
        ``share`` of all attempts so far (NaN if they never do)."""
        share = check_probability("share", share)
        running = np.cumsum(self.failed) / np.arange(1, self.failed.size + 1)
        where = np.flatnonzero(running >= share)
        return float(self.loads[where[0]]) if where.size else math.nan

    def first_failure_load(self) -> float:
        """Load factor at the first failed insert (NaN if none failed)."""
        where = np.flatnonzero(self.failed)
        return float(self.loads[where[0]]) if where.size else math.nan


def fill(
    num_buckets: int,
    bucket_size: int,
    attempts: int,
    *,
    fingerprint_bits: int = 16,
    max_kicks: int = 500,
    victim: str = "random",
    seed: int = 0,
) -> CuckooFilter:
    """A rollback filter after ``attempts`` inserts of fresh random values (its record has one
    entry per attempt)."""
    attempts = check_int("attempts", attempts, 0)
    cf = CuckooFilter(num_buckets, bucket_size, fingerprint_bits, max_kicks, victim, seed=seed)
    values = np.random.default_rng(seed).integers(0, 2**63, size=attempts, dtype=np.uint64)
    cf.insert(values)
    return cf


def first_failure_load(
    num_buckets: int,
    bucket_size: int,
    *,
    fingerprint_bits: int = 16,
    max_kicks: int = 500,
    victim: str = "random",
    seed: int = 0,
) -> float:
    """Load factor reached when the first insert fails (fresh random values)."""
    cf = CuckooFilter(num_buckets, bucket_size, fingerprint_bits, max_kicks, victim, seed=seed)
    values = np.random.default_rng(seed).integers(0, 2**63, size=cf.capacity + 1, dtype=np.uint64)
    return cf.fill_until_failure(values) / cf.capacity


def false_delete_losses(
    num_buckets: int,
    bucket_size: int,
    fingerprint_bits: int,
    load: float,
    deletes: int,
    seed: int = 0,
) -> tuple[int, int]:
    """Fill a filter to ``load`` with random members, then delete ``deletes`` values that were
    never added (a delete handler that trusts its input). Returns ``(members, members no longer
    found)``: every delete that hits a false positive removes a real member's fingerprint."""
    if not 0.0 < load <= 1.0:
        raise ValueError(f"load must be in (0, 1], got {load!r}")
    cf = CuckooFilter(num_buckets, bucket_size, fingerprint_bits, seed=seed)
    rng = np.random.default_rng(seed)
    members = rng.integers(0, 2**62, size=int(cf.capacity * load), dtype=np.uint64)
    members = members[cf.insert(members)]
    strangers = rng.integers(2**62, 2**63, size=check_int("deletes", deletes, 0), dtype=np.uint64)
    cf.delete(strangers)
    return int(members.size), int((~cf.contains(members)).sum())


# -- a picture of one kick chain -------------------------------------------------------------------


@dataclass(frozen=True)
class KickDemo:
    """One insert that needed a kick chain, with the table before and after it."""

    num_buckets: int
    bucket_size: int
    before: list[int]  #: slots before the insert (0 = empty)
    after: list[int]  #: slots after it
    fp: int  #: the new item's fingerprint
    i1: int
    i2: int
    path: list[int]  #: slots swapped, in order (the new item went into path[0])
    final: int  #: the empty slot the last evicted fingerprint landed in


def kick_chain_demo(
    num_buckets: int = 8, bucket_size: int = 2, kicks: int = 2, seed: int = 0
) -> KickDemo:
    """Fill a tiny filter (8-bit fingerprints, random victims) with random values until an
    insert succeeds after exactly ``kicks`` evictions of distinct slots; return that insert."""
    cf = CuckooFilter(num_buckets, bucket_size, 8, max_kicks=50, seed=seed)
    kicks = check_int("kicks", kicks, 1, 50)
    rng = np.random.default_rng(seed)
    for value in rng.integers(0, 2**62, size=50 * cf.capacity, dtype=np.uint64):
        one = np.array([value], dtype=np.uint64)
        before = list(cf.table.slots)
        fp, i1, i2 = (int(a[0]) for a in cf.locate(one))
        chain = cf.last_path if cf.insert(one)[0] else []
        if len(chain) == kicks and len(set(chain)) == kicks and i1 != i2:
            after = cf.table.slots
            final = next(
                j for j, (x, y) in enumerate(zip(before, after, strict=True)) if not x and y
            )
            return KickDemo(num_buckets, bucket_size, before, list(after), fp, i1, i2,
                            list(chain), final)  # fmt: skip
        if cf.count >= cf.capacity - 1:
            cf = CuckooFilter(num_buckets, bucket_size, 8, max_kicks=50, seed=seed)
    raise ValueError(f"no insert needed exactly {kicks} kicks; try another seed")
