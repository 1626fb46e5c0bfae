"""What a key itself costs in each release family, and the ledger that prices a whole key.

Before Redis 8 a key is three allocations besides its value: the key's name as an sds string,
the ``robj`` header of the value (16 B) and the keyspace's ``dictEntry`` (24 B, which
``MEMORY USAGE`` adds as ``sizeof(dictEntry)`` while the allocator hands out its size class).
Redis 8.0 (``kvobj``, PR #13806) and Valkey 8.0 (``objectSetKeyAndExpire``) put the key's name
inside the value's object, after the 16-byte header: one allocation of 16 B + 1 byte giving
the sds header's size + the key as an sds string (+ 8 B kept for an expire time on keys of 128
bytes or more). A short string value goes in the same allocation (``embstr``). The keyspace
holds a pointer to that object and no ``dictEntry``: Valkey's table has none at all; Redis 8's
allocates a 16-byte entry only for a key that shares its bucket with another (not counted
here: a key alone in its bucket costs nothing more). ``MEMORY USAGE`` counts the object's
allocation (Redis 8.2, PR #14288; Valkey 8.1) and no keyspace entry, hence 24 B less than
before for most keys.

Measured on Redis 6.2.5, 7.0.15, 8.2.3 and Valkey 8.1.8 (``MEMORY USAGE`` of keys of 1 to 200
bytes, and ``used_memory`` freed by ``DEL``): :class:`Ledger` starts every
:class:`KeyCost` with these parts, for the family and allocator of a
:class:`~setlab.models.builds.Build`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from setlab.models.allocator import DEFAULT_ALLOCATOR, size_class
from setlab.models.builds import Build
from setlab.models.sds import sds_header_bytes, sds_new_alloc

ROBJ_BYTES = 16  #: sizeof(robj) on 64-bit, every release
DICT_ENTRY_BYTES = 24  #: sizeof(dictEntry) {key, value, next}: keyspace entries before Redis 8
#: the families whose objects hold their key's name (Redis 8 ``kvobj``, Valkey 8)
EMBEDDED_KEY_FAMILIES = frozenset({"8.2", "valkey-8.1"})
#: a key this long or longer gets 8 bytes for an expire time in its object (Valkey's
#: KEY_SIZE_TO_INCLUDE_EXPIRE_THRESHOLD; Redis 8.2 measured alike: none at 107 bytes, 8 at 132)
LONG_KEY_BYTES = 128
EXPIRE_FIELD_BYTES = 8
#: a string value is embedded in its key's object when the whole object stays within 64 bytes
#: (``createStringObjectWithKeyAndExpire``), as the size check counts it: see :func:`embeds_value`
EMBEDDED_OBJECT_LIMIT = 64
EMBSTR_SIZE_LIMIT = 44  #: OBJ_ENCODING_EMBSTR_SIZE_LIMIT, before Redis 8: a 64-byte jemalloc class
SDSHDR8_BYTES = 3


def embeds_key(family: str) -> bool:
    """Whether a key's name lives inside its value's object in ``family``."""
    return family in EMBEDDED_KEY_FAMILIES


def embedded_key_bytes(key_length: int) -> int:
    """Bytes a key's name takes inside its object: 1 byte giving the sds header's size, the
    header (1 B below 32 bytes of name, else 3 or more), the name and its NUL."""
    return 1 + sds_header_bytes(key_length) + key_length + 1


def embeds_value(key_length: int, value_length: int, family: str) -> bool:
    """Whether ``SET key value`` keeps a non-integer value in one allocation with its object.

    Before Redis 8: values of at most 44 bytes (``embstr``, robj + sdshdr8 + value + NUL in a
    64-byte class). Redis 8.2 and Valkey 8.1: when 16 B of header, the key and the value as an
    sdshdr8 string fit in 64 bytes as the size check counts them — which counts any key as if
    its header were 1 byte, so the rule is *key + value ≤ 41 bytes* for keys of every length
    (measured: a 40-byte key keeps a 1-byte value, a 20-byte key a 21-byte one).
    """
    if not embeds_key(family):
        return value_length <= EMBSTR_SIZE_LIMIT
    counted = ROBJ_BYTES + (key_length + 3) + (SDSHDR8_BYTES + value_length + 1)
    return counted <= EMBEDDED_OBJECT_LIMIT


def object_bytes(key_length: int, embedded: int = 0) -> int:
    """The request for a Redis 8 / Valkey object holding a ``key_length``-byte key name and
    ``embedded`` bytes of value (an sds string) after its 16-byte header."""
    expire = EXPIRE_FIELD_BYTES if key_length >= LONG_KEY_BYTES else 0
    return ROBJ_BYTES + expire + embedded_key_bytes(key_length) + embedded


@dataclass(frozen=True)
class KeyCost:
    """What one key costs, in bytes, split into named parts two ways.

    ``parts`` add up to ``memory_usage`` (what ``MEMORY USAGE key SAMPLES 0`` reports);
    ``allocated_parts`` add up to ``allocated`` (what the allocator really hands out, i.e. how
    much ``used_memory`` grows once any rehash is done). :mod:`setlab.models.exactness` says how
    exact each is for each release family.
    """

    kind: str  #: "set", "string", "hash" or "hyperloglog"
    encoding: str  #: what ``OBJECT ENCODING`` says (HLL: "sparse"/"dense" of a raw string)
    size: int  #: members of a set, bytes of a string
    memory_usage: int  #: ``MEMORY USAGE key SAMPLES 0``
    allocated: int  #: bytes the allocator hands out for key and value
    parts: dict[str, int] = field(default_factory=dict)
    allocated_parts: dict[str, int] = field(default_factory=dict)
    version: str = "7.0"  #: the release modelled (:data:`setlab.models.builds.RELEASES`)
    allocator: str = DEFAULT_ALLOCATOR  #: the allocator build modelled

    @property
    def allocated_per_member(self) -> float:
        """``allocated / size`` (bytes per member, or per byte of string)."""
        return self.allocated / self.size if self.size else math.inf

    @property
    def usage_per_member(self) -> float:
        """``memory_usage / size``."""
        return self.memory_usage / self.size if self.size else math.nan


class Ledger:
    """Builds a :class:`KeyCost` for one build: each part as ``MEMORY USAGE`` counts it and as
    allocated.

    Before Redis 8 it starts with the key's own parts (its sds name and the keyspace
    ``dictEntry``); add the value's object with :meth:`add_object` (which in Redis 8 and Valkey
    holds the key's name too), the rest of the value with :meth:`add`, then read the total with
    :meth:`cost`.
    """

    def __init__(self, key: str | bytes, build: Build) -> None:
        self.build = build
        self.family = build.family
        self.allocator = build.allocator
        self.key_length = len(key.encode() if isinstance(key, str) else bytes(key))
        self.usage: dict[str, int] = {}
        self.alloc: dict[str, int] = {}
        if not embeds_key(self.family):
            name = sds_new_alloc(self.key_length, self.allocator)
            self.add("key name (sds)", name, name)
            self.add("keyspace dictEntry", DICT_ENTRY_BYTES, self.size_class(DICT_ENTRY_BYTES))

    def size_class(self, size: int) -> int:
        """The allocator's size for a request of ``size`` bytes (this ledger's build)."""
        return size_class(size, self.allocator)

    def add(self, name: str, usage: int, allocated: int) -> None:
        """Add a part: bytes ``MEMORY USAGE`` counts, and bytes allocated."""
        self.usage[name] = usage
        self.alloc[name] = allocated

    def add_object(self, embedded: int = 0, *, shared: bool = False, usage: int | None = None):
        """Add the value's object: the 16-byte ``robj`` before Redis 8 (``shared``: one of the
        shared integers 0–9999, which ``MEMORY USAGE`` counts though nothing is allocated), or
        the object holding the key's name in Redis 8 / Valkey; ``embedded`` bytes of value go
        in the same allocation. ``usage`` overrides what ``MEMORY USAGE`` counts for it."""
        if embeds_key(self.family):
            block = self.size_class(object_bytes(self.key_length, embedded))
            name = "object + key name" + (" + value (embedded)" if embedded else "")
            self.add(name, block if usage is None else usage, block)
        elif embedded:
            block = self.size_class(ROBJ_BYTES + embedded)
            self.add("robj + sds (embedded)", block if usage is None else usage, block)
        else:
            name = "robj (shared integer)" if shared else "robj"
            self.add(name, ROBJ_BYTES, 0 if shared else ROBJ_BYTES)

    def cost(self, kind: str, encoding: str, size: int, usage: int | None = None) -> KeyCost:
        """The key's :class:`KeyCost`; ``usage`` overrides the sum when Redis rounds it."""
        total = sum(self.usage.values()) if usage is None else usage
        if total != sum(self.usage.values()):
            self.usage["(rounding of the per-member average)"] = total - sum(self.usage.values())
        return KeyCost(
            kind,
            encoding,
            size,
            total,
            sum(self.alloc.values()),
            self.usage,
            self.alloc,
            self.build.release,
            self.allocator,
        )
