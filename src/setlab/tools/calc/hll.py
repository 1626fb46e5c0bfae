"""A HyperLogLog's memory and error (:mod:`setlab.models.hyperloglog`)."""

from __future__ import annotations

import functools
from typing import Any

from setlab.core.formats import format_bytes
from setlab.core.validate import check_int
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.report import Report

#: Elements after which a default HyperLogLog is certainly dense (it turns dense near 1,500).
HLL_DENSE_FROM = 5_000


def hll_key_cost(n: int) -> Any:
    """The :class:`setlab.models.redis_memory.KeyCost` of a HyperLogLog after ``n`` distinct
    elements (``reader:0`` …, :func:`setlab.models.hyperloglog.sketch_of_readers`): sparse while
    small, dense (12,304-byte string) from a few thousand on."""
    return _hll_key_cost(min(check_int("n", n, 0, 2**63), HLL_DENSE_FROM))


@functools.cache
def _hll_key_cost(n: int) -> Any:
    from setlab.models.hyperloglog import HyperLogLog, sketch_of_readers

    if n < HLL_DENSE_FROM:
        return sketch_of_readers(n).cost("k")
    # Dense: the key's cost no longer depends on the elements, so skip replaying thousands of
    # sparse updates (a third of a second): a sketch allowed no sparse bytes turns dense at
    # its first element (tests/unit/test_calc.py checks it against the replayed default sketch).
    hll = HyperLogLog(sparse_max_bytes=0)
    hll.add("reader:0")
    return hll.cost("k")


def hll_estimate(n: int) -> Report:
    """A HyperLogLog counting ``n`` distinct elements: memory (Redis 7.0), standard error 1.04/√m
    with m = 16384 registers (Flajolet et al. 2007), and an exact SET of ``n`` integers beside."""
    from setlab.models import redis_memory
    from setlab.models.hyperloglog import HLL_STANDARD_ERROR

    n = check_int("n", n, 1, 2**63)
    cost = hll_key_cost(n)
    error = HLL_STANDARD_ERROR
    report = Report(f"HyperLogLog counting {n:,} distinct elements")
    report.rows = [
        ("encoding", cost.encoding),
        ("memory", f"{format_bytes(cost.memory_usage)} MEMORY USAGE, "
                   f"{format_bytes(cost.allocated)} allocated"),
        ("standard error", f"{error:.2%} of the count (±{2 * error:.2%} for 95% of estimates: "
                           f"{n * (1 - 2 * error):,.0f} … {n * (1 + 2 * error):,.0f})"),
        ("answers", "how many (PFCOUNT), not whether one element is in (no membership)"),
    ]  # fmt: skip
    exact = None
    if n <= 2**40:
        exact = redis_memory.set_cost(redis_memory.Members.decimal_range(0, n)).memory_usage
        report.rows.append(("exact SET", f"{format_bytes(exact)} for {n:,} integer IDs"))
    if cost.encoding == "sparse":
        report.notes.append("sparse encoding while small: dense 12 KiB from a few thousand on")
    report.data = {
        "n": n, "encoding": cost.encoding, "memory_usage": cost.memory_usage,
        "allocated": cost.allocated, "standard_error": error, "exact_set_bytes": exact,
    }  # fmt: skip
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc hll``."""
    return [hll_estimate(given["n"])]


CALCULATOR = Calculator(
    "hll",
    help="a HyperLogLog's memory and error for n distinct elements",
    description="HyperLogLog (Redis 7.0): memory for N distinct elements, standard error, "
    "and an exact SET of N integers beside it.",
    options=(Option(("-n", "--items"), "distinct elements", dest="n", read=count("n"),
                    required=True),),
    run=_run,
    key_bytes="allocated",
    example="setlab calc hll -n 1e6",
)  # fmt: skip
