"""A HyperLogLog's memory and error (:mod:`setlab.models.hyperloglog`)."""

from __future__ import annotations

import functools
from typing import Any

from setlab.core.formats import format_bytes
from setlab.core.validate import check_int
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.release import PricedFor
from setlab.tools.calc.report import Report

#: Elements after which a default HyperLogLog is certainly dense (it turns dense near 1,500).
HLL_DENSE_FROM = 5_000


def hll_key_cost(n: int, release: str | None = None, allocator: str | None = None) -> Any:
    """The :class:`setlab.models.redis_memory.KeyCost` of a HyperLogLog after ``n`` distinct
    elements (``reader:0`` …, :func:`setlab.models.hyperloglog.sketch_of_readers`) on
    ``release`` with ``allocator`` (defaults: Redis 7.0, its usual allocator): sparse while
    small, dense (12,304-byte string) from a few thousand on."""
    build = PricedFor.of(release, allocator).build
    n = min(check_int("n", n, 0, 2**63), HLL_DENSE_FROM)
    return _hll_key_cost(n, build.release, build.allocator)


@functools.cache
def _hll_key_cost(n: int, release: str, allocator: str) -> Any:
    from setlab.models.hyperloglog import HyperLogLog, hll_hashes, reader_ids

    if n < HLL_DENSE_FROM:  # sketch_of_readers(n), on this build
        sketch = HyperLogLog(allocator=allocator, version=release)
        if n:
            sketch.add_hashes(hll_hashes(reader_ids(0, n)))
        return sketch.cost("k")
    # Dense: the key's cost no longer depends on the elements, so skip replaying thousands of
    # sparse updates (a third of a second): a sketch allowed no sparse bytes turns dense at
    # its first element (tests/unit/test_calc.py checks it against the replayed default sketch).
    hll = HyperLogLog(sparse_max_bytes=0, allocator=allocator, version=release)
    hll.add("reader:0")
    return hll.cost("k")


def hll_estimate(n: int, release: str | None = None, allocator: str | None = None) -> Report:
    """A HyperLogLog counting ``n`` distinct elements: memory on ``release`` with ``allocator``
    (defaults: Redis 7.0, its usual allocator), standard error 1.04/√m with m = 16384 registers
    (Flajolet et al. 2007), and an exact SET of ``n`` integers beside it on the same build."""
    from setlab.models import redis_memory
    from setlab.models.hyperloglog import HLL_STANDARD_ERROR

    priced = PricedFor.of(release, allocator)
    n = check_int("n", n, 1, 2**63)
    cost = hll_key_cost(n, priced.release, priced.allocator)
    error = HLL_STANDARD_ERROR
    report = Report(f"HyperLogLog counting {n:,} distinct elements")
    report.rows = [
        ("priced for", priced.text),
        ("encoding", cost.encoding),
        ("memory", f"{format_bytes(cost.memory_usage)} MEMORY USAGE, "
                   f"{format_bytes(cost.allocated)} allocated"),
        ("standard error", f"{error:.2%} of the count (±{2 * error:.2%} for 95% of estimates: "
                           f"{n * (1 - 2 * error):,.0f} … {n * (1 + 2 * error):,.0f})"),
        ("answers", "how many (PFCOUNT), not whether one element is in (no membership)"),
    ]  # fmt: skip
    exact = exact_allocated = None
    if n <= 2**40:
        members = redis_memory.Members.decimal_range(0, n, priced.allocator)
        exact_cost = redis_memory.set_cost(
            members, version=priced.release, allocator=priced.allocator
        )
        exact, exact_allocated = exact_cost.memory_usage, exact_cost.allocated
        report.rows.append(("exact SET", f"{format_bytes(exact)} MEMORY USAGE, "
                                         f"{format_bytes(exact_allocated)} allocated for {n:,} "
                                         "integer IDs"))  # fmt: skip
    if cost.encoding == "sparse":
        report.notes.append("sparse encoding while small: dense 12 KiB from a few thousand on")
    report.data = {
        "n": n, "encoding": cost.encoding, "memory_usage": cost.memory_usage,
        "allocated": cost.allocated, "standard_error": error, "exact_set_bytes": exact,
        "exact_set_allocated": exact_allocated,
        **priced.as_json(),
    }  # fmt: skip
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc hll``."""
    return [hll_estimate(given["n"], given["redis"], given["allocator"])]


CALCULATOR = Calculator(
    "hll",
    help="a HyperLogLog's memory and error for n distinct elements",
    description="HyperLogLog: memory for N distinct elements on the release named (default "
    "Redis 7.0), standard error, and an exact SET of N integers beside it.",
    options=(Option(("-n", "--items"), "distinct elements", dest="n", read=count("n"),
                    required=True),),
    run=_run,
    shared=("redis", "allocator"),
    key_bytes="allocated",
    example="setlab calc hll -n 1e6",
)  # fmt: skip
