"""A Bloom filter sharded over many keys: items routed by hash over ``shards`` filters, each
sized for ``capacity`` items at rate ``p``; the fullest shard's load and rate beside the mean
(:mod:`setlab.models.sharded_bloom`)."""

from __future__ import annotations

from setlab.core.formats import format_bytes, format_rate
from setlab.tools.calc.calculator import Calculator, Given, Option, count, rate
from setlab.tools.calc.report import Report


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


def _run(given: Given) -> list[Report]:
    """``setlab calc sharded-bloom``."""
    return [sharded_bloom(given["n"], given["shards"], given["capacity"], given["p"])]


CALCULATOR = Calculator(
    "sharded-bloom",
    help="worst-shard false-positive rate of a Bloom filter over many keys",
    description="N items routed by hash over SHARDS Bloom filters, each sized for CAPACITY "
    "items at rate p: the fullest shard's load and rate against the mean.",
    options=(
        Option(("-n", "--items"), "items", dest="n", read=count("n"), required=True),
        Option(("--shards",), "shards (keys)", read=count("shards"), required=True),
        Option(("--capacity",), "items each shard is sized for", read=count("capacity"),
               required=True),
        Option(("-p", "--error"), "rate each shard is sized for at its capacity (default 1%)",
               dest="p", read=rate("p"), default=0.01),
    ),
    run=_run,
    example="setlab calc sharded-bloom -n 8e8 --shards 2^17 --capacity 6104",
)  # fmt: skip
