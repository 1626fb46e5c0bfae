"""Redis's dynamic strings (``sds``): header sizes, what an allocation holds, how a string grows.

Every string Redis keeps — a key's name, a set member in a hashtable, a string value, a bitmap,
a HyperLogLog — is an sds string: a header (1, 3, 5, 9 or 17 bytes, ``sdsReqType`` in
``sds.c``), the bytes, and a NUL terminator, in one allocation the allocator rounds up to a size
class (:mod:`setlab.models.allocator`). The header records the capacity (``alloc``); since Redis
6.2 ``sdsnewlen`` and ``sdsMakeRoomFor`` record the allocator's usable size
(``s_malloc_usable``), so the rounding becomes spare capacity. Measured the same on Redis
6.2.5, 7.0.15, 8.2.3 and Valkey 8.1.8 (bitmaps grown write by write,
``tests/lab/runs/test_live_memory_releases.py``).

Two ways to grow:

* ``sdsMakeRoomFor`` (``SETBIT`` past the end, ``APPEND``; a HyperLogLog's sparse form before
  Redis 7.2): *greedy*, it asks for twice the new length below 1 MiB, else the length plus 1 MiB
  (:meth:`SdsString.grow_zero`);
* ``sdsResize`` with ``would_regrow`` (a sparse HyperLogLog from Redis 7.2, PR #11438): exactly
  the size asked, never a 5-bit header (:meth:`SdsString.resize`).
"""

from __future__ import annotations

from dataclasses import dataclass

from setlab.core.validate import check_int
from setlab.models.allocator import DEFAULT_ALLOCATOR, size_class

SDS_MAX_PREALLOC = 1024 * 1024  #: sds.h: greedy growth adds at most 1 MiB
_SDS_HEADERS = ((1 << 5, 1), (1 << 8, 3), (1 << 16, 5), (1 << 32, 9))  # (length below, header)
#: the largest capacity each header can record (type 5 records none: its capacity is its length)
_SDS_MAX_ALLOC = {3: (1 << 8) - 1, 5: (1 << 16) - 1, 9: (1 << 32) - 1}


def sds_header_bytes(length: int, *, allow_type5: bool = True) -> int:
    """Header size of an sds string of ``length`` bytes (``sdsReqType``): 1, 3, 5, 9 or 17.

    ``allow_type5=False`` for strings expected to grow, which never get the 5-bit header
    (``sdsnewlen`` of an empty string, ``sdsMakeRoomFor``, ``sdsResize(…, would_regrow=1)``).
    """
    length = check_int("length", length, 0)
    for below, header in _SDS_HEADERS:
        if length < below and (allow_type5 or header > 1):
            return header
    return 17


def sds_new_alloc(length: int, allocator: str = DEFAULT_ALLOCATOR) -> int:
    """Bytes the allocator really hands out for ``sdsnewlen(init, length)``: header + data +
    NUL, rounded up to its size class."""
    header = sds_header_bytes(length, allow_type5=length > 0)
    return size_class(header + length + 1, allocator)


def _capacity(allocation: int, header: int) -> int:
    """The capacity an sds header records for a usable allocation (capped by the header type)."""
    return min(allocation - header - 1, _SDS_MAX_ALLOC.get(header, 1 << 64))


@dataclass(frozen=True)
class SdsString:
    """An sds string as Redis keeps it: its length, capacity and real allocation (bytes)."""

    length: int
    capacity: int
    allocation: int
    allocator: str = DEFAULT_ALLOCATOR  #: the allocator build (:mod:`setlab.models.allocator`)

    @classmethod
    def new(cls, length: int, allocator: str = DEFAULT_ALLOCATOR) -> SdsString:
        """``sdsnewlen(NULL, length)``: exact size; a type-5 header records no spare capacity."""
        header = sds_header_bytes(length, allow_type5=length > 0)
        allocation = size_class(header + length + 1, allocator)
        capacity = length if header == 1 else _capacity(allocation, header)
        return cls(length, capacity, allocation, allocator)

    @property
    def available(self) -> int:
        """``sdsavail``: bytes that can be appended without a new allocation."""
        return self.capacity - self.length

    def grow_zero(self, length: int) -> SdsString:
        """``sdsgrowzero(s, length)``: greedy ``sdsMakeRoomFor`` when the capacity is short."""
        if length <= self.length:
            return self
        if length <= self.capacity:
            return SdsString(length, self.capacity, self.allocation, self.allocator)
        wanted = length * 2 if length < SDS_MAX_PREALLOC else length + SDS_MAX_PREALLOC
        header = max(3, sds_header_bytes(wanted))
        allocation = size_class(header + wanted + 1, self.allocator)
        return SdsString(length, _capacity(allocation, header), allocation, self.allocator)

    def resize(self, size: int) -> SdsString:
        """``sdsResize(s, size, would_regrow=1)`` (Redis 7.2+, Valkey): room for exactly ``size``
        bytes, the length unchanged; the capacity recorded is the allocation's usable size.

        A header that fits ``size`` is chosen (never type 5); the old header is kept when it is
        the same type. Measured on Redis 8.2.3 and Valkey 8.1.8: a sparse HyperLogLog's string
        after each ``PFADD`` (recording ``size`` itself would miss 513 of 1,689 steps).
        """
        size = check_int("size", size, self.length)
        header = max(3, sds_header_bytes(size))
        allocation = size_class(header + size + 1, self.allocator)
        return SdsString(self.length, _capacity(allocation, header), allocation, self.allocator)

    def with_length(self, length: int) -> SdsString:
        """The same allocation holding ``length`` bytes (at most its capacity)."""
        length = check_int("length", length, 0, max(self.capacity, self.length))
        return SdsString(length, self.capacity, self.allocation, self.allocator)
