"""Hashing IDs into a bitmap of ``M`` offsets: the chance that two share one, and how many pairs
do (the birthday problem, :mod:`setlab.models.birthday`)."""

from __future__ import annotations

from setlab.core.formats import format_probability
from setlab.core.validate import check_int
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.report import Report

#: The collision risk :func:`birthday_report` prices the offset space for (a fraction).
RISK = 0.01


def birthday_report(n: int, log2_space: int) -> Report:
    """``n`` distinct IDs hashed uniformly into ``M = 2^log2_space`` offsets: the exact chance
    that at least two share an offset, the expected number of sharing pairs ``n(n-1)/2M``, and the
    most IDs that keep the chance at or below :data:`RISK`. ``log2_space`` in 1 … 64."""
    from setlab.models import birthday

    n = check_int("n", n, 1, 2**62)
    bits = check_int("log2_space", log2_space, 1, 64)
    space = 1 << bits
    chance = birthday.collision_probability(n, space)
    pairs = birthday.expected_colliding_pairs(n, space)
    safe = birthday.max_users(space, RISK)
    report = Report(f"Birthday: {n:,} IDs hashed into 2^{bits} = {space:,} offsets")
    report.rows = [
        ("P(any collision)", format_probability(chance)),
        ("expected pairs", f"{pairs:.3g} pairs of IDs sharing an offset"),
        (f"IDs at {RISK:.0%} risk", f"{safe:,} (the most with a chance <= {RISK:.0%})"),
    ]
    report.data = {
        "n": n, "log2_space": bits, "space": space, "collision_probability": chance,
        "expected_colliding_pairs": pairs, "max_ids_at_risk": safe, "risk": RISK,
    }  # fmt: skip
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc birthday``."""
    return [birthday_report(given["n"], given["bits"])]


CALCULATOR = Calculator(
    "birthday",
    help="chance that n hashed IDs share one of 2^bits offsets",
    description="n distinct IDs hashed uniformly into a bitmap of 2^bits offsets: the exact "
    "chance that two share an offset (the birthday problem), the expected number of sharing "
    "pairs, and the most IDs that keep the chance at or below 1%.",
    options=(
        Option(("-n", "--ids"), "IDs hashed", dest="n", read=count("n"), required=True),
        Option(("--bits",), "log2 of the offset space M (1 to 64)", read=count("bits"),
               required=True),
    ),
    run=_run,
    example="setlab calc birthday -n 1e5 --bits 32",
)  # fmt: skip
