"""String IDs — WeChat openids, emails, user names, device IDs — read in bounded memory.

Seed 002's set is 800 million WeChat openids: 28-character strings, not integers, so no bitmap
offset and no Roaring container can hold them as they are. What a Redis SET of them costs, or a
filter, depends on how many are distinct and how long they are; this module reads a file of
them (one per line) and says exactly that, whatever the file's size:

- every ID is hashed with MurmurHash64A and Redis's HyperLogLog seed (``hyperloglog.c``), the
  hash ``PFADD`` computes for the same bytes;
- the distinct hashes are kept, one array per ID length, while there are at most ``exact_limit``
  of them (:func:`exact_limit` of the memory allowed, :data:`EXACT_PEAK_BYTES` an ID at the
  peak of a merge). The distinct count is then exact, but for two IDs that share a 64-bit hash:
  n²/2^65 expected, 0.0027 at 10^7 distinct IDs;
- one HyperLogLog's 16,384 registers per ID length are updated from the same hashes all along.
  Past the bound the exact arrays are dropped and the count is their union's estimate, the
  integer ``PFCOUNT`` of all these IDs would reply, within ±0.81 % (one standard error,
  1.04/√16384), cut to the lines read when it is above them (a file of n lines holds at most n
  distinct IDs: :attr:`StringIDs.estimate` keeps what the sketch said); the distinct IDs of each
  length are each length's estimate, scaled to that total, none above its lines;
- a line that is not text (a control byte, NUL included, or bytes that are not UTF-8) is an
  error naming it, not an ID.

Memory is the exact arrays (at most the memory allowed), 16 KiB of registers per length seen,
and two blocks of text (:data:`setlab.models.ids.BLOCK_BYTES` each): the file's size does not
enter it. Pure computation: numpy only; :mod:`setlab.tools.advise_strings` prices it.
"""

from __future__ import annotations

import io
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from setlab.core.formats import format_bytes
from setlab.core.hashing import murmur64a_rows
from setlab.core.validate import check_int
from setlab.models import id_lines
from setlab.models import ids as id_files
from setlab.models.hyperloglog import (
    HLL_REGISTERS,
    HLL_SEED,
    HLL_STANDARD_ERROR,
    hll_estimate_registers,
    hll_register_updates,
)
from setlab.models.redis_memory import Members

#: Standard errors either side of an estimate for a 95 % interval (the normal quantile).
Z_95 = 1.96
#: The longest ID accepted, in bytes (after trimming spaces): a longer line is not an ID.
MAX_STRING = 1024
#: Bytes an exactly counted ID costs at the peak of a merge: its 8-byte hash, the arrays being
#: merged, and the sorted copy ``numpy.unique`` makes (benchmarks/advise_strings.py measures it).
EXACT_PEAK_BYTES = 24
#: Memory allowed for the exact count by default (``--memory``): 1 GiB, about 45 million IDs.
DEFAULT_MEMORY = 1 << 30
#: A block's IDs of one length are hashed this many at a time (the gather's index is 4 bytes
#: a character: 64 Ki IDs of 64 bytes take 16 MiB).
_ROWS = 1 << 16
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[ord(c) for c in " \t\r\v\f"]] = True


def exact_limit(memory: int) -> int:
    """How many distinct IDs are counted exactly in ``memory`` bytes."""
    memory = check_int("memory", memory, 1 << 20)
    return memory // EXACT_PEAK_BYTES


@dataclass(frozen=True)
class StringIDs:
    """What a file of string IDs holds: how many, how many distinct, how long."""

    source: str
    ids: int  #: non-blank lines
    blank_lines: int
    #: exact, or when not ``exact`` the HyperLogLog estimate, at most :attr:`ids` (see
    #: :attr:`estimate`)
    distinct: int
    exact: bool
    lengths: dict[int, int]  #: distinct IDs by length in bytes (estimated when not ``exact``)
    line_lengths: dict[int, int]  #: every line by length (duplicates counted; always exact)
    exact_limit: int  #: the most distinct IDs counted exactly
    integers: int  #: lines that are decimal integers (a SET of only those would be an intset)
    kind: str = "string"
    #: the HyperLogLog's estimate as it came, when not ``exact``: it can exceed the lines read
    #: (by up to a few standard errors when nearly every line is distinct), and
    #: :attr:`distinct` is then clamped to :attr:`ids`
    estimate: int | None = None

    @property
    def duplicates(self) -> int:
        """Lines that repeat an earlier one: exact, or an estimate when not ``exact``."""
        return max(0, self.ids - self.distinct)

    @property
    def relative_error(self) -> float:
        """The distinct count's standard error, relative (0 when exact): HyperLogLog's
        1.04/√m with the m = 16,384 registers of the sketch the estimate comes from."""
        return 0.0 if self.exact else HLL_STANDARD_ERROR

    @property
    def clamped(self) -> bool:
        """Whether the estimate exceeded the lines read and :attr:`distinct` was cut to them."""
        return self.estimate is not None and self.estimate > self.ids

    @property
    def distinct_95(self) -> tuple[int, int]:
        """The distinct count's 95 % interval: the estimate ± 1.96 standard errors, cut to
        [1, :attr:`ids`] (a file of n lines has 1 to n distinct IDs); the count itself when
        exact."""
        if self.exact or self.estimate is None:
            return self.distinct, self.distinct
        spread = Z_95 * self.relative_error * self.estimate
        high = min(self.ids, math.ceil(self.estimate + spread))
        return max(1, min(high, math.floor(self.estimate - spread))), high

    @property
    def duplicates_95(self) -> tuple[int, int]:
        """The duplicate count's 95 % interval: the lines less the distinct count's interval."""
        low, high = self.distinct_95
        return self.ids - high, self.ids - low

    @property
    def collisions(self) -> float:
        """Expected pairs of distinct IDs sharing a 64-bit hash, which the exact count merges."""
        return self.distinct * (self.distinct - 1) / 2**65

    @property
    def shortest(self) -> int:
        return min(self.lengths)

    @property
    def longest(self) -> int:
        return max(self.lengths)

    @property
    def mean_length(self) -> float:
        """Mean length of the distinct IDs, bytes."""
        return sum(n * c for n, c in self.lengths.items()) / max(1, sum(self.lengths.values()))

    @property
    def members(self) -> Members:
        """What the Redis SET model needs: the distinct IDs as members, grouped by length
        (a member's sds allocation and listpack entry depend only on its length). Members
        that are integers count as strings: a SET holds them in an intset only when every
        member is one, and a file of only integers is read as integers."""
        return Members.disjoint_union(Members.fixed_length(c, n) for n, c in self.lengths.items())


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted, in place of ``values`` (numpy's ``unique`` takes a hash
    table first: ten times slower on uint64 hashes, measured with numpy 2.4)."""
    values.sort()
    if values.size < 2:
        return values
    keep = np.empty(values.size, dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


class _Counter:
    """The distinct hashes of one ID length: kept exactly (sorted arrays, merged as they grow)
    and in a HyperLogLog's registers."""

    def __init__(self) -> None:
        self.known = np.empty(0, dtype=np.uint64)
        self.pending: list[np.ndarray] = []
        self.pending_size = 0
        self.registers = np.zeros(HLL_REGISTERS, dtype=np.uint8)

    def add(self, hashes: np.ndarray, exact: bool) -> None:
        index, count = hll_register_updates(hashes)
        np.maximum.at(self.registers, index, count.astype(np.uint8))
        if exact:
            self.pending.append(_sorted_unique(hashes))
            self.pending_size += self.pending[-1].size
            if self.pending_size >= max(1 << 20, self.known.size):
                self.merge()

    def merge(self) -> None:
        if self.pending:
            self.known = _sorted_unique(np.concatenate([self.known, *self.pending]))
            self.pending, self.pending_size = [], 0

    @property
    def held(self) -> int:
        return self.known.size + self.pending_size

    def drop(self) -> None:
        self.known, self.pending, self.pending_size = np.empty(0, dtype=np.uint64), [], 0


class _Reader:
    """Lines of string IDs, piece by piece: trimmed, grouped by length, hashed, counted."""

    def __init__(self, source: str, limit: int) -> None:
        self.source, self.limit = source, limit
        self.counters: dict[int, _Counter] = {}
        self.line_lengths: dict[int, int] = {}
        self.ids = self.blank = self.integers = 0
        self.line = 1  # number of the next piece's first line
        self.exact = True

    def add_piece(self, data: bytes, end: int) -> None:
        buf = np.frombuffer(data, dtype=np.uint8, count=end)
        if not buf.size:
            return
        if (error := id_lines.text_error(buf, self.line)) is not None:
            raise ValueError(error)  # a binary line would hash, and count, as an ID
        newlines = np.flatnonzero(buf == 0x0A)
        ends = newlines if newlines.size and newlines[-1] == end - 1 else np.r_[newlines, end]
        starts = np.r_[0, ends[:-1] + 1]
        # trim spaces, tabs and a CR at both ends of each line: the ends first, then the starts
        while (trail := (ends > starts) & _WHITESPACE[buf[np.maximum(ends - 1, 0)]]).any():
            ends = ends - trail
        while (lead := (ends > starts) & _WHITESPACE[buf[np.minimum(starts, end - 1)]]).any():
            starts = starts + lead
        length = ends - starts
        long = np.flatnonzero(length > MAX_STRING)
        if long.size:
            raise ValueError(
                f"line {self.line + int(long[0])}: {int(length[long[0]]):,} bytes long, not an "
                f"ID (at most {MAX_STRING:,} bytes per line)"
            )
        self.blank += int(np.count_nonzero(length == 0))
        for size in np.unique(length[length > 0]).tolist():
            rows = starts[length == size].astype(np.int32)
            self.line_lengths[size] = self.line_lengths.get(size, 0) + rows.size
            counter = self.counters.setdefault(size, _Counter())
            for first in range(0, rows.size, _ROWS):
                part = rows[first : first + _ROWS]
                matrix = buf[part[:, None] + np.arange(size, dtype=np.int32)]
                self.integers += int(np.all((matrix >= 48) & (matrix <= 57), axis=1).sum())
                counter.add(murmur64a_rows(matrix, HLL_SEED), self.exact)
        self.ids += int(np.count_nonzero(length))
        self.line += length.size
        if self.exact and sum(c.held for c in self.counters.values()) > self.limit:
            for counter in self.counters.values():
                counter.merge()
            if sum(c.held for c in self.counters.values()) > self.limit:
                self.exact = False
                for counter in self.counters.values():
                    counter.drop()

    def result(self) -> StringIDs:
        if not self.ids:
            raise ValueError("no IDs found: the input is empty or blank")
        if self.exact:
            for counter in self.counters.values():
                counter.merge()
            lengths = {n: int(c.known.size) for n, c in sorted(self.counters.items())}
            distinct = sum(lengths.values())
        else:
            union = np.maximum.reduce([c.registers for c in self.counters.values()])
            estimate = hll_estimate_registers(union)
            distinct = min(estimate, self.ids)  # no more distinct IDs than lines
            each = {n: hll_estimate_registers(c.registers) for n, c in self.counters.items()}
            lengths = _scaled(each, distinct, self.line_lengths)
        return StringIDs(self.source, self.ids, self.blank, distinct, self.exact, lengths,
                         dict(sorted(self.line_lengths.items())), self.limit,
                         self.integers, estimate=None if self.exact else estimate)  # fmt: skip


def _scaled(counts: dict[int, int], total: int, caps: dict[int, int]) -> dict[int, int]:
    """``counts`` scaled to add up to ``total`` (largest remainders), none above its cap (the
    lines of that length: no more distinct IDs of a length than lines), keys sorted. What a
    capped length cannot take is shared by the others in proportion; ``total`` is at most the
    sum of the caps."""
    out: dict[int, int] = {}
    rest, left = dict(counts), total
    while rest:
        weight = sum(rest.values())
        raw = {k: left * (v / weight if weight else 1 / len(rest)) for k, v in rest.items()}
        over = [k for k in rest if raw[k] > caps[k]]
        if not over:
            share = {k: math.floor(v) for k, v in raw.items()}
            short = left - sum(share.values())
            for k in sorted(raw, key=lambda k: raw[k] - share[k], reverse=True)[:short]:
                share[k] += 1
            out.update(share)
            break
        for k in over:
            out[k] = caps[k]
            left -= caps[k]
            del rest[k]
    return dict(sorted(out.items()))


def parse_strings(
    stream: IO[bytes], source: str = "<stream>", progress: Any = None,
    memory: int = DEFAULT_MEMORY,
) -> StringIDs:  # fmt: skip
    """String IDs, one per line, from a binary stream, block by block (see the module's doc).
    ``progress`` has ``update(count)``, told the bytes read."""
    reader = _Reader(source, exact_limit(memory))
    try:
        for data, end in id_files._pieces(stream, progress, MAX_STRING):
            reader.add_piece(data, end)
    except id_files._LongLine as long:
        reader.add_piece(long.data, long.end)
        raise ValueError(long.message(reader.line - _count_lines(long.data, long.end))) from None
    return reader.result()


def _count_lines(data: bytes, end: int) -> int:
    return int(np.count_nonzero(np.frombuffer(data, np.uint8, end) == 0x0A))


def read_strings(
    source: str | Path | IO[bytes], progress: bool | None = None, memory: int = DEFAULT_MEMORY
) -> StringIDs:
    """String IDs, one per line, from a path, ``"-"`` (stdin) or a binary stream. Spaces around
    an ID and blank lines are ignored; a NUL byte or a line over :data:`MAX_STRING` bytes is a
    ``ValueError`` naming the line. ``progress`` (default: when stderr is a terminal) prints the
    bytes read on stderr."""
    from setlab.core.progress import Progress

    if progress is None:
        progress = sys.stderr.isatty()
    if isinstance(source, str | Path):
        if str(source) == "-":
            return read_strings(sys.stdin.buffer, progress, memory)
        path = _existing(source)
        with path.open("rb") as stream:
            report = Progress(id_files.file_size(stream), f"reading {path}", progress, unit="bytes")
            try:
                return parse_strings(stream, str(source), report, memory)
            finally:
                if report.done > id_files.BLOCK_BYTES:
                    report.close()
    report = Progress(None, "reading", progress, unit="bytes")
    try:
        return parse_strings(source, str(getattr(source, "name", "<stream>")), report, memory)
    finally:
        if report.done > id_files.BLOCK_BYTES:
            report.close()


def _existing(source: str | Path) -> Path:
    path = Path(source)
    if path.is_dir():
        raise ValueError(f"{source} is a directory, not a file of IDs")
    if not path.exists():
        raise ValueError(f"{source}: no such file")
    return path


# -- which kind of file ----------------------------------------------------------------------------

#: Lines looked at to decide whether an "auto" file holds string IDs.
SNIFF_LINES = 1000
_NUMERIC = re.compile(
    rb"\d+|(0[xX])?[0-9a-fA-F]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
    rb"[0-9a-fA-F]{12}"
)


def looks_like_strings(head: bytes, whole: bool) -> bool:
    """Whether a file that starts with ``head`` (all of it when ``whole``) holds string IDs:
    one of its first :data:`SNIFF_LINES` IDs after the first is neither a decimal integer, nor
    hex, nor a UUID. The first line alone does not decide: a file of decimals under a header
    line (``user_id``) is a file of decimals with a header, which the integer reader names."""
    lines = head.split(b"\n")
    if not whole:
        lines = lines[:-1]  # the last line may be cut
    ids = [line.strip() for line in lines if line.strip()][: SNIFF_LINES + 1]
    return any(_NUMERIC.fullmatch(line) is None for line in ids[1:])


#: Bytes looked at to decide whether an "auto" file holds string IDs.
SNIFF_BYTES = 1 << 16


def sniff(source: str | Path) -> tuple[bool, str | Path | IO[bytes]]:
    """Whether ``source`` (a path, or ``"-"`` for stdin) holds string IDs
    (:func:`looks_like_strings` of its first :data:`SNIFF_BYTES`), and what to read it from
    next: the path again for a regular file, else a :class:`Replay` of what was read followed
    by the rest of the same stream (the caller closes it).

    Only a regular file can be read twice. A pipe (``cmd | setlab advise -``), a named FIFO or
    a process substitution (``setlab advise <(cmd)``, a ``/dev/fd/N`` path to a pipe) gives its
    bytes once: opened a second time it is empty (a pipe whose writer has left: "no IDs"),
    misses what the first open took (a pipe still being written), or blocks for ever (a FIFO
    with no writer left). So those are opened once, here, and their head is replayed."""
    if str(source) == "-":
        stream: IO[bytes] = sys.stdin.buffer
    else:
        stream = _existing(source).open("rb")
        if id_files.is_regular(stream):
            with stream:
                head = stream.read(SNIFF_BYTES + 1)
            return looks_like_strings(head[:SNIFF_BYTES], len(head) <= SNIFF_BYTES), source
    try:
        head = stream.read(SNIFF_BYTES + 1)
    except BaseException:
        if stream is not sys.stdin.buffer:
            stream.close()
        raise
    strings = looks_like_strings(head[:SNIFF_BYTES], len(head) <= SNIFF_BYTES)
    return strings, Replay(head, stream, owned=stream is not sys.stdin.buffer)


class Replay(io.RawIOBase):
    """A binary stream that returns ``head`` and then the rest of ``stream``: how a stream that
    cannot be sought back (stdin, a pipe, a FIFO) is looked at before it is read. Closing it
    closes ``stream`` when ``owned`` (a stream :func:`sniff` opened; not stdin)."""

    def __init__(self, head: bytes, stream: IO[bytes], owned: bool = False) -> None:
        super().__init__()
        self.head, self.stream, self.owned = memoryview(head), stream, owned
        self.name = getattr(stream, "name", "<stream>")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        data = self.stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed and self.owned:
            self.stream.close()
        super().close()


def describe_bound(limit: int) -> str:
    """The exact count's bound in words, for notes and help."""
    return (
        f"exact up to {limit:,} distinct IDs ({format_bytes(limit * EXACT_PEAK_BYTES)} at most), "
        "a HyperLogLog estimate beyond"
    )
