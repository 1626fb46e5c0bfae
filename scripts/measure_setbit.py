"""Measure first-SETBIT latency, memory and head-of-line blocking on a real Redis.

Writes src/setlab/data/setbit-reference.json, which the chapter "SETBIT is O(offset)" shows to readers
on the embedded backend. Rerun it on your own machine (it starts a private redis-server):

    .venv/bin/python scripts/measure_setbit.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics

import setlab
from setlab.lab import latency, reference
from setlab.models import bitmap

SEED_OFFSETS = [10**6, 10**8, 10**9, 1_823_456_789, 2_147_483_648]
BLOCKING_OFFSETS = [2**24, 2**26, 2**28, 2**30, bitmap.MAX_OFFSET]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per offset (default 3)")
    args = parser.parse_args()
    lab = setlab.connect("reference", backend="live")
    offsets = sorted(set(bitmap.log_spaced_offsets(1_000, bitmap.MAX_OFFSET, 14) + SEED_OFFSETS))
    rows = []
    for run in range(args.repeat):
        for write in bitmap.sweep_first_writes(lab, offsets):
            rows.append({"run": run, **dataclasses.asdict(write)})
        print(f"sweep {run + 1}/{args.repeat} done")
    blocking = []
    timeline = None
    key = lab.key("blocking")
    for offset in BLOCKING_OFFSETS:
        result = latency.probe_during(lab, lambda o=offset: lab.r.setbit(key, o, 1))
        lab.r.unlink(key)
        blocking.append(
            {
                "offset": offset,
                "action_ms": result.action_seconds * 1e3,
                "worst_probe_ms": result.worst * 1e3,
                "median_probe_ms": result.percentile(50) * 1e3,
                "probes": int(result.latencies.size),
            }
        )
        if offset == bitmap.MAX_OFFSET:
            step = max(1, result.latencies.size // 400)
            timeline = {
                "starts_ms": [round(x * 1e3, 3) for x in result.starts[::step]],
                "latency_ms": [round(x * 1e3, 3) for x in result.latencies[::step]],
                "worst_start_ms": float(result.starts[result.latencies.argmax()] * 1e3),
                "worst_ms": result.worst * 1e3,
                "action_start_ms": result.action_start * 1e3,
                "action_end_ms": result.action_end * 1e3,
            }
    lab.cleanup()
    path = reference.save("setbit-reference", rows, lab, blocking=blocking, timeline=timeline)
    worst = statistics.median(r["server_us"] for r in rows if r["offset"] == bitmap.MAX_OFFSET)
    print(f"wrote {path}; median first SETBIT at 2^32-1: {worst / 1e3:.0f} ms inside Redis")


if __name__ == "__main__":
    main()
