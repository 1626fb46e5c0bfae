"""Bulk-load benchmark: seed 002's 8e8 openids × 10 hashes, every strategy in one run, live Redis.

Runs :func:`setlab.lab.runs.bulk_load.measure` on a private redis-server (each strategy of
:mod:`setlab.lab.wire.loading`, ``redis-benchmark`` on the same server as the ceiling, every mode
extrapolated to seed 002's 8 × 10^9 bit writes) and prints the table; then times the in-process
simulator against rbloom (a Rust Bloom filter) on the same 10^7 integers.

    .venv/bin/python benchmarks/bulk_load.py [--scale 1]

``--scale`` multiplies the sample sizes. To store the run as the book's reference data, use
``reference/measure_bulk_load.py``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import time

import numpy as np
import rbloom

import setlab
from setlab.core.formats import format_duration
from setlab.lab.runs import bulk_load
from setlab.models.bloom_sim import BloomLayout, BloomSimulator


def print_report(out: dict) -> None:
    facts = out["facts"]
    print(f"round trip (PING): {facts['rtt_seconds'] * 1e6:.1f} µs")
    print(
        f"redis-benchmark -P 64: SET {facts['redis_benchmark_set_rps']:,.0f}/s, "
        f"SETBIT {facts['redis_benchmark_setbit_rps']:,.0f}/s"
    )
    print(f"{'strategy':<18}{'batch':>8}{'bits':>12}{'bits/s':>14}{'× ceiling':>11}  8e9 bits")
    for r in out["rows"]:
        print(
            f"{r['strategy']:<18}{r['batch'] or '':>8}{r['bits']:>12,}"
            f"{r['bits_per_second']:>14,.0f}"
            f"{r['ratio_to_setbit_ceiling']:>11.2f}  {format_duration(r['seed_002_seconds'])}"
        )
    print(f"best pipeline / multi-roundtrip: {facts['multi_roundtrip_vs_best_pipeline']:.0f}×")


def simulator_vs_rbloom(scale: float = 1.0) -> None:
    """Inserts per second of the numpy simulator and of rbloom on the same integers."""
    items = np.random.default_rng(2).integers(
        0, 2**63, size=int(10_000_000 * scale), dtype=np.uint64
    )
    sim = BloomSimulator(BloomLayout.for_items(items.size, 0.01))
    t0 = time.perf_counter()
    sim.add(items)
    sim_rate = items.size / (time.perf_counter() - t0)
    # rbloom's update() takes Python objects, so the list is built before the clock starts.
    as_ints = items.tolist()
    rb = rbloom.Bloom(len(as_ints), 0.01)
    t0 = time.perf_counter()
    rb.update(as_ints)
    rb_rate = len(as_ints) / (time.perf_counter() - t0)
    print(
        f"simulator: {sim_rate:,.0f} inserts/s on {items.size:,} integers; "
        f"rbloom {importlib.metadata.version('rbloom')}: {rb_rate:,.0f} inserts/s "
        f"(simulator / rbloom = {sim_rate / rb_rate:.2f})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the sample sizes")
    args = parser.parse_args(argv)
    lab = setlab.connect("bulk-load", backend="live")
    try:
        out = bulk_load.measure(lab, args.scale)
    finally:
        lab.cleanup()
    print_report(out)
    simulator_vs_rbloom(args.scale)


if __name__ == "__main__":
    main()
