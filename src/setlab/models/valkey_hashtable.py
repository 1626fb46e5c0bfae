"""Valkey 8.1's hashtable (``src/hashtable.c``): 64-byte buckets of seven entries, child buckets.

Valkey 8.1 keeps the keyspace and every hashtable-encoded set in an open-addressing table
designed by Viktor Söderqvist, in place of Redis's ``dict``. The pieces a memory model needs,
from ``hashtable.c`` (valkey-io/valkey, 8.1):

* a **bucket** is one 64-byte cache line: a metadata byte (a ``chained`` bit and seven presence
  bits), seven one-byte hash tags and seven 8-byte entry pointers (``ENTRIES_PER_BUCKET 7`` on
  64-bit). A set's entry *is* the member's sds string: there is no ``dictEntry``;
* a key hashes to one top-level bucket. When that bucket is full, ``bucketConvertToChained``
  moves its last entry to a new **child bucket** (``zcalloc(sizeof(bucket))``) and keeps a
  pointer to it in the freed slot, so a chain of ``c`` child buckets holds up to ``7 + 6c``
  entries (:func:`child_buckets_for`);
* the table has a power of two of buckets, ``nextBucketExp``: at least
  ``ceil(entries × 5 / 32)`` (``BUCKET_FACTOR 5``, ``BUCKET_DIVISOR 32``: at most 91 % full
  right after a resize); an insert that would put more than 7 entries per top-level bucket on
  average (``MAX_FILL_PERCENT_SOFT 100``) resizes the table for ``used + 1`` entries, which
  doubles it (:func:`buckets_after_inserts`). A set created by one ``SADD`` of ``h`` members is
  sized for ``h`` first (``hashtableExpand(size_hint)`` in ``setTypeCreate``);
* rehashing moves entries bucket by bucket into the new table with the same insert rule, so
  once it has finished, a bucket's chain depends only on how many entries hash to it;
* ``MEMORY USAGE`` counts ``sizeof(hashtable)`` (72 bytes in 8.1, measured) and 64 bytes per
  top-level and child bucket (``hashtableMemUsage``); the allocator hands out a size class for
  each (on glibc 72 usable bytes for a 64-byte bucket).

Which entries share a bucket depends on the process's random SipHash seed, so the model takes
the **expected** number of child buckets for a uniform hash (:func:`expected_child_buckets`);
:func:`chains_of` gives the exact layout for given bucket indexes, for tests and for a server
whose layout is known (``DEBUG HTSTATS-KEY`` reports its child buckets).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from setlab.core.validate import check_int

ENTRIES_PER_BUCKET = 7  #: 64-bit: seven 8-byte entry slots after 8 bytes of metadata
BUCKET_BYTES = 64  #: HASHTABLE_BUCKET_SIZE: one cache line
BUCKET_FACTOR, BUCKET_DIVISOR = 5, 32  #: buckets = ceil(entries × 5 / 32) when resizing
MAX_FILL_PERCENT_SOFT = 100  #: expand once the next insert exceeds 7 entries per bucket
HASHTABLE_STRUCT_BYTES = 72  #: sizeof(hashtable) in Valkey 8.1 (MEMORY USAGE, measured)


def buckets_for(entries: int) -> int:
    """Top-level buckets of a table resized for ``entries`` (``nextBucketExp``): the power of two
    at least ``ceil(entries × 5 / 32)``, and at least 1."""
    entries = check_int("entries", entries, 0)
    wanted = max(1, -(-max(entries, 1) * BUCKET_FACTOR // BUCKET_DIVISOR))
    return 1 << (wanted - 1).bit_length()


def buckets_after_inserts(count: int, first_insert: int = 1) -> int:
    """Top-level buckets once ``count`` entries are in and any rehash has finished.

    The table is first sized for ``first_insert`` entries (1: one entry at a time; a set made by
    one ``SADD`` of ``h`` members is sized for ``h``; one converted from a listpack or intset is
    sized for its members then). From there ``hashtableExpandIfNeeded`` resizes for ``used + 1``
    when that exceeds ``7 × buckets``: the table doubles, so it ends at the larger of its first
    size and the smallest power of two that holds ``count`` at seven a bucket.
    """
    count = check_int("count", count, 0)
    first_insert = check_int("first_insert", first_insert, 1)
    grown = 1
    while ENTRIES_PER_BUCKET * grown * MAX_FILL_PERCENT_SOFT < count * 100:
        grown *= 2
    return max(buckets_for(min(first_insert, max(count, 1))), grown)


def child_buckets_for(entries: int) -> int:
    """Child buckets of a chain holding ``entries`` entries: 0 up to 7, then one more for every
    6 entries (each chained bucket gives its last slot to the pointer to the next)."""
    entries = check_int("entries", entries, 0)
    if entries <= ENTRIES_PER_BUCKET:
        return 0
    return -(-(entries - ENTRIES_PER_BUCKET) // (ENTRIES_PER_BUCKET - 1))


def chains_of(bucket_indexes: Iterable[int]) -> tuple[int, int]:
    """(occupied top-level buckets, child buckets) for entries hashing to ``bucket_indexes``."""
    counts = Counter(bucket_indexes)
    return len(counts), sum(child_buckets_for(n) for n in counts.values())


def expected_child_buckets(count: int, buckets: int) -> float:
    """Expected child buckets when ``count`` entries hash uniformly into ``buckets`` buckets.

    A bucket's load ``X`` is binomial (``count``, ``1 / buckets``) and it needs a ``j``-th child
    when ``X ≥ 6j + 2``, so the mean is ``buckets × Σ_j P(X ≥ 6j + 2)``.
    """
    count = check_int("count", count, 0)
    buckets = check_int("buckets", buckets, 1)
    if buckets == 1:
        return float(child_buckets_for(count))
    p = 1 / buckets
    log_p, log_q = math.log(p), math.log1p(-p)
    mean = count * p
    top = min(count, int(mean + 12 * math.sqrt(mean) + 60))
    pmf = [
        math.exp(
            math.lgamma(count + 1)
            - math.lgamma(m + 1)
            - math.lgamma(count - m + 1)
            + m * log_p
            + (count - m) * log_q
        )
        for m in range(top + 1)
    ]
    return buckets * sum(pmf[m] * child_buckets_for(m) for m in range(top + 1))


def table_bytes(buckets: int, child_buckets: float) -> float:
    """What ``MEMORY USAGE`` counts for a table: the struct and 64 bytes a bucket of either kind."""
    return HASHTABLE_STRUCT_BYTES + BUCKET_BYTES * (buckets + child_buckets)
