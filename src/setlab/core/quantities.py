"""Numbers as people type them: counts (``1.2e8``, ``120M``, ``2^32``), rates (``1%``,
``1/1000``), sizes (``128MiB``, ``1.5GB``, bits by default; bytes by default for
:func:`parse_bytes`) and ranges (``0:2^32``).

The calculators of ``setlab calc`` (:mod:`setlab.tools.calc`) and its command line read their
input through these. Each parser is exact (fractions, not floats, until the end) and raises a
``ValueError`` naming the parameter and what was wrong, never a traceback from deep inside.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from setlab.core.validate import check_int, check_probability

_NUMBER = re.compile(
    r"""^\s*(?:
        (?P<base>\d+(?:\.\d+)?)\s*(?:\^|\*\*)\s*(?P<exp>\d+)       # 2^32, 2**32, 1.5^2
      | (?P<num>(?:\d[\d_,]*)?\.?\d*(?:[eE][+-]?\d+)?)            # 120000000, 1.2e8, .5
    )\s*(?P<unit>[A-Za-z%]*)\s*$""",
    re.VERBOSE,
)
_COUNT_UNITS = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
#: Size units, in bits: a bare number is bits; B is a byte; KB/MB/GB/TB decimal, KiB… binary.
SIZE_UNITS = {
    "": 1, "b": 1, "bit": 1, "bits": 1,
    "B": 8, "kB": 8 * 10**3, "KB": 8 * 10**3, "MB": 8 * 10**6, "GB": 8 * 10**9, "TB": 8 * 10**12,
    "KiB": 8 << 10, "MiB": 8 << 20, "GiB": 8 << 30, "TiB": 8 << 40,
    "Kibit": 1 << 10, "Mibit": 1 << 20, "Gibit": 1 << 30,
}  # fmt: skip


def _number(name: str, text: object) -> tuple[Fraction, str]:
    """``text`` as an exact number and its unit (``"1.2e8"`` → 120000000, ``""``)."""
    if isinstance(text, bool):
        raise ValueError(f"{name} must be a number, got {text!r}")
    if isinstance(text, int | float):
        if isinstance(text, float) and not math.isfinite(text):
            raise ValueError(f"{name} must be a finite number, got {text!r}")
        return Fraction(text), ""
    match = _NUMBER.match(str(text))
    if match is None or not (match["base"] or re.search(r"\d", match["num"] or "")):
        raise ValueError(f"{name}: {str(text)!r} is not a number (e.g. 1.2e8, 120M, 2^32)")
    if match["base"]:
        exponent = int(match["exp"])
        if exponent > 256:
            raise ValueError(f"{name}: exponent {exponent} is too large")
        value = Fraction(match["base"]) ** exponent
    else:
        digits = match["num"].replace("_", "").replace(",", "")
        exponent = re.search(r"[eE]([+-]?\d+)$", digits)
        if len(digits) > 100 or (exponent and abs(int(exponent[1])) > 100):
            raise ValueError(f"{name}: {str(text)!r} is out of range")
        try:
            value = Fraction(digits)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name}: {str(text)!r} is not a number") from None
        if abs(value.numerator) > 10**80 or value.denominator > 10**80:
            raise ValueError(f"{name}: {str(text)!r} is out of range")
    return value, match["unit"]


def parse_count(text: object, name: str = "count", low: int = 1, high: int | None = None) -> int:
    """A whole count: ``120000000``, ``1.2e8``, ``120M``, ``120_000_000``, ``2^32``.

    Units k/K (10^3), M (10^6), G (10^9), T (10^12). Must be a whole number in ``[low, high]``.
    """
    value, unit = _number(name, text)
    if unit not in _COUNT_UNITS:
        raise ValueError(f"{name}: unknown unit {unit!r} (use k, M, G or T, or none)")
    value *= _COUNT_UNITS[unit]
    if value.denominator != 1:
        raise ValueError(f"{name} must be a whole number, got {text!r}")
    return check_int(name, int(value), low, high)


def parse_probability(text: object, name: str = "p") -> float:
    """A rate: ``0.01``, ``1%``, ``1e-3``, ``1/1000``; strictly between 0 and 1."""
    raw = str(text).strip() if not isinstance(text, int | float) else text
    if isinstance(raw, str) and raw.count("/") == 1:
        top, bottom = raw.split("/")
        try:
            value = float(Fraction(top.strip()) / Fraction(bottom.strip()))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name}: {raw!r} is not a rate (e.g. 0.01, 1%, 1/100)") from None
        return check_probability(name, value)
    number, unit = _number(name, raw)
    if unit not in ("", "%"):
        raise ValueError(f"{name}: unknown unit {unit!r} (write 0.01 or 1%)")
    value = float(number / 100 if unit == "%" else number)
    return check_probability(name, value)


def parse_bits(text: object, name: str = "m") -> int:
    """A size in bits: a bare number is bits (``1150000000``, ``2^30``, ``1.15e9``); with a unit
    it is converted: ``b``/``bit``/``bits``, ``B`` (bytes), ``KB``/``MB``/``GB``/``TB``
    (powers of 1000 bytes), ``KiB``/``MiB``/``GiB``/``TiB`` (powers of 1024 bytes)."""
    value, unit = _number(name, text)
    if unit not in SIZE_UNITS:
        raise ValueError(
            f"{name}: unknown unit {unit!r} (bits by default; B, KB, MB, GB, KiB, MiB, GiB …)"
        )
    bits = value * SIZE_UNITS[unit]
    if bits.denominator != 1:
        raise ValueError(f"{name} must be a whole number of bits, got {text!r}")
    return check_int(name, int(bits), 1, 2**64)


def parse_bytes(text: object, name: str = "memory") -> int:
    """A size in bytes: a bare number is bytes (``1073741824``, ``2^30``); with a unit it is
    converted as :func:`parse_bits` converts (``1GiB``, ``512MB``, ``800MiB``)."""
    value, unit = _number(name, text)
    if unit not in SIZE_UNITS:
        raise ValueError(f"{name}: unknown unit {unit!r} (bytes by default; KB, MB, GB, KiB, "
                         "MiB, GiB …)")  # fmt: skip
    nbytes = value if unit == "" else value * SIZE_UNITS[unit] / 8
    if nbytes.denominator != 1:
        raise ValueError(f"{name} must be a whole number of bytes, got {text!r}")
    return check_int(name, int(nbytes), 1, 2**63)


def parse_range(text: str, name: str = "range") -> tuple[int, int]:
    """``LOW:HIGH`` (half-open, like Python's ``range``) or ``HIGH`` alone (``0:HIGH``)."""
    parts = str(text).split(":")
    if len(parts) > 2:
        raise ValueError(f"{name}: write LOW:HIGH, e.g. 0:2^32; got {text!r}")
    low = parse_count(parts[0], f"{name} start", 0) if len(parts) == 2 else 0
    high = parse_count(parts[-1], f"{name} end", 1)
    if high <= low:
        raise ValueError(f"{name}: the end must be above the start; got {text!r}")
    return low, high
