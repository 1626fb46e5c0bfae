"""One block of lines of IDs, classified character by character and converted with numpy.

:mod:`setlab.models.ids` reads a file of IDs in blocks of a few megabytes. Plain decimal lines
take :mod:`setlab.models.decimal_lines`' fast path; every other block comes here: :class:`Block`
left-aligns each line and classifies it (blank, decimal, hex, ``0x`` hex, UUID, or not an ID,
which raises a ``ValueError`` naming the line), and :func:`decimal_values`, :func:`hex_values`
and :func:`uuid_values` turn the kept characters into uint64 values a column at a time.
:func:`exponent_rows` finds the hex rows that are also decimals in scientific notation
(``1E5``), which the reader treats as ambiguous.

Pure computation: numpy only.
"""

from __future__ import annotations

import numpy as np

#: Longest line accepted, whitespace included (a UUID is 36 characters, 128-bit hex 34).
MAX_LINE = 100
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
BLANK, DECIMAL, HEXROW, PREFIXED, UUID, OTHER = range(6)
ROW_NAMES = {
    DECIMAL: "a decimal integer",
    HEXROW: "a hexadecimal ID",
    PREFIXED: "a 0x hexadecimal ID",
    UUID: "a UUID",
}
_UUID_DASHES = (8, 13, 18, 23)
_UUID_HEX_COLUMNS = np.array([j for j in range(36) if j not in _UUID_DASHES])


#: Bytes that are in no line of text: the C0 control characters but the line's own (tab, line
#: feed, vertical tab, form feed, carriage return), and DEL.
_CONTROL = np.zeros(256, dtype=bool)
_CONTROL[:32] = _CONTROL[127] = True
_CONTROL[[ord(c) for c in "\t\n\v\f\r"]] = False


def _not_text(buf: np.ndarray) -> tuple[int, str] | None:
    """Where ``buf`` (whole lines) stops being text, and what is there: ``(offset, what)`` of
    its first control byte (:data:`_CONTROL`, NUL included) or of its first byte that is not
    UTF-8; None when it is all text. A pass over the bytes, and a UTF-8 decode only of a block
    with a byte above 0x7F in it."""
    control = _CONTROL[buf]
    first = int(np.argmax(control)) if control.any() else buf.size
    if (buf[:first] >= 0x80).any():
        try:
            str(memoryview(buf[:first]), "utf-8")
        except UnicodeDecodeError as err:
            return err.start, f"0x{int(buf[err.start]):02x}, a byte that is not UTF-8"
    if first == buf.size:
        return None
    byte = int(buf[first])
    return first, "a NUL byte" if byte == 0 else f"the control byte 0x{byte:02x}"


def text_error(buf: np.ndarray, first_line: int) -> str | None:
    """The error for the first line of ``buf`` (uint8, whole lines, the first numbered
    ``first_line``) that is not text (:func:`_not_text`), naming the line, the byte and where
    in the line it is; None when every line is text."""
    found = _not_text(buf)
    if found is None:
        return None
    offset, what = found
    newlines = np.flatnonzero(buf[:offset] == 0x0A)
    column = offset - (int(newlines[-1]) + 1 if newlines.size else 0) + 1
    return (f"line {first_line + newlines.size}: {what} (byte {column} of the line): not text, "
            "so not an ID; is this a binary file? (IDs are lines of UTF-8 text)")  # fmt: skip


class Block:
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
            raise ValueError(text_error(np.frombuffer(data, np.uint8), first_line))
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
            self.fail(np.flatnonzero(has & (content.sum(axis=1) != self.length))[0],
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
        bad = np.flatnonzero(self.row == OTHER)
        if bad.size:
            self.fail(bad[0], "not an ID")
        del self._lines  # valid from here on: error texts come from the characters kept

    def _classify(self, cls: np.ndarray, has: np.ndarray) -> np.ndarray:
        inside = np.arange(cls.shape[1])[None, :] < self.length[:, None]
        digits = np.all((cls == _DIGIT) | ~inside, axis=1)
        hexish = np.all(((cls == _DIGIT) | (cls == _HEX)) | ~inside, axis=1)
        row = np.full(cls.shape[0], OTHER, dtype=np.uint8)
        row[hexish] = HEXROW
        row[digits] = DECIMAL
        if cls.shape[1] >= 3:
            prefix = (self.matrix[:, 0] == ord("0")) & (cls[:, 1] == _X) & (self.length > 2)
            tail = inside.copy()
            tail[:, :2] = False
            rest = np.all(((cls == _DIGIT) | (cls == _HEX)) | ~tail, axis=1)
            row[prefix & rest] = PREFIXED
        if cls.shape[1] >= 36:
            dashes = np.all(cls[:, list(_UUID_DASHES)] == _DASH, axis=1)
            hexes = np.all(
                (cls[:, _UUID_HEX_COLUMNS] == _DIGIT) | (cls[:, _UUID_HEX_COLUMNS] == _HEX), axis=1
            )
            row[(self.length == 36) & dashes & hexes] = UUID
        row[~has] = BLANK
        return row

    def _text(self, i: int) -> str:
        """Line ``i`` as the user wrote it (while classifying) or as kept (after), shortened."""
        raw = self._lines[i] if hasattr(self, "_lines") else bytes(self.matrix[i]).rstrip(b"\0")
        text = raw.decode("utf-8", "backslashreplace").strip()
        return text if len(text) <= 40 else text[:37] + "..."

    def fail(self, i: int, what: str) -> None:
        hint = ""
        if what == "not an ID" and hasattr(self, "_lines"):
            error = text_error(np.frombuffer(self._lines[i], np.uint8), self.first_line + i)
            if error is not None:  # a binary line: no hint about other kinds of ID
                raise ValueError(error)
        if what == "not an ID":
            hint = (
                " (a header line? remove it)"
                if self.first_line + i == 1
                else " (expected a decimal integer, hex or a UUID; for string IDs such as "
                "openids or emails, say --format str)"
            )
        raise ValueError(f"line {self.first_line + i}: {self._text(i)!r} is {what}{hint}")

    def line_text(self, i: int) -> str:
        return self._text(i)


def decimal_values(block: Block) -> np.ndarray:
    keep = block.row != BLANK
    matrix, length = block.matrix[keep], block.length[keep]
    if length.size and length.max() > 20:
        i = np.flatnonzero(keep)[np.argmax(length > 20)]
        block.fail(i, "more than 20 digits: above 2^64 − 1, the largest ID this tool reads")
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
            block.fail(np.flatnonzero(keep)[np.argmax(over)], "above 2^64 − 1")
    return values


def hex_values(block: Block, wide: bool) -> tuple[np.ndarray, np.ndarray | None]:
    keep = block.row != BLANK
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


def uuid_values(block: Block) -> tuple[np.ndarray, np.ndarray]:
    keep = block.row != BLANK
    nibbles = _NIBBLE[block.matrix[keep][:, _UUID_HEX_COLUMNS]]
    high = np.zeros(nibbles.shape[0], dtype=np.uint64)
    low = np.zeros(nibbles.shape[0], dtype=np.uint64)
    for j in range(16):
        high = (high << np.uint64(4)) | nibbles[:, j]
        low = (low << np.uint64(4)) | nibbles[:, 16 + j]
    return low, high


def hex_digits(block: Block) -> np.ndarray:
    keep = block.row != BLANK
    return block.length[keep] - 2 * (block.row[keep] == PREFIXED)


def exponent_rows(block: Block) -> np.ndarray:
    """Which rows are digits, one ``e`` or ``E``, digits (``1E5``, ``12e4567890123456``): a
    decimal in scientific notation to a spreadsheet, a hexadecimal ID to a program. ``+``,
    ``-`` or ``.`` (``1.5E+17``) is not an ID at all, so only this form is ambiguous."""
    inside = np.arange(block.matrix.shape[1])[None, :] < block.length[:, None]
    letters = (_CLASS[block.matrix] == _HEX) & inside
    single = letters.sum(axis=1) == 1
    at = np.argmax(letters, axis=1)
    letter = block.matrix[np.arange(block.matrix.shape[0]), at] | 0x20  # lower case
    return (
        (block.row == HEXROW) & single & (letter == ord("e")) & (at > 0) & (at < block.length - 1)
    )
