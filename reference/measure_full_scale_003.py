"""Seed 003 at full scale: 1.2 × 10^8 items into RedisBloom by streamed BF.MADD, at 1 %.

Starts a private redis-server with RedisBloom and runs
:func:`setlab.lab.full_scale.redisbloom.measure`: the seed's advised ``BF.RESERVE key 0.01
150000000`` (default scaling) and the same NONSCALING, the 137 MiB filter of its arithmetic
(capacity 1.2 × 10^8, NONSCALING), and its first capacity of 10^8 (which the peak outgrows).
Prints load time, BF.INFO / MEMORY USAGE / used_memory beside the layout model, the measured
false-positive rate on 10^6 absent items beside the model's, and the peak RSS.

    flock /tmp/setlab-heavy.lock .venv/bin/python reference/measure_full_scale_003.py [--dry-run]

A full-size run writes ``src/setlab/data/full-scale-003.json`` (unless ``--dry-run``);
``--items`` scales it down for a try-out, which is never stored.
"""

from __future__ import annotations

import argparse

import setlab
from setlab.core.formats import format_bytes
from setlab.lab import reference
from setlab.lab.full_scale import redisbloom as full
from setlab.lab.full_scale.redisbloom import FullScaleRow


def print_rows(rows: list[FullScaleRow]) -> None:
    for r in rows:
        print(
            f"{r.config}: capacity {r.capacity:,}{' NONSCALING' if r.nonscaling else ''}, "
            f"{r.sent:,} sent in {r.load_seconds:.1f} s ({r.items_per_second:,.0f} items/s), "
            f"{r.inserted:,} inserted, {r.filters} filter(s) (model {r.model_filters})\n"
            f"  BF.INFO Size {format_bytes(r.info_size)} (model {format_bytes(r.model_size)}), "
            f"MEMORY USAGE {format_bytes(r.memory_usage)}, used_memory +"
            f"{format_bytes(r.used_memory_delta)} (model allocated "
            f"{format_bytes(r.model_allocated)})\n"
            f"  FPR on {r.absent:,} absent: {r.fpr_measured:.4%} (model {r.fpr_model:.4%}), "
            f"queried in {r.query_seconds:.1f} s; loader peak RSS {format_bytes(r.peak_rss_bytes)}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=full.SEED_003_ITEMS)
    parser.add_argument("--dry-run", action="store_true", help="measure and print; write nothing")
    args = parser.parse_args(argv)
    lab = setlab.connect("full-scale-003", backend="live")
    try:
        out = full.measure(lab, args.items)
    finally:
        lab.cleanup()
    print_rows([FullScaleRow(**r) for r in out["rows"]])
    if not args.dry_run and args.items == full.SEED_003_ITEMS:
        print(
            "wrote",
            reference.save(full.REFERENCE, out["rows"], lab, writer=__file__, **out["facts"]),
        )


if __name__ == "__main__":
    main()
