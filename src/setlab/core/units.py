"""Human-readable sizes and durations for prose and tables (binary units, like Redis's INFO)."""

from __future__ import annotations

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
