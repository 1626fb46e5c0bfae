"""Every number format of the book, in one home: sizes (binary units, like Redis's ``INFO``),
durations, counts, rates and probabilities for prose and tables, and the readouts of the in-page
calculators (:func:`format_readout`, which ``book/_static/setlab-widgets.js`` mirrors in the
browser). A figure, a table, the CLI and a widget that show one quantity format it here."""

from __future__ import annotations

import math
import numbers

_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def format_bytes(n: float, digits: int = 3) -> str:
    """``1310768`` → ``'1.25 MiB'``: binary units, ``digits`` significant digits."""
    if n < 0:
        raise ValueError(f"n must be >= 0 bytes, got {n!r}")
    value = float(n)
    for unit in _BYTE_UNITS:
        if value < 1024 or unit == _BYTE_UNITS[-1]:
            break
        value /= 1024
    if unit == "B":
        return f"{round(value)} B"
    return f"{_significant(value, digits)} {unit}"


def format_bytes_si(n: float, digits: int = 3) -> str:
    """``13107200`` → ``'12.5 MiB (13.1 MB)'``: binary units, then the decimal megabytes a field
    report would print, so a figure beside a seed's "MB" never looks like the same unit."""
    if n < 0:
        raise ValueError(f"n must be >= 0 bytes, got {n!r}")
    return f"{format_bytes(n, digits)} ({_significant(n / 1e6, digits)} MB)"


def _significant(value: float, digits: int) -> str:
    """``value`` with ``digits`` significant digits, never in exponent notation (``'100'``)."""
    if value >= 10 ** (digits - 1):
        return f"{value:.0f}"
    return f"{value:.{digits}g}"


def format_duration(seconds: float, digits: int = 3) -> str:
    """``0.0012`` → ``'1.2 ms'``: picks µs, ms or s."""
    if seconds < 0:
        raise ValueError(f"seconds must be >= 0, got {seconds!r}")
    for scale, unit in ((1e-6, "µs"), (1e-3, "ms")):
        if seconds < scale * 1000:
            return f"{_significant(seconds / scale, digits)} {unit}"
    return f"{_significant(seconds, digits)} s"


def format_count(n: float) -> str:
    """``800000000`` → ``'8e+08'`` style for big counts, thousands separators below a billion."""
    return f"{n:,.0f}" if abs(n) < 1e9 else f"{n:.3g}"


def format_share(fraction: float) -> str:
    """A share of a whole, for prose: ``0.0123`` → ``'1.2%'``; below 0.1% the fraction itself with
    3 significant digits (``'2.5e-05'``), where a percent would read as zero."""
    return f"{fraction:.1%}" if fraction >= 0.001 else f"{fraction:.3g}"


def format_hours(seconds: float, digits: int = 3) -> str:
    """A time that may run to hours (a bulk load): :func:`format_duration` below an hour, else
    hours with ``digits`` significant digits (``71_064`` → ``'19.7 h'``)."""
    if seconds < 3600:
        return format_duration(seconds, digits)
    return f"{_significant(seconds / 3600, digits)} h"


def format_rate(p: float, digits: int = 3) -> str:
    """A probability as a percent for prose: ``0.1571`` → ``'15.7%'``, ``5e-5`` → ``'0.005%'``."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    percent = 100.0 * float(p)
    if percent == 0.0:
        return "0%"
    text = f"{percent:.{digits}g}"
    if "e" in text:
        text = f"{percent:.{digits - 1 + max(0, -math.floor(math.log10(percent)))}f}"
    return text + "%"


def format_probability(p: float, complement: float | None = None) -> str:
    """A probability as a percentage with three significant figures (``'0.0116%'``).

    Near 1 it shows the complement instead of rounding to a false 100%: ``'99.95%'``, or
    ``'100% − 1.9e-19%'`` (pass ``complement`` = 1 − p when you have it more precisely than
    ``p`` can hold, as :func:`format_collision_probability` does).
    """
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise ValueError(f"p must be a probability between 0 and 1; got {p!r}")
    q = 1 - p if complement is None else complement
    if p == 0:
        return "0%"
    if q == 0:
        return "100%"
    if p < 0.999:
        percent = p * 100
        decimals = max(0, 2 - math.floor(math.log10(percent)))
        return f"{percent:.{decimals}f}%"
    if q >= 1e-6:
        decimals = -math.floor(math.log10(q * 100))
        return f"{100 - q * 100:.{decimals}f}%"
    return f"100% − {q * 100:.2g}%"


def format_readout(value: float | str, kind: str, unit: str = "") -> str:
    """A readout as the page writes it (setlab-widgets.js mirrors this): ``int`` with thousands
    separators, ``bytes`` in binary units, ``percent`` a fraction as % with 3 significant
    digits, ``rate`` a small probability (3 significant digits, exponent below 0.001),
    ``number`` 3 significant digits; ``text`` is words (a pick, its reason) as they are, and an
    empty one is "—"."""
    if kind == "text":
        return str(value) or "—"
    if not math.isfinite(value):
        return "—"  # no number: no unit either
    if kind == "int":
        text = f"{round(value):,}"
    elif kind == "bytes":
        text = format_bytes(value)
    elif kind == "percent":
        text = f"{_readout_number(value * 100)}%"
    elif kind == "rate":
        text = f"{value:.3g}" if value == 0 or value >= 1e-3 else f"{value:.2e}"
    else:
        text = _readout_number(value)
    return f"{text} {unit}".strip()


def _readout_number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
