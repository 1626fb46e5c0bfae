"""Roaring bitmaps: containers and bytes for a count in a range, or for real IDs
(:mod:`setlab.models.roaring`)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from setlab.core.formats import format_bytes
from setlab.core.quantities import parse_range
from setlab.core.validate import check_int
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.report import Report

if TYPE_CHECKING:
    from setlab.models.ids import IDs


def _roaring_rows(layout: Any, ids: int, plain_bits: int | None) -> tuple[list, dict]:
    from setlab.models import roaring

    runs = roaring.Layout(layout.keys, layout.cardinality, layout.runs,
                          roaring.choose_kinds(layout.cardinality, layout.runs, True))  # fmt: skip
    counts = layout.counts()
    rows = [
        ("containers", f"{layout.containers:,}: {counts['array']:,} array, "
                       f"{counts['bitset']:,} bitset"),
        ("serialized", f"{format_bytes(layout.serialized_bytes)} "
                       f"({layout.serialized_bytes / ids:.2f} B per ID), added one by one"),
        ("run-optimized", f"{format_bytes(runs.serialized_bytes)} "
                          f"({runs.serialized_bytes / ids:.2f} B per ID), "
                          f"{runs.counts()['run']:,} run containers"),
        ("in RAM (model)", format_bytes(layout.memory_bytes)),
    ]  # fmt: skip
    data = {
        "ids": ids, "containers": layout.containers, "kinds": counts,
        "serialized_bytes": layout.serialized_bytes,
        "run_optimized_bytes": runs.serialized_bytes, "memory_bytes": layout.memory_bytes,
    }  # fmt: skip
    if plain_bits is not None:
        from setlab.models import bitmap

        if plain_bits - 1 <= bitmap.MAX_OFFSET:
            usage = bitmap.first_setbit_memory_usage(plain_bits - 1)
            rows.append(("plain bitmap", f"{format_bytes(usage)} (Redis string, one bit per "
                                         "value of the range)"))  # fmt: skip
            data["plain_bitmap_bytes"] = usage
        else:
            rows.append(("plain bitmap", "impossible: the range is beyond 2^32 bit offsets"))
            data["plain_bitmap_bytes"] = None
    return rows, data


def roaring_estimate(
    count: int,
    low: int = 0,
    high: int = 2**32,
    *,
    dense: bool = False,
    seed: int = 0,
) -> Report:
    """Roaring containers for ``count`` IDs in ``[low, high)``: uniformly random (the default;
    per-chunk counts drawn exactly, nothing materialised) or ``dense`` (``low … low+count-1``).

    The range is taken as if it started on a chunk boundary (2^16); at most 2^32 values wide
    (wider ranges need the IDs: use :func:`roaring_from_ids`).
    """
    from setlab.models import roaring

    low = check_int("low", low, 0)
    high = check_int("high", high, low + 1)
    universe = high - low
    if universe > 2**32:
        raise ValueError(
            f"range must be at most 2^32 values wide for this estimate; got {universe:,} "
            "(for 64-bit IDs pass a file of them)"
        )
    count = check_int("count", count, 1, universe)
    layout = (
        roaring.dense_layout(count)
        if dense
        else roaring.random_layout(count, np.random.default_rng(seed), universe=universe)
    )
    shape = "dense" if dense else "random"
    report = Report(f"Roaring bitmap: {count:,} {shape} IDs in [{low:,}, {high:,})")
    report.rows, report.data = _roaring_rows(layout, count, universe)
    report.data.update({"low": low, "high": high, "dense": dense})
    return report


def roaring_from_ids(ids: IDs) -> Report:
    """Roaring containers for the distinct IDs read from a file (32- or 64-bit Roaring)."""
    from setlab.models import roaring

    if ids.high is not None:
        raise ValueError(f"{ids.source}: {ids.kind} IDs are 128 bits wide; Roaring holds "
                         "integers below 2^64 (map them to dense integers first)")  # fmt: skip
    values = np.unique(ids.values)
    top = int(values[-1])
    if top < 2**32:
        layout = roaring.layout(values)
        report = Report(f"Roaring bitmap of {values.size:,} distinct IDs from {ids.source}")
        report.rows, report.data = _roaring_rows(layout, values.size, top + 1)
    else:
        wide = roaring.layout64(values)
        report = Report(f"Roaring64 bitmap of {values.size:,} distinct IDs from {ids.source}")
        report.rows, report.data = _roaring_rows(wide.layout, values.size, top + 1)
        report.rows[1] = ("serialized", f"{format_bytes(wide.serialized_bytes)} "
                          f"({wide.serialized_bytes / values.size:.2f} B per ID) in "
                          f"{wide.buckets:,} buckets of 2^32")  # fmt: skip
        report.data["serialized_bytes"] = wide.serialized_bytes
        report.data["buckets"] = wide.buckets
        report.notes.append("IDs above 2^32 need Roaring64: a 32-bit bitmap per distinct high "
                            "half, and sparse IDs get a container each")  # fmt: skip
    report.data["duplicates"] = len(ids) - values.size
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc roaring``: from a file of IDs, or from a count in a range."""
    from setlab.models.ids import read_ids

    if given["file"] is not None:
        if given["count"] is not None or given["range"] is not None or given["dense"]:
            raise ValueError("give a FILE or --count/--range/--dense, not both")
        ids = read_ids(given["file"], given["progress"], given["format"], given["max_ids"])
        return [roaring_from_ids(ids)]
    if given["count"] is None:
        raise ValueError("give a FILE of IDs, or --count N (and --range LOW:HIGH)")
    low, high = given["range"] or (0, 2**32)
    return [roaring_estimate(given["count"], low, high, dense=given["dense"], seed=given["seed"])]


CALCULATOR = Calculator(
    "roaring",
    help="Roaring containers and bytes, from a count and range or a file",
    description="Roaring bitmap size for COUNT IDs spread uniformly over a range (or dense), "
    "or for the IDs in FILE (one per line, '-' for stdin).",
    options=(
        Option(("file",), "file of IDs, one per line ('-' for stdin)", optional=True),
        Option(("-n", "--count"), "how many IDs", read=count("count")),
        Option(("--range",), "LOW:HIGH the IDs fall in, half-open (default 0:2^32)",
               read=partial(parse_range, name="range")),
        Option(("--dense",), "consecutive IDs instead of random", switch=True),
        Option(("--seed",), "random seed", read=count("seed", low=0), default=0),
    ),
    run=_run,
    shared=("format", "max-ids", "progress"),
    key_bytes="serialized_bytes",
    example="setlab calc roaring --count 1.2e8 --range 0:2^32",
)  # fmt: skip
