"""IDs as a service exports them: one per line, decimal, hexadecimal or UUIDs, read with numpy.

Seed 003's advice starts with a file of IDs ("histogram your IDs first"). This module reads one:

* :func:`read_ids` reads decimal integers, hexadecimal strings (``a1b2c3d4e5f60718`` or
  ``0x…``) or UUIDs from a file or a binary stream, vectorised with numpy (a million lines in
  well under a second; :mod:`setlab.models.decimal_lines` reads plain decimal lines,
  :mod:`setlab.models.id_lines` every other line), with a progress line on stderr. Anything
  else is a ``ValueError`` that names the line, and so is a read past :data:`MAX_IDS`;
* :func:`parse_ids` does the same for bytes in memory, :func:`from_integers` and
  :func:`from_hex_strings` for values a program already holds;
* :class:`IDs` keeps each ID's value (64 bits, or 128 in two halves) and how it was written
  (its length, and whether a decimal had leading zeros): a Redis SET stores the text, a bitmap
  or a Roaring bitmap the value. :func:`texts` writes IDs back as text, and
  :func:`set_members` sums up what a Redis SET of them stores.

Pure computation: no Redis, no plotting. :mod:`setlab.tools.analysis` describes what it reads.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from setlab.core.columns import Column
from setlab.core.formats import format_bytes
from setlab.core.validate import check_int
from setlab.models import decimal_lines, id_lines

if TYPE_CHECKING:
    from setlab.models.redis_memory import Members

#: Bytes read and parsed per step (a few hundred thousand lines).
BLOCK_BYTES = 8 << 20
_POWERS_OF_TEN = np.array([10**d - 1 for d in range(1, 20)], dtype=np.uint64)  # 9, 99, …


# -- reading IDs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class IDs:
    """IDs as read from a file: their values and what their text looks like.

    ``values`` are unsigned 64-bit integers; IDs wider than 64 bits (UUIDs, 128-bit hex) keep their
    low half there and their high half in ``high``. ``lengths`` is the number of characters each
    ID was written with — what a Redis SET of the IDs as strings would store. As read from a
    file, a column whose values are all equal (``canonical`` without leading zeros, ``lengths``
    of UUIDs) is a read-only ``numpy.broadcast_to`` array that takes no memory.
    """

    kind: str  #: "decimal", "hex" or "uuid"
    values: np.ndarray  #: uint64, one per ID, in file order (low 64 bits for 128-bit IDs)
    high: np.ndarray | None  #: uint64 high 64 bits for 128-bit IDs, else None
    lengths: np.ndarray  #: uint8: characters per ID as written
    canonical: np.ndarray  #: bool: the text is a canonical decimal integer (no leading zero)
    blank_lines: int = 0
    source: str = "<memory>"

    def __len__(self) -> int:
        return int(self.values.size)

    @property
    def bits(self) -> int:
        """Bits of the widest representation: 64, or 128 for UUIDs and long hex IDs."""
        return 128 if self.high is not None else 64


def from_integers(
    values: Iterable[int] | np.ndarray, source: str = "<memory>", *, hex_digits: int = 0
) -> IDs:
    """IDs from integers already in memory, as if written one per line in decimal, or (with
    ``hex_digits``) as zero-padded hexadecimal strings of that many digits (device IDs)."""
    arr = np.asarray(values if isinstance(values, np.ndarray) else list(values))
    if arr.size and arr.dtype.kind not in "iu":
        raise ValueError(f"values must be integers; got an array of {arr.dtype}")
    if arr.size and arr.dtype.kind == "i" and arr.min() < 0:
        raise ValueError(f"IDs must be >= 0; got {int(arr.min())}")
    arr = arr.astype(np.uint64)
    if hex_digits:
        check_int("hex_digits", hex_digits, 1, 16)
        if arr.size and int(arr.max()) >= 16**hex_digits:
            raise ValueError(f"an ID needs more than hex_digits = {hex_digits} digits")
        lengths = np.full(arr.size, hex_digits, dtype=np.uint8)
        return IDs("hex", arr, None, lengths, np.zeros(arr.size, dtype=bool), 0, source)
    return IDs("decimal", arr, None, _decimal_lengths(arr), np.ones(arr.size, dtype=bool), 0,
               source)  # fmt: skip


def from_hex_strings(strings: Sequence[str], source: str = "<memory>") -> IDs:
    """IDs from hexadecimal strings in memory (device IDs), parsed as :func:`read_ids` would."""
    return parse_ids(("\n".join(strings)).encode(), source=source)


def _decimal_lengths(values: np.ndarray) -> np.ndarray:
    """Decimal digits of each uint64 (1 for 0)."""
    lengths = np.ones(values.size, dtype=np.uint8)
    for digits in range(1, 20):
        lengths += values >= np.uint64(10**digits)
    return lengths


#: ``--format`` values: "auto" lets the first ID decide, the others name the kind
FORMATS = ("auto", "dec", "hex", "uuid")
_KIND_OF_FORMAT = {"dec": "decimal", "hex": "hex", "uuid": "uuid"}
_KIND_OF_ROW = {
    id_lines.DECIMAL: "decimal",
    id_lines.HEXROW: "hex",
    id_lines.PREFIXED: "hex",
    id_lines.UUID: "uuid",
}
#: the rows each kind of file accepts (a hex ID may happen to have no letter)
_ROWS_OF_KIND = {
    "decimal": np.array([id_lines.DECIMAL]),
    "hex": np.array([id_lines.DECIMAL, id_lines.HEXROW, id_lines.PREFIXED]),
    "uuid": np.array([id_lines.UUID]),
}
_FORMAT_OF_KIND = {"decimal": "dec", "hex": "hex", "uuid": "uuid"}


class _LongLine(Exception):
    """A line longer than ``max_line``; ``data[:end]`` holds the whole lines before it."""

    def __init__(self, data: bytes, end: int, max_line: int = id_lines.MAX_LINE) -> None:
        super().__init__()
        self.data, self.end, self.max_line = data, end, max_line

    def message(self, line: int) -> str:
        """The error for a block whose first line is number ``line``."""
        at = line + int(np.count_nonzero(np.frombuffer(self.data, np.uint8, self.end) == 0x0A))
        return (f"line {at}: more than {self.max_line} characters without a line break: not "
                "a file of IDs (one per line)")  # fmt: skip


def _pieces(
    stream: IO[bytes], progress: Any, max_line: int = id_lines.MAX_LINE
) -> Iterable[tuple[bytes, int]]:
    """The stream cut at line ends into pieces of about :data:`BLOCK_BYTES`: ``(data, end)``,
    ``data[:end]`` whole lines. A file is read on from the start of the line a block cut (no
    copy to join it to the next block). A line longer than ``max_line`` raises
    :class:`_LongLine` at once: a 2 GB file with no line break costs one block of memory."""
    carry, first, seekable = b"", True, stream.seekable()
    while chunk := stream.read(BLOCK_BYTES):
        if first and chunk.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark
            chunk = chunk[3:]
        first = False
        data = carry + chunk  # no copy while carry is empty
        end = data.rfind(b"\n") + 1
        cut = len(data) - end
        if cut > max_line:
            raise _LongLine(data, end, max_line)
        again = seekable and end and cut  # read the cut line again with the next block
        if again:
            stream.seek(-cut, io.SEEK_CUR)
        carry = b"" if again else data[end:]
        if progress is not None:
            progress.update(len(chunk) - (cut if again else 0))
        if end:
            yield data, end
    if carry:
        yield carry, len(carry)


#: The most IDs one read holds (``--max-ids``). 10^8 decimal IDs take about 0.9 GB as read (an
#: 8-byte value and a 1-byte length each, :class:`_Collector`; UUIDs 16 bytes), and analysing
#: them (:func:`setlab.tools.analysis.analyse`: a sorted copy, 4 or 8 bytes an ID, then Roaring's
#: sizes) takes 13 to 18 bytes an ID more at its peak (tracemalloc, 10^6 IDs of four shapes,
#: numpy 2.4): about 2.7 GB in all. Past it the read stops with one error, so that a pipe that
#: never ends (``yes 123 | setlab advise -``) is refused in seconds instead of growing until the
#: kernel's OOM killer ends it.
MAX_IDS = 10**8


class _Collector:
    """IDs parsed block by block as they are read: the kind of ID is fixed by ``--format`` or,
    with "auto", by the first ID (or the lines after a first ID like ``1E5``: :meth:`_decide`);
    a line of another kind stops the read at once, and so does an ID past ``max_ids``.

    Each column is a :class:`setlab.core.columns.Column`, grown in place and taking no memory
    while its values are all equal — the lengths of hex IDs and UUIDs, the leading-zero flags of
    a file without leading zeros, the high halves of 64-bit hex IDs: 9 bytes per decimal ID, 8
    per 16-digit hex ID, 16 per UUID."""

    def __init__(self, fmt: str, source: str, max_ids: int = MAX_IDS) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
        self.fmt, self.source = fmt, source
        self.max_ids = check_int("max_ids", max_ids, 1)
        self.kind = _KIND_OF_FORMAT.get(fmt)
        self.first: tuple[int, int] | None = None  # line and row class of the first ID
        self.values, self.highs = Column(np.uint64), Column(np.uint64)
        self.lengths, self.canonical = Column(np.uint8), Column(bool)
        self.blank = 0
        self.hex_digits = 0
        self.line = 1  # the number of the next piece's first line
        self.pending: list[id_lines.Block] = []  # blocks kept aside while the kind is open
        self.pending_bytes = 0
        self.first_text = ""  # the first ID's text, while it leaves the kind open

    def _admit(self, count: int) -> None:
        """Refuse the piece whose ``count`` IDs would take the read past ``max_ids``."""
        if self.values.size + count > self.max_ids:
            raise ValueError(
                f"{self.source}: more than {self.max_ids:,} IDs, the most one run reads "
                f"(--max-ids; {format_bytes(9 * self.max_ids)} as read, more to analyse): "
                "stopped there; raise the bound with --max-ids N if this machine has the "
                "memory, or read a sample of the IDs"
            )

    def start(self, data: bytes, end: int) -> decimal_lines.Conversion | None:
        """Start converting ``data[:end]`` on the fast path of :mod:`setlab.models.decimal_lines`
        while the file may still be plain decimal lines (the usual export), else None."""
        return decimal_lines.Conversion(data, end) if self.kind in (None, "decimal") else None

    def add_piece(self, data: bytes, end: int, started: decimal_lines.Conversion | None) -> None:
        """Add the next piece of whole lines, ``data[:end]``: what :meth:`start` converted if it
        was plain (one ID a line), else (or when the file turned out not to be decimal, or its
        kind is still undecided) through :class:`setlab.models.id_lines.Block`."""
        plain = None if started is None else started.result()
        if plain is not None and self.kind in (None, "decimal") and not self.pending:
            if self.first is None:
                self.first, self.kind = (self.line, id_lines.DECIMAL), "decimal"
            lines = sum(part[0].size for part in plain)
            self._admit(lines)
            for values, lengths, canonical in plain:
                self.values.append(values)
                self.lengths.append(lengths)
                self.canonical.append(canonical)
            self.line += lines
            return
        block = id_lines.Block(data[:end], self.line)
        self.add(block)
        self.line += block.row.size

    def add(self, block: id_lines.Block) -> None:
        """Add one block of lines; while the kind of an "auto" file is undecided
        (:meth:`_decide`), keep the block aside, and add it once the kind is known."""
        if self.kind is None and np.any(block.row != id_lines.BLANK):
            self.kind = self._decide(block)
            if self.kind is None:
                return
            for earlier in self.pending:
                self._convert(earlier)
            self.pending = []
        self._convert(block)

    def _decide(self, block: id_lines.Block) -> str | None:
        """The kind of an "auto" file, or None while its lines so far leave it open.

        The first ID decides, unless it is digits, one ``e``, digits (``1E5``): a spreadsheet
        writes decimal IDs that way, and a hex ID can look that way (one random 16-digit hex ID
        in about 1,300 does: 14 places for the ``e`` × 1/16 × (10/16)^15). Then the lines after
        it decide: the first hex ID with another letter, or a ``0x`` ID, makes the file hex; if
        every ID up to the end, or in the first :data:`BLOCK_BYTES` of lines, is digits or of
        that form, the file is decimal and the ``1E5`` line is refused, naming it. Reading it as
        hex (0x1E5 = 485) would misread every decimal line after it without a word; reading it
        as 100000 would guess what a spreadsheet meant, and a spreadsheet that writes IDs in
        scientific notation has usually rounded them already (1.23457E+17)."""
        ids = np.flatnonzero(block.row != id_lines.BLANK)
        exponent = id_lines.exponent_rows(block)[ids]
        if self.first is None:
            first, row = int(ids[0]), int(block.row[ids[0]])
            self.first = (block.first_line + first, row)
            if not exponent[0]:
                return _KIND_OF_ROW[row]
            self.first_text = block.line_text(first)
        if not np.all((block.row[ids] == id_lines.DECIMAL) | exponent):
            return "hex"
        self.pending.append(block)
        self.pending_bytes += int(block.length.sum()) + block.row.size  # about its text
        if self.pending_bytes >= BLOCK_BYTES:
            self._refuse_exponent(block.first_line + block.row.size - 1)
        return None

    def _refuse_exponent(self, last_line: int) -> None:
        raise ValueError(
            f"line {self.first[0]}: {self.first_text!r} is a decimal in scientific notation or a "
            f"hexadecimal ID, and every ID up to line {last_line} is digits or of that form: if "
            "the IDs are decimal, write each one as its digits; if they are hex, say so with "
            "--format hex"
        )

    def _convert(self, block: id_lines.Block) -> None:
        ids = np.flatnonzero(block.row != id_lines.BLANK)
        self.blank += int(block.row.size - ids.size)
        if not ids.size:
            return
        if self.first is None:
            self.first = (block.first_line + int(ids[0]), int(block.row[ids[0]]))
        wrong = ids[~np.isin(block.row[ids], _ROWS_OF_KIND[self.kind])]
        if wrong.size:
            self._refuse(block, int(wrong[0]))
        self._admit(ids.size)
        keep = block.row != id_lines.BLANK
        if self.kind == "decimal":
            self.values.append(id_lines.decimal_values(block))
            self.canonical.append((block.matrix[keep, 0] != ord("0")) | (block.length[keep] == 1))
        elif self.kind == "uuid":
            low, high = id_lines.uuid_values(block)
            self.values.append(low)
            self.highs.append(high)
            self.canonical.append(np.zeros(low.size, dtype=bool))
        else:
            digits = id_lines.hex_digits(block)
            if digits.size and digits.max() > 32:
                block.fail(
                    ids[np.argmax(digits > 32)], "more than 32 hex digits: wider than 128 bits"
                )
            self.hex_digits = max(self.hex_digits, int(digits.max(initial=0)))
            low, high = id_lines.hex_values(block, wide=True)
            self.values.append(low)
            self.highs.append(high)
            self.canonical.append(np.zeros(low.size, dtype=bool))
        self.lengths.append(block.length[keep].astype(np.uint8))

    def _refuse(self, block: id_lines.Block, i: int) -> None:
        line, row = block.first_line + i, int(block.row[i])
        what = id_lines.ROW_NAMES.get(row, "not an ID")
        if self.fmt != "auto":
            raise ValueError(
                f"line {line}: {block.line_text(i)!r} is {what}, not {self.kind} "
                f"(--format {self.fmt})"
            )
        first_line, first_row = self.first
        hint = (
            f"; if the file is all {_KIND_OF_ROW[row]}, say so with --format "
            f"{_FORMAT_OF_KIND[_KIND_OF_ROW[row]]}"
            if row in _KIND_OF_ROW
            else ""
        )
        raise ValueError(
            f"line {line}: {block.line_text(i)!r} is {what} but line {first_line} is "
            f"{id_lines.ROW_NAMES[first_row]}: one kind of ID per file{hint}"
        )

    def result(self) -> IDs:
        if self.pending:
            self._refuse_exponent(self.line - 1)
        if self.first is None:
            raise ValueError("no IDs found: the input is empty or blank")
        wide = self.kind == "uuid" or (self.kind == "hex" and self.hex_digits > 16)
        return IDs(
            self.kind,
            self.values.array(),
            self.highs.array() if wide else None,
            self.lengths.array(),
            self.canonical.array(),
            self.blank,
            self.source,
        )


def parse_stream(
    stream: IO[bytes],
    source: str = "<stream>",
    progress: Any = None,
    fmt: str = "auto",
    max_ids: int = MAX_IDS,
) -> IDs:
    """Parse IDs, one per line, from a binary stream, block by block (see :func:`read_ids`).

    Memory holds two blocks of text at a time (the next one is read while the one before is
    converted) plus the parsed IDs (9 bytes per decimal ID, 8 per 16-digit hex ID, 16 per UUID:
    :class:`_Collector`); the first bad line, or the first ID past ``max_ids``, stops the read
    one block later at most. ``progress`` is an object with ``update(count)`` (a
    :class:`setlab.core.progress.Progress`), told the bytes read.
    """
    collector = _Collector(fmt, source, max_ids)
    waiting = None  # the piece read before, converting while the next one is read
    try:
        for data, end in _pieces(stream, progress):
            started = collector.start(data, end)
            if waiting is not None:
                collector.add_piece(*waiting)
            waiting = (data, end, started)
    except _LongLine as long:
        if waiting is not None:  # a bad line before the long one is the first error
            collector.add_piece(*waiting)
        raise ValueError(long.message(collector.line)) from None
    if waiting is not None:
        collector.add_piece(*waiting)
    return collector.result()


def parse_ids(
    data: bytes, source: str = "<memory>", progress: Any = None, fmt: str = "auto"
) -> IDs:
    """Parse IDs, one per line, from bytes in memory (see :func:`read_ids`)."""
    return parse_stream(io.BytesIO(data), source, progress, fmt)


def read_ids(
    source: str | Path | IO[bytes],
    progress: bool | None = None,
    fmt: str = "auto",
    max_ids: int = MAX_IDS,
) -> IDs:
    """Read IDs, one per line, from a path, ``"-"`` (stdin) or a binary stream.

    Accepted, one kind per file: decimal integers up to 2^64 − 1 (leading zeros are kept as
    part of the text: Redis stores ``"007"`` as a string), hexadecimal IDs of up to 32 digits
    with or without ``0x``, and UUIDs (``8-4-4-4-12``). ``fmt`` ("auto", "dec", "hex", "uuid")
    names the kind; "auto" takes the kind of the first ID (a first ID like ``1E5`` is
    ambiguous: :meth:`_Collector._decide`) and refuses a line of another kind (a decimal file
    with one ``deadbeef`` in it is a mistake, not a hex file). Blank lines and spaces around a
    value are ignored; anything else raises ``ValueError`` naming the first bad line, as soon
    as it is read, and so do more than ``max_ids`` IDs (:data:`MAX_IDS`). ``progress``
    (default: when stderr is a terminal) prints the bytes read on stderr.
    """
    from setlab.core.progress import Progress

    if progress is None:
        progress = sys.stderr.isatty()
    if isinstance(source, str | Path):
        name = str(source)
        if name == "-":
            return read_ids(sys.stdin.buffer, progress, fmt, max_ids)
        path = Path(name)
        if path.is_dir():
            raise ValueError(f"{name} is a directory, not a file of IDs")
        if not path.exists():
            raise ValueError(f"{name}: no such file")
        with path.open("rb") as stream:
            report = Progress(file_size(stream), f"reading {name}", progress, unit="bytes")
            try:
                return parse_stream(stream, name, report, fmt, max_ids)
            finally:
                if report.done > BLOCK_BYTES:
                    report.close()
    name = getattr(source, "name", "<stream>")
    report = Progress(None, "reading", progress, unit="bytes")
    try:
        return parse_stream(source, str(name), report, fmt, max_ids)
    finally:
        if report.done > BLOCK_BYTES:
            report.close()


def is_regular(stream: IO[bytes]) -> bool:
    """Whether an open file is a regular file: one that can be read again from its start. A
    pipe, a FIFO or a process substitution (``<(cmd)``) gives its bytes once."""
    return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)


def file_size(stream: IO[bytes]) -> int | None:
    """The bytes an open file holds, for a progress line: its size when it is a regular file,
    else None (a pipe's ``st_size`` is 0, or what is buffered, never what is to come)."""
    return os.fstat(stream.fileno()).st_size if is_regular(stream) else None


def texts(ids: IDs, where: np.ndarray) -> list[str]:
    """The IDs at the indices ``where`` as text, in the canonical form of the length each was
    read with (decimal zero-padded, hex lower-case zero-padded, UUIDs ``8-4-4-4-12``)."""
    out = []
    for i in np.asarray(where).tolist():
        length = int(ids.lengths[i])
        if ids.kind == "decimal":
            out.append(str(int(ids.values[i])).rjust(length, "0"))
        elif ids.kind == "uuid":
            value = (int(ids.high[i]) << 64) | int(ids.values[i])
            text = f"{value:032x}"
            out.append(f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}")
        else:
            value = int(ids.values[i]) | (0 if ids.high is None else int(ids.high[i]) << 64)
            out.append(f"{value:x}".rjust(length, "0"))
    return out


def set_members(
    ids: IDs, first: np.ndarray | None = None, *, distinct: np.ndarray | None = None
) -> Members:
    """What the Redis SET model (:class:`setlab.models.redis_memory.Members`) needs to know about
    the distinct IDs, as written in the file (a SET stores each ID's text).

    ``first`` indexes one occurrence of each distinct ID (computed when not given). Or, for
    64-bit IDs each written one way only (canonical decimals, or all of one length),
    ``distinct`` — their sorted distinct values, uint64 or (all below 2^32) uint32 — stands in
    for it. Grouped by text length (a member's sds allocation depends only on it): exact for a
    hash table set; small sets are summarised from the members themselves.
    """
    from setlab.models import redis_memory

    if distinct is not None and first is None and distinct.size > 4096:
        canonical = ids.kind == "decimal" and bool(ids.canonical.all())
        values = distinct
        if canonical:  # digits of each sorted value: the IDs between powers of ten
            bounds = np.r_[_POWERS_OF_TEN, np.uint64(2**64 - 1)]
            if distinct.dtype == np.uint32:  # searched as uint32: no uint64 copy of the IDs
                bounds = np.minimum(bounds, np.uint64(2**32 - 1)).astype(np.uint32)
            cuts = np.searchsorted(distinct, bounds, "right")
            counts = np.diff(np.r_[0, cuts])
            found = np.flatnonzero(counts) + 1
            counts = counts[found - 1]
        else:  # all written with one length
            found, counts = ids.lengths[:1].astype(np.int64), np.array([values.size])
    else:
        if first is None:
            if ids.high is None:
                _, first = np.unique(ids.values, return_index=True)
            else:
                pairs = np.stack([ids.high, ids.values], axis=1)
                _, first = np.unique(pairs, axis=0, return_index=True)
        if first.size <= 4096:
            return redis_memory.Members.of(texts(ids, first))
        values = ids.values[first]
        canonical = ids.kind == "decimal" and ids.canonical[first].all()
        found, counts = np.unique(ids.lengths[first], return_counts=True)
    integer = bool(canonical and (values < np.uint64(2**63)).all())
    width = 0
    if integer:
        width = redis_memory.intset_width(int(values.max()))
    parts = (
        redis_memory.Members.fixed_length(int(count), int(length))
        for length, count in zip(found, counts, strict=True)
    )
    return redis_memory.Members.disjoint_union(parts, integers=integer, int_width=width)
