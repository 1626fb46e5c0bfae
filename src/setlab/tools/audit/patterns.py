"""Key names folded into patterns: ``like:bit:42`` and ``like:bit:7`` are one group.

A keyspace of ten million keys is a few dozen shapes. :func:`pattern` folds the parts of a key
that vary from key to key — UUIDs, hexadecimal runs of eight or more characters with a digit in
them (hashes, device IDs), and decimal numbers — into ``{uuid}``, ``{hex}`` and ``{n}``, in that
order, so ``session:5f1c…-…`` and ``session:0b9e…`` meet in ``session:{uuid}``. A key that is not
UTF-8 is shown with its odd bytes escaped (``\\xff``).
"""

from __future__ import annotations

import re

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: eight or more hex characters, at least one a digit, not inside a longer word
_HEX = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}(?![0-9A-Za-z])")
_NUMBER = re.compile(r"\d+")


def text(key: bytes | str) -> str:
    """A key as text: UTF-8, with bytes that are not escaped as ``\\xNN``."""
    return key if isinstance(key, str) else key.decode("utf-8", "backslashreplace")


def pattern(key: bytes | str) -> str:
    """The key's pattern: UUIDs, long hex runs and numbers folded (see the module's doc)."""
    folded = _UUID.sub("{uuid}", text(key))
    folded = _HEX.sub("{hex}", folded)
    return _NUMBER.sub("{n}", folded)
