"""Lines of plain decimal digits, checked with whole-array numpy operations and converted by
numpy's C text reader (the fast path of ``setlab advise``).

Most files of IDs are a service's export: one unsigned decimal integer per line, nothing else.
:func:`parse_plain` reads such a block of text and returns ``None`` for anything it does not
handle, so that :mod:`setlab.models.ids`' general parser (which names the bad line) reads it
instead. A block is *plain* when every line holds 1 to 20 ASCII digits and nothing else (no blank
line, no space, no ``\\r``) and every value is at most 2^64 − 1.

How: the line ends are found in one comparison of the bytes, which gives every line's length
and first character (a leading ``0`` is a non-canonical ID); one more pass checks that nothing
but digits and line ends is there. The values are then converted by ``numpy.fromstring`` with
``sep="\\n"`` — numpy's text reader, ``strtoull`` on each line in C (20 to 30 ns a line on a
2-core AMD EPYC virtual machine), with the interpreter lock released, so :class:`Conversion`
converts the two halves of a block on two cores at once. It saturates above 2^64 − 1 instead
of failing, so a line that reads as 2^64 − 1 must be exactly ``18446744073709551615``.

Pure computation: numpy only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from setlab.core.parallel import Started, cores

#: Longest line this path reads: 20 digits (2^64 − 1 = 18446744073709551615).
MAX_DIGITS = 20
_U64_MAX = np.uint64(2**64 - 1)
_U64_MAX_TEXT = np.frombuffer(b"18446744073709551615", dtype=np.uint8)
_NEWLINE, _ZERO = 0x0A, 0x30


def parse_plain(
    piece: bytes, end: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Values, lengths and canonical flags of a block of plain decimal lines, or ``None``.

    ``piece[:end]`` (all of it by default) is whole lines; the last one may lack its ``\\n``
    only when it ends the piece. Returns ``(values, lengths, canonical)``: uint64 values,
    uint8 characters per line and whether each line is a canonical integer (no leading zero),
    as :mod:`setlab.models.ids` keeps them; ``None`` when any line is not 1 to
    :data:`MAX_DIGITS` digits or is above 2^64 − 1 (the general parser then reads the block,
    and reports the first bad line).
    """
    end = len(piece) if end is None else end
    if end == 0:
        return None
    if piece[end - 1] != _NEWLINE:
        piece, end = piece[:end] + b"\n", end + 1
    text = np.frombuffer(piece, dtype=np.uint8, count=end)
    ends = np.flatnonzero(text == _NEWLINE)  # each line's "\n"
    lengths = np.empty(ends.size, dtype=np.intp)
    lengths[0] = ends[0]
    np.subtract(ends[1:], ends[:-1], out=lengths[1:])
    lengths[1:] -= 1
    if lengths.min() < 1 or lengths.max() > MAX_DIGITS:
        return None
    # bytes other than "0"-"9" wrap above 9 after - "0"; the line ends are the only ones allowed
    if np.count_nonzero((text - np.uint8(_ZERO)) > 9) != ends.size:
        return None
    values = np.fromstring(piece, dtype=np.uint64, count=ends.size, sep="\n")
    starts = ends - lengths
    top = np.flatnonzero(values == _U64_MAX)
    if top.size:  # saturated, or really 2^64 − 1
        if np.any(lengths[top] != MAX_DIGITS):
            return None
        digits = text[starts[top, None] + np.arange(MAX_DIGITS)]
        if not np.array_equal(digits, np.broadcast_to(_U64_MAX_TEXT, digits.shape)):
            return None
    canonical = text[starts] != _ZERO
    canonical |= lengths == 1
    return values, lengths.astype(np.uint8), canonical


#: Blocks at least this long are converted in two halves on two threads (when two cores are
#: there): :func:`parse_plain` spends nearly all its time in numpy with the interpreter lock
#: released.
THREADED_BYTES = 1 << 20


class Conversion:
    """:func:`parse_plain` of one block, started at once and collected with :meth:`result` —
    so that the caller can read the next block meanwhile. A long block on a machine with two
    cores or more is cut at a line end near its middle and its halves converted on two threads
    (the second half is copied: ``numpy.fromstring`` reads from the start of a bytes object)."""

    def __init__(self, piece: bytes, end: int | None = None) -> None:
        end = len(piece) if end is None else end
        split = piece.rfind(b"\n", 0, end // 2) + 1
        if end < THREADED_BYTES or split == 0 or cores() < 2:
            self._parts: list[Any] = [parse_plain(piece, end)]
        else:
            self._parts = [Started(parse_plain, piece, split),
                           Started(parse_plain, piece[split:end])]  # fmt: skip

    def result(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
        """``(values, lengths, canonical)`` of each part in order, or ``None`` when the block
        is not plain."""
        parts = [p.result() if isinstance(p, Started) else p for p in self._parts]
        return None if any(part is None for part in parts) else parts
