"""What a Redis key really costs, by type and encoding: SET, string and bitmap.

The model follows Redis 7.0 (``src/object.c``, ``t_set.c``, ``intset.c``, ``dict.c``) on
jemalloc 5.3 — Debian's ``redis-server`` 7.0.15 by default; pass ``allocator="bundled"``
for Redis's own build, whose jemalloc has 24-, 40- and 56-byte classes
(:mod:`setlab.models.allocator`) — and reuses the string model of :mod:`setlab.models.bitmap`.
``tests/lab/runs/test_live_memory.py`` checks it against the live server's ``MEMORY USAGE key
SAMPLES 0``, ``OBJECT ENCODING`` and ``GET``:

* **SET as intset** (every member an integer, at most ``set-max-intset-entries``, default 512):
  a sorted array of 2-, 4- or 8-byte integers after an 8-byte header, in one allocation.
* **SET as hashtable**: the ``dict`` struct (56 B), a bucket array of 8-byte pointers whose length
  is a power of two (at least 4, at least the member count once any rehash has finished), and per
  member a ``dictEntry`` (24 B, which jemalloc serves from its 32-byte class) and the member's own
  sds string. ``MEMORY USAGE`` counts ``sizeof`` for the struct and the entries, not the allocator's
  rounding, so the bytes the allocator really hands out (``used_memory``) are more: see
  :attr:`KeyCost.allocated`. While a table is being rehashed incrementally the old bucket array is
  counted too; :func:`setlab.lab.runs.memory.settle_set` finishes the rehash so the model is exact.
* **SET as listpack** exists only from Redis 7.2 (non-integer sets of at most 128 members of at
  most 64 bytes); 7.2 also stops allocating a ``dictEntry`` for a member alone in its bucket. Both
  are modelled from the 7.2 source and marked as such (``version="7.2"``); no 7.2 server was
  measured.
* **Strings**: ``int`` (a value that parses as a 64-bit integer; 0–9999 share one object),
  ``embstr`` (at most 44 bytes, robj and sds in one allocation) and ``raw`` (an sds string).

A HyperLogLog is a string too; its encodings and memory are modelled, bit for bit, in
:mod:`setlab.models.hyperloglog` on the :class:`KeyCost` and :class:`Ledger` defined here.

``MEMORY USAGE`` = value + ``robj`` (16 B) + the key's sds + ``dictEntry`` (24 B); it leaves out
the keyspace bucket pointer, the allocator's rounding of ``dictEntry``/``dict``, and any
fragmentation, which ``INFO memory`` shows as ``used_memory`` and ``used_memory_rss``.
"""

from __future__ import annotations

import itertools
import math
import numbers
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from setlab.core.hashing import MASK64
from setlab.core.validate import check_int
from setlab.models import bitmap
from setlab.models.allocator import DEFAULT_ALLOCATOR, check_allocator
from setlab.models.bitmap import (
    DICT_ENTRY_BYTES,
    ROBJ_BYTES,
    jemalloc_size_class,
    key_overhead_bytes,
    sds_new_alloc,
)

Version = Literal["7.0", "7.2"]
VERSIONS: tuple[str, ...] = ("7.0", "7.2")

POINTER_BYTES = 8
DICT_BYTES = 56  #: sizeof(dict) in Redis 7.0 (dict.h), what MEMORY USAGE counts
DICT_MIN_BUCKETS = 4  #: DICT_HT_INITIAL_SIZE
DICT_ENTRY_NO_VALUE_BYTES = 16  #: Redis 7.2 dictEntryNoValue {key, next}
INTSET_HEADER_BYTES = 8  #: intset {uint32 encoding; uint32 length}
INTSET_MAX_ENTRIES_CAP = 1 << 30  #: t_set.c caps set-max-intset-entries here
SET_MAX_INTSET_ENTRIES = 512  #: default set-max-intset-entries
SET_MAX_LISTPACK_ENTRIES = 128  #: default set-max-listpack-entries (7.2+)
SET_MAX_LISTPACK_VALUE = 64  #: default set-max-listpack-value (7.2+), bytes
HASH_MAX_LISTPACK_ENTRIES = 512  #: default hash-max-listpack-entries (7.0's redis.conf, config.c)
HASH_MAX_LISTPACK_VALUE = 64  #: default hash-max-listpack-value (7.0), bytes
LISTPACK_HEADER_BYTES = 6  #: total bytes (4) + element count (2)
LISTPACK_END_BYTES = 1
EMBSTR_SIZE_LIMIT = 44  #: OBJ_ENCODING_EMBSTR_SIZE_LIMIT
SDSHDR8_BYTES = 3
OBJ_SHARED_INTEGERS = 10_000  #: values 0..9999 share one preallocated robj
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_LONG_STR_SIZE = 21  #: string2ll refuses strings this long or longer


def _check_version(version: str) -> str:
    if version not in VERSIONS:
        raise ValueError(f"version must be one of {', '.join(VERSIONS)}; got {version!r}")
    return version


def as_bytes(value: str | bytes | int) -> bytes:
    """A member or value as Redis receives it: ``str`` UTF-8 encoded, ``int`` in decimal."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value)).encode()
    raise ValueError(f"a member must be str, bytes or int; got {value!r} ({type(value).__name__})")


def redis_integer(value: str | bytes | int) -> int | None:
    """The integer Redis would store for ``value`` (``string2ll`` in util.c), else ``None``.

    Strict: optional ``-``, no leading zeros, no ``+``, no spaces, fits in a signed 64-bit
    integer, fewer than 21 characters. ``"007"``, ``"-0"`` and ``"1.0"`` are strings.
    """
    raw = as_bytes(value)
    if not raw or len(raw) >= _LONG_STR_SIZE:
        return None
    if raw == b"0":
        return 0
    digits = raw[1:] if raw[:1] == b"-" else raw
    if not digits or not digits.isdigit() or digits[:1] == b"0":
        return None
    number = int(raw)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def intset_width(value: int) -> int:
    """Bytes per element an intset needs for ``value``: 2, 4 or 8 (``_intsetValueEncoding``)."""
    if -(2**15) <= value < 2**15:
        return 2
    if -(2**31) <= value < 2**31:
        return 4
    return 8


def _listpack_entry_bytes(member: bytes) -> int:
    """Bytes one set member takes in a listpack (encoding + data + back-length), Redis 7.2."""
    number = redis_integer(member)
    if number is not None:
        if 0 <= number <= 127:
            size = 1
        elif -4096 <= number <= 4095:
            size = 2
        elif -(2**15) <= number < 2**15:
            size = 3
        elif -(2**23) <= number < 2**23:
            size = 4
        elif -(2**31) <= number < 2**31:
            size = 5
        else:
            size = 9
    else:
        length = len(member)
        size = length + (1 if length < 64 else 2 if length < 4096 else 5)
    return size + (1 if size < 128 else 2 if size < 16384 else 3)


# -- set members, summarised ---------------------------------------------------------------------


@dataclass(frozen=True)
class Members:
    """What the memory model needs to know about a set's distinct members (not the members).

    Build it from real members with :meth:`of`, or for sets too big to hold with
    :meth:`fixed_length` (e.g. UUIDs, hex device IDs) or :meth:`decimal_range` (integer IDs).
    """

    count: int  #: distinct members
    sds_bytes: int  #: sum of the members' sds allocations as hashtable keys (bytes)
    integers: bool  #: every member is an integer Redis would keep in an intset
    int_width: int  #: intset element width (2, 4 or 8) if ``integers``, else 0
    max_length: int  #: the longest member, bytes
    listpack_bytes: int  #: sum of the members' listpack entries (Redis 7.2), bytes
    allocator: str = DEFAULT_ALLOCATOR  #: the jemalloc build ``sds_bytes`` was priced for

    @classmethod
    def of(
        cls, members: Iterable[str | bytes | int], allocator: str = DEFAULT_ALLOCATOR
    ) -> Members:
        """Summarise real members (duplicates count once, as in ``SADD``)."""
        distinct = {as_bytes(m) for m in members}
        sds_cache: dict[int, int] = {}
        sds_total = listpack = longest = 0
        width = 2
        integers = True
        for member in distinct:
            length = len(member)
            if length not in sds_cache:
                sds_cache[length] = sds_new_alloc(length, allocator)
            sds_total += sds_cache[length]
            listpack += _listpack_entry_bytes(member)
            longest = max(longest, length)
            number = redis_integer(member) if integers else None
            if number is None:
                integers = False
            else:
                width = max(width, intset_width(number))
        width = width if integers and distinct else 0
        return cls(len(distinct), sds_total, integers, width, longest, listpack, allocator)

    @classmethod
    def fixed_length(cls, count: int, length: int, allocator: str = DEFAULT_ALLOCATOR) -> Members:
        """``count`` distinct non-integer members of ``length`` bytes each (UUIDs: 36, hex: 16)."""
        count = check_int("count", count, 0)
        length = check_int("length", length, 1, 2**32)
        entry = _listpack_entry_bytes(b"x" * length)
        sds = count * sds_new_alloc(length, allocator)
        return cls(count, sds, False, 0, length, count * entry, allocator)

    @classmethod
    def decimal_range(cls, start: int, stop: int, allocator: str = DEFAULT_ALLOCATOR) -> Members:
        """The integers ``start .. stop-1`` sent as decimal strings (``SADD k 0 1 2 …``)."""
        start = check_int("start", start, _INT64_MIN, _INT64_MAX)
        stop = check_int("stop", stop, start, _INT64_MAX + 1)
        if stop == start:
            return cls(0, 0, True, 0, 0, 0, allocator)
        sds_total = listpack = 0
        for low, high in _same_shape_ranges(start, stop):
            sample = str(low).encode()
            sds_total += (high - low) * sds_new_alloc(len(sample), allocator)
            listpack += (high - low) * _listpack_entry_bytes(sample)
        width = max(intset_width(start), intset_width(stop - 1))
        longest = max(len(str(start)), len(str(stop - 1)))
        return cls(stop - start, sds_total, True, width, longest, listpack, allocator)


def _same_shape_ranges(start: int, stop: int) -> list[tuple[int, int]]:
    """Split ``[start, stop)`` where the decimal length or the listpack encoding changes."""
    cuts = {start, stop}
    for digits in range(1, 21):
        cuts.update({10**digits, -(10 ** (digits - 1)) + 1})
    cuts.update({128, -4096, 4096, -(2**15), 2**15, -(2**23), 2**23, -(2**31), 2**31})
    points = sorted(c for c in cuts if start <= c <= stop)
    return [(a, b) for a, b in itertools.pairwise(points) if b > a]


def _members(
    members: Members | Iterable[str | bytes | int], allocator: str = DEFAULT_ALLOCATOR
) -> Members:
    """``members`` summarised for ``allocator``; a summary priced for another build is refused."""
    check_allocator(allocator)
    if not isinstance(members, Members):
        return Members.of(members, allocator)
    if members.allocator != allocator:
        raise ValueError(
            f"members were summarised for allocator {members.allocator!r}, not {allocator!r}"
        )
    return members


# -- what a key costs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyCost:
    """What one Redis key costs, in bytes, split into named parts two ways.

    ``parts`` add up to ``memory_usage`` (what ``MEMORY USAGE key SAMPLES 0`` reports, which
    counts ``sizeof`` of Redis's structs); ``allocated_parts`` add up to ``allocated`` (what the
    allocator really hands out, i.e. how much ``used_memory`` grows).
    """

    kind: str  #: "set", "string" or "hyperloglog"
    encoding: str  #: what ``OBJECT ENCODING`` says (HLL: "sparse"/"dense" of a raw string)
    size: int  #: members of a set, bytes of a string
    memory_usage: int | None  #: ``MEMORY USAGE key SAMPLES 0`` (None: not modelled for 7.2)
    allocated: int  #: bytes the allocator hands out for key and value
    parts: dict[str, int] = field(default_factory=dict)
    allocated_parts: dict[str, int] = field(default_factory=dict)
    version: str = "7.0"  #: the Redis version modelled; "7.2" is modelled, never measured

    @property
    def allocated_per_member(self) -> float:
        """``allocated / size`` (bytes per member, or per byte of string)."""
        return self.allocated / self.size if self.size else math.inf

    @property
    def usage_per_member(self) -> float:
        """``memory_usage / size``."""
        if self.memory_usage is None or not self.size:
            return math.nan
        return self.memory_usage / self.size


class Ledger:
    """Builds a :class:`KeyCost`: each part as ``MEMORY USAGE`` counts it and as allocated.

    Starts with the key's own parts (its sds name and the keyspace ``dictEntry``); add the
    value's parts with :meth:`add`, then read the total with :meth:`cost`.
    """

    def __init__(self, key: str | bytes, allocator: str = DEFAULT_ALLOCATOR) -> None:
        self.allocator = check_allocator(allocator)
        key_sds = sds_new_alloc(len(as_bytes(key)), allocator)
        self.usage: dict[str, int] = {}
        self.alloc: dict[str, int] = {}
        self.add("key name (sds)", key_sds, key_sds)
        self.add("keyspace dictEntry", DICT_ENTRY_BYTES, self.size_class(DICT_ENTRY_BYTES))

    def size_class(self, size: int) -> int:
        """The allocator's class for ``size`` bytes (this ledger's jemalloc build)."""
        return jemalloc_size_class(size, self.allocator)

    def add(self, name: str, usage: int | None, allocated: int) -> None:
        """Add a part: bytes ``MEMORY USAGE`` counts (``None``: not modelled) and allocated."""
        if usage is not None:
            self.usage[name] = usage
        self.alloc[name] = allocated

    def cost(
        self, kind: str, encoding: str, size: int, version: str = "7.0", usage: int | None = None
    ) -> KeyCost:
        """The key's :class:`KeyCost`; ``usage`` overrides the sum when Redis rounds it."""
        if version != "7.0":
            return KeyCost(
                kind, encoding, size, None, sum(self.alloc.values()), {}, self.alloc, version
            )
        total = sum(self.usage.values()) if usage is None else usage
        if total != sum(self.usage.values()):
            self.usage["(rounding of the per-member average)"] = total - sum(self.usage.values())
        return KeyCost(
            kind, encoding, size, total, sum(self.alloc.values()), self.usage, self.alloc, version
        )


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
    version: Version = "7.0",
) -> str:
    """``OBJECT ENCODING`` of a set built by ``SADD`` of ``members`` (no ``SREM``).

    7.0: ``intset`` while every member is an integer and there are at most
    ``max_intset_entries`` of them, else ``hashtable``. 7.2 adds ``listpack`` for other sets of at
    most 128 members of at most 64 bytes. Conversions only go one way, so the final encoding does
    not depend on the order of the ``SADD`` calls.
    """
    m = members if isinstance(members, Members) else Members.of(members)
    limit = min(check_int("max_intset_entries", max_intset_entries, 0), INTSET_MAX_ENTRIES_CAP)
    _check_version(version)
    if m.integers and m.count <= limit:
        return "intset"
    if (
        version == "7.2"
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
    version: Version = "7.0",
    allocator: str = DEFAULT_ALLOCATOR,
) -> KeyCost:
    """What a set built by ``SADD key m1 m2 …`` costs on Redis 7.0 (exact) or 7.2 (modelled).

    ``memory_usage`` is what ``MEMORY USAGE key SAMPLES 0`` reports on 7.0.15 with the given
    jemalloc build (``MEMORY USAGE`` counts the allocator's size of every sds string) once
    any incremental rehash has finished (:func:`settle_set`); ``allocated`` adds what it leaves
    out (jemalloc's rounding of the ``dict`` struct and of every ``dictEntry``). For 7.2 only
    ``allocated`` is modelled, with the expected number of chained entries for a uniform hash.
    """
    m = _members(members, allocator)
    if m.count == 0:
        raise ValueError("a set needs at least one member (Redis deletes empty sets)")
    encoding = set_encoding(m, max_intset_entries=max_intset_entries, version=version)
    ledger = Ledger(key, allocator)
    ledger.add("robj", ROBJ_BYTES, ROBJ_BYTES)
    if encoding == "intset":
        blob = ledger.size_class(INTSET_HEADER_BYTES + m.count * m.int_width)
        ledger.add("intset", blob, blob)
        return ledger.cost("set", encoding, m.count, version)
    if encoding == "listpack":
        lp = LISTPACK_HEADER_BYTES + m.listpack_bytes + LISTPACK_END_BYTES
        ledger.add("listpack", None, ledger.size_class(lp))
        return ledger.cost("set", encoding, m.count, version)
    buckets = dict_buckets(m.count)
    ledger.add("dict struct", DICT_BYTES, ledger.size_class(DICT_BYTES))
    ledger.add("bucket array", POINTER_BYTES * buckets, POINTER_BYTES * buckets)
    if version == "7.0":
        per_entry = ledger.size_class(DICT_ENTRY_BYTES)
        ledger.add("dictEntry per member", m.count * DICT_ENTRY_BYTES, m.count * per_entry)
    else:
        chained = m.count - expected_occupied_buckets(m.count, buckets)
        ledger.add(
            "dictEntry (chained members only)", None, round(chained * DICT_ENTRY_NO_VALUE_BYTES)
        )
    ledger.add("member strings (sds)", m.sds_bytes, m.sds_bytes)
    # object.c: asize is a size_t, the per-member average a double
    base = ROBJ_BYTES + DICT_BYTES + POINTER_BYTES * buckets
    elesize = m.count * DICT_ENTRY_BYTES + m.sds_bytes
    value = int(float(base) + float(elesize) / m.count * m.count)
    usage = value + sum(ledger.usage[k] for k in ("key name (sds)", "keyspace dictEntry"))
    return ledger.cost("set", encoding, m.count, version, usage)


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
        ledger = Ledger(key, fields.allocator)
        ledger.add("robj", ROBJ_BYTES, ROBJ_BYTES)
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
        "hash", "hashtable", fields.count, usage, sum(allocated.values()), parts, allocated
    )


def string_encoding(value: str | bytes | int) -> str:
    """``OBJECT ENCODING`` after ``SET key value``: ``int``, ``embstr`` or ``raw``."""
    raw = as_bytes(value)
    if len(raw) <= 20 and redis_integer(raw) is not None:
        return "int"
    return "embstr" if len(raw) <= EMBSTR_SIZE_LIMIT else "raw"


def string_cost(
    value: str | bytes | int, key: str | bytes = "k", allocator: str = DEFAULT_ALLOCATOR
) -> KeyCost:
    """What ``SET key value`` costs on Redis 7.0 / jemalloc 5.3 (exact ``MEMORY USAGE``).

    ``int``: the robj's pointer holds the number (values 0–9999 point to a shared robj, so the key
    allocates no value at all, although ``MEMORY USAGE`` still counts 16 bytes). ``embstr``: robj
    + sdshdr8 + data + NUL in one allocation. ``raw``: robj + an exact-size sds string.
    """
    raw = as_bytes(value)
    encoding = string_encoding(raw)
    ledger = Ledger(key, allocator)
    if encoding == "int":
        shared = 0 <= int(raw) < OBJ_SHARED_INTEGERS
        ledger.add(
            "robj (shared integer)" if shared else "robj", ROBJ_BYTES, 0 if shared else ROBJ_BYTES
        )
    elif encoding == "embstr":
        embedded = ledger.size_class(ROBJ_BYTES + SDSHDR8_BYTES + len(raw) + 1)
        ledger.add("robj + sds (embedded)", embedded, embedded)
    else:
        ledger.add("robj", ROBJ_BYTES, ROBJ_BYTES)
        value = sds_new_alloc(len(raw), allocator)
        ledger.add("value (sds)", value, value)
    return ledger.cost("string", encoding, len(raw))


def bitmap_cost(
    offsets: Iterable[int], key: str | bytes = "k", allocator: str = DEFAULT_ALLOCATOR
) -> KeyCost:
    """A bitmap built by ``SETBIT key o 1`` for each offset in order (a raw string)."""
    offsets = np.asarray(list(offsets), dtype=np.int64)
    if offsets.size == 0:
        raise ValueError("offsets must contain at least one offset")
    # only a write past the current end can grow the string: keep the new running maxima
    running = np.maximum.accumulate(offsets)
    growing = offsets[np.r_[True, running[1:] > running[:-1]]]
    value = bitmap.bitmap_memory_usage(growing.tolist(), key, allocator) - key_overhead_bytes(
        key, allocator
    )
    ledger = Ledger(key, allocator)
    ledger.add("robj", ROBJ_BYTES, ROBJ_BYTES)
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
    """A hashtable set's bytes per member, by part: (as ``MEMORY USAGE`` counts, as allocated)."""
    if cost.encoding != "hashtable" or cost.memory_usage is None:
        raise ValueError(f"needs a Redis 7.0 hashtable set; got {cost.encoding} {cost.version}")
    n = cost.size
    return {
        "member string (sds)": (
            cost.parts["member strings (sds)"] / n,
            cost.allocated_parts["member strings (sds)"] / n,
        ),
        "robj": (0.0, 0.0),
        "dictEntry": (
            cost.parts["dictEntry per member"] / n,
            cost.allocated_parts["dictEntry per member"] / n,
        ),
        "bucket array": (cost.parts["bucket array"] / n, cost.allocated_parts["bucket array"] / n),
    }
