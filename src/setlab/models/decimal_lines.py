"""Lines of plain decimal digits parsed eight digits at a time (the fast path of ``setlab advise``).

Most files of IDs are a service's export: one unsigned decimal integer per line, nothing else.
:func:`parse_plain` reads such a block of text with a handful of whole-array numpy operations
instead of one pass per character column, and returns ``None`` for anything it does not handle,
so that :mod:`setlab.models.ids`' general parser (which names the bad line) reads it instead.
A block is *plain* when every line holds 1 to 20 ASCII digits and nothing else (no blank
line, no space, no ``\\r``) and every 20-digit value is at most 2^64 − 1.

How: every line is copied right-aligned into 24 bytes (its last byte just before its ``\\n``),
the bytes before the line's first digit are set to ``"0"``, and the 24 bytes are read as three
little-endian 64-bit words of eight digits each. Each word is checked to hold digits only and
converted with the SWAR (SIMD within a register) method of Lemire, "Quickly parsing eight
digits" (2018): three multiply-and-shift steps turn eight ASCII digits into their value; the
value is ``w0 × 10^16 + w1 × 10^8 + w2``, computed modulo 2^64 (a 20-digit line above
2^64 − 1 wraps below 10^19 and is refused).

Pure computation: numpy only.
"""

from __future__ import annotations

import numpy as np

#: Longest line this path reads: 20 digits (2^64 − 1 = 18446744073709551615).
MAX_DIGITS = 20
_WIDTH = 24  # three 8-byte words
_U64 = np.dtype("<u8")


def _repeat(byte: int) -> np.uint64:
    return np.frombuffer(bytes([byte]) * 8, dtype=_U64)[0]


_ASCII_ZEROS = _repeat(0x30)
_HIGH_NIBBLES = _repeat(0xF0)
_SIXES = _repeat(0x06)
#: _PAD[k]: the first k of the 24 bytes (low bytes first), as three words
_PAD = np.zeros((_WIDTH + 1, 3), dtype=_U64)
for _k in range(_WIDTH + 1):
    _PAD[_k] = np.frombuffer(bytes([0xFF] * _k + [0] * (_WIDTH - _k)), dtype=_U64)
_KEEP = ~_PAD
_FILL = _PAD & _ASCII_ZEROS
# Lemire's constants: pairs, then quadruples, then the eight-digit value
_PAIRS = np.uint64(0x000000FF000000FF)
_MUL_HIGH = np.uint64(100 + (1_000_000 << 32))
_MUL_LOW = np.uint64(1 + (10_000 << 32))
_TEN_TO_19 = np.uint64(10**19)


def _eight_digits(words: np.ndarray) -> np.ndarray:
    """Each uint64 of eight ASCII digits (first digit in the low byte) as its value, in place."""
    words -= _ASCII_ZEROS
    shifted = words >> np.uint64(8)
    words *= np.uint64(10)
    words += shifted  # byte i: 10 d_i + d_(i+1)
    high = (words & _PAIRS) * _MUL_HIGH
    words >>= np.uint64(16)
    words &= _PAIRS
    words *= _MUL_LOW
    words += high
    words >>= np.uint64(32)
    return words


def parse_plain(piece: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Values, lengths and canonical flags of a block of plain decimal lines, or ``None``.

    ``piece`` is whole lines (the last one may lack its ``\\n``). Returns ``(values, lengths,
    canonical)``: uint64 values, uint8 characters per line and whether each line is a canonical
    integer (no leading zero), as :mod:`setlab.models.ids` keeps them; ``None`` when any line is
    not 1 to :data:`MAX_DIGITS` digits or is above 2^64 − 1 (the general parser then reads the
    block, and reports the first bad line).
    """
    if not piece:
        return None
    if not piece.endswith(b"\n"):
        piece += b"\n"
    padded = np.empty(len(piece) + _WIDTH, dtype=np.uint8)
    padded[:_WIDTH] = 0x30
    padded[_WIDTH:] = np.frombuffer(piece, dtype=np.uint8)
    ends = np.flatnonzero(padded[_WIDTH:] == 0x0A)  # each line's "\n", in the piece
    starts = np.empty_like(ends)
    starts[0], starts[1:] = 0, ends[:-1] + 1
    lengths = ends - starts
    if lengths.min() < 1 or lengths.max() > MAX_DIGITS:
        return None
    # the 24 bytes before each "\n" (in padded: ends[i] .. ends[i] + 23), as three words
    windows = np.ndarray((len(piece) + 1,), dtype="V24", buffer=padded, strides=(1,))
    words = windows[ends].view(_U64).reshape(-1, 3)
    pad = _WIDTH - lengths
    words &= np.take(_KEEP, pad, axis=0)
    words |= np.take(_FILL, pad, axis=0)
    if not (
        np.array_equal(words & _HIGH_NIBBLES, np.broadcast_to(_ASCII_ZEROS, words.shape))
        and np.array_equal((words + _SIXES) & _HIGH_NIBBLES,
                           np.broadcast_to(_ASCII_ZEROS, words.shape))
    ):  # fmt: skip
        return None  # a byte other than 0-9: the high nibble of "0"-"9" stays 3 after + 6
    words = _eight_digits(words)
    values = words[:, 0] * np.uint64(10**16)
    values += words[:, 1] * np.uint64(10**8)
    values += words[:, 2]
    first = padded[_WIDTH + starts]
    twenty = lengths == MAX_DIGITS
    if twenty.any():
        wrapped = (first > 0x31) | ((first == 0x31) & (values < _TEN_TO_19))
        if np.any(twenty & wrapped):
            return None  # above 2^64 − 1: it wrapped below 10^19
    canonical = (first != 0x30) | (lengths == 1)
    return values, lengths.astype(np.uint8), canonical
