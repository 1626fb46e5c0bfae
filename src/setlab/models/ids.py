"""IDs as a service exports them: one per line, decimal, hexadecimal or UUIDs, read with numpy.

Seed 003's advice starts with a file of IDs ("histogram your IDs first"). This module reads one:

* :func:`read_ids` reads decimal integers, hexadecimal strings (``a1b2c3d4e5f60718`` or
  ``0x…``) or UUIDs from a file or a binary stream, vectorised with numpy (a million lines in
  well under a second), with a progress line on stderr. Anything else is a ``ValueError`` that
  names the line;
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
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from setlab.core.arrays import Growing
from setlab.core.validate import check_int
from setlab.models import decimal_lines

if TYPE_CHECKING:
    from setlab.models.redis_memory import Members

#: Longest line accepted, whitespace included (a UUID is 36 characters, 128-bit hex 34).
MAX_LINE = 100
#: Bytes read and parsed per step (a few hundred thousand lines).
BLOCK_BYTES = 8 << 20
U64_MAX_TEXT = b"18446744073709551615"  # 2^64 - 1, 20 digits
_POWERS_OF_TEN = np.array([10**d - 1 for d in range(1, 20)], dtype=np.uint64)  # 9, 99, …

# character classes of the parser
_PAD, _SPACE, _DIGIT, _HEX, _X, _DASH, _BAD = range(7)
_CLASS = np.full(256, _BAD, dtype=np.uint8)
_CLASS[0] = _PAD
_CLASS[[ord(c) for c in " \t\r\v\f"]] = _SPACE
_CLASS[ord("0") : ord("9") + 1] = _DIGIT
_CLASS[ord("a") : ord("f") + 1] = _HEX
_CLASS[ord("A") : ord("F") + 1] = _HEX
_CLASS[[ord("x"), ord("X")]] = _X
_CLASS[ord("-")] = _DASH
_NIBBLE = np.zeros(256, dtype=np.uint64)
_NIBBLE[ord("0") : ord("9") + 1] = np.arange(10, dtype=np.uint64)
_NIBBLE[ord("a") : ord("f") + 1] = np.arange(10, 16, dtype=np.uint64)
_NIBBLE[ord("A") : ord("F") + 1] = np.arange(10, 16, dtype=np.uint64)
# row classes
_BLANK, _DECIMAL, _HEXROW, _PREFIXED, _UUID, _OTHER = range(6)
_ROW_NAMES = {
    _DECIMAL: "a decimal integer",
    _HEXROW: "a hexadecimal ID",
    _PREFIXED: "a 0x hexadecimal ID",
    _UUID: "a UUID",
}
_UUID_DASHES = (8, 13, 18, 23)
_UUID_HEX_COLUMNS = np.array([j for j in range(36) if j not in _UUID_DASHES])


# -- reading IDs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class IDs:
    """IDs as read from a file: their values and what their text looks like.

    ``values`` are unsigned 64-bit integers; IDs wider than 64 bits (UUIDs, 128-bit hex) keep their
    low half there and their high half in ``high``. ``lengths`` is the number of characters each
    ID was written with — what a Redis SET of the IDs as strings would store.
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


class _Block:
    """One block of lines, classified: left-aligned characters, lengths and row classes."""

    def __init__(self, data: bytes, first_line: int) -> None:
        self.first_line = first_line  # 1-based number of the block's first line
        self._lines = data.split(b"\n")
        if self._lines and self._lines[-1] == b"":
            self._lines.pop()
        longest = max(map(len, self._lines), default=0)
        if longest > MAX_LINE:
            i = next(i for i, line in enumerate(self._lines) if len(line) > MAX_LINE)
            raise ValueError(
                f"line {first_line + i}: {len(self._lines[i]):,} characters long, not an ID "
                f"(at most {MAX_LINE} per line)"
            )
        if b"\x00" in data:
            i = next(i for i, line in enumerate(self._lines) if b"\x00" in line)
            raise ValueError(f"line {first_line + i}: a NUL byte: this is not a text file of IDs")
        n = len(self._lines)
        raw = np.array(self._lines, dtype=f"S{max(longest, 1)}")
        matrix = raw.view(np.uint8).reshape(n, max(longest, 1))
        cls = _CLASS[matrix]
        content = cls >= _DIGIT
        has = content.any(axis=1)
        width = matrix.shape[1]
        first = np.argmax(content, axis=1)
        last = width - 1 - np.argmax(content[:, ::-1], axis=1)
        self.length = np.where(has, last - first + 1, 0).astype(np.int16)
        if np.any(has & (content.sum(axis=1) != self.length)):
            self._fail(np.flatnonzero(has & (content.sum(axis=1) != self.length))[0],
                       "two values, or a space inside a value")  # fmt: skip
        if np.any(first[has] > 0):  # leading whitespace: shift every row to start at column 0
            columns = np.minimum(first[:, None] + np.arange(width)[None, :], width - 1)
            matrix = np.take_along_axis(matrix, columns, axis=1)
            matrix[np.arange(width)[None, :] >= self.length[:, None]] = 0
            cls = _CLASS[matrix]
        else:
            matrix = np.where(np.arange(width)[None, :] < self.length[:, None], matrix, 0)
            matrix = matrix.astype(np.uint8)
            cls = _CLASS[matrix]
        self.matrix = matrix
        self.row = self._classify(cls, has)
        bad = np.flatnonzero(self.row == _OTHER)
        if bad.size:
            self._fail(bad[0], "not an ID (expected a decimal integer, hex or a UUID)")
        del self._lines  # valid from here on: error texts come from the characters kept

    def _classify(self, cls: np.ndarray, has: np.ndarray) -> np.ndarray:
        inside = np.arange(cls.shape[1])[None, :] < self.length[:, None]
        digits = np.all((cls == _DIGIT) | ~inside, axis=1)
        hexish = np.all(((cls == _DIGIT) | (cls == _HEX)) | ~inside, axis=1)
        row = np.full(cls.shape[0], _OTHER, dtype=np.uint8)
        row[hexish] = _HEXROW
        row[digits] = _DECIMAL
        if cls.shape[1] >= 3:
            prefix = (self.matrix[:, 0] == ord("0")) & (cls[:, 1] == _X) & (self.length > 2)
            tail = inside.copy()
            tail[:, :2] = False
            rest = np.all(((cls == _DIGIT) | (cls == _HEX)) | ~tail, axis=1)
            row[prefix & rest] = _PREFIXED
        if cls.shape[1] >= 36:
            dashes = np.all(cls[:, list(_UUID_DASHES)] == _DASH, axis=1)
            hexes = np.all(
                (cls[:, _UUID_HEX_COLUMNS] == _DIGIT) | (cls[:, _UUID_HEX_COLUMNS] == _HEX), axis=1
            )
            row[(self.length == 36) & dashes & hexes] = _UUID
        row[~has] = _BLANK
        return row

    def _text(self, i: int) -> str:
        """Line ``i`` as the user wrote it (while classifying) or as kept (after), shortened."""
        raw = self._lines[i] if hasattr(self, "_lines") else bytes(self.matrix[i]).rstrip(b"\0")
        text = raw.decode("utf-8", "backslashreplace").strip()
        return text if len(text) <= 40 else text[:37] + "..."

    def _fail(self, i: int, what: str) -> None:
        header = self.first_line + i == 1 and what.startswith("not an ID")
        hint = " (a header line? remove it)" if header else ""
        raise ValueError(f"line {self.first_line + i}: {self._text(i)!r} is {what}{hint}")

    def line_text(self, i: int) -> str:
        return self._text(i)


def _decimal_values(block: _Block) -> np.ndarray:
    keep = block.row != _BLANK
    matrix, length = block.matrix[keep], block.length[keep]
    if length.size and length.max() > 20:
        i = np.flatnonzero(keep)[np.argmax(length > 20)]
        block._fail(i, "more than 20 digits: above 2^64 − 1, the largest ID this tool reads")
    width = min(matrix.shape[1], 20)
    values = np.zeros(length.size, dtype=np.uint64)
    digits = matrix[:, :width].astype(np.uint64) - np.uint64(ord("0"))
    for j in range(width):
        active = j < length
        values = np.where(active, values * np.uint64(10) + digits[:, j], values)
    if width == 20:
        twenty = length == 20
        text = np.ascontiguousarray(matrix[:, :20]).view("S20").ravel()
        over = twenty & (text > U64_MAX_TEXT)
        if over.any():
            block._fail(np.flatnonzero(keep)[np.argmax(over)], "above 2^64 − 1")
    return values


def _hex_values(block: _Block, wide: bool) -> tuple[np.ndarray, np.ndarray | None]:
    keep = block.row != _BLANK
    matrix, length = block.matrix[keep], block.length[keep]
    nibbles = _NIBBLE[matrix]
    low = np.zeros(length.size, dtype=np.uint64)
    high = np.zeros(length.size, dtype=np.uint64) if wide else None
    for j in range(matrix.shape[1]):
        active = j < length
        from_end = length - 1 - j
        in_low = active & (from_end < 16)
        low = np.where(in_low, (low << np.uint64(4)) | nibbles[:, j], low)
        if wide:
            in_high = active & (from_end >= 16)
            high = np.where(in_high, (high << np.uint64(4)) | nibbles[:, j], high)
    return low, high


def _uuid_values(block: _Block) -> tuple[np.ndarray, np.ndarray]:
    keep = block.row != _BLANK
    nibbles = _NIBBLE[block.matrix[keep][:, _UUID_HEX_COLUMNS]]
    high = np.zeros(nibbles.shape[0], dtype=np.uint64)
    low = np.zeros(nibbles.shape[0], dtype=np.uint64)
    for j in range(16):
        high = (high << np.uint64(4)) | nibbles[:, j]
        low = (low << np.uint64(4)) | nibbles[:, 16 + j]
    return low, high


def _hex_digits(block: _Block) -> np.ndarray:
    keep = block.row != _BLANK
    return block.length[keep] - 2 * (block.row[keep] == _PREFIXED)


#: ``--format`` values: "auto" lets the first ID decide, the others name the kind
FORMATS = ("auto", "dec", "hex", "uuid")
_KIND_OF_FORMAT = {"dec": "decimal", "hex": "hex", "uuid": "uuid"}
_KIND_OF_ROW = {_DECIMAL: "decimal", _HEXROW: "hex", _PREFIXED: "hex", _UUID: "uuid"}
#: the rows each kind of file accepts (a hex ID may happen to have no letter)
_ROWS_OF_KIND = {
    "decimal": np.array([_DECIMAL]),
    "hex": np.array([_DECIMAL, _HEXROW, _PREFIXED]),
    "uuid": np.array([_UUID]),
}
_FORMAT_OF_KIND = {"decimal": "dec", "hex": "hex", "uuid": "uuid"}


class _LongLine(Exception):
    """A line longer than :data:`MAX_LINE`; ``data[:end]`` holds the whole lines before it."""

    def __init__(self, data: bytes, end: int) -> None:
        super().__init__()
        self.data, self.end = data, end

    def message(self, line: int) -> str:
        """The error for a block whose first line is number ``line``."""
        at = line + int(np.count_nonzero(np.frombuffer(self.data, np.uint8, self.end) == 0x0A))
        return (f"line {at}: more than {MAX_LINE} characters without a line break: not a file "
                "of IDs (one per line)")  # fmt: skip


def _pieces(stream: IO[bytes], progress: Any) -> Iterable[tuple[bytes, int]]:
    """The stream cut at line ends into pieces of about :data:`BLOCK_BYTES`: ``(data, end)``,
    ``data[:end]`` whole lines. A file is read on from the start of the line a block cut (no
    copy to join it to the next block). A line longer than :data:`MAX_LINE` raises
    :class:`_LongLine` at once: a 2 GB file with no line break costs one block of memory."""
    carry, first, seekable = b"", True, stream.seekable()
    while chunk := stream.read(BLOCK_BYTES):
        if first and chunk.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark
            chunk = chunk[3:]
        first = False
        data = carry + chunk  # no copy while carry is empty
        end = data.rfind(b"\n") + 1
        cut = len(data) - end
        if cut > MAX_LINE:
            raise _LongLine(data, end)
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


class _Collector:
    """IDs parsed block by block as they are read: the kind of ID is fixed by ``--format`` or,
    with "auto", by the first ID; a line of another kind stops the read at once."""

    def __init__(self, fmt: str, source: str, size: int | None = None) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
        self.fmt, self.source, self.size = fmt, source, size
        self.kind = _KIND_OF_FORMAT.get(fmt)
        self.first: tuple[int, int] | None = None  # line and row class of the first ID
        self.values, self.highs = Growing(np.uint64), Growing(np.uint64)
        self.lengths, self.canonical = Growing(np.uint8), Growing(bool)
        self.blank = 0
        self.hex_digits = 0
        self.reserved = False
        self.line = 1  # the number of the next piece's first line

    def _reserve(self, lines: int, nbytes: int) -> None:
        """Once: room for the IDs of a file of ``size`` bytes like its first piece (``lines``
        IDs in ``nbytes``), 5% more; if refused, the columns grow as the IDs come instead."""
        if self.size and not self.reserved and lines:
            self.reserved = True
            expected = int(self.size / nbytes * lines * 1.05) + 64
            columns = [self.values, self.lengths, self.canonical]
            try:
                for column in columns + ([self.highs] if self.kind in ("uuid", "hex") else []):
                    column.reserve(expected)
            except MemoryError:
                pass

    def start(self, data: bytes, end: int) -> decimal_lines.Conversion | None:
        """Start converting ``data[:end]`` on the fast path of :mod:`setlab.models.decimal_lines`
        while the file may still be plain decimal lines (the usual export), else None."""
        return decimal_lines.Conversion(data, end) if self.kind in (None, "decimal") else None

    def add_piece(self, data: bytes, end: int, started: decimal_lines.Conversion | None) -> None:
        """Add the next piece of whole lines, ``data[:end]``: what :meth:`start` converted if it
        was plain (one ID a line), else (or when the file turned out not to be decimal) through
        :class:`_Block`."""
        plain = None if started is None else started.result()
        if plain is not None and self.kind in (None, "decimal"):
            if self.first is None:
                self.first, self.kind = (self.line, _DECIMAL), "decimal"
            lines = sum(part[0].size for part in plain)
            self._reserve(lines, end)
            for values, lengths, canonical in plain:
                self.values.append(values)
                self.lengths.append(lengths)
                self.canonical.append(canonical)
            self.line += lines
            return
        before = self.values.size
        block = _Block(data[:end], self.line)
        self.add(block)
        self._reserve(self.values.size - before, end)
        self.line += block.row.size

    def add(self, block: _Block) -> None:
        ids = np.flatnonzero(block.row != _BLANK)
        self.blank += int(block.row.size - ids.size)
        if not ids.size:
            return
        if self.first is None:
            self.first = (block.first_line + int(ids[0]), int(block.row[ids[0]]))
            self.kind = self.kind or _KIND_OF_ROW[int(block.row[ids[0]])]
        wrong = ids[~np.isin(block.row[ids], _ROWS_OF_KIND[self.kind])]
        if wrong.size:
            self._refuse(block, int(wrong[0]))
        keep = block.row != _BLANK
        if self.kind == "decimal":
            self.values.append(_decimal_values(block))
            self.canonical.append((block.matrix[keep, 0] != ord("0")) | (block.length[keep] == 1))
        elif self.kind == "uuid":
            low, high = _uuid_values(block)
            self.values.append(low)
            self.highs.append(high)
            self.canonical.append(np.zeros(low.size, dtype=bool))
        else:
            digits = _hex_digits(block)
            if digits.size and digits.max() > 32:
                block._fail(
                    ids[np.argmax(digits > 32)], "more than 32 hex digits: wider than 128 bits"
                )
            self.hex_digits = max(self.hex_digits, int(digits.max(initial=0)))
            low, high = _hex_values(block, wide=True)
            self.values.append(low)
            self.highs.append(high)
            self.canonical.append(np.zeros(low.size, dtype=bool))
        self.lengths.append(block.length[keep].astype(np.uint8))

    def _refuse(self, block: _Block, i: int) -> None:
        line, row = block.first_line + i, int(block.row[i])
        what = _ROW_NAMES.get(row, "not an ID")
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
            f"{_ROW_NAMES[first_row]}: one kind of ID per file{hint}"
        )

    def result(self) -> IDs:
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
    size: int | None = None,
) -> IDs:
    """Parse IDs, one per line, from a binary stream, block by block (see :func:`read_ids`).

    Memory holds two blocks of text at a time (the next one is read while the one before is
    converted) plus the parsed values (8 bytes per ID, 16 for 128-bit IDs); the first bad line
    stops the read one block later at most. ``progress`` is an object with
    ``update(count)`` (a :class:`setlab.core.progress.Progress`), told the bytes read.
    ``size``, the stream's length in bytes when known, reserves room for the values ahead.
    """
    collector = _Collector(fmt, source, size)
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
    source: str | Path | IO[bytes], progress: bool | None = None, fmt: str = "auto"
) -> IDs:
    """Read IDs, one per line, from a path, ``"-"`` (stdin) or a binary stream.

    Accepted, one kind per file: decimal integers up to 2^64 − 1 (leading zeros are kept as
    part of the text: Redis stores ``"007"`` as a string), hexadecimal IDs of up to 32 digits
    with or without ``0x``, and UUIDs (``8-4-4-4-12``). ``fmt`` ("auto", "dec", "hex", "uuid")
    names the kind; "auto" takes the kind of the first ID and refuses a line of another kind
    (a decimal file with one ``deadbeef`` in it is a mistake, not a hex file). Blank lines and
    spaces around a value are ignored; anything else raises ``ValueError`` naming the first bad
    line, as soon as it is read. ``progress`` (default: when stderr is a terminal) prints the
    bytes read on stderr.
    """
    from setlab.core.progress import Progress

    if progress is None:
        progress = sys.stderr.isatty()
    if isinstance(source, str | Path):
        name = str(source)
        if name == "-":
            return read_ids(sys.stdin.buffer, progress, fmt)
        path = Path(name)
        if path.is_dir():
            raise ValueError(f"{name} is a directory, not a file of IDs")
        if not path.exists():
            raise ValueError(f"{name}: no such file")
        report = Progress(path.stat().st_size, f"reading {name}", progress, unit="bytes")
        with path.open("rb") as stream:
            try:
                return parse_stream(stream, name, report, fmt, path.stat().st_size)
            finally:
                if report.done > BLOCK_BYTES:
                    report.close()
    name = getattr(source, "name", "<stream>")
    report = Progress(None, "reading", progress, unit="bytes")
    try:
        return parse_stream(source, str(name), report, fmt)
    finally:
        if report.done > BLOCK_BYTES:
            report.close()


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
    sds = listpack = 0
    for length, count in zip(found, counts, strict=True):
        part = redis_memory.Members.fixed_length(int(count), int(length))
        sds += part.sds_bytes
        listpack += part.listpack_bytes
    return redis_memory.Members(int(values.size), sds, integer, width, int(found.max()), listpack)
