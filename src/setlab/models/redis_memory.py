"""What a Redis key really costs, by type, encoding and release: SET, string and bitmap.

The model follows each release family's source (``object.c``, ``t_set.c``, ``intset.c``,
``dict.c``; Valkey's ``hashtable.c``) on an allocator (:mod:`setlab.models.allocator`), and
gives two figures for every key (:class:`KeyCost`): ``memory_usage``, what ``MEMORY USAGE key
SAMPLES 0`` reports, and ``allocated``, what ``used_memory`` grows by once any rehash is done.
``version=`` names a release (:data:`setlab.models.builds.RELEASES`) and ``allocator=`` its
build (``None``: the release's usual one). :mod:`setlab.models.exactness` says how exact each
figure is per family; ``tests/lab/runs/test_live_memory.py`` (7.0) and
``tests/lab/runs/test_live_memory_releases.py`` (every installed server) check them.

Redis 7.0 (the book's reference, Debian's 7.0.15):

* **SET as intset** (every member an integer, at most ``set-max-intset-entries``, default 512):
  a sorted array of 2-, 4- or 8-byte integers after an 8-byte header, in one allocation.
* **SET as hashtable**: the ``dict`` struct (56 B), a bucket array of 8-byte pointers whose length
  is a power of two (at least 4, at least the member count once any rehash has finished), and per
  member a ``dictEntry`` (24 B, which jemalloc serves from its 32-byte class) and the member's own
  sds string. ``MEMORY USAGE`` counts ``sizeof`` for the struct and the entries, not the allocator's
  rounding, so the bytes the allocator really hands out are more. While a table is being rehashed
  incrementally the old bucket array is counted too; :func:`setlab.lab.runs.memory.settle_set`
  finishes the rehash.
* **Strings**: ``int`` (a value that parses as a 64-bit integer; 0–9999 share one object),
  ``embstr`` (at most 44 bytes, robj and sds in one allocation) and ``raw`` (an sds string).
* ``MEMORY USAGE`` = value + ``robj`` (16 B) + the key's sds + ``dictEntry`` (24 B); it leaves out
  the keyspace bucket pointer, the allocator's rounding of ``dictEntry``/``dict``, and any
  fragmentation.

What the other families change (:mod:`setlab.models.builds`; measured on the servers named):

* **6.2** (Redis 6.2.5, bundled jemalloc 5.1): the ``dict`` struct holds two ``dictht`` tables,
  96 B (``dict.h``); ``MEMORY USAGE`` counts an intset by ``intsetBlobLen`` and an embstr as
  ``sdslen + 2`` bytes after the robj, not by their allocations (6.2's ``objectComputeSize``).
  Allocations are as in 7.0.
* **7.2** (7.2 and 7.4; modelled from the source and from 8.2 and Valkey 8.1, which inherit it,
  no 7.2 server measured): a set of at most 128 members of at most 64 bytes that are not all
  integers is a **listpack** (``set-max-listpack-entries``/``-value``); in a hashtable a member
  alone in its bucket is stored in the bucket itself, with no ``dictEntry`` (``setDictType``
  ``.no_value = 1``, ``.keys_are_odd = 1``, Redis #11595), and each member chained behind another
  takes a 16-byte ``dictEntryNoValue``. Which members share a bucket depends on the process's
  hash seed, so ``allocated`` takes the expected number for a uniform hash. ``MEMORY USAGE``
  still adds ``sizeof(dictEntry)`` (24 B) for every member, so it overstates the allocation.
* **8.2** (8.0 and 8.2; Redis 8.2.3, bundled jemalloc): as 7.2, and the key's name lives in the
  value's object (``kvobj``, #13806), which ``MEMORY USAGE`` counts (#14288) instead of the
  robj, the key's sds and a ``dictEntry``: :mod:`setlab.models.key_layout`.
* **valkey-8.1** (Valkey 8.1.8, glibc malloc): keys embedded as in 8.2, and sets in
  :mod:`setlab.models.valkey_hashtable`'s open-addressing table: no ``dictEntry`` at all,
  64-byte buckets of seven members, child buckets for crowded ones, all counted by ``MEMORY
  USAGE`` (whose child buckets, like the allocation, depend on the hash seed).

A HyperLogLog is a string too; its encodings and memory are modelled, bit for bit, in
:mod:`setlab.models.hyperloglog` on the :class:`KeyCost` and :class:`Ledger` of
:mod:`setlab.models.key_layout`.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable

import numpy as np

from setlab.core.hashing import MASK64
from setlab.core.validate import check_int
from setlab.models import bitmap, valkey_hashtable
from setlab.models.allocator import check_allocator
from setlab.models.builds import DEFAULT_RELEASE, Build
from setlab.models.key_layout import (
    DICT_ENTRY_BYTES,
    ROBJ_BYTES,
    SDSHDR8_BYTES,
    KeyCost,
    Ledger,
    embeds_value,
)
from setlab.models.sds import sds_new_alloc
from setlab.models.set_members import Members as Members
from setlab.models.set_members import as_bytes as as_bytes
from setlab.models.set_members import intset_width as intset_width
from setlab.models.set_members import redis_integer as redis_integer

#: a release name of :data:`setlab.models.builds.RELEASES`
Version = str
#: the releases ``setlab calc set --redis`` offers (the CLI's own list)
VERSIONS: tuple[str, ...] = ("7.0", "7.2")

POINTER_BYTES = 8
DICT_BYTES = 56  #: sizeof(dict) in Redis 7.0 to 8.2 (dict.h), what MEMORY USAGE counts
#: sizeof(dict) by family: Redis 6.2's holds two 32-byte ``dictht`` (dict.h)
DICT_STRUCT_BYTES = {"6.2": 96, "7.0": DICT_BYTES, "7.2": DICT_BYTES, "8.2": DICT_BYTES}
DICT_MIN_BUCKETS = 4  #: DICT_HT_INITIAL_SIZE
DICT_ENTRY_NO_VALUE_BYTES = 16  #: Redis 7.2+ dictEntryNoValue {key, next}
#: the families whose sets have listpacks and store a lone member in its bucket (7.2 onwards)
LISTPACK_SET_FAMILIES = frozenset({"7.2", "8.2", "valkey-8.1"})
INTSET_HEADER_BYTES = 8  #: intset {uint32 encoding; uint32 length}
INTSET_MAX_ENTRIES_CAP = 1 << 30  #: t_set.c caps set-max-intset-entries here
SET_MAX_INTSET_ENTRIES = 512  #: default set-max-intset-entries
SET_MAX_LISTPACK_ENTRIES = 128  #: default set-max-listpack-entries (7.2+)
SET_MAX_LISTPACK_VALUE = 64  #: default set-max-listpack-value (7.2+), bytes
HASH_MAX_LISTPACK_ENTRIES = 512  #: default hash-max-listpack-entries (7.0's redis.conf, config.c)
HASH_MAX_LISTPACK_VALUE = 64  #: default hash-max-listpack-value (7.0), bytes
LISTPACK_HEADER_BYTES = 6  #: total bytes (4) + element count (2)
LISTPACK_END_BYTES = 1
OBJ_SHARED_INTEGERS = 10_000  #: values 0..9999 share one preallocated robj (before Redis 8)


def build_of(version: str, allocator: str | None) -> Build:
    """The :class:`~setlab.models.builds.Build` a model prices: ``version`` (a release) on
    ``allocator``, or on the release's usual allocator when ``allocator`` is ``None``."""
    return Build(version, check_allocator(allocator) if allocator is not None else "")


def _members(members: Members | Iterable[str | bytes | int], allocator: str) -> Members:
    """``members`` summarised, or re-priced, for ``allocator``."""
    if isinstance(members, Members):
        return members.priced_for(allocator)
    return Members.of(members, check_allocator(allocator))


# -- what a key costs ----------------------------------------------------------------------------


def dict_buckets(count: int) -> int:
    """Buckets of a settled Redis dict holding ``count`` keys, grown by inserts only.

    ``_dictExpandIfNeeded`` starts at 4 and, when an insert finds ``used >= size``, expands to
    the next power of two above ``used`` (dict.c), so the size is ``max(4, 2^ceil(log2 count))``.
    """
    count = check_int("count", count, 0)
    return max(DICT_MIN_BUCKETS, 1 << max(0, count - 1).bit_length())


def set_encoding(
    members: Members | Iterable[str | bytes | int],
    *,
    max_intset_entries: int = SET_MAX_INTSET_ENTRIES,
    version: Version = DEFAULT_RELEASE,
) -> str:
    """``OBJECT ENCODING`` of a set built by ``SADD`` of ``members`` (no ``SREM``).

    6.2 and 7.0: ``intset`` while every member is an integer and there are at most
    ``max_intset_entries`` of them, else ``hashtable``. 7.2 onwards (and Valkey) adds
    ``listpack`` for other sets of at most 128 members of at most 64 bytes. Conversions only go
    one way, so the final encoding does not depend on the order of the ``SADD`` calls.
    """
    m = members if isinstance(members, Members) else Members.of(members)
    limit = min(check_int("max_intset_entries", max_intset_entries, 0), INTSET_MAX_ENTRIES_CAP)
    family = Build(version).family
    if m.integers and m.count <= limit:
        return "intset"
    if (
        family in LISTPACK_SET_FAMILIES
        and m.count <= SET_MAX_LISTPACK_ENTRIES
        and m.max_length <= SET_MAX_LISTPACK_VALUE
    ):
        return "listpack"
    return "hashtable"


def expected_occupied_buckets(count: int, buckets: int) -> float:
    """Expected non-empty buckets when ``count`` keys hash uniformly into ``buckets``."""
    return buckets * -math.expm1(count * math.log1p(-1 / buckets)) if buckets > 1 else 1.0


def set_cost(
    members: Members | Iterable[str | bytes | int],
    key: str | bytes = "k",
    *,
    max_intset_entries: int = SET_MAX_INTSET_ENTRIES,
    version: Version = DEFAULT_RELEASE,
    allocator: str | None = None,
    sadd_batch: int = 1,
) -> KeyCost:
    """What a set built by ``SADD key m1 m2 …`` costs on ``version`` with ``allocator``.

    ``memory_usage`` is what ``MEMORY USAGE key SAMPLES 0`` reports once any incremental rehash
    has finished (:func:`setlab.lab.runs.memory.settle_set`); ``allocated`` what the allocator
    hands out for the key (for 7.0: ``memory_usage`` plus the rounding of the ``dict`` struct and
    of every ``dictEntry``). ``allocator=None`` is the release's usual build (Debian's jemalloc
    for 7.0) — or, for a :class:`Members` summary made without its lengths (which cannot be
    priced again), the build it was summarised for; ``KeyCost.allocator`` says which.
    ``sadd_batch`` is how many members each ``SADD`` sends (setlab's ``sadd_all`` sends 1,000):
    only Valkey's table depends on it, being sized for the first call's members. See the module
    docstring for what each family changes, :mod:`setlab.models.exactness` for how exact each
    figure is.
    """
    build = build_of(version, allocator)
    if allocator is None and isinstance(members, Members) and not members.lengths:
        build = build_of(version, members.allocator)
    m = _members(members, build.allocator)
    if m.count == 0:
        raise ValueError("a set needs at least one member (Redis deletes empty sets)")
    sadd_batch = check_int("sadd_batch", sadd_batch, 1)
    encoding = set_encoding(m, max_intset_entries=max_intset_entries, version=version)
    ledger = Ledger(key, build)
    ledger.add_object()
    if encoding == "intset":
        blob = INTSET_HEADER_BYTES + m.count * m.int_width
        # 6.2's objectComputeSize counts intsetBlobLen, later ones zmalloc_size
        ledger.add(
            "intset",
            blob if build.family == "6.2" else ledger.size_class(blob),
            ledger.size_class(blob),
        )
        return ledger.cost("set", encoding, m.count)
    if encoding == "listpack":
        lp = ledger.size_class(LISTPACK_HEADER_BYTES + m.listpack_bytes + LISTPACK_END_BYTES)
        ledger.add("listpack", lp, lp)
        return ledger.cost("set", encoding, m.count)
    if build.family == "valkey-8.1":
        return _valkey_hashtable_set(ledger, m, sadd_batch)
    return _dict_set(ledger, m)


def _dict_set(ledger: Ledger, m: Members) -> KeyCost:
    """A hashtable set in Redis's ``dict`` (6.2 to 8.2), once any rehash has finished."""
    buckets = dict_buckets(m.count)
    struct = DICT_STRUCT_BYTES[ledger.family]
    ledger.add("dict struct", struct, ledger.size_class(struct))
    ledger.add("bucket array", POINTER_BYTES * buckets, POINTER_BYTES * buckets)
    if ledger.family in LISTPACK_SET_FAMILIES:
        chained = m.count - expected_occupied_buckets(m.count, buckets)
        entry = ledger.size_class(DICT_ENTRY_NO_VALUE_BYTES)
        # MEMORY USAGE still adds sizeof(dictEntry) for every member (object.c)
        ledger.add(
            "dictEntry (chained members only)", m.count * DICT_ENTRY_BYTES, round(chained * entry)
        )
    else:
        per_entry = ledger.size_class(DICT_ENTRY_BYTES)
        ledger.add("dictEntry per member", m.count * DICT_ENTRY_BYTES, m.count * per_entry)
    ledger.add("member strings (sds)", m.sds_bytes, m.sds_bytes)
    # object.c: asize is a size_t, the per-member average a double
    elesize = m.count * DICT_ENTRY_BYTES + m.sds_bytes
    usage = _averaged(ledger, struct + POINTER_BYTES * buckets, elesize, m.count)
    return ledger.cost("set", "hashtable", m.count, usage)


def _valkey_hashtable_set(ledger: Ledger, m: Members, sadd_batch: int) -> KeyCost:
    """A hashtable set in Valkey 8.1's table, once any rehash has finished: the struct, 64-byte
    top-level buckets, the expected child buckets, and each member's sds (the entry itself)."""
    vh = valkey_hashtable
    buckets = vh.buckets_after_inserts(m.count, min(m.count, sadd_batch))
    children = vh.expected_child_buckets(m.count, buckets)
    ledger.add(
        "hashtable struct", vh.HASHTABLE_STRUCT_BYTES, ledger.size_class(vh.HASHTABLE_STRUCT_BYTES)
    )
    table = vh.BUCKET_BYTES * buckets
    ledger.add("bucket array", table, ledger.size_class(table))
    ledger.add(
        "child buckets (expected)",
        round(vh.BUCKET_BYTES * children),
        round(ledger.size_class(vh.BUCKET_BYTES) * children),
    )
    ledger.add("member strings (sds)", m.sds_bytes, m.sds_bytes)
    table_usage = vh.HASHTABLE_STRUCT_BYTES + table + ledger.usage["child buckets (expected)"]
    return ledger.cost(
        "set", "hashtable", m.count, _averaged(ledger, table_usage, m.sds_bytes, m.count)
    )


def _averaged(ledger: Ledger, table: int, elesize: int, count: int) -> int:
    """``MEMORY USAGE`` of a hashtable set as ``objectComputeSize`` sums it: the object (the robj,
    or in Redis 8 the object holding the key's name) and ``table`` bytes of struct and buckets,
    plus the per-member average ``elesize / count`` (a double) times ``count``, truncated to an
    integer; then the key's own parts before Redis 8."""
    obj = ledger.usage.get("robj", ledger.usage.get("object + key name", 0))
    value = int(float(obj + table) + float(elesize) / count * count)
    return value + sum(v for k, v in ledger.usage.items() if k.startswith(("key name", "keyspace")))


def hash_cost(fields: Members, values: Members, key: str | bytes = "k") -> KeyCost:
    """What a hash built by ``HSET key f1 v1 f2 v2 …`` costs on Redis 7.0 (field ``i`` of
    ``fields`` holding value ``i`` of ``values``; both summaries, distinct fields).

    ``listpack`` while it has at most 512 fields and no field or value is longer than 64
    bytes (``hash-max-listpack-entries``/``-value``): one listpack of field and value entries,
    which ``MEMORY USAGE`` counts by its allocation (``zmalloc_size``). Past that a
    ``hashtable``, laid out as a set's (t_hash.c ``hashTypeSet`` keeps a copied sds field and
    an sds value in each ``dictEntry``), plus each value's sds; ``MEMORY USAGE`` adds the
    value's ``sdsZmallocSize`` to each entry (object.c ``objectComputeSize``, ``OBJ_HASH``).
    """
    if fields.count != values.count or fields.count == 0:
        raise ValueError(
            f"a hash needs as many values as fields, at least one; got {fields.count:,} fields "
            f"and {values.count:,} values"
        )
    if fields.allocator != values.allocator:
        raise ValueError("fields and values were summarised for different allocators")
    small = max(fields.max_length, values.max_length) <= HASH_MAX_LISTPACK_VALUE
    if fields.count <= HASH_MAX_LISTPACK_ENTRIES and small:
        ledger = Ledger(key, Build(DEFAULT_RELEASE, fields.allocator))
        ledger.add_object()
        lp = LISTPACK_HEADER_BYTES + fields.listpack_bytes + values.listpack_bytes
        lp += LISTPACK_END_BYTES
        ledger.add("listpack", ledger.size_class(lp), ledger.size_class(lp))
        return ledger.cost("hash", "listpack", fields.count)
    cost = set_cost(fields, key, max_intset_entries=0, allocator=fields.allocator)
    parts = {k.replace("member strings", "field strings"): v for k, v in cost.parts.items()}
    allocated = {
        k.replace("member strings", "field strings"): v for k, v in cost.allocated_parts.items()
    }
    parts["value strings (sds)"] = allocated["value strings (sds)"] = values.sds_bytes
    parts.pop("(rounding of the per-member average)", None)
    # the per-entry average of object.c, now over field, value and entry
    buckets = dict_buckets(fields.count)
    base = ROBJ_BYTES + DICT_BYTES + POINTER_BYTES * buckets
    elesize = fields.count * DICT_ENTRY_BYTES + fields.sds_bytes + values.sds_bytes
    usage = int(float(base) + float(elesize) / fields.count * fields.count)
    usage += parts["key name (sds)"] + parts["keyspace dictEntry"]
    if usage != sum(parts.values()):
        parts["(rounding of the per-member average)"] = usage - sum(parts.values())
    return KeyCost(
        "hash",
        "hashtable",
        fields.count,
        usage,
        sum(allocated.values()),
        parts,
        allocated,
        DEFAULT_RELEASE,
        fields.allocator,
    )


def string_encoding(
    value: str | bytes | int, key: str | bytes = "k", version: Version = DEFAULT_RELEASE
) -> str:
    """``OBJECT ENCODING`` after ``SET key value``: ``int``, ``embstr`` or ``raw``.

    Before Redis 8 a non-integer value of at most 44 bytes is ``embstr``; in Redis 8 and Valkey
    it is when key and value fit the key's object (:func:`setlab.models.key_layout.embeds_value`).
    """
    raw = as_bytes(value)
    if len(raw) <= 20 and redis_integer(raw) is not None:
        return "int"
    key_length = len(as_bytes(key))
    return "embstr" if embeds_value(key_length, len(raw), Build(version).family) else "raw"


def string_cost(
    value: str | bytes | int,
    key: str | bytes = "k",
    allocator: str | None = None,
    *,
    version: Version = DEFAULT_RELEASE,
) -> KeyCost:
    """What ``SET key value`` costs on ``version`` with ``allocator`` (``None``: its usual one).

    ``int``: the robj's pointer holds the number (before Redis 8 the values 0–9999 point to a
    shared robj, so the key allocates no value at all, although ``MEMORY USAGE`` still counts 16
    bytes). ``embstr``: robj + sdshdr8 + data + NUL in one allocation (in Redis 8 and Valkey
    with the key's name too). ``raw``: the robj (or the key's object) + an exact-size sds
    string. Redis 6.2's ``MEMORY USAGE`` counts an embstr as ``16 + length + 2`` bytes.
    """
    build = build_of(version, allocator)
    raw = as_bytes(value)
    encoding = string_encoding(raw, key, version)
    ledger = Ledger(key, build)
    if encoding == "int":
        ledger.add_object(shared=0 <= int(raw) < OBJ_SHARED_INTEGERS)
    elif encoding == "embstr":
        embedded = SDSHDR8_BYTES + len(raw) + 1
        usage = ROBJ_BYTES + len(raw) + 2 if build.family == "6.2" else None
        ledger.add_object(embedded, usage=usage)
    else:
        ledger.add_object()
        value_sds = sds_new_alloc(len(raw), build.allocator)
        ledger.add("value (sds)", value_sds, value_sds)
    return ledger.cost("string", encoding, len(raw))


def bitmap_cost(
    offsets: Iterable[int],
    key: str | bytes = "k",
    allocator: str | None = None,
    *,
    version: Version = DEFAULT_RELEASE,
) -> KeyCost:
    """A bitmap built by ``SETBIT key o 1`` for each offset in order (a raw string)."""
    build = build_of(version, allocator)
    offsets = np.asarray(list(offsets), dtype=np.int64)
    if offsets.size == 0:
        raise ValueError("offsets must contain at least one offset")
    # only a write past the current end can grow the string: keep the new running maxima
    running = np.maximum.accumulate(offsets)
    growing = offsets[np.r_[True, running[1:] > running[:-1]]]
    value = bitmap.bitmap_growth(growing.tolist(), build.allocator)[-1].allocation
    ledger = Ledger(key, build)
    ledger.add_object()
    ledger.add("bitmap (sds)", value, value)
    return ledger.cost("string", "raw", int(offsets.max()) // 8 + 1)


# -- the members the book's experiments use -----------------------------------------------------


def device_ids(count: int, start: int = 0) -> list[str]:
    """``count`` distinct 16-hex-digit device IDs (seed 003's members), reproducibly.

    ID ``i`` is ``i`` times an odd 64-bit constant modulo 2^64 — a bijection, so no two collide
    — printed as 16 lowercase hex digits.
    """
    count = check_int("count", count, 0)
    start = check_int("start", start, 0)
    return [f"{(i * 0x9E3779B97F4A7C15) & MASK64:016x}" for i in range(start, start + count)]


GROWTH_KINDS = ("integer ids", "16-hex device ids", "UUIDs")


def growth_members(kind: str, start: int, stop: int) -> list[str | int]:
    """Members ``start … stop-1`` of one of :data:`GROWTH_KINDS` (the same every run)."""
    if kind == "integer ids":
        return list(range(start, stop))
    if kind == "16-hex device ids":
        return device_ids(stop - start, start)
    if kind == "UUIDs":
        return [
            str(uuid.UUID(int=int(h, 16) << 64 | int(h, 16), version=4))
            for h in device_ids(stop - start, start)
        ]
    raise ValueError(f"kind must be one of {', '.join(GROWTH_KINDS)}; got {kind!r}")


def growth_summary(kind: str, count: int) -> Members:
    """:class:`Members` of the first ``count`` members of ``kind``, without building them.

    Exact for Redis 7.0; the 7.2 listpack bytes treat every hex ID as a string, although the
    rare one made only of decimal digits would be stored as an integer.
    """
    if kind == "integer ids":
        return Members.decimal_range(0, count)
    lengths = {"16-hex device ids": 16, "UUIDs": 36}
    if kind not in lengths:
        raise ValueError(f"kind must be one of {', '.join(GROWTH_KINDS)}; got {kind!r}")
    return Members.fixed_length(count, lengths[kind])


# -- where a member's bytes go -------------------------------------------------------------------


def per_member_parts(cost: KeyCost) -> dict[str, tuple[float, float]]:
    """A hashtable set's bytes per member, by part: (as ``MEMORY USAGE`` counts, as allocated).

    The entry part is the ``dictEntry`` (every member before 7.2, the chained ones after) or, in
    Valkey, the child buckets; the robj is shared by all members (0 per member).
    """
    if cost.encoding != "hashtable" or cost.kind != "set":
        raise ValueError(f"needs a hashtable set; got {cost.kind} {cost.encoding}")
    n = cost.size
    entry = next(
        k
        for k in (
            "dictEntry per member",
            "dictEntry (chained members only)",
            "child buckets (expected)",
        )
        if k in cost.parts
    )
    return {
        "member string (sds)": (
            cost.parts["member strings (sds)"] / n,
            cost.allocated_parts["member strings (sds)"] / n,
        ),
        "robj": (0.0, 0.0),
        "dictEntry": (cost.parts[entry] / n, cost.allocated_parts[entry] / n),
        "bucket array": (cost.parts["bucket array"] / n, cost.allocated_parts["bucket array"] / n),
    }
