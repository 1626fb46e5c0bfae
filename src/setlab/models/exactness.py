"""How exact each release family's memory model is, for each of its two figures, and why.

Every :class:`~setlab.models.key_layout.KeyCost` carries two figures: ``memory_usage`` (what
``MEMORY USAGE key SAMPLES 0`` reports) and ``allocated`` (what ``used_memory`` grows by once any
rehash has finished). :data:`EXACTNESS` says, per (family, figure), how close the model is to a
real server, what the gap depends on, and the source it rests on — one entry each, so pages,
the CLI and the tests quote the same words. Measured with
``tests/lab/runs/test_live_memory_releases.py`` against Redis 6.2.5 (bundled jemalloc 5.1),
7.0.15 (Debian's jemalloc 5.3), 8.2.3 (bundled jemalloc 5.3) and Valkey 8.1.8 (glibc), for sets
(intset, listpack, hashtable of integers, 8-byte strings, 16-hex IDs and UUIDs at 1–10^4
members, and 50,000 8-byte strings), strings of every encoding with keys of 1–200 bytes,
HyperLogLogs sparse and dense, and bitmaps up to offset 2^32 − 1.

The spread for hashtable sets from 7.2 on comes from the process's random hash seed (which
members share a bucket); the figures below are two standard deviations of the allocation,
from the model's own layout simulated for a uniform hash.
"""

from __future__ import annotations

from dataclasses import dataclass

from setlab.models.builds import family

QUANTITIES: tuple[str, ...] = ("memory_usage", "allocated")


@dataclass(frozen=True)
class Exactness:
    """How close one family's figure is to a real server."""

    level: str  #: "exact", "within 1% from 10^4 members", "modelled, not measured", …
    note: str  #: what the gap depends on, in a sentence or two
    source: str  #: the source lines, PRs or measurements it rests on


_SEED_8_2 = (
    "hashtable sets: the hash seed decides which members share a bucket and so take a 16-byte "
    "entry: ±2.3% at 129 members, ±1.2% at 513, ±0.3% at 10^4 (2 sd); intsets, listpacks, "
    "strings, bitmaps and HyperLogLogs exact. A key that shares its keyspace bucket with "
    "another takes 16 bytes more, not counted."
)
_VALKEY_TABLE = (
    "hashtable sets: the hash seed decides how many 64-byte child buckets crowded buckets "
    "need: ±2.9% at 129 members, ±1.4% at 513, ±0.4% at 10^4 (2 sd). glibc may hand a "
    "member a larger freed chunk than it asks for: up to +1.1% measured on 50,000 8-byte "
    "members. "
)

EXACTNESS: dict[tuple[str, str], Exactness] = {
    ("6.2", "memory_usage"): Exactness(
        "exact",
        "every encoding, measured; an intset counts its blob length and an embstr sdslen + 2 "
        "bytes, not their allocations.",
        "Redis 6.2 object.c objectComputeSize (intsetBlobLen; sdslen(o->ptr)+2); dict.h: "
        "sizeof(dict) = 96 (two dictht)",
    ),
    ("6.2", "allocated"): Exactness(
        "exact",
        "as 7.0: the robj, the key's sds, a dictEntry per key and per member, sds strings "
        "(measured on the bundled jemalloc 5.1.0).",
        "Redis 6.2 dict.c, t_set.c, sds.c (s_malloc_usable)",
    ),
    ("7.0", "memory_usage"): Exactness(
        "exact",
        "every encoding, once any incremental rehash has finished.",
        "Redis 7.0 object.c objectComputeSize, memoryCommand",
    ),
    ("7.0", "allocated"): Exactness(
        "exact",
        "once any incremental rehash has finished; the keyspace bucket pointer is not counted.",
        "Redis 7.0 dict.c, t_set.c, intset.c, sds.c",
    ),
    ("7.2", "memory_usage"): Exactness(
        "modelled, not measured",
        "7.0's sums (24 bytes of dictEntry for every hashtable member) with 7.2's listpack "
        "sets, as Redis 8.2 still reports them; no 7.2 server was measured.",
        "Redis #11595 (setDictType .no_value = 1); t_set.c set-max-listpack-entries",
    ),
    ("7.2", "allocated"): Exactness(
        "modelled, not measured",
        "7.0's key layout with 8.2's measured set internals (a 16-byte entry only for a member "
        "chained behind another; sparse HyperLogLogs grown by sdsResize): the hash seed "
        "spread of 8.2 applies.",
        "Redis #11595 (dict.c dictEntryNoValue, keys_are_odd), #11438 (hyperloglog.c)",
    ),
    ("8.2", "memory_usage"): Exactness(
        "exact",
        "every encoding: the object holding the key's name replaces robj + key sds + "
        "dictEntry; hashtable members still count 24 bytes of dictEntry each, so it overstates "
        "the allocation by 35–83%.",
        "Redis #13806 (kvobj, 8.0), #14288 (MEMORY USAGE counts the kvobj); object.c",
    ),
    ("8.2", "allocated"): Exactness("within 1% from 10^4 members", _SEED_8_2, "Redis #11595"),
    ("valkey-8.1", "memory_usage"): Exactness(
        "within 1% from 10^4 members",
        _VALKEY_TABLE + "Strings, intsets, listpacks, bitmaps and HyperLogLogs exact on a "
        "fresh server.",
        "valkey-io/valkey 8.1 hashtable.c (hashtableMemUsage counts child buckets), object.c",
    ),
    ("valkey-8.1", "allocated"): Exactness(
        "within 1% from 10^4 members",
        _VALKEY_TABLE + "Blocks of 128 KiB–32 MiB are mapped pages on a fresh server and heap "
        "chunks once a mapped block was freed (glibc's dynamic mmap threshold): ±4 KiB each.",
        "valkey-io/valkey 8.1 hashtable.c; glibc malloc.c (mmap threshold, MINSIZE split)",
    ),
}


def exactness(release: str, quantity: str) -> Exactness:
    """How exact the model of ``release`` (any of :data:`setlab.models.builds.RELEASES`) is for
    ``quantity`` (``"memory_usage"`` or ``"allocated"``)."""
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {', '.join(QUANTITIES)}; got {quantity!r}")
    return EXACTNESS[(family(release), quantity)]
