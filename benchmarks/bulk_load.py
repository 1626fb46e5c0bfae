"""Bulk-load benchmark: seed 002's 8e8 openids × 10 hashes, every strategy in one run, live Redis.

Runs each strategy of :mod:`setlab.lab.loading` on the lab's private redis-server, measures
``redis-benchmark`` on the same server in the same run as the server's ceiling, and extrapolates
every mode to seed 002's 8 × 10^9 bit writes. Also times the in-process simulator on 10^7 integers.

    .venv/bin/python benchmarks/bulk_load.py            # print the table
    .venv/bin/python benchmarks/bulk_load.py --save     # also write src/setlab/data/bulk-load.json

``--scale`` multiplies the sample sizes. The layout is seed 002's final one scaled down: 2^17-bit
containers, k = 10, and as many containers as keep seed 002's 6,104 items per container.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import time

import numpy as np
import rbloom

import setlab
from setlab.core.units import format_duration
from setlab.lab import loading, reference
from setlab.models.bloom import BloomLayout, BloomSimulator

rbloom_version = importlib.metadata.version("rbloom")

SEED_ITEMS, SEED_K = 8e8, 10
SEED_BITS = SEED_ITEMS * SEED_K
PER_CONTAINER = SEED_ITEMS / 2**17
FULL_LAYOUT = BloomLayout(2**17, SEED_K, shard_bits=17)
FULL_BLOCK_BITS = 2**33  # what the local build may hold at full scale: 8 GiB of bools


def _items(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**63, size=n, dtype=np.uint64)


def run(lab: setlab.Lab, scale: float = 1.0, progress: bool = True) -> dict:
    """Every measurement of the benchmark, as rows and facts for the reference file."""
    rng = np.random.default_rng(2)
    layout = BloomLayout(2**17, SEED_K, shard_bits=8)
    plan = [  # (strategy, batch, items)
        ("one-by-one", 1, int(5_000 * scale)),
        ("multi-roundtrip", 1000, int(5_000 * scale)),
        ("multi-pipelined", 1000, int(100_000 * scale)),
        *[("pipeline", b, int(100_000 * scale)) for b in (10, 100, 1000, 10_000)],
        *[("bitfield", b, int(layout.shards * PER_CONTAINER * scale)) for b in (1000, 100_000)],
    ]
    results = []
    for strategy, batch, n in plan:
        lab.cleanup()
        results.append(
            loading.load(lab, "bf", layout, _items(rng, n), strategy, batch, progress=progress)
        )
    lab.cleanup()
    local_layout = BloomLayout(2**17, SEED_K, shard_bits=11)
    local_n = int(local_layout.shards * PER_CONTAINER * scale)
    local = loading.load(lab, "bf", local_layout, _items(rng, local_n), "local", progress=progress)
    lab.cleanup()

    rtt = loading.measure_rtt(lab)
    ceiling_set = loading.redis_benchmark(lab, ["SET", lab.key("bench-set"), "xxx"])
    ceiling_setbit = loading.redis_benchmark(lab, ["SETBIT", lab.key("bench-setbit"), "1000", "1"])
    lab.cleanup()

    sim_items = _items(rng, int(10_000_000 * scale))
    sim = BloomSimulator(BloomLayout.for_items(sim_items.size, 0.01))
    t0 = time.perf_counter()
    sim.add(sim_items)
    sim_seconds = time.perf_counter() - t0
    # rbloom (a Rust Bloom filter) in the same run, on the same integers as Python ints: its
    # update() takes Python objects, so the list is built before the clock starts.
    as_ints = sim_items.tolist()
    rb = rbloom.Bloom(len(as_ints), 0.01)
    t0 = time.perf_counter()
    rb.update(as_ints)
    rbloom_seconds = time.perf_counter() - t0

    rows = [
        {
            "strategy": r.strategy,
            "batch": r.batch,
            "items": r.items,
            "bits": r.bits,
            "commands": r.commands,
            "round_trips": r.round_trips,
            "seconds": r.seconds,
            "bits_per_second": r.bits_per_second,
            "ratio_to_setbit_ceiling": r.bits_per_second / ceiling_setbit,
            "seed_002_seconds": r.extrapolate(SEED_BITS),
        }
        for r in [*results, local]
    ]
    # The local build at full scale: hashing repeats once per pass over the items, setting bits
    # and writing scale with the bits and the bytes.
    passes = -(-FULL_LAYOUT.total_bits // FULL_BLOCK_BITS)
    per_item_hash = local.phases["hash"] / local.items
    per_bit_set = local.phases["set bits"] / local.bits
    per_byte_write = local.phases["pack and write"] / local_layout.total_bytes
    local_full = (
        passes * per_item_hash * SEED_ITEMS
        + per_bit_set * SEED_BITS
        + per_byte_write * FULL_LAYOUT.total_bytes
    )
    rows[-1]["seed_002_seconds"] = local_full
    one = next(r for r in results if r.strategy == "multi-roundtrip")
    pipe = max((r for r in results if r.strategy == "pipeline"), key=lambda r: r.bits_per_second)
    facts = {
        "rtt_seconds": rtt,
        "redis_benchmark_set_rps": ceiling_set,
        "redis_benchmark_setbit_rps": ceiling_setbit,
        "redis_benchmark_args": "-P 64 -c 50 -n 2000000",
        "layout": {"bits_per_shard": layout.bits_per_shard, "k": layout.k, "shards": layout.shards},
        "local_layout_shards": local_layout.shards,
        "local_full_scale": {
            "passes": passes,
            "block_bits": FULL_BLOCK_BITS,
            "hash_seconds_per_item": per_item_hash,
            "set_seconds_per_bit": per_bit_set,
            "write_seconds_per_byte": per_byte_write,
        },
        "multi_roundtrip_vs_best_pipeline": pipe.bits_per_second / one.bits_per_second,
        "best_pipeline_batch": pipe.batch,
        "simulator_items": int(sim_items.size),
        "simulator_insert_per_second": sim_items.size / sim_seconds,
        "rbloom_version": rbloom_version,
        "rbloom_insert_per_second": len(as_ints) / rbloom_seconds,
        "seed_002_bits": SEED_BITS,
    }
    return {"rows": rows, "facts": facts}


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
    print(
        f"best pipeline / multi-roundtrip: {facts['multi_roundtrip_vs_best_pipeline']:.0f}×; "
        f"simulator: {facts['simulator_insert_per_second']:,.0f} inserts/s on "
        f"{facts['simulator_items']:,} integers; rbloom {facts['rbloom_version']}: "
        f"{facts['rbloom_insert_per_second']:,.0f} inserts/s "
        f"(simulator / rbloom = "
        f"{facts['simulator_insert_per_second'] / facts['rbloom_insert_per_second']:.2f})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the sample sizes")
    parser.add_argument("--save", action="store_true", help="write src/setlab/data/bulk-load.json")
    args = parser.parse_args(argv)
    lab = setlab.connect("bulk-load", backend="live")
    try:
        out = run(lab, args.scale)
    finally:
        lab.cleanup()
    print_report(out)
    if args.save:
        print("wrote", reference.save("bulk-load", out["rows"], lab, **out["facts"]))


if __name__ == "__main__":
    main()
