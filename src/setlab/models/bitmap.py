"""Redis bitmaps: offsets, the bytes a SETBIT allocates, and what ``MEMORY USAGE`` reports.

A Redis bitmap is a plain string. ``SETBIT key offset 1`` needs byte ``offset // 8`` to exist, so a
first write at a large offset creates a string of ``offset // 8 + 1`` bytes and zeroes all of it:
O(offset) work on Redis's single thread. Later writes inside the string are O(1).

The memory model follows Redis 7.0 (``src/sds.c``, ``src/object.c``, ``src/bitops.c``) with jemalloc
5.3 (Debian's ``redis-server`` 7.0.15) and is checked against the live server's ``MEMORY USAGE`` in
``tests/lab/runs/test_live_setbit.py``:

* A first SETBIT creates the value with ``sdsnewlen(NULL, byte + 1)``: an exact-size sds string
  whose header type depends on its length (1, 3, 5, 9 or 17 bytes), plus a NUL terminator.
* A SETBIT beyond the end grows it with ``sdsMakeRoomFor`` (greedy: double below 1 MiB, else add
  1 MiB), so a bitmap that grew step by step can hold up to twice what it uses.
* jemalloc rounds every request up to a size class (four classes per power of two), and
  ``MEMORY USAGE`` reports the rounded size — which is why a string of 2^29 bytes costs 640 MiB.
  The classes below 64 bytes depend on the build (:mod:`setlab.models.allocator`): every
  function takes ``allocator=`` — ``"debian"`` (the default, what the reference runs measured)
  or ``"bundled"`` (Redis's own build, which has 24-, 40- and 56-byte classes).
* ``MEMORY USAGE`` = value allocation + the ``robj`` (16 B) + the key's sds allocation + the
  ``dictEntry`` (24 B). It leaves out the hash-table bucket pointer and any expire entry.

Other releases (``version=``, :mod:`setlab.models.builds`) lay the string out the same way —
``sdsnewlen`` then greedy ``sdsMakeRoomFor``, measured write by write on Redis 6.2.5, 8.2.3 and
Valkey 8.1.8 — and differ only in the key's own bytes (:mod:`setlab.models.key_layout`: Redis 8
and Valkey keep the key's name in the value's object, 24 B less per key) and in the allocator.
On glibc (``allocator="libc"``) a bitmap of 2^29 bytes is a mapped block of 512 MiB + 4 KiB,
not jemalloc's 640 MiB class.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

from setlab.core.validate import check_int
from setlab.models import key_layout
from setlab.models.allocator import DEFAULT_ALLOCATOR, size_class
from setlab.models.builds import DEFAULT_RELEASE, Build
from setlab.models.key_layout import DICT_ENTRY_BYTES, ROBJ_BYTES
from setlab.models.sds import SdsString, sds_header_bytes, sds_new_alloc

#: Redis's default ``proto-max-bulk-len``: the largest string, hence bitmap, in bytes (512 MiB).
DEFAULT_PROTO_MAX_BULK_LEN = 512 * 1024 * 1024
#: The largest bit offset SETBIT accepts by default: 2^32 - 1.
MAX_OFFSET = DEFAULT_PROTO_MAX_BULK_LEN * 8 - 1
#: The error Redis replies with for an offset outside that range (or not an integer).
OFFSET_ERROR = "bit offset is not an integer or out of range"


def max_offset(proto_max_bulk_len: int = DEFAULT_PROTO_MAX_BULK_LEN) -> int:
    """The largest bit offset SETBIT accepts: ``8 * proto-max-bulk-len - 1``.

    ``proto-max-bulk-len`` (bytes, default 512 MiB) is the config that moves the limit; Redis
    checks ``(offset >> 3) >= proto_max_bulk_len`` in ``getBitOffsetFromArgument``.
    """
    limit = check_int("proto_max_bulk_len", proto_max_bulk_len, 1)
    return limit * 8 - 1


def check_offset(offset: object, proto_max_bulk_len: int = DEFAULT_PROTO_MAX_BULK_LEN) -> int:
    """``offset`` as an int if Redis would accept it, else a ``ValueError`` that says why."""
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise ValueError(
            f"offset must be an integer bit position, got {offset!r} ({type(offset).__name__})"
        )
    offset = int(offset)
    if offset < 0:
        raise ValueError(f"offset must be >= 0; got {offset:,}")
    limit = max_offset(proto_max_bulk_len)
    if offset > limit:
        raise ValueError(
            f"offset {offset:,} is beyond the largest bit offset {limit:,} "
            f"(8 × proto-max-bulk-len − 1); Redis would reply 'ERR {OFFSET_ERROR}'"
        )
    return offset


def bytes_for_offset(offset: int) -> int:
    """Bytes the string must have for bit ``offset`` to exist: ``offset // 8 + 1``."""
    return check_offset(offset) // 8 + 1


def jemalloc_size_class(size: int, allocator: str = DEFAULT_ALLOCATOR) -> int:
    """The usable size jemalloc 5 (x86-64) returns for a request of ``size`` bytes.

    Debian's build: 8, then multiples of 16 up to 128, then four evenly spaced classes in every
    power-of-two interval (160, 192, 224, 256, 320, …, 1 MiB, 1.25 MiB, …, 512 MiB, 640 MiB);
    Redis's bundled build adds 24, 40 and 56 (:func:`setlab.models.allocator.size_class`).
    """
    return size_class(size, allocator)


def key_overhead_bytes(
    key: str | bytes, allocator: str = DEFAULT_ALLOCATOR, version: str = DEFAULT_RELEASE
) -> int:
    """What ``MEMORY USAGE`` adds for the key itself: its sds, the robj and the dictEntry; in
    Redis 8 and Valkey the object that holds the key's name (:mod:`setlab.models.key_layout`)."""
    length = len(key.encode() if isinstance(key, str) else bytes(key))
    if key_layout.embeds_key(Build(version, allocator).family):
        return size_class(key_layout.object_bytes(length), allocator)
    return sds_new_alloc(length, allocator) + ROBJ_BYTES + DICT_ENTRY_BYTES


def bitmap_growth(offsets: Iterable[int], allocator: str = DEFAULT_ALLOCATOR) -> list[SdsString]:
    """The value string after each ``SETBIT key o 1`` on a fresh key, for ``o`` in order.

    Redis 7.0: the first write allocates exactly (``sdsnewlen``); a later write past the end
    grows the string (``sdsgrowzero``), reallocating greedily only when it passes the capacity.
    """
    steps: list[SdsString] = []
    for offset in offsets:
        needed = bytes_for_offset(offset)
        steps.append(SdsString.new(needed, allocator) if not steps else steps[-1].grow_zero(needed))
    if not steps:
        raise ValueError("offsets must contain at least one offset")
    return steps


def bitmap_memory_usage(
    offsets: Iterable[int],
    key: str | bytes = "k",
    allocator: str = DEFAULT_ALLOCATOR,
    version: str = DEFAULT_RELEASE,
) -> int:
    """``MEMORY USAGE`` of a fresh key after ``SETBIT key o 1`` for each ``o`` in order (bytes).

    Redis 7.0.15 on the given jemalloc build by default, or the release ``version``; exact for
    non-cluster servers (cluster mode adds per-key metadata). The first write allocates exactly;
    later writes past the end grow greedily.
    """
    value = bitmap_growth(offsets, allocator)[-1].allocation
    return value + key_overhead_bytes(key, allocator, version)


def random_fill_allocations(
    bits: int, writes: int, keys: int, seed: int = 0, allocator: str = DEFAULT_ALLOCATOR
) -> list[int]:
    """Value allocations (bytes) of ``keys`` bitmaps of ``bits`` bits, each built only by
    ``writes`` SETBITs at uniformly random offsets in ``[0, bits)`` — a Bloom filter shard filled
    without presizing.

    Only a write past the current end changes the string, so each key follows the chain of
    running maxima: after a geometric number of writes the next record is uniform above the
    current length, and it grows the string by :meth:`SdsString.grow_zero` (greedy). Exact for
    uniform offsets; ``seed`` seeds numpy's generator, so a figure is the same on every run.
    """
    bits = check_int("bits", bits, 8)
    if bits % 8:
        raise ValueError(f"bits must be a multiple of 8; got {bits:,}")
    writes = check_int("writes", writes, 1)
    keys = check_int("keys", keys, 1)
    rng = np.random.default_rng(seed)
    length_max = bits // 8  # a write at offset o needs o // 8 + 1 bytes, uniform on 1..length_max
    found = []
    for _ in range(keys):
        value = SdsString.new(int(rng.integers(1, length_max + 1)), allocator)
        used = 1
        while value.length < length_max:
            used += int(rng.geometric((length_max - value.length) / length_max))
            if used > writes:
                break
            value = value.grow_zero(int(rng.integers(value.length + 1, length_max + 1)))
        found.append(value.allocation)
    return found


def first_setbit_memory_usage(
    offset: int,
    key: str | bytes = "k",
    allocator: str = DEFAULT_ALLOCATOR,
    version: str = DEFAULT_RELEASE,
) -> int:
    """``MEMORY USAGE`` after one ``SETBIT`` at ``offset`` on a key that did not exist (bytes)."""
    return bitmap_memory_usage([offset], key, allocator, version)


def memory_breakdown(
    offset: int,
    key: str | bytes = "k",
    allocator: str = DEFAULT_ALLOCATOR,
    version: str = DEFAULT_RELEASE,
) -> dict[str, int]:
    """Where ``MEMORY USAGE`` of a first SETBIT at ``offset`` comes from, in bytes.

    Parts: the bitmap data, the sds header and NUL terminator, jemalloc's rounding slack, and the
    per-key overhead (robj, key string, dictEntry; in Redis 8 and Valkey the object holding the
    key's name). They add up to :func:`first_setbit_memory_usage`.
    """
    length = bytes_for_offset(offset)
    header = sds_header_bytes(length)
    allocation = SdsString.new(length, allocator).allocation
    return {
        "bitmap data": length,
        "sds header + NUL": header + 1,
        "allocator rounding": allocation - length - header - 1,
        "key, robj, dictEntry": key_overhead_bytes(key, allocator, version),
    }


def log_spaced_offsets(low: int = 1_000, high: int = MAX_OFFSET, count: int = 12) -> list[int]:
    """``count`` distinct offsets from ``low`` to ``high``, evenly spaced on a log scale."""
    low = check_offset(low)
    high = check_offset(high)
    count = check_int("count", count, 2)
    if not 0 < low < high:
        raise ValueError(f"need 0 < low < high; got low={low:,}, high={high:,}")
    ratio = (high / low) ** (1 / (count - 1))
    values = sorted({min(high, round(low * ratio**i)) for i in range(count)} | {high})
    return values
