"""Measure what SETs, strings, bitmaps, HyperLogLogs and Roaring bitmaps cost on a real Redis.

Writes src/setlab/data/redis-memory.json (chapter "What a Redis SET really costs"),
src/setlab/data/hyperloglog-reference.json (chapter "HyperLogLog") and
src/setlab/data/roaring-reference.json (chapter "Roaring containers"), which those chapters show to
readers on the embedded backend, and which tests/chapters/test_redis_memory.py checks the model
against.
Rerun it on your own machine (it starts a private redis-server):

    .venv/bin/python reference/measure_redis_memory.py [--only sets|hll|roaring]
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import pyroaring

import setlab
from setlab.lab import reference
from setlab.lab.backend import Lab
from setlab.lab.runs import hyperloglog as hll_runs
from setlab.lab.runs import memory as memory_runs
from setlab.lab.runs import roaring as roaring_runs
from setlab.models import hashed_offsets
from setlab.models import hyperloglog as hll
from setlab.models import redis_memory as rm
from setlab.models import roaring as ro

GROWTH_SIZES = sorted(
    {1, 2, 5, 10, 50, 100, 300, 512, 513, 1000, 3000, 10_000, 30_000, 100_000, 300_000,
     1_000_000, 2**14, 2**14 + 1, 2**17, 2**17 + 1}
)  # fmt: skip
SWITCH_LIMITS = (0, 1, 128, 512, 1000, 100_000)
BIG_SETS = (("16-hex device ids", 1_000_000), ("UUIDs", 300_000), ("integer ids", 300_000))
HLL_GROWTH = [1, 2, 5, 10, 20, 50, 100, 200, 300, 500, 750, 1000, 1250, 1500, 1600, 1650, 1700,
              2000, 3000, 5000, 10_000, 20_000, 100_000]  # fmt: skip
HLL_PAYLOAD_UP_TO = 300
HLL_COUNTS = (1_000, 10_000, 100_000, 1_000_000)


def _rows(records) -> list[dict]:
    """Typed records as the reference file stores them (their fields, in order)."""
    return [dataclasses.asdict(r) for r in records]


def measure_sets(lab: Lab) -> None:
    rows = memory_runs.run_seed_004(lab, memory_runs.seed_004_keys())
    print("seed 004 keys:", [(x.name, x.memory_usage, x.model) for x in rows])
    growth = memory_runs.measure_all_growth(lab, GROWTH_SIZES, rm.GROWTH_KINDS)
    print("growth rows:", len(growth), "mismatches:",
          sum(g.memory_usage != g.model for g in growth))  # fmt: skip
    switch = [
        memory_runs.SwitchRow(m, at)
        for m, at in memory_runs.switch_points(lab, SWITCH_LIMITS).items()
    ]
    print("intset switch points:", switch)
    sampling = memory_runs.measure_sampling(lab)  # MEMORY USAGE's default sampling, mixed sizes
    # used_memory given back by DEL against the model's allocated bytes
    memory_runs.measure_big_set(lab, "integer ids", 10_000)  # warm-up: a first big DEL allocates
    allocated = [memory_runs.measure_big_set(lab, kind, n) for kind, n in BIG_SETS]
    print("allocated:", allocated)
    path = reference.save(
        memory_runs.SetMemoryReference.NAME,
        _rows(rows),
        lab,
        writer=__file__,
        growth=_rows(growth),
        switch=_rows(switch),
        sampling=dataclasses.asdict(sampling),
        allocated=_rows(allocated),
    )
    print("wrote", path)


def measure_hll(lab: Lab) -> None:
    registers = hll_runs.measure_registers(lab, 500)
    growth = hll_runs.measure_hll_growth(lab, HLL_GROWTH, payload_up_to=HLL_PAYLOAD_UP_TO)
    counts = hll_runs.measure_counts(lab, HLL_COUNTS)
    replies = hll_runs.pfadd_replies(lab, hll_runs.REPLY_EDGES[-1])
    zeros = hll_runs.zero_replies(replies)
    week = hll_runs.run_week(lab, hll.week_of_readers(np.random.default_rng(hll_runs.WEEK_SEED)))
    print("hll counts:", counts, "zero replies:", zeros, "week:", week)
    path = reference.save(
        hll_runs.HyperLogLogReference.NAME,
        _rows(registers),
        lab,
        writer=__file__,
        registers=_rows(registers),
        growth=[{k: v for k, v in dataclasses.asdict(r).items() if v is not None} for r in growth],
        counts=_rows(counts),
        zero_replies=hll_runs.zero_replies_as_stored(zeros),
        week=dataclasses.asdict(week),
    )
    print("wrote", path)


def measure_roaring(lab: Lab) -> None:
    rng = np.random.default_rng(2026)
    key = lab.key("shared-bitmap")
    contention = roaring_runs.contention_grid(lab, key)
    print("contention:", contention)
    rb = roaring_runs.unknown_command(lab, "RB.SETBIT", lab.key("rb"), 2_000_000_000, 1)
    rmw = roaring_runs.rmw_timings(lab, [1_000, 10_000, 100_000, 1_000_000], rng)
    snowflakes = hashed_offsets.snowflake_like_ids(rng, 1_000_000)
    dense = pyroaring.BitMap(ro.random_ids(1_000_000, rng, universe=100_000_000))
    snowflake = {
        "ids": len(snowflakes),
        "bitmap64_bytes": len(pyroaring.BitMap64(snowflakes).serialize()),
        "model_bytes": ro.layout64(snowflakes, run_optimize=True).serialized_bytes,
        "dense_population": 100_000_000,
        "dense_bytes": len(dense.serialize()),
    }
    window = roaring_runs.window_timings(lab, ro.daily_bitmaps(rng))
    print("rb:", rb, "rmw:", rmw, "snowflake:", snowflake, "window:", window)
    path = reference.save(
        roaring_runs.REFERENCE,
        contention,
        lab,
        writer=__file__,
        contention=contention,
        lost_update=roaring_runs.lost_update(lab, key),
        rb_setbit=rb,
        rmw=rmw,
        snowflake=snowflake,
        window=window,
        pyroaring=pyroaring.__version__,
        croaring=pyroaring.__croaring_version__,
    )
    print("wrote", path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["sets", "hll", "roaring"], help="measure one part")
    args = parser.parse_args()
    lab = setlab.connect("reference", backend="live")
    if args.only in (None, "sets"):
        measure_sets(lab)
    if args.only in (None, "hll"):
        measure_hll(lab)
    if args.only in (None, "roaring"):
        measure_roaring(lab)
    lab.cleanup()


if __name__ == "__main__":
    main()
