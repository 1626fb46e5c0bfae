"""``setlab advise``: seed 003's closing advice ("histogram your IDs first") as a tool.

Seed 003 ends with: before choosing a structure, count your IDs, draw a histogram of them, then
decide. This module does that for a file of IDs, one per line:

* :func:`read_ids` reads decimal integers, hexadecimal strings (``a1b2c3d4e5f60718`` or
  ``0x…``) or UUIDs from a file or a binary stream, vectorised with numpy (a million lines in
  well under a second), with a progress line on stderr. Anything else is a ``ValueError`` that
  names the line;
* :func:`analyse` reports what the structures care about: how many IDs and duplicates, their
  range and bit width, the density of the range, and how they fall into Roaring's 2^16-value
  chunks (the per-chunk histogram: a chunk with more than 4,096 IDs is a bitmap container);
* :func:`candidates` prices every structure the book discusses for *these* IDs — Redis SET
  (:mod:`setlab.models.redis_memory`, exact for Redis 7.0), a plain bitmap (:mod:`setlab.models.bitmap`),
  Roaring (:mod:`setlab.models.roaring`), a Bloom filter (:mod:`setlab.models.bloom`) and a cuckoo filter
  (:mod:`setlab.models.cuckoo`) at the chosen error, and HyperLogLog — with what each cannot do here;
* :func:`recommend` picks one and says why.

The models are the chapters' models; this module only decides which to ask and what to do with
the answers.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from setlab.core.validate import check_int, check_probability

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Longest line accepted, whitespace included (a UUID is 36 characters, 128-bit hex 34).
MAX_LINE = 100
#: Bytes read and parsed per step (a few hundred thousand lines).
BLOCK_BYTES = 8 << 20
#: Values in one Roaring chunk (container): 2^16.
CHUNK = 1 << 16
#: IDs per chunk above which Roaring switches from an array to a bitmap container.
ARRAY_MAX = 4096
U64_MAX_TEXT = b"18446744073709551615"  # 2^64 - 1, 20 digits

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


# -- reading IDs ---------------------------------------------------------------------------------


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


def _file_kind(blocks: list[_Block]) -> str:
    """One kind of ID per file: "decimal", "hex" or "uuid" (or a ValueError naming the line)."""
    seen = np.zeros(6, dtype=bool)
    for block in blocks:
        seen[np.unique(block.row)] = True
    if seen[_UUID] and seen[[_DECIMAL, _HEXROW, _PREFIXED]].any():
        first_kind = None
        for block in blocks:
            for i in np.flatnonzero(block.row != _BLANK):
                kind = _UUID if block.row[i] == _UUID else _DECIMAL
                if first_kind is None:
                    first_kind, first_line, first_row = kind, block.first_line + i, block.row[i]
                elif kind != first_kind:
                    raise ValueError(
                        f"line {block.first_line + i}: {block.line_text(i)!r} is "
                        f"{_ROW_NAMES[int(block.row[i])]} but line {first_line} is "
                        f"{_ROW_NAMES[int(first_row)]}: one kind of ID per file"
                    )
    if seen[_UUID]:
        return "uuid"
    if seen[_HEXROW] or seen[_PREFIXED]:
        return "hex"
    if seen[_DECIMAL]:
        return "decimal"
    raise ValueError("no IDs found: the input is empty or blank")


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


def _blocks(data: bytes, start_line: int = 1) -> Iterable[tuple[bytes, int]]:
    """``data`` cut at line ends into pieces of about :data:`BLOCK_BYTES`, with line numbers."""
    start, line = 0, start_line
    while start < len(data):
        end = data.find(b"\n", min(start + BLOCK_BYTES, len(data)) - 1)
        end = len(data) if end < 0 else end + 1
        piece = data[start:end]
        yield piece, line
        line += piece.count(b"\n") + (0 if piece.endswith(b"\n") else 1)
        start = end


def parse_ids(data: bytes, source: str = "<memory>", progress: Any = None) -> IDs:
    """Parse IDs, one per line, from bytes (see :func:`read_ids` for the accepted forms).

    ``progress`` is an object with ``update(count)`` (a :class:`setlab.models.bloom.Progress`), told
    the bytes parsed.
    """
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark
        data = data[3:]
    blocks = []
    for piece, line in _blocks(data):
        blocks.append(_Block(piece, line))
        if progress is not None:
            progress.update(len(piece))
    kind = _file_kind(blocks)
    blank = sum(int((b.row == _BLANK).sum()) for b in blocks)
    if kind == "decimal":
        values = [_decimal_values(b) for b in blocks]
        highs = None
    elif kind == "uuid":
        pairs = [_uuid_values(b) for b in blocks]
        values, highs = [p[0] for p in pairs], [p[1] for p in pairs]
    else:
        wide = max(int(_hex_digits(b).max(initial=0)) for b in blocks) > 16
        for b in blocks:
            digits = _hex_digits(b)
            if digits.size and digits.max() > 32:
                i = np.flatnonzero(b.row != _BLANK)[np.argmax(digits > 32)]
                b._fail(i, "more than 32 hex digits: wider than 128 bits")
        pairs = [_hex_values(b, wide) for b in blocks]
        values = [p[0] for p in pairs]
        highs = [p[1] for p in pairs] if wide else None
    keep = [b.row != _BLANK for b in blocks]
    lengths = np.concatenate([b.length[k] for b, k in zip(blocks, keep, strict=True)])
    if kind == "decimal":
        canonical = np.concatenate(
            [(b.matrix[k, 0] != ord("0")) | (b.length[k] == 1) for b, k in
             zip(blocks, keep, strict=True)]
        )  # fmt: skip
    else:
        canonical = np.zeros(lengths.size, dtype=bool)
    return IDs(
        kind,
        np.concatenate(values).astype(np.uint64),
        None if highs is None else np.concatenate(highs).astype(np.uint64),
        lengths.astype(np.uint8),
        canonical,
        blank,
        source,
    )


def read_ids(source: str | Path | IO[bytes], progress: bool | None = None) -> IDs:
    """Read IDs, one per line, from a path, ``"-"`` (stdin) or a binary stream.

    Accepted, one kind per file: decimal integers up to 2^64 − 1 (leading zeros are kept as
    part of the text: Redis stores ``"007"`` as a string), hexadecimal IDs of up to 32 digits
    with or without ``0x``, and UUIDs (``8-4-4-4-12``). Blank lines and spaces around a value are
    ignored; anything else raises ``ValueError`` naming the first bad line. ``progress`` (default:
    when stderr is a terminal) prints bytes read and parsed on stderr.
    """
    from setlab.models.bloom import Progress

    if progress is None:
        progress = sys.stderr.isatty()
    if isinstance(source, str | Path):
        name = str(source)
        if name == "-":
            return read_ids(sys.stdin.buffer, progress)
        path = Path(name)
        if path.is_dir():
            raise ValueError(f"{name} is a directory, not a file of IDs")
        if not path.exists():
            raise ValueError(f"{name}: no such file")
        total = path.stat().st_size
        with path.open("rb") as stream:
            data = _read_all(stream, Progress(total, f"reading {name}", progress, unit="bytes"))
    else:
        name = getattr(source, "name", "<stream>")
        data = _read_all(source, Progress(None, "reading", progress, unit="bytes"))
    report = Progress(len(data), "parsing", progress and len(data) > BLOCK_BYTES, unit="bytes")
    try:
        return parse_ids(data, source=str(name), progress=report)
    finally:
        if report.done:
            report.close()


def _read_all(stream: IO[bytes], progress: Any) -> bytes:
    chunks = []
    try:
        while chunk := stream.read(BLOCK_BYTES):
            chunks.append(chunk)
            progress.update(len(chunk))
    finally:
        if progress.done > BLOCK_BYTES:
            progress.close()
    return b"".join(chunks)


# -- what the IDs look like -----------------------------------------------------------------------

#: Bins of the per-chunk histogram: IDs in a 2^16 chunk (inclusive bounds). 4,096 is Roaring's
#: switch from an array container (2 bytes an ID) to a bitmap container (8 KiB).
CHUNK_BINS = ((1, 1), (2, 3), (4, 15), (16, 63), (64, 255), (256, 1023), (1024, 4096),
              (4097, 16383), (16384, 65535), (65536, 65536))  # fmt: skip
#: Bins of the histogram of IDs over their range.
RANGE_BINS = 64


@dataclass(frozen=True)
class RoaringFigures:
    """What a Roaring bitmap of the IDs looks like (:mod:`setlab.models.roaring`'s model)."""

    serialized_bytes: int  #: portable serialization after run_optimize()
    plain_bytes: int  #: serialization without run containers
    containers: int
    buckets: int | None  #: 2^32-value buckets of a Roaring64 bitmap (None: 32-bit)
    estimated: bool = False  #: scaled from a sample (IDs too many to materialise)

    @classmethod
    def of(cls, layout: Any) -> RoaringFigures:
        """From a :class:`setlab.models.roaring.Layout` or :class:`~setlab.models.roaring.Layout64`."""
        from setlab.models import roaring

        wide = isinstance(layout, roaring.Layout64)
        plain = layout.layout if wide else layout
        kinds = roaring.choose_kinds(plain.cardinality, plain.runs, True)
        runs = roaring.Layout(plain.keys, plain.cardinality, plain.runs, kinds)
        if not wide:
            return cls(runs.serialized_bytes, plain.serialized_bytes, plain.containers, None)
        keys = plain.keys.astype(np.uint64) >> np.uint64(16)  # sorted: count the changes
        buckets = int(np.count_nonzero(keys[1:] != keys[:-1])) + 1 if keys.size else 0
        return cls(roaring.Layout64(runs).serialized_bytes, layout.serialized_bytes,
                   plain.containers, buckets)  # fmt: skip


@dataclass(frozen=True)
class Analysis:
    """What a set of IDs looks like to the structures that could hold it."""

    source: str
    kind: str  #: "decimal", "hex" or "uuid"
    bits: int  #: 64, or 128 for UUIDs and long hex IDs
    ids: int  #: non-blank lines
    blank_lines: int
    distinct: int
    duplicates: int  #: ids - distinct
    most_repeated: tuple[str, int] | None  #: the ID seen most often and how often, if any twice
    low: int  #: smallest ID
    high: int  #: largest ID
    runs: int  #: runs of consecutive integers among the distinct IDs
    leading_zeros: int  #: decimal IDs written with leading zeros (Redis keeps them as strings)
    range_edges: np.ndarray  #: RANGE_BINS + 1 bin edges over [low, high] (floats)
    range_counts: np.ndarray  #: distinct IDs per bin
    chunk_counts: np.ndarray | None  #: distinct IDs in each non-empty 2^16 chunk (None: 128-bit)
    roaring: RoaringFigures | None  #: None for 128-bit IDs
    members: Any = field(repr=False)  #: redis_memory.Members of the distinct IDs as written
    notes: tuple[str, ...] = ()

    @property
    def bit_width(self) -> int:
        """Bits needed for the largest ID."""
        return max(1, self.high.bit_length())

    @property
    def span(self) -> int:
        """Values from the smallest to the largest ID, both included."""
        return self.high - self.low + 1

    @property
    def density(self) -> float:
        """Share of the values in ``[low, high]`` that are IDs."""
        return self.distinct / self.span

    @property
    def chunks(self) -> int | None:
        return None if self.chunk_counts is None else int(self.chunk_counts.size)

    @property
    def bitmap_chunks(self) -> int:
        """Chunks with more than 4,096 IDs: Roaring stores them as 8 KiB bitmaps."""
        return 0 if self.chunk_counts is None else int((self.chunk_counts > ARRAY_MAX).sum())

    def chunk_histogram(self) -> list[tuple[int, int, int]]:
        """``(low, high, chunks)`` for each of :data:`CHUNK_BINS` (IDs per chunk, inclusive)."""
        if self.chunk_counts is None:
            return []
        return [(a, b, int(((self.chunk_counts >= a) & (self.chunk_counts <= b)).sum()))
                for a, b in CHUNK_BINS]  # fmt: skip


def _sorted_distinct(ids: IDs) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
    """Distinct values ascending (low, high halves), the index of each one's first occurrence,
    and how often each occurs."""
    if ids.high is None:
        order = np.argsort(ids.values, kind="stable")
        low = ids.values[order]
        new = np.r_[True, low[1:] != low[:-1]] if low.size else np.zeros(0, dtype=bool)
        high = None
    else:
        order = np.lexsort((ids.values, ids.high))
        low, high = ids.values[order], ids.high[order]
        new = np.r_[True, (low[1:] != low[:-1]) | (high[1:] != high[:-1])]
        high = high[new]
    starts = np.flatnonzero(new)
    counts = np.diff(np.r_[starts, order.size])
    return low[new], high, order[starts], counts


def analyse(ids: IDs) -> Analysis:
    """Count, range, density, duplicates and the per-chunk histogram of ``ids``."""
    from setlab.models import roaring
    from setlab.tools import calc

    if len(ids) == 0:
        raise ValueError(f"{ids.source}: no IDs to analyse")
    low_half, high_half, first, counts = _sorted_distinct(ids)
    distinct = int(low_half.size)
    most = None
    if counts.max() > 1:
        j = int(np.argmax(counts))
        most = (calc._texts(ids, np.array([first[j]]))[0], int(counts[j]))
    notes: list[str] = []
    if high_half is None:
        low, high = int(low_half[0]), int(low_half[-1])
        runs = int(np.count_nonzero(np.diff(low_half) != 1)) + 1
        edges, range_counts = _range_histogram(low_half.astype(np.float64), low, high)
        if high < 2**32:
            layout = roaring.layout(low_half)
            chunk_counts = layout.cardinality
        else:
            layout = roaring.layout64(low_half)
            chunk_counts = layout.layout.cardinality
        figures = RoaringFigures.of(layout)
        notes += _integer_notes(ids, low, high)
    else:
        low = (int(high_half[0]) << 64) | int(low_half[0])
        high = (int(high_half[-1]) << 64) | int(low_half[-1])
        runs = distinct
        top = high_half.astype(np.float64) * 2.0**64 + low_half.astype(np.float64)
        edges, range_counts = _range_histogram(top, low, high)
        figures, chunk_counts = None, None
        if ids.kind == "uuid":
            notes.append(_uuid_note(high_half))
    leading = int((~ids.canonical).sum()) if ids.kind == "decimal" else 0
    if leading:
        notes.append(f"{leading:,} IDs are written with leading zeros: Redis stores those as "
                     "strings, and '007' and '7' are different members")  # fmt: skip
    return Analysis(
        ids.source, ids.kind, ids.bits, len(ids), ids.blank_lines, distinct, len(ids) - distinct,
        most, low, high, runs, leading, edges, np.asarray(range_counts), chunk_counts, figures,
        calc.members_of_ids(ids, first), tuple(notes),
    )  # fmt: skip


def _range_histogram(values: np.ndarray, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
    """:data:`RANGE_BINS` equal bins over ``[low, high]`` (one bin around a single value)."""
    if high == low:
        half = max(0.5, abs(float(low)) * 1e-6)  # a visible bin even around 2^127
        return np.array([low - half, low + half]), np.array([values.size])
    edges = np.linspace(float(low), float(high), RANGE_BINS + 1)
    return edges, np.histogram(values, bins=edges)[0]


def _integer_notes(ids: IDs, low: int, high: int) -> list[str]:
    from setlab.models import snowflake

    notes = []
    if high >= 2**63 and ids.kind == "decimal":
        notes.append("IDs at or above 2^63 are not Redis integers (signed 64-bit): a SET keeps "
                     "them as strings, and Java's long cannot hold them")  # fmt: skip
    if high > snowflake.JS_MAX_SAFE_INTEGER:
        notes.append("IDs above 2^53 lose precision as JavaScript numbers: send them as strings")
    if 2**55 <= high < 2**63:
        first, last = snowflake.TWITTER.unix_ms(low), snowflake.TWITTER.unix_ms(high)
        if last - first <= 3 * 365 * 86_400_000:
            notes.append(
                f"these look like snowflake IDs: with Twitter's epoch they were minted between "
                f"{snowflake.utc(first):%Y-%m-%d} and {snowflake.utc(last):%Y-%m-%d}; the time "
                "in the top bits spreads them over 2^64 (chapter snowflake-ranges)"
            )
    return notes


def _uuid_note(high_half: np.ndarray) -> str:
    versions = (high_half >> np.uint64(12)) & np.uint64(0xF)
    found, counts = np.unique(versions, return_counts=True)
    main = int(found[np.argmax(counts)])
    share = counts.max() / versions.size
    what = {4: "random (122 random bits)", 7: "time-ordered (48-bit ms timestamp first)",
            1: "time-based (v1)"}.get(main, f"version {main}")  # fmt: skip
    return (
        f"{share:.0%} are UUIDv{main}: {what}; as integers they are 128 bits wide, so no "
        "bitmap or Roaring bitmap can hold them without a dense remap"
    )


# -- the candidates -------------------------------------------------------------------------------

#: An exact structure is preferred while it costs at most this many times the smallest filter
#: that errs (a judgement: exactness, deletes and set algebra are worth a factor of two).
EXACT_PREMIUM = 2.0
#: ... or while it costs at most this many bytes more (seed 003: "don't optimise early").
EXACT_SLACK = 1 << 20
#: A structure built into Redis is preferred over Roaring (a module or client-side blob) while
#: it costs at most this many times as much.
NATIVE_PREMIUM = 1.25
#: ... or while it costs at most this many bytes more (not worth a module or client code).
NATIVE_SLACK = 1 << 20
#: One key above this many bytes is a "big key" (seed 000 §5): DEL blocks, one node holds it.
BIG_KEY_BYTES = 10 << 20
#: A first SETBIT that allocates this much stalls the server noticeably (chapter setbit-offset).
STALL_BYTES = 8 << 20


@dataclass(frozen=True)
class Needs:
    """What the IDs are for."""

    error: float = 0.01  #: false-positive rate a filter may have
    deletes: bool = False  #: IDs must be removable
    count_only: bool = False  #: only the number of distinct IDs is needed
    version: str = "7.0"  #: Redis version of the SET model

    def __post_init__(self) -> None:
        check_probability("error", self.error)
        if self.version not in ("7.0", "7.2"):
            raise ValueError(f"version must be 7.0 or 7.2; got {self.version!r}")


@dataclass(frozen=True)
class Candidate:
    """One structure, priced for these IDs."""

    name: str
    memory: int | None  #: bytes, None when the structure cannot hold these IDs
    error: str  #: "exact", a false-positive rate, or the error on a count
    deletes: str  #: "yes", "no", or the condition
    where: str  #: "Redis", "RedisBloom module", "module or client"
    caveats: tuple[str, ...]
    membership: bool = True  #: answers "is this ID in?"
    exact: bool = True

    @property
    def possible(self) -> bool:
        return self.memory is not None


def _fmt(nbytes: float) -> str:
    from setlab.core.units import format_bytes

    return format_bytes(nbytes)


def _set_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models import redis_memory

    cost = redis_memory.set_cost(a.members, version=needs.version)  # type: ignore[arg-type]
    caveats = []
    if cost.encoding == "hashtable" and a.members.integers:
        caveats.append(f"{a.distinct:,} members is over set-max-intset-entries "
                       f"({redis_memory.SET_MAX_INTSET_ENTRIES}): a hash table of strings, "
                       f"not an intset")  # fmt: skip
    if cost.encoding == "intset":
        caveats.append(f"intset: {a.members.int_width} bytes per ID while at most "
                       f"{redis_memory.SET_MAX_INTSET_ENTRIES} members")  # fmt: skip
    if cost.allocated > BIG_KEY_BYTES:
        caveats.append(f"one key of {_fmt(cost.allocated)}: a big key (DEL blocks: use UNLINK; "
                       "one Cluster node holds it all)")  # fmt: skip
    if needs.version == "7.2":
        caveats.append("Redis 7.2 is modelled from its source, not measured")
    return Candidate("Redis SET", cost.allocated, "exact", "yes (SREM)", "Redis",
                     tuple(caveats))  # fmt: skip


def _bitmap_candidate(a: Analysis) -> Candidate:
    from setlab.models import bitmap

    name, where = "plain bitmap", "Redis"
    if a.bits == 128:
        return Candidate(
            name,
            None,
            "exact",
            "yes (SETBIT 0)",
            where,
            ("128-bit IDs are not bit offsets: map them to dense integers first",),
        )
    dense = bitmap.first_setbit_memory_usage(a.distinct - 1)
    if a.high <= bitmap.MAX_OFFSET:
        usage, top, caveats = bitmap.first_setbit_memory_usage(a.high), a.high, []
        shifted = bitmap.first_setbit_memory_usage(a.span - 1)
        if a.low > 0 and shifted < 0.8 * usage:
            caveats.append(f"offset = ID − {a.low:,} ({_fmt(usage)} with the IDs as offsets)")
            usage, top = shifted, a.span - 1
        if bitmap.bytes_for_offset(top) >= STALL_BYTES:
            caveats.append(f"a first SETBIT at the top offset allocates {_fmt(usage)} at once "
                           "and stalls the server (chapter setbit-offset)")  # fmt: skip
        if a.density < 0.01:
            caveats.append(f"mostly zeros: {_share(a.density)} of the bits are set")
        return Candidate(name, usage, "exact", "yes (SETBIT 0)", where, tuple(caveats))
    if a.span - 1 <= bitmap.MAX_OFFSET:
        usage = bitmap.first_setbit_memory_usage(a.span - 1)
        return Candidate(name, usage, "exact", "yes (SETBIT 0)", where, (
            f"IDs reach 2^{a.bit_width}, past the 2^32 bit offsets of a Redis string: the offset "
            f"must be ID − {a.low:,}",))  # fmt: skip
    return Candidate(name, None, "exact", "yes (SETBIT 0)", where, (
        f"IDs reach 2^{a.bit_width}, past the 2^32 bit offsets of a Redis string; a dense remap "
        f"(a mapping table to 0 … {a.distinct - 1:,}) would make it {_fmt(dense)} plus the map",
    ))  # fmt: skip


def _roaring_candidate(a: Analysis) -> Candidate:
    name, where = "Roaring bitmap", "module or client"
    r = a.roaring
    if r is None:
        return Candidate(name, None, "exact", "yes", where,
                         ("Roaring holds integers below 2^64: map these IDs to dense integers "
                          "first",))  # fmt: skip
    caveats = ["not built into Redis: a module, or a serialized blob the client reads, changes "
               "and writes back under WATCH (chapter roaring-containers)"]  # fmt: skip
    if r.buckets is not None:
        caveats.append(f"64-bit IDs: Roaring64, {r.buckets:,} buckets of 2^32")
    if r.containers > a.distinct / 4:
        caveats.append(f"sparse at the 2^16 scale: {r.containers:,} containers for "
                       f"{a.distinct:,} IDs, each with its own header")  # fmt: skip
    if r.serialized_bytes < 0.5 * r.plain_bytes:
        caveats.append(f"{_fmt(r.plain_bytes)} until run_optimize() turns runs of consecutive IDs "
                       "into run containers")  # fmt: skip
    if r.estimated:
        caveats.append("scaled from a sample of the IDs")
    return Candidate(name, r.serialized_bytes, "exact", "yes", where, tuple(caveats))


def _bloom_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models import bloom, redisbloom
    from setlab.models.bloom import format_rate

    sizing = bloom.size_for(a.distinct, needs.error)
    chain = redisbloom.ChainLayout(needs.error, a.distinct)
    caveats = [
        "no deletes: removing an ID means rebuilding the filter (chapter scalable-bloom)",
        f"sized for {a.distinct:,} IDs: at twice as many its rate is "
        f"{format_rate(bloom.fpr(2 * a.distinct, sizing.m, sizing.k))}",
        f"RedisBloom BF.RESERVE key {needs.error:g} {a.distinct} takes "
        f"{_fmt(chain.memory(a.distinct))} (its first sub-filter aims at half the error)",
    ]
    if sizing.m > bloom.MAX_BITS_PER_KEY:
        caveats.append("more bits than one Redis string holds: shard it (chapter sharded-bloom)")
    return Candidate(f"Bloom filter, {format_rate(needs.error)}", sizing.bytes,
                     f"{format_rate(sizing.achieved_fpr)} false positives", "no",
                     "RedisBloom module (or client-side over bitmaps)", tuple(caveats),
                     exact=False)  # fmt: skip


def _cuckoo_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models.bloom import format_rate
    from setlab.tools import calc

    data = calc.cuckoo_sizing(a.distinct, needs.error).data
    rb = data["redisbloom"]
    caveats = [
        f"b = 4, {data['fingerprint_bits']}-bit fingerprints, {data['load']:.0%} load "
        "(a power-of-two table); inserts start failing near 95%",
        f"RedisBloom's CF has 8-bit fingerprints: {format_rate(rb['fpr'])} at the same load",
        "delete only IDs you know were added: deleting a false positive removes another ID",
    ]
    return Candidate(f"cuckoo filter, {format_rate(needs.error)}", data["bytes"],
                     f"{format_rate(data['fpr'])} false positives", "only IDs known present",
                     "RedisBloom module", tuple(caveats), exact=False)  # fmt: skip


def _hll_candidate(a: Analysis) -> Candidate:
    from setlab.models import redis_memory
    from setlab.tools import calc

    cost = calc.hll_key_cost(a.distinct)
    return Candidate("HyperLogLog", cost.allocated,
                     f"±{redis_memory.HLL_STANDARD_ERROR:.2%} on the count", "no", "Redis",
                     ("counts only: it cannot answer whether one ID is in",),
                     membership=False, exact=False)  # fmt: skip


def candidates(a: Analysis, needs: Needs | None = None) -> list[Candidate]:
    """Every structure the book discusses, priced for these IDs (memory in bytes)."""
    needs = needs or Needs()
    return [
        _set_candidate(a, needs),
        _bitmap_candidate(a),
        _roaring_candidate(a),
        _bloom_candidate(a, needs),
        _cuckoo_candidate(a, needs),
        _hll_candidate(a),
    ]


@dataclass(frozen=True)
class Recommendation:
    choice: Candidate
    reason: str


def _smallest(found: list[Candidate]) -> Candidate:
    return min(found, key=lambda c: c.memory)  # type: ignore[arg-type, return-value]


def recommend(a: Analysis, options: list[Candidate], needs: Needs | None = None) -> Recommendation:
    """Pick one candidate and say why.

    Counting only: HyperLogLog unless an exact structure is no bigger. Membership: the smallest
    exact structure (preferring one built into Redis over Roaring unless Roaring is more than
    :data:`NATIVE_PREMIUM` times and :data:`NATIVE_SLACK` bytes smaller), unless a filter at the
    chosen error is more than :data:`EXACT_PREMIUM` times and :data:`EXACT_SLACK` bytes smaller
    still; with ``deletes`` the Bloom filter is out.
    """
    needs = needs or Needs()
    possible = [c for c in options if c.possible]
    exact = [c for c in possible if c.exact]
    best = _smallest(exact)
    native = [c for c in exact if c.where == "Redis"]
    if best.where != "Redis" and native:
        closest = _smallest(native)
        extra = closest.memory - best.memory  # type: ignore[operator]
        if closest.memory <= NATIVE_PREMIUM * best.memory or extra <= NATIVE_SLACK:  # type: ignore[operator]
            best = closest
    per_id = best.memory / a.distinct  # type: ignore[operator]
    if needs.count_only:
        hll = next(c for c in possible if c.name == "HyperLogLog")
        if best.memory <= hll.memory:  # type: ignore[operator]
            return Recommendation(
                best,
                f"an exact {best.name} of these IDs ({_fmt(best.memory)}) "
                f"is no bigger than a HyperLogLog ({_fmt(hll.memory)})",
            )
        return Recommendation(hll, f"{hll.memory and best.memory / hll.memory:,.0f}× smaller than "
                                   f"the smallest exact structure ({best.name}, "
                                   f"{_fmt(best.memory)}), for {hll.error}")  # fmt: skip
    filters = [c for c in possible if c.membership and not c.exact]
    if needs.deletes:
        filters = [c for c in filters if c.deletes != "no"]
    why_exact = _why(a, best)
    if not filters:
        return Recommendation(best, why_exact)
    approx = _smallest(filters)
    if best.memory <= approx.memory:  # type: ignore[operator]
        return Recommendation(best, f"{why_exact}, smaller even than a {approx.name}")
    extra = best.memory - approx.memory  # type: ignore[operator]
    if best.memory <= EXACT_PREMIUM * approx.memory or extra <= EXACT_SLACK:  # type: ignore[operator]
        return Recommendation(
            best, f"{why_exact}; a {approx.name} would save only {_fmt(extra)} and err"
        )
    return Recommendation(approx, (
        f"{best.memory / approx.memory:.0f}× smaller than the smallest exact structure "
        f"({best.name}, {_fmt(best.memory)}, {per_id:.3g} B per ID), for {approx.error}"
        + ("; it can delete only IDs known present" if needs.deletes else "")))  # fmt: skip


def _why(a: Analysis, best: Candidate) -> str:
    per_id = best.memory / a.distinct  # type: ignore[operator]
    head = f"exact and deletable at {_fmt(best.memory)} ({per_id:.3g} B per ID)"
    if best.name == "plain bitmap":
        return f"{head}: the IDs fill {_share(a.density)} of their range, one bit per possible ID"
    if best.name == "Roaring bitmap":
        r = a.roaring
        if r is not None and r.serialized_bytes < 0.5 * r.plain_bytes:
            return (f"{head}: runs of consecutive IDs collapse into run containers "
                    f"({_fmt(r.plain_bytes)} before run_optimize())")  # fmt: skip
        return f"{head}: too sparse for a plain bitmap, clustered enough for Roaring's containers"
    return f"{head}: the smallest exact structure for these IDs"


# -- the advice -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Advice:
    """The analysis, the priced candidates and the recommendation, ready to print."""

    analysis: Analysis
    needs: Needs
    candidates: list[Candidate]
    recommendation: Recommendation

    def text(self) -> str:
        return render_text(self)

    def as_json(self) -> dict[str, Any]:
        a = self.analysis
        return {
            "source": a.source, "kind": a.kind, "bits": a.bits, "ids": a.ids,
            "blank_lines": a.blank_lines, "distinct": a.distinct, "duplicates": a.duplicates,
            "most_repeated": None if a.most_repeated is None else {
                "id": a.most_repeated[0], "times": a.most_repeated[1]},
            "low": str(a.low) if a.bits == 128 else a.low,
            "high": str(a.high) if a.bits == 128 else a.high,
            "bit_width": a.bit_width, "density": a.density, "runs": a.runs,
            "chunks": a.chunks, "bitmap_chunks": a.bitmap_chunks,
            "chunk_histogram": [{"low": lo, "high": hi, "chunks": n}
                                for lo, hi, n in a.chunk_histogram()],
            "range_histogram": {"edges": a.range_edges.tolist(),
                                "counts": a.range_counts.tolist()},
            "notes": list(a.notes),
            "needs": {"error": self.needs.error, "deletes": self.needs.deletes,
                      "count_only": self.needs.count_only, "redis": self.needs.version},
            "candidates": [{
                "name": c.name, "memory": c.memory,
                "bytes_per_id": None if c.memory is None else c.memory / a.distinct,
                "error": c.error, "deletes": c.deletes, "where": c.where,
                "membership": c.membership, "exact": c.exact, "caveats": list(c.caveats),
            } for c in self.candidates],
            "recommendation": {"name": self.recommendation.choice.name,
                               "reason": self.recommendation.reason},
        }  # fmt: skip

    def candidates_markdown(self) -> str:
        """The candidate table as Markdown (for the book)."""
        lines = [
            "| structure | memory | per ID | error | deletes | where | caveats for these IDs |",
            "|:--|--:|--:|:--|:--|:--|:--|",
        ]
        for c in self.candidates:
            memory = "impossible" if c.memory is None else _fmt(c.memory)
            per = "" if c.memory is None else _per_id(c.memory / self.analysis.distinct)
            name = f"**{c.name}**" if c is self.recommendation.choice else c.name
            lines.append(f"| {name} | {memory} | {per} | {c.error} | {c.deletes} | {c.where} "
                         f"| {'; '.join(c.caveats)} |")  # fmt: skip
        return "\n".join(lines)


def advise(analysis: Analysis, needs: Needs | None = None) -> Advice:
    """Price every candidate for ``analysis`` and recommend one."""
    needs = needs or Needs()
    options = candidates(analysis, needs)
    return Advice(analysis, needs, options, recommend(analysis, options, needs))


def _per_id(value: float) -> str:
    return f"{value:.3g} B" if value < 1024 else _fmt(value)


_SPARK = " ▁▂▃▄▅▆▇█"


def sparkline(counts: np.ndarray) -> str:
    """Counts as a row of block characters, highest = █, empty = space."""
    counts = np.asarray(counts, dtype=float)
    if counts.size == 0 or counts.max() <= 0:
        return ""
    levels = np.ceil(counts / counts.max() * (len(_SPARK) - 1)).astype(int)
    return "".join(_SPARK[i] for i in levels)


def _share(value: float) -> str:
    return f"{value:.1%}" if value >= 0.001 else f"{value:.3g}"


def _number(value: int) -> str:
    return f"{value:,}" if value < 10**15 else f"{value:,} (≈ 2^{math.log2(value):.1f})"


def render_text(advice: Advice) -> str:
    """The advice as the terminal shows it."""
    a = advice.analysis
    kind = {"decimal": "decimal integers", "hex": "hexadecimal IDs", "uuid": "UUIDs"}[a.kind]
    lines = [f"{a.ids:,} IDs in {a.source}: {kind}, {a.bits}-bit"
             + (f" ({a.blank_lines:,} blank lines skipped)" if a.blank_lines else "")]  # fmt: skip
    repeated = (f"; most repeated: {a.most_repeated[0]} ({a.most_repeated[1]:,} times)"
                if a.most_repeated else "")  # fmt: skip
    rows = [
        ("distinct", f"{a.distinct:,} ({a.duplicates:,} duplicates{repeated})"),
        ("range", f"{_number(a.low)} … {_number(a.high)} ({a.bit_width} bits)"),
        ("density", f"{_share(a.density)} of the values in that range are IDs"
                    + (f"; {a.runs:,} run{'s' * (a.runs != 1)} of consecutive IDs"
                       if a.bits == 64 else "")),
    ]  # fmt: skip
    if a.chunks is not None:
        rows.append(
            (
                "2^16 chunks",
                f"{a.chunks:,} non-empty; {a.bitmap_chunks:,} hold more than "
                f"{ARRAY_MAX:,} IDs (Roaring bitmap containers)",
            )
        )
    rows.append(("over the range", f"|{sparkline(a.range_counts)}|"))
    width = max(len(label) for label, _ in rows)
    lines += [f"  {label.ljust(width)}  {value}" for label, value in rows]
    lines += [f"  note: {note}" for note in a.notes]
    if a.chunks is not None:
        lines.append("\nIDs per 2^16 chunk (Roaring container):")
        histogram = a.chunk_histogram()
        top = max(n for _, _, n in histogram) or 1
        for lo, hi, n in histogram:
            label = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
            bar = "#" * (0 if n == 0 else max(1, round(40 * n / top)))
            lines.append(f"  {label.rjust(13)}  {n:>10,} chunks  {bar}")
    from setlab.models.bloom import format_rate

    lines.append(f"\nCandidates (filters at {format_rate(advice.needs.error)}):")
    table = [("structure", "memory", "per ID", "error", "deletes", "where")]
    for c in advice.candidates:
        memory = "impossible" if c.memory is None else _fmt(c.memory)
        per = "" if c.memory is None else _per_id(c.memory / a.distinct)
        table.append((c.name, memory, per, c.error, c.deletes, c.where))
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip())  # fmt: skip
    lines.append("\nCaveats for these IDs:")
    for c in advice.candidates:
        for caveat in c.caveats:
            lines.append(f"  {c.name}: {caveat}")
    r = advice.recommendation
    lines.append(f"\nRecommendation: {r.choice.name} — {r.reason}.")
    return "\n".join(lines)


# -- the picture ----------------------------------------------------------------------------------


def figure(a: Analysis) -> Figure:
    """Two histograms: IDs over their range, and chunks by how many IDs they hold (log-log),
    with Roaring's array/bitmap threshold marked."""
    from setlab.render.plots import PALETTE, new_figure

    fig, (left, right) = new_figure(ncols=2, width=9.5, height=3.6)
    widths = np.diff(a.range_edges)
    left.bar(a.range_edges[:-1], a.range_counts, width=widths, align="edge", color=PALETTE[0])
    left.set(xlabel="ID value", ylabel="distinct IDs per bin",
             title=f"{a.distinct:,} IDs over {a.low:,.3g} … {a.high:,.3g}")  # fmt: skip
    if a.chunk_counts is None:
        what = "128-bit IDs: no 2^16 chunks" if a.bits == 128 else "no per-chunk counts"
        right.text(0.5, 0.5, what, ha="center", va="center",
                   transform=right.transAxes)  # fmt: skip
        right.set_axis_off()
        return fig
    edges = np.unique(np.r_[np.logspace(0, 16, 33, base=2.0), 65537]).astype(float)
    right.hist(a.chunk_counts, bins=edges, color=PALETTE[2])
    right.axvline(ARRAY_MAX + 0.5, color=PALETTE[3], ls="--", lw=1)
    right.text(ARRAY_MAX * 1.15, 0.95, "bitmap\ncontainers", transform=right.get_xaxis_transform(),
               va="top", fontsize=8, color=PALETTE[3])  # fmt: skip
    right.text(ARRAY_MAX / 1.15, 0.95, "array\ncontainers", transform=right.get_xaxis_transform(),
               va="top", ha="right", fontsize=8, color=PALETTE[3])  # fmt: skip
    right.set(xscale="log", yscale="log", xlabel="IDs in a 2^16 chunk",
              ylabel="chunks", title=f"{a.chunks:,} non-empty chunks")  # fmt: skip
    return fig


def save_figure(a: Analysis, path: str | Path) -> Path:
    """Draw :func:`figure` into a PNG at ``path`` (the directory must exist)."""
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from setlab.render.plots import use_book_style

    target = Path(path)
    if not target.parent.is_dir():
        raise ValueError(f"cannot save the plot: directory {target.parent} does not exist")
    use_book_style()
    fig = figure(a)
    fig.savefig(target, dpi=110)
    plt.close(fig)
    return target


# -- populations described, not listed, and seed 003's selection table ---------------------------

SHAPES = ("dense", "random32", "hashed64")
#: Random 64-bit IDs sampled to price a Roaring64 bitmap of many more (they share no chunk).
ROARING64_SAMPLE = 200_000


def _flat_histogram(low: int, high: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal bins over ``[low, high]`` holding ``count`` IDs spread evenly (largest-remainder)."""
    edges = np.linspace(float(low), float(high), RANGE_BINS + 1)
    share = np.full(RANGE_BINS, count / RANGE_BINS)
    counts = np.floor(share).astype(np.int64)
    counts[: count - int(counts.sum())] += 1
    return edges, counts


def _random_decimal_members(count: int, universe: int) -> Any:
    """Members for ``count`` distinct integers drawn uniformly from ``0 … universe-1``, sent in
    decimal: members of each digit count in proportion to the values that have it."""
    from setlab.models import redis_memory

    parts, assigned, longest = [], 0, 1
    for digits in range(1, len(str(universe - 1)) + 1):
        start, stop = (0 if digits == 1 else 10 ** (digits - 1)), min(10**digits, universe)
        share = round(count * (stop - start) / universe) if stop < universe else count - assigned
        assigned += share
        if share:
            parts.append(redis_memory.Members.fixed_length(share, digits))
            longest = digits
    width = redis_memory.intset_width(universe - 1)
    return redis_memory.Members(count, sum(p.sds_bytes for p in parts), True, width, longest,
                                sum(p.listpack_bytes for p in parts))  # fmt: skip


@functools.cache
def _roaring64_sample(seed: int, sample: int) -> RoaringFigures:
    from setlab.models import roaring

    values = np.random.default_rng(seed).integers(0, 2**64 - 1, sample, dtype=np.uint64)
    return RoaringFigures.of(roaring.layout64(values))


def synthetic(count: int, shape: str, *, universe: int = 2**32, seed: int = 0) -> Analysis:
    """An :class:`Analysis` of IDs described by a count and a shape, without listing them:

    * ``dense`` — the integers ``0 … count-1`` (auto-increment IDs, order numbers);
    * ``random32`` — ``count`` distinct integers drawn uniformly from ``0 … universe − 1``
      (``universe`` at most 2^32; per-chunk counts drawn exactly by
      :func:`setlab.models.roaring.random_layout`);
    * ``hashed64`` — ``count`` distinct uniform 64-bit hashes written as 16 hex digits (device
      IDs); the Roaring64 figures are scaled from :data:`ROARING64_SAMPLE` random IDs, exact in
      expectation while IDs rarely share a 2^32 bucket.

    The range is taken as the whole space the shape allows. ``seed`` fixes the random draws.
    """
    from setlab.models import redis_memory, roaring

    count = check_int("count", count, 1, 2**40)
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}")
    rng = np.random.default_rng(seed)
    common = {"source": f"a described set ({shape})", "ids": count, "blank_lines": 0,
              "distinct": count, "duplicates": 0, "most_repeated": None, "low": 0,
              "leading_zeros": 0, "bits": 64}  # fmt: skip
    if shape == "dense":
        layout = roaring.dense_layout(count)
        edges, counts = _flat_histogram(0, count - 1, count)
        return Analysis(
            **common, kind="decimal", high=count - 1, runs=1, range_edges=edges,
            range_counts=counts, chunk_counts=layout.cardinality,
            roaring=RoaringFigures.of(layout),
            members=redis_memory.Members.decimal_range(0, count),
        )  # fmt: skip
    if shape == "random32":
        universe = check_int("universe", universe, 1, 2**32)
        count = check_int("count", count, 1, universe)
        layout = roaring.random_layout(count, rng, universe=universe)
        edges = np.linspace(0.0, universe - 1.0, RANGE_BINS + 1)
        centres = (layout.keys.astype(np.float64) + 0.5) * roaring.CHUNK
        counts = np.histogram(np.minimum(centres, universe - 1.0), bins=edges,
                              weights=layout.cardinality)[0].astype(np.int64)  # fmt: skip
        return Analysis(
            **common, kind="decimal", high=universe - 1, runs=int(layout.runs.sum()),
            range_edges=edges, range_counts=counts, chunk_counts=layout.cardinality,
            roaring=RoaringFigures.of(layout),
            members=_random_decimal_members(count, universe),
        )  # fmt: skip
    sample = min(count, ROARING64_SAMPLE)
    base = _roaring64_sample(seed, sample)
    scale = count / sample
    figures = RoaringFigures(
        round(8 + (base.serialized_bytes - 8) * scale), round(8 + (base.plain_bytes - 8) * scale),
        round(base.containers * scale), round((base.buckets or 0) * scale), estimated=scale > 1,
    )  # fmt: skip
    edges, counts = _flat_histogram(0, 2**64 - 1, count)
    return Analysis(
        **common, kind="hex", high=2**64 - 1, runs=count, range_edges=edges,
        range_counts=counts, chunk_counts=None, roaring=figures,
        members=redis_memory.Members.fixed_length(count, 16),
    )  # fmt: skip


@dataclass(frozen=True)
class Scenario:
    """One row of seed 003's selection table, made concrete."""

    key: str
    seed_case: str  #: the seed's scenario, in our words
    seed_pick: str  #: what the seed recommends, and its figure
    count: int
    shape: str
    needs: Needs

    @property
    def description(self) -> str:
        from setlab.core.units import format_count

        what = {"dense": "consecutive integer IDs", "random32": "random 32-bit integer IDs",
                "hashed64": "16-hex device IDs (64-bit hashes)"}[self.shape]  # fmt: skip
        extra = "; deletes needed" if self.needs.deletes else ""
        extra += "; counting only" if self.needs.count_only else ""
        return f"{format_count(self.count)} {what}{extra}"


#: Seed 003's table ("一张表，我自己的选型依据"), each row at the seed's own scale.
SEED_003_TABLE = (
    Scenario("dense", "IDs within 32 bits, dense (orders, auto-increment, ad slots)",
             "Roaring: 12.5 MB per 10^8, exact, deletable", 10**8, "dense", Needs()),
    Scenario("sparse64", "IDs sparse, 64-bit, insert-only",
             "Bloom: 1.2 bytes per element is about the ceiling", 120_000_000, "hashed64",
             Needs()),
    Scenario("deletes", "deletes needed, up to 5 × 10^7",
             "Cuckoo filter or just a Redis SET: don't optimise early", 50_000_000, "hashed64",
             Needs(deletes=True)),
    Scenario("small", "below ten million",
             "Redis SET / intset: the memory saved does not pay for the operations", 10_000_000,
             "random32", Needs()),
    Scenario("count", "only the UV count, 1% error allowed",
             "HyperLogLog: 12 KB fixed, counts only", 120_000_000, "hashed64",
             Needs(count_only=True)),
)  # fmt: skip


@functools.cache
def seed_003_advice() -> dict[str, Advice]:
    """The advisor's answer for each row of :data:`SEED_003_TABLE` (cached: a few seconds)."""
    return {s.key: advise(synthetic(s.count, s.shape), s.needs) for s in SEED_003_TABLE}


def selection_markdown() -> str:
    """Seed 003's table recomputed: each structure's memory per row and the advisor's pick."""
    names = ["Redis SET", "plain bitmap", "Roaring bitmap", "Bloom filter", "cuckoo filter",
             "HyperLogLog"]  # fmt: skip
    lines = ["| case (seed 003) | seed's pick | " + " | ".join(names) + " | advisor's pick |",
             "|:--|:--|" + "--:|" * len(names) + ":--|"]  # fmt: skip
    for scenario in SEED_003_TABLE:
        advice = seed_003_advice()[scenario.key]
        found = {c.name.split(",")[0]: c for c in advice.candidates}
        cells = ["impossible" if found[n].memory is None else _fmt(found[n].memory)
                 for n in names]  # fmt: skip
        lines.append(
            f"| {scenario.seed_case}: {scenario.description} | {scenario.seed_pick} | "
            + " | ".join(cells)
            + f" | **{advice.recommendation.choice.name}** |"
        )
    return "\n".join(lines)


@functools.cache
def seed_003_figures() -> dict[str, Any]:
    """The numbers the registry quotes for seed 003's table: bytes of each structure per row, the
    advisor's picks, and Bloom's floor (all from models; deterministic)."""
    from setlab.models import bloom

    out: dict[str, Any] = {}
    for key, advice in seed_003_advice().items():
        found = {c.name.split(",")[0]: c for c in advice.candidates}
        out[key] = {name: c.memory for name, c in found.items()}
        out[key]["pick"] = advice.recommendation.choice.name
        out[key]["count"] = advice.analysis.distinct
        out[key]["roaring_plain"] = advice.analysis.roaring.plain_bytes
    out["floor_bits"] = bloom.bits_per_item_lower_bound(0.01)
    out["bloom_bits"] = bloom.bits_per_item(0.01)
    out["bloom_bits_per_decade"] = bloom.bits_per_item(0.001) - bloom.bits_per_item(0.01)
    return out


# -- pictures for the chapter ---------------------------------------------------------------------

POPULATIONS = ("auto-increment", "device IDs", "snowflake")


def example_ids(name: str, count: int, seed: int = 0) -> IDs:
    """One of the chapter's three ID populations, ``count`` IDs (about, for snowflakes):

    * ``auto-increment`` — a user table's primary keys from 10,000,001 on, 3% of rows deleted;
    * ``device IDs`` — 64-bit hashes of device identifiers as 16 hex digits (seed 003's OAIDs);
    * ``snowflake`` — Twitter-layout snowflake IDs of users who signed up over two years from
      2024-01-01 on 8 machines (:func:`setlab.models.snowflake.simulate_stream`).
    """
    from setlab.models import snowflake

    count = check_int("count", count, 1, 10**8)
    rng = np.random.default_rng(seed)
    if name == "auto-increment":
        rows = np.arange(10_000_001, 10_000_001 + round(count / 0.97), dtype=np.uint64)
        return from_integers(rows[rng.random(rows.size) >= 0.03], source=f"example {name}")
    if name == "device IDs":
        values = rng.integers(0, 2**64 - 1, count, dtype=np.uint64, endpoint=True)
        return from_integers(values, source=f"example {name}", hex_digits=16)
    if name == "snowflake":
        span_s = 2 * 365 * 86_400
        ids = snowflake.simulate_stream(start_unix_ms=1_704_067_200_000, span_s=span_s,
                                        machines=8, rate_per_s=count / span_s, bursts=0,
                                        burst_size=0, seed=seed)  # fmt: skip
        return from_integers(ids, source=f"example {name}")
    raise ValueError(f"name must be one of {', '.join(POPULATIONS)}; got {name!r}")


def density_sweep(
    count: int = 1_000_000, error: float = 0.01, points: int = 25, seed: int = 0
) -> dict[str, Any]:
    """Bytes per ID of every membership structure, and the advisor's pick, for ``count`` random
    integer IDs spread over ranges from ``count`` values (density 1) to 2^32."""
    count = check_int("count", count, 1, 2**32)
    densities = np.logspace(0, math.log10(count / 2**32), check_int("points", points, 2))
    rows: dict[str, list[float]] = {}
    picks = []
    for density in densities:
        universe = min(2**32, max(count, round(count / density)))
        analysis = synthetic(count, "random32", universe=universe, seed=seed)
        advice = advise(analysis, Needs(error=error))
        for c in advice.candidates:
            if c.membership:
                rows.setdefault(c.name.split(",")[0], []).append(c.memory / count)
        picks.append(advice.recommendation.choice.name.split(",")[0])
    bytes_per_id = {name: np.array(values) for name, values in rows.items()}
    return {"density": densities, "bytes_per_id": bytes_per_id, "pick": picks}


def density_figure(sweep: dict[str, Any]) -> Figure:
    """:func:`density_sweep` drawn: bytes per ID against density, shaded by the advisor's pick."""
    from setlab.render.plots import PALETTE, new_figure

    fig, ax = new_figure(height=4.2)
    colours = dict(zip(sweep["bytes_per_id"], PALETTE, strict=False))
    d = sweep["density"]
    bounds = np.r_[d[0] * 1.2, np.sqrt(d[1:] * d[:-1]), d[-1] / 1.2]
    for i, pick in enumerate(sweep["pick"]):
        ax.axvspan(bounds[i + 1], bounds[i], color=colours.get(pick, "grey"), alpha=0.12, lw=0)
    for name, values in sweep["bytes_per_id"].items():
        ax.plot(d, values, "o-", ms=3, color=colours[name], label=name)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="density: IDs / values in their range",
        ylabel="bytes per ID",
        xlim=(bounds[0], bounds[-1]),
        title="What each structure costs as the same IDs spread out (shading: the pick)",
    )
    ax.legend(fontsize=8, ncols=2)
    return fig
