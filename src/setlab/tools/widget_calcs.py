"""Three calculators behind the book's interactive figures: a cuckoo filter's first-failure load,
a sharded Bloom filter's worst shard, and bytes per ID by density with the advisor's pick.

* :func:`cuckoo_load` — bucket size, fingerprint bits and filter size → the load at the first
  failed insert (the stored simulation grid, :class:`setlab.models.cuckoo_load.LoadGrid`), bits
  per item and the false-positive rate there;
* :func:`sharded_bloom` — items, shard count, per-shard capacity and rate → the fullest shard's
  load and rate beside the mean (:mod:`setlab.models.sharded_bloom`);
* :func:`density` — ``count`` IDs spread uniformly over ``0 … universe − 1`` (or uniform 64-bit
  hashes) → bytes per ID of a Redis SET, a plain bitmap, Roaring, a Bloom and a cuckoo filter and
  a HyperLogLog, and the structure :func:`setlab.tools.advise.recommend` picks
  (:func:`setlab.tools.analysis.synthetic` describes the IDs without listing them).

Each returns a :class:`setlab.tools.calc.Report` (rows for people, a dict for ``--json``): the
``setlab calc cuckoo-load | sharded-bloom | density`` subcommands print them, and the browser tests
compare the figures' numbers with their JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from setlab.core.units import format_bytes
from setlab.core.validate import check_int, check_probability
from setlab.models.bloom import format_rate
from setlab.tools.calc import Report

# -- cuckoo: the first failure ----------------------------------------------------------------


def cuckoo_load(bucket_size: int = 4, fingerprint_bits: int = 12, slots: int = 2**14) -> Report:
    """Load at a cuckoo filter's first failed insert for one setting of the stored grid (random
    victims, 500 kicks, the mean of three seeded fills), bits per item ``f / load`` and the rate
    ``1 - (1 - 1/(2^f - 1))^(2·b·load)`` there. ``slots`` is a power of two on the grid."""
    from setlab.models.cuckoo_load import LoadGrid

    slots = check_int("slots", slots, 1)
    if slots & (slots - 1):
        raise ValueError(f"slots must be a power of two (2^10 … 2^18 on the grid); got {slots:,}")
    cell = LoadGrid.load().cell(bucket_size, fingerprint_bits, slots.bit_length() - 1)
    report = Report(f"Cuckoo filter, first failed insert: b = {cell.bucket_size}, "
                    f"{cell.fingerprint_bits}-bit fingerprints, {cell.slots:,} slots")  # fmt: skip
    report.rows = [
        ("first failure at", f"{cell.load:.1%} load (seeds: "
                             f"{', '.join(f'{x:.1%}' for x in cell.loads)})"),
        ("bits per item", f"{cell.bits_per_item:.2f} ({cell.fingerprint_bits} / load)"),
        ("rate there", format_rate(cell.fpr)),
        ("source", "simulated grid (setlab.models.cuckoo_load): random victims, 500 kicks"),
    ]  # fmt: skip
    report.data = cell.as_json()
    return report


# -- sharded Bloom ----------------------------------------------------------------------------


def sharded_bloom(items: int, shards: int, capacity: int, p: float = 0.01) -> Report:
    """``items`` routed by hash over ``shards`` Bloom filters, each sized for ``capacity`` at
    ``p``: the fullest shard (median over routings) against the mean."""
    from setlab.models.sharded_bloom import shard_filter

    s = shard_filter(items, shards, capacity, p)
    report = Report(f"Sharded Bloom filter: {s.items:,} items over {s.shards:,} shards of "
                    f"capacity {s.capacity:,} at {format_rate(s.p)}")  # fmt: skip
    report.rows = [
        ("each shard", f"{s.m:,} bits ({format_bytes(s.shard_bytes)}), k = {s.k}"),
        ("all shards", format_bytes(s.total_bytes)),
        ("mean load", f"{s.mean_load:,.1f} items ({s.mean_load / s.capacity:.0%} of capacity)"),
        ("fullest shard", f"{s.worst_load:,} items ({s.worst_over_capacity:.0%} of capacity; "
                          "median over routings)"),
        ("rate, fullest shard", format_rate(s.worst_fpr)),
        ("rate at the mean load", format_rate(s.fpr_at_mean)),
        ("mean rate over shards", format_rate(s.mean_fpr)),
    ]  # fmt: skip
    if s.worst_load > s.capacity:
        report.notes.append(
            f"the fullest shard holds more than its capacity: size shards for about "
            f"{s.worst_load:,} items, not the mean"
        )
    report.data = {
        "items": s.items, "shards": s.shards, "capacity": s.capacity, "p": s.p, "m": s.m,
        "k": s.k, "shard_bytes": s.shard_bytes, "total_bytes": s.total_bytes,
        "mean_load": s.mean_load, "worst_load": s.worst_load, "worst_fpr": s.worst_fpr,
        "fpr_at_mean": s.fpr_at_mean, "mean_fpr": s.mean_fpr,
    }  # fmt: skip
    return report


# -- bytes per ID by density ------------------------------------------------------------------

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


def price_density(count: int, universe: int = 2**32, error: float = 0.01,
                  seed: int = 0) -> DensityPoint:  # fmt: skip
    """Price every structure for ``count`` distinct IDs drawn uniformly from ``0 … universe − 1``
    (``universe`` ≤ 2^32), or for ``count`` uniform 64-bit hashes (``universe`` = 2^64), with the
    advisor (:func:`setlab.tools.advise.advise`, filters at ``error``)."""
    from setlab.tools import advise
    from setlab.tools.analysis import synthetic

    universe = check_universe(universe)
    count = check_int("count", count, 1, min(universe, 2**40))
    error = check_probability("error", error)
    shape = "hashed64" if universe == HASHED64 else "random32"
    described = synthetic(count, shape, universe=min(universe, 2**32), seed=seed)
    advice = advise.advise(described, advise.Needs(error=error))
    memory = {_short(c.name): c.memory for c in advice.candidates}
    return DensityPoint(count, universe, error, {s: memory[s] for s in STRUCTURES},
                        _short(advice.recommendation.choice.name),
                        advice.recommendation.reason)  # fmt: skip


def _range_text(universe: int) -> str:
    if universe == HASHED64:
        return "uniform 64-bit hashes"
    exponent = math.log2(universe)
    power = f" = 2^{exponent:.0f}" if exponent.is_integer() else ""
    return f"0 … {universe - 1:,} ({universe:,} values{power})"


def density(count: int, universe: int = 2**32, error: float = 0.01) -> Report:
    """:func:`price_density` as a :class:`Report`: bytes and bytes per ID per structure."""
    point = price_density(count, universe, error)
    report = Report(f"{point.count:,} IDs in {_range_text(point.universe)}: bytes per ID")
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
        "reason": point.reason, "pick_bytes": point.memory[point.pick],
    }  # fmt: skip
    return report


def density_table(counts: tuple[int, ...], universes: tuple[int, ...],
                  error: float = 0.01) -> list[dict[str, Any]]:  # fmt: skip
    """Long rows (``count``, ``universe``, ``structure``, ``bytes_per_id``, ``pick``) of
    :func:`price_density` for every ``count`` ≤ ``universe``: the interactive figure's grid."""
    rows = []
    for u in universes:
        for n in counts:
            if n > min(u, 2**40):
                continue
            point = price_density(n, u, error)
            rows += [{"count": n, "universe": u, "structure": s,
                      "bytes_per_id": point.bytes_per_id(s), "pick": s == point.pick}
                     for s in STRUCTURES]  # fmt: skip
    return rows
