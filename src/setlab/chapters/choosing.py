"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

import math

from setlab.core.units import format_bytes
from setlab.models import redis_memory
from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapter "Choosing": seed 003's selection table -----------------------------------------------

_EXACT = ("Redis SET", "plain bitmap", "Roaring bitmap")


def _row(key: str) -> dict:
    from setlab.tools import advise

    return advise.seed_003_figures()[key]


def _sizes(key: str, *names: str) -> str:
    row = _row(key)
    return ", ".join(f"{name} {format_bytes(row[name])}" for name in names)


def _pick(key: str) -> str:
    return f"advisor: {_row(key)['pick']}"


def _smallest_exact(key: str) -> int:
    return min(_row(key)[n] for n in _EXACT if _row(key)[n] is not None)


def _table_dense() -> str:
    row = _row("dense")
    return (
        f"10^8 consecutive IDs: Roaring {format_bytes(row['roaring_plain'])} as bitsets, "
        f"{format_bytes(row['Roaring bitmap'])} after run_optimize(); "
        f"{_sizes('dense', 'plain bitmap')}; {_pick('dense')}"
    )


def _table_sparse() -> str:
    sizes = _sizes("sparse64", "Bloom filter", "Roaring bitmap", "Redis SET")
    return f"1.2 × 10^8 device IDs: {sizes}; {_pick('sparse64')}"


def _table_deletes() -> str:
    sizes = _sizes("deletes", "Redis SET", "Roaring bitmap", "cuckoo filter")
    return f"5 × 10^7 device IDs: {sizes}; {_pick('deletes')}"


def _table_small() -> str:
    sizes = _sizes("small", "Redis SET", "Roaring bitmap", "Bloom filter")
    limit = redis_memory.SET_MAX_INTSET_ENTRIES
    return f"10^7 integer IDs: {sizes} (an intset stops at {limit} members); {_pick('small')}"


def _table_count() -> str:
    return (
        f"{_sizes('count', 'HyperLogLog')} for 1.2 × 10^8 IDs, ±0.81%; smallest exact "
        f"{format_bytes(_smallest_exact('count'))}; {_pick('count')}"
    )


def _histogram_first() -> str:
    dense, sparse = _row("dense"), _row("sparse64")
    return (
        f"same advisor, same scale: {dense['pick']} for 10^8 consecutive IDs "
        f"({_smallest_exact('dense') / dense['count']:.2g} B per ID exact), {sparse['pick']} "
        f"for 1.2 × 10^8 hashed 64-bit IDs ({_smallest_exact('sparse64') / sparse['count']:.3g} "
        "B per ID exact)"
    )


_FLOOR_BYTES = -math.log2(0.01) / 8  # log2(1/p) bits, any membership structure
_BLOOM_BYTES = -math.log(0.01) / math.log(2) ** 2 / 8

CLAIMS += [
    Claim(
        "003-table-dense-roaring", "003", "selection table", "choosing",
        "Dense IDs within 32 bits (orders, auto-increment): a Roaring bitmap, 12.5 MB per 10^8 "
        "IDs, exact and deletable.",
        "Roaring, 12.5 MB / 10^8",
        _table_dense,
        Verdict.OTHER_REASON,
        "Roaring is the pick, but because consecutive IDs collapse into run containers; at "
        "12.5 MB of bitsets a plain Redis bitmap costs the same without a module.",
    ),
    Claim(
        "003-table-sparse-bloom", "003", "selection table", "choosing",
        "Sparse 64-bit insert-only IDs: a Bloom filter; 1.2 bytes per element is about the "
        "ceiling (as good as it gets).",
        "Bloom, 1.2 B / element",
        _table_sparse,
        Verdict.IMPRECISE,
        f"Bloom is the pick, but {_BLOOM_BYTES:.2f} B is its price at 1%, not a limit: any "
        f"structure needs {_FLOOR_BYTES:.2f} B at 1%, and a lower error costs more.",
    ),
    Claim(
        "003-table-deletes-set", "003", "selection table", "choosing",
        "Deletes needed and up to 5 × 10^7 IDs: a cuckoo filter, or simply a Redis SET (do not "
        "optimise early).",
        "Cuckoo or SET",
        _table_deletes,
        Verdict.WRONG,
        "The cuckoo filter is right; the SET is seed 003's own 12 GB problem at a smaller "
        "scale, dozens of times the filter: not an early optimisation.",
    ),
    Claim(
        "003-table-small-set", "003", "selection table", "choosing",
        "Below ten million IDs: a Redis SET or intset; the memory saved does not pay for the "
        "operations.",
        "SET / intset",
        _table_small,
        Verdict.WRONG,
        "An intset cannot hold ten million members by default, and as a hash table the SET "
        "costs dozens of times an exact Roaring bitmap.",
    ),
    Claim(
        "003-table-count-hll", "003", "selection table", "choosing",
        "Only the count (UV), 1% error allowed: HyperLogLog, which counts but cannot test "
        "membership.",
        "HyperLogLog, 12 KB",
        _table_count,
        Verdict.CORRECT,
        "Orders of magnitude below any exact structure; its '12 KB' itself is checked in the "
        "HyperLogLog chapter.",
    ),
    Claim(
        "003-histogram-first", "003", "closing", "choosing",
        "Look at how your IDs are distributed (draw a histogram) before choosing a structure.",
        "histogram first",
        _histogram_first,
        Verdict.CORRECT,
        "At the same count the cheapest exact structure differs by orders of magnitude per ID "
        "with the IDs' shape, and the pick changes with it.",
    ),
]  # fmt: skip
