"""Bytes per ID by density: ``count`` IDs spread uniformly over ``0 … universe − 1`` (or uniform
64-bit hashes) priced as a Redis SET, a plain bitmap, Roaring, a Bloom and a cuckoo filter and a
HyperLogLog, with the structure the advisor picks (:mod:`setlab.tools.calc.choice`;
:func:`setlab.tools.analysis.synthetic` describes the IDs without listing them)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from setlab.core.formats import format_bytes, format_rate
from setlab.core.validate import check_int, check_probability
from setlab.tools.calc.calculator import Calculator, Given, Option, count, rate
from setlab.tools.calc.release import PricedFor
from setlab.tools.calc.report import Report

#: The structures priced, in the order the figure lists them (the advisor's names, error dropped).
STRUCTURES = ("Redis SET", "plain bitmap", "Roaring bitmap", "Bloom filter", "cuckoo filter",
              "HyperLogLog")  # fmt: skip
#: ``universe`` meaning "uniform 64-bit hashes" (device IDs written as 16 hex digits).
HASHED64 = 2**64


@dataclass(frozen=True)
class DensityPoint:
    """What every structure costs for ``count`` IDs in a range, and the advisor's pick."""

    count: int
    universe: int  #: IDs drawn from ``0 … universe − 1``; :data:`HASHED64` for 64-bit hashes
    error: float  #: the filters' false-positive rate
    memory: dict[str, int | None]  #: bytes per structure (None: impossible for these IDs)
    pick: str  #: the advisor's choice (a name of :data:`STRUCTURES`)
    reason: str

    @property
    def density(self) -> float:
        """Share of the values in the range that are IDs."""
        return self.count / self.universe

    def bytes_per_id(self, structure: str) -> float | None:
        """Bytes per ID of ``structure`` (a name of :data:`STRUCTURES`); None if impossible."""
        nbytes = self.memory[structure]
        return None if nbytes is None else nbytes / self.count


def _short(name: str) -> str:
    """The advisor's candidate name without its error (``'Bloom filter, 1%'`` → ``'Bloom
    filter'``)."""
    return name.split(",")[0]


def check_universe(universe: int) -> int:
    """A range the advisor prices: up to 2^32 values, or 2^64 (uniform 64-bit hashes); the
    message is what ``setlab calc density --range`` and its calculator say."""
    universe = check_int("universe", universe, 1, HASHED64)
    if 2**32 < universe < HASHED64:
        raise ValueError(f"universe must be at most 2^32, or 2^64 for hashed IDs; got "
                         f"{universe:,}")  # fmt: skip
    return universe


def price_density(
    count: int, universe: int = 2**32, error: float = 0.01, seed: int = 0,
    release: str | None = None, allocator: str | None = None,
) -> DensityPoint:  # fmt: skip
    """Price every structure for ``count`` distinct IDs drawn uniformly from ``0 … universe − 1``
    (``universe`` ≤ 2^32), or for ``count`` uniform 64-bit hashes (``universe`` = 2^64), with the
    advisor's engine (:mod:`setlab.tools.calc.choice`, filters at ``error``; what Redis holds
    priced for ``release`` with ``allocator``, by default Redis 7.0 and its usual one)."""
    from setlab.tools.analysis import synthetic
    from setlab.tools.calc import choice

    universe = check_universe(universe)
    count = check_int("count", count, 1, min(universe, 2**40))
    error = check_probability("error", error)
    shape = "hashed64" if universe == HASHED64 else "random32"
    described = synthetic(count, shape, universe=min(universe, 2**32), seed=seed)
    needs = choice.Needs(error=error, release=release, allocator=allocator)
    options = choice.candidates(described, needs)
    pick = choice.recommend(described, options, needs)
    memory = {_short(c.name): c.memory for c in options}
    return DensityPoint(count, universe, error, {s: memory[s] for s in STRUCTURES},
                        _short(pick.choice.name), pick.reason)  # fmt: skip


def _range_text(universe: int) -> str:
    if universe == HASHED64:
        return "uniform 64-bit hashes"
    exponent = math.log2(universe)
    power = f" = 2^{exponent:.0f}" if exponent.is_integer() else ""
    return f"0 … {universe - 1:,} ({universe:,} values{power})"


def density(count: int, universe: int = 2**32, error: float = 0.01, release: str | None = None,
            allocator: str | None = None) -> Report:  # fmt: skip
    """:func:`price_density` as a :class:`Report`: bytes and bytes per ID per structure."""
    priced = PricedFor.of(release, allocator)
    point = price_density(count, universe, error, release=release, allocator=allocator)
    report = Report(f"{point.count:,} IDs in {_range_text(point.universe)}: bytes per ID")
    report.rows.append(("priced for", priced.text))
    for name in STRUCTURES:
        nbytes = point.memory[name]
        value = "impossible" if nbytes is None else (
            f"{nbytes / point.count:.3g} B per ID ({format_bytes(nbytes)})")  # fmt: skip
        mark = "  ← the advisor's pick" if name == point.pick else ""
        report.rows.append((name, value + mark))
    report.rows.append(("density", f"{point.density:.3g} of the range"))
    report.notes.append(f"the advisor picks the {point.pick}: {point.reason}")
    report.notes.append(f"filters at {format_rate(point.error)}; HyperLogLog only counts")
    report.data = {
        "count": point.count, "universe": point.universe, "hashed64": point.universe == HASHED64,
        "density": point.density, "error": point.error, "memory": point.memory,
        "bytes_per_id": {s: point.bytes_per_id(s) for s in STRUCTURES}, "pick": point.pick,
        "reason": point.reason, "pick_bytes": point.memory[point.pick], **priced.as_json(),
    }  # fmt: skip
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc density``."""
    return [density(given["n"], given["range"], given["p"], given["redis"], given["allocator"])]


CALCULATOR = Calculator(
    "density",
    help="bytes per ID of every structure for N IDs in a range, and the pick",
    description="N distinct IDs spread uniformly over 0 … RANGE-1 (RANGE at most 2^32, or "
    "2^64 for uniform 64-bit hashes): bytes per ID of a Redis SET, a plain bitmap, Roaring, "
    "Bloom and cuckoo filters and a HyperLogLog, and the structure the advisor picks.",
    options=(
        Option(("-n", "--count"), "IDs", dest="n", read=count("count"), required=True),
        Option(("--range",), "values the IDs come from (default 2^32; 2^64: hashed IDs)",
               read=count("range"), default=2**32),
        Option(("-p", "--error"), "false-positive rate of the filters (default 1%)", dest="p",
               read=rate("p"), default=0.01),
    ),
    run=_run,
    shared=("redis", "allocator"),
    key_bytes="pick_bytes",  # --sets: the total the pick takes for that many sets
    example="setlab calc density -n 8e8 --range 2^32 -p 1%",
)  # fmt: skip
