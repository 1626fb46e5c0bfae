"""RedisBloom 2.8's cuckoo filter (``CF.*``), bit for bit: what ``CF.RESERVE`` allocates and
what every ``CF.INSERT``, ``CF.EXISTS``, ``CF.DEL`` and ``CF.COMPACT`` then does.

:class:`RedisBloomCuckoo` is the partial-key cuckoo filter of :mod:`setlab.models.cuckoo` with
RedisBloom's rules on top (``src/cuckoo.c``, ``src/rebloom.c``): 8-bit fingerprints ``h % 255 + 1``,
round-robin victims starting at slot 0 of bucket ``h1``, rollback after ``MAXITERATIONS`` kicks.
``CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]`` makes a table of
``num_buckets = next_pow2(capacity // b)`` buckets (:func:`reserve_buckets`); when an insert fails
after its rollback, a new sub-filter with ``expansion^i`` times as many buckets is added
(``EXPANSION 0``: the add reports "Filter is full" instead); new items go to the first free slot
of any sub-filter, newest first; kicks happen only in the newest; ``CF.INFO`` "Size" is
``40 + 16 · filters + slots`` bytes (:func:`info_size`).

These two functions are the one source of RedisBloom's cuckoo sizing (the calculator uses them too).
``tests/lab/runs/test_live_redisbloom.py`` checks the model against ``CF.INFO``, ``CF.SCANDUMP`` and
the module's replies; the commands themselves are in :mod:`setlab.lab.runs.cuckoo`.
"""

from __future__ import annotations

import numpy as np

from setlab.core.validate import check_int
from setlab.models.cuckoo import ALT_MULTIPLIER, BucketTable, bucket_matches, item_hashes, next_pow2

#: RedisBloom's defaults (``src/rebloom.c``) and limits (argument checks of 2.8).
RB_BUCKET_SIZE, RB_MAX_ITERATIONS, RB_EXPANSION = 2, 20, 1
RB_MAX_BUCKET_SIZE, RB_MAX_ITERATIONS_LIMIT, RB_MAX_EXPANSION = 255, 65535, 32768
#: ``CFMaxExpansions``: an add to a filter with this many sub-filters is refused.
RB_MAX_FILTERS = 32
#: ``sizeof(CuckooFilter)`` and ``sizeof(SubCF)`` on 64-bit (bytes), as ``CF.INFO`` counts them.
RB_FILTER_BYTES, RB_SUBFILTER_BYTES = 40, 16


# -- sizing ---------------------------------------------------------------------------------------


def reserve_buckets(capacity: int, bucket_size: int = RB_BUCKET_SIZE) -> int:
    """Buckets of the table ``CF.RESERVE key capacity BUCKETSIZE bucket_size`` allocates:
    ``next_pow2(capacity // bucket_size)``, at least 1 (``CuckooFilter_Init``, ``src/cuckoo.c``).

    ``capacity`` in items (the module itself refuses a capacity below ``2 · bucket_size``).
    """
    capacity = check_int("capacity", capacity, 1, 2**50)
    bucket_size = check_int("bucket_size", bucket_size, 1, RB_MAX_BUCKET_SIZE)
    return max(1, next_pow2(capacity // bucket_size))


def info_size(slots: int, filters: int = 1) -> int:
    """``CF.INFO`` "Size" in bytes of ``filters`` sub-filters holding ``slots`` slots in all:
    ``sizeof(CuckooFilter) + filters · sizeof(SubCF) + slots`` (one byte per 8-bit slot)."""
    slots = check_int("slots", slots, 1)
    filters = check_int("filters", filters, 1, RB_MAX_FILTERS)
    return RB_FILTER_BYTES + RB_SUBFILTER_BYTES * filters + slots


class RedisBloomCuckoo:
    """``CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]``, in process.

    Follows ``src/cuckoo.c`` of RedisBloom 2.8: 8-bit fingerprints ``h % 255 + 1``, round-robin
    victims starting at slot 0 of bucket ``h1``, rollback after ``max_iterations`` kicks, then a new
    sub-filter (``expansion^i`` × the buckets) unless ``expansion`` is 0. Its :meth:`info` equals
    ``CF.INFO`` and its :meth:`dump` ``CF.SCANDUMP``'s data after the same adds.
    """

    def __init__(
        self,
        capacity: int,
        bucket_size: int = RB_BUCKET_SIZE,
        max_iterations: int = RB_MAX_ITERATIONS,
        expansion: int = RB_EXPANSION,
    ) -> None:
        self.bucket_size = check_int("bucket_size", bucket_size, 1, RB_MAX_BUCKET_SIZE)
        self.capacity = check_int("capacity", capacity, 2 * self.bucket_size, 2**40)
        self.max_iterations = check_int(
            "max_iterations", max_iterations, 1, RB_MAX_ITERATIONS_LIMIT
        )
        self.expansion = next_pow2(check_int("expansion", expansion, 0, RB_MAX_EXPANSION))
        self.num_buckets = reserve_buckets(self.capacity, self.bucket_size)
        self.tables = [BucketTable(self.num_buckets, self.bucket_size)]
        self.num_items = 0
        self.num_deletes = 0
        self.kicks: list[int] = []

    def reserve_args(self) -> list[object]:
        """Arguments after the key of the ``CF.RESERVE`` that creates this filter."""
        return [
            self.capacity,
            "BUCKETSIZE", self.bucket_size,
            "MAXITERATIONS", self.max_iterations,
            "EXPANSION", self.expansion,
        ]  # fmt: skip

    def _grow(self) -> None:
        buckets = self.num_buckets * self.expansion ** len(self.tables)
        self.tables.append(BucketTable(buckets, self.bucket_size))

    @staticmethod
    def _params(values: object) -> tuple[list[int], list[int]]:
        h = item_hashes(values)
        return h.tolist(), (np.uint64(1) + h % np.uint64(255)).tolist()

    def _find_free(self, h1: int, fp: int) -> bool:
        for t in reversed(self.tables):
            i1 = h1 & t.mask
            if t.place(i1, fp) or t.place(t.alt(i1, fp), fp):
                return True
        return False

    def _insert(self, h1: int, fp: int) -> int:
        while True:
            if self._find_free(h1, fp):
                self.num_items += 1
                self.kicks.append(0)
                return 1
            t = self.tables[-1]
            kicks, homeless, path = t.kick(h1 & t.mask, fp, self.max_iterations, "round-robin")
            self.kicks.append(kicks)
            if not homeless:
                self.num_items += 1
                return 1
            t.undo(path, homeless)
            if self.expansion == 0:
                return -1
            self._grow()

    def add(self, values: object, nx: bool = False) -> np.ndarray:
        """``CF.INSERT`` (``CF.INSERTNX`` with ``nx``) one item at a time: 1 added, 0 already
        present (nx only), -1 full (``EXPANSION 0``), -2 refused because the filter already has
        32 sub-filters ("Maximum expansions reached"). int8 array."""
        h1s, fps = self._params(values)
        out = np.zeros(len(h1s), dtype=np.int8)
        for j, (h1, fp) in enumerate(zip(h1s, fps, strict=True)):
            if len(self.tables) >= RB_MAX_FILTERS:
                out[j] = -2
            elif nx and self._check(h1, fp):
                out[j] = 0
            else:
                out[j] = self._insert(h1, fp)
        return out

    def _check(self, h1: int, fp: int) -> bool:
        for t in self.tables:
            i1 = h1 & t.mask
            if t.has(i1, fp) or t.has(t.alt(i1, fp), fp):
                return True
        return False

    def exists(self, values: object) -> np.ndarray:
        """``CF.EXISTS`` for each value (bool array)."""
        h = item_hashes(values)
        fp = np.uint64(1) + h % np.uint64(255)
        found = np.zeros(h.size, dtype=bool)
        for t in self.tables:
            mask = np.uint64(t.mask)
            i1 = h & mask
            i2 = (i1 ^ (fp * np.uint64(ALT_MULTIPLIER))) & mask
            array = t.array()
            found |= bucket_matches(array, i1, fp) | bucket_matches(array, i2, fp)
        return found

    def count(self, values: object) -> np.ndarray:
        """``CF.COUNT``: copies of each value's fingerprint in its buckets over all sub-filters."""
        h1s, fps = self._params(values)
        out = []
        for h1, fp in zip(h1s, fps, strict=True):
            n = 0
            for t in self.tables:
                i1 = h1 & t.mask
                n += t.copies(i1, fp) + t.copies(t.alt(i1, fp), fp)
            out.append(n)
        return np.array(out)

    def delete(self, values: object) -> np.ndarray:
        """``CF.DEL`` for each value: 1 if a copy of its fingerprint was removed (newest
        sub-filter first, bucket i1 before i2), else 0. Compacts like the module when more than
        10% of the items have been deleted and there is more than one sub-filter."""
        h1s, fps = self._params(values)
        out = np.zeros(len(h1s), dtype=np.int8)
        for j, (h1, fp) in enumerate(zip(h1s, fps, strict=True)):
            for t in reversed(self.tables):
                i1 = h1 & t.mask
                if t.remove(i1, fp) or t.remove(t.alt(i1, fp), fp):
                    out[j] = 1
                    self.num_items -= 1
                    self.num_deletes += 1
                    if len(self.tables) > 1 and self.num_deletes > self.num_items * 0.10:
                        self.compact(keep_going=False)
                    break
        return out

    def compact(self, keep_going: bool = True) -> None:
        """``CuckooFilter_Compact``: move fingerprints of newer sub-filters into older ones, and
        drop the newest sub-filter once it is empty (``CF.COMPACT`` uses ``keep_going``)."""
        for index in range(len(self.tables) - 1, 0, -1):
            t = self.tables[index]
            moved_all = True
            for bucket in range(t.num_buckets):
                for slot in range(t.b):
                    pos = bucket * t.b + slot
                    fp = t.slots[pos]
                    if fp == 0:
                        continue
                    if any(self._relocate(older, bucket, fp) for older in self.tables[:index]):
                        t.slots[pos] = 0
                    else:
                        moved_all = False
            if moved_all and index == len(self.tables) - 1:
                self.tables.pop()
            if not moved_all and not keep_going:
                break
        self.num_deletes = 0

    @staticmethod
    def _relocate(t: BucketTable, bucket: int, fp: int) -> bool:
        i1 = bucket & t.mask
        return t.place(i1, fp) or t.place(t.alt(i1, fp), fp)

    def memory(self) -> int:
        """``CF.INFO`` "Size": ``40 + 16 · filters + Σ buckets × bucket_size`` bytes."""
        slots = sum(t.num_buckets for t in self.tables) * self.bucket_size
        return info_size(slots, len(self.tables))

    def info(self) -> dict[str, int]:
        """What ``CF.INFO`` returns (same field names)."""
        return {
            "Size": self.memory(),
            "Number of buckets": self.num_buckets,
            "Number of filters": len(self.tables),
            "Number of items inserted": self.num_items,
            "Number of items deleted": self.num_deletes,
            "Bucket size": self.bucket_size,
            "Expansion rate": self.expansion,
            "Max iterations": self.max_iterations,
        }

    def dump(self) -> bytes:
        """All sub-filters' slots, oldest first, one byte each: ``CF.SCANDUMP``'s data."""
        return b"".join(bytes(t.slots) for t in self.tables)
