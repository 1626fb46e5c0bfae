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
from setlab.tools.calc.release import PricedFor
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


def setbit_report(offset: int, release: str | None = None, allocator: str | None = None) -> Report:
    """``SETBIT key offset 1`` on a key that does not exist: ``STRLEN`` afterwards, the
    string's allocation (the allocator's size class), ``MEMORY USAGE``, what the key allocates
    on ``release`` with ``allocator`` (defaults: Redis 7.0, its usual allocator) and the
    reference run's time."""
    from setlab.models import bitmap, redis_memory

    priced = PricedFor.of(release, allocator)
    offset = bitmap.check_offset(offset)
    strlen = bitmap.bytes_for_offset(offset)
    block = bitmap.SdsString.new(strlen, priced.allocator).allocation
    cost = redis_memory.bitmap_cost([offset], version=priced.release, allocator=priced.allocator)
    offsets, _, label = reference_points()
    ms = first_write_ms(offset)
    measured = float(offset) in offsets
    kind = "a glibc chunk" if priced.allocator == "libc" else "a jemalloc class"
    report = Report(f"SETBIT key {offset:,} 1 on a new key")
    report.rows = [
        ("priced for", priced.text),
        ("STRLEN", f"{strlen:,} bytes ({format_bytes(strlen)})"),
        ("allocation", f"{format_bytes(block)} ({block:,} bytes, {kind})"),
        ("MEMORY USAGE", f"{cost.memory_usage:,} bytes"),
        ("allocated", f"{cost.allocated:,} bytes: what used_memory grows, key included"),
        ("first write", f"{format_duration(ms / 1e3)} inside Redis "
                        f"({'measured' if measured else 'interpolated'}; {label})"),
    ]  # fmt: skip
    report.data = {
        "offset": offset, "strlen": strlen, "allocation": block,
        "memory_usage": cost.memory_usage, "allocated": cost.allocated, "first_write_ms": ms,
        "first_write_measured": measured, "reference": label, **priced.as_json(),
    }  # fmt: skip
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc setbit``."""
    return [setbit_report(given["offset"], given["redis"], given["allocator"])]


CALCULATOR = Calculator(
    "setbit",
    help="what a first SETBIT at an offset allocates, and how long it took",
    description="SETBIT key OFFSET 1 on a key that does not exist: STRLEN, the allocator's "
    "block, MEMORY USAGE and what the key allocates (one-letter key) on the release named "
    "(default Redis 7.0), and the time inside Redis in the stored reference run, "
    "interpolated between its measured offsets.",
    options=(Option(("offset",), "bit offset (0 to 2^32 - 1)", read=count("offset", low=0)),),
    run=_run,
    shared=("redis", "allocator"),
    key_bytes="memory_usage",
    example="setlab calc setbit 1823456789",
)  # fmt: skip
