"""A first ``SETBIT`` at one offset: the string Redis must create, what it allocates and reports
(:mod:`setlab.models.bitmap`), and how long the stored reference run took to write it.

The time is the reference run's median time inside Redis (``INFO commandstats``) at the measured
offsets (:class:`setlab.lab.runs.setbit.SetbitReference`), interpolated linearly in log–log space
between them (:func:`setlab.core.interpolation.interpolate`, the same lookup the book's widget
runs): a stored measurement, never this machine's."""

from __future__ import annotations

from functools import cache

from setlab.core.formats import format_bytes, format_duration
from setlab.core.interpolation import interpolate
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.report import Report


@cache
def reference_points() -> tuple[tuple[float, ...], tuple[float, ...], str]:
    """(offsets, median ms inside Redis, the run's label) of the stored reference run."""
    from setlab.lab.runs.setbit import SetbitReference

    ref = SetbitReference.load()
    rows = [s for s in ref.summaries() if s.server_us is not None and s.server_us > 0]
    return (tuple(float(s.offset) for s in rows), tuple(s.server_us / 1e3 for s in rows),
            ref.run.label)  # fmt: skip


def first_write_ms(offset: int) -> float:
    """The reference run's first-write time at ``offset`` (ms), interpolated in log–log space."""
    offsets, ms, _ = reference_points()
    return interpolate(float(offset), offsets, ms)


def setbit_report(offset: int) -> Report:
    """``SETBIT key offset 1`` on a key that does not exist: ``STRLEN`` afterwards, the sds
    string's allocation (a jemalloc size class), ``MEMORY USAGE`` and the reference run's time."""
    from setlab.models import bitmap

    offset = bitmap.check_offset(offset)
    strlen = bitmap.bytes_for_offset(offset)
    allocation = bitmap.SdsString.new(strlen).allocation
    usage = bitmap.first_setbit_memory_usage(offset)
    offsets, _, label = reference_points()
    ms = first_write_ms(offset)
    measured = float(offset) in offsets
    report = Report(f"SETBIT key {offset:,} 1 on a new key")
    report.rows = [
        ("STRLEN", f"{strlen:,} bytes ({format_bytes(strlen)})"),
        ("allocation", f"{format_bytes(allocation)} ({allocation:,} bytes, a jemalloc class)"),
        ("MEMORY USAGE", f"{usage:,} bytes"),
        ("first write", f"{format_duration(ms / 1e3)} inside Redis "
                        f"({'measured' if measured else 'interpolated'}; {label})"),
    ]  # fmt: skip
    report.data = {
        "offset": offset, "strlen": strlen, "allocation": allocation, "memory_usage": usage,
        "first_write_ms": ms, "first_write_measured": measured, "reference": label,
    }  # fmt: skip
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc setbit``."""
    return [setbit_report(given["offset"])]


CALCULATOR = Calculator(
    "setbit",
    help="what a first SETBIT at an offset allocates, and how long it took",
    description="SETBIT key OFFSET 1 on a key that does not exist: STRLEN, the jemalloc "
    "block, MEMORY USAGE (one-letter key), and the time inside Redis in the stored reference "
    "run, interpolated between its measured offsets.",
    options=(Option(("offset",), "bit offset (0 to 2^32 - 1)", read=count("offset", low=0)),),
    run=_run,
    key_bytes="memory_usage",
    example="setlab calc setbit 1823456789",
)  # fmt: skip
