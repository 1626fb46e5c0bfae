"""What the Redis memory model needs to know about a set's members, without the members.

A set's memory depends on its members only through a few numbers: how many there are, whether
all are integers an intset can hold (and the widest one's width), how long each is (its sds
string's allocation, which depends on the length and the allocator), and how many bytes each
takes in a listpack (Redis 7.2+). :class:`Members` keeps those numbers, built from real members
(:meth:`Members.of`) or for sets too big to hold (:meth:`Members.fixed_length`,
:meth:`Members.decimal_range`), and keeps the count per length so that it can be priced again
for another allocator (:meth:`Members.priced_for`). The rules are Redis's own: ``string2ll``
(util.c) for what is an integer, ``_intsetValueEncoding`` (intset.c) for widths, and
listpack.c's entry encodings.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, replace

from setlab.core.validate import check_int
from setlab.models.allocator import DEFAULT_ALLOCATOR, check_allocator
from setlab.models.sds import sds_new_alloc

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_LONG_STR_SIZE = 21  #: string2ll refuses strings this long or longer


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
    listpack_bytes: int  #: sum of the members' listpack entries (Redis 7.2+), bytes
    allocator: str = DEFAULT_ALLOCATOR  #: the allocator ``sds_bytes`` was priced for
    #: (length in bytes, members of that length): lets :meth:`priced_for` price another build;
    #: empty for a summary made without it, which then prices only its own allocator
    lengths: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(
        cls, members: Iterable[str | bytes | int], allocator: str = DEFAULT_ALLOCATOR
    ) -> Members:
        """Summarise real members (duplicates count once, as in ``SADD``)."""
        distinct = {as_bytes(m) for m in members}
        by_length: dict[int, int] = {}
        listpack = longest = 0
        width = 2
        integers = True
        for member in distinct:
            length = len(member)
            by_length[length] = by_length.get(length, 0) + 1
            listpack += _listpack_entry_bytes(member)
            longest = max(longest, length)
            number = redis_integer(member) if integers else None
            if number is None:
                integers = False
            else:
                width = max(width, intset_width(number))
        width = width if integers and distinct else 0
        lengths = tuple(sorted(by_length.items()))
        sds = _sds_total(lengths, allocator)
        return cls(len(distinct), sds, integers, width, longest, listpack, allocator, lengths)

    @classmethod
    def fixed_length(cls, count: int, length: int, allocator: str = DEFAULT_ALLOCATOR) -> Members:
        """``count`` distinct non-integer members of ``length`` bytes each (UUIDs: 36, hex: 16)."""
        count = check_int("count", count, 0)
        length = check_int("length", length, 1, 2**32)
        entry = _listpack_entry_bytes(b"x" * length)
        lengths = ((length, count),) if count else ()
        sds = _sds_total(lengths, allocator)
        return cls(count, sds, False, 0, length, count * entry, allocator, lengths)

    @classmethod
    def decimal_range(cls, start: int, stop: int, allocator: str = DEFAULT_ALLOCATOR) -> Members:
        """The integers ``start .. stop-1`` sent as decimal strings (``SADD k 0 1 2 …``)."""
        start = check_int("start", start, _INT64_MIN, _INT64_MAX)
        stop = check_int("stop", stop, start, _INT64_MAX + 1)
        if stop == start:
            return cls(0, 0, True, 0, 0, 0, allocator)
        by_length: dict[int, int] = {}
        listpack = 0
        for low, high in _same_shape_ranges(start, stop):
            sample = str(low).encode()
            by_length[len(sample)] = by_length.get(len(sample), 0) + high - low
            listpack += (high - low) * _listpack_entry_bytes(sample)
        width = max(intset_width(start), intset_width(stop - 1))
        longest = max(len(str(start)), len(str(stop - 1)))
        lengths = tuple(sorted(by_length.items()))
        sds = _sds_total(lengths, allocator)
        return cls(stop - start, sds, True, width, longest, listpack, allocator, lengths)

    @classmethod
    def disjoint_union(
        cls, parts: Iterable[Members], *, integers: bool = False, int_width: int = 0
    ) -> Members:
        """The members of several summaries that share no member, as one summary (``integers``
        and ``int_width`` as the caller knows them for the whole). The parts must have been
        priced for one allocator."""
        parts = list(parts)
        allocators = {p.allocator for p in parts} or {DEFAULT_ALLOCATOR}
        if len(allocators) > 1:
            raise ValueError(f"parts were priced for different allocators: {sorted(allocators)}")
        by_length: dict[int, int] = {}
        for part in parts:
            for length, count in part.lengths:
                by_length[length] = by_length.get(length, 0) + count
        return cls(
            sum(p.count for p in parts),
            sum(p.sds_bytes for p in parts),
            integers,
            int_width,
            max((p.max_length for p in parts), default=0),
            sum(p.listpack_bytes for p in parts),
            allocators.pop(),
            tuple(sorted(by_length.items())) if all(p.lengths for p in parts) else (),
        )

    def priced_for(self, allocator: str) -> Members:
        """The same members with their sds strings priced for ``allocator``."""
        if check_allocator(allocator) == self.allocator:
            return self
        if not self.lengths and self.count:
            raise ValueError(
                f"members were summarised for allocator {self.allocator!r} without their "
                f"lengths, so they cannot be priced for {allocator!r}: summarise them with "
                f"allocator={allocator!r}"
            )
        return replace(self, sds_bytes=_sds_total(self.lengths, allocator), allocator=allocator)


def _sds_total(lengths: Iterable[tuple[int, int]], allocator: str) -> int:
    """Bytes allocated for the members' sds strings, given (length, count) pairs."""
    return sum(count * sds_new_alloc(length, allocator) for length, count in lengths)


def _same_shape_ranges(start: int, stop: int) -> list[tuple[int, int]]:
    """Split ``[start, stop)`` where the decimal length or the listpack encoding changes."""
    cuts = {start, stop}
    for digits in range(1, 21):
        cuts.update({10**digits, -(10 ** (digits - 1)) + 1})
    cuts.update({128, -4096, 4096, -(2**15), 2**15, -(2**23), 2**23, -(2**31), 2**31})
    points = sorted(c for c in cuts if start <= c <= stop)
    return [(a, b) for a, b in itertools.pairwise(points) if b > a]
