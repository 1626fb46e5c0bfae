"""Measure what SETs, strings, bitmaps, HyperLogLogs and Roaring bitmaps cost on a real Redis.

Writes src/setlab/data/redis-memory.json (chapter "What a Redis SET really costs"),
src/setlab/data/hyperloglog-reference.json (chapter "HyperLogLog") and
src/setlab/data/roaring-reference.json (chapter "Roaring containers"), which those chapters show to
readers on the embedded backend, and which tests/test_redis_memory.py checks the model against.
Rerun it on your own machine (it starts a private redis-server):

    .venv/bin/python scripts/measure_redis_memory.py [--only sets|hll|roaring]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import pyroaring

import setlab
from setlab.lab import reference
from setlab.models import birthday
from setlab.models import redis_memory as rm
from setlab.models import roaring as ro

GROWTH_SIZES = sorted(
    {
        1,
        2,
        5,
        10,
        50,
        100,
        300,
        512,
        513,
        1000,
        3000,
        10_000,
        30_000,
        100_000,
        300_000,
        1_000_000,
        2**14,
        2**14 + 1,
        2**17,
        2**17 + 1,
    }
)
HLL_GROWTH = [
    1,
    2,
    5,
    10,
    20,
    50,
    100,
    200,
    300,
    500,
    750,
    1000,
    1250,
    1500,
    1600,
    1650,
    1700,
    2000,
    3000,
    5000,
    10_000,
    20_000,
    100_000,
]
HLL_PAYLOAD_UP_TO = 300


def measure_sets(lab: setlab.lab.backend.Lab) -> None:
    r = lab.r
    rows = rm.run_seed_004(lab, rm.seed_004_keys())
    print("seed 004 keys:", [(x["name"], x["memory_usage"], x["model"]) for x in rows])
    growth = []
    for kind in rm.GROWTH_KINDS:
        growth += rm.measure_growth(lab, kind, GROWTH_SIZES)
    print(
        "growth rows:",
        len(growth),
        "mismatches:",
        sum(g["memory_usage"] != g["model"] for g in growth),
    )
    switch = [
        {"max_intset_entries": m, "switch_at": rm.intset_switch_point(lab, lab.key("switch"), m)}
        for m in (0, 1, 128, 512, 1000, 100_000)
    ]
    print("intset switch points:", switch)

    # MEMORY USAGE's default sampling on a set whose members differ in size
    key = lab.key("sampling")
    r.unlink(key)
    mixed = [f"s{i}" for i in range(5000)] + ["L" * 200 + str(i) for i in range(5000)]
    rm.sadd_all(lab, key, mixed)
    rm.settle_set(lab, key)
    sampling = {
        "members": len(mixed),
        "exact": int(r.memory_usage(key, samples=0)),
        "default_samples": int(r.memory_usage(key)),
        "model": rm.set_cost(mixed, key).memory_usage,
    }
    r.unlink(key)

    # used_memory given back by DEL against the model's allocated bytes
    rm.measure_big_set(lab, "integer ids", 10_000)  # warm-up: a first big DEL allocates a little
    allocated = [
        rm.measure_big_set(lab, kind, n)
        for kind, n in (
            ("16-hex device ids", 1_000_000),
            ("UUIDs", 300_000),
            ("integer ids", 300_000),
        )
    ]
    print("allocated:", allocated)
    path = reference.save(
        "redis-memory",
        rows,
        lab,
        growth=growth,
        switch=switch,
        sampling=sampling,
        allocated=allocated,
    )
    print("wrote", path)


def _single_register(payload: bytes) -> tuple[int, int]:
    """(index, value) of the only non-zero register in a sparse payload."""
    index, p = 0, 0
    while p < len(payload):
        op = payload[p]
        if op >> 6 == 0:
            index += (op & 63) + 1
            p += 1
        elif op >> 6 == 1:
            index += (((op & 63) << 8) | payload[p + 1]) + 1
            p += 2
        else:
            return index, ((op >> 2) & 31) + 1
    raise ValueError("no register set")


def measure_hll(lab: setlab.lab.backend.Lab) -> None:
    r = lab.r
    key = lab.key("one")
    registers = []
    for i in range(500):
        element = f"e:{i}"
        r.unlink(key)
        r.pfadd(key, element)
        payload = r.get(key)[16:]
        if r.get(key)[4] == 1:  # sparse
            index, count = _single_register(payload)
        else:  # a run over 32: dense
            regs = rm.unpack_registers(payload)
            index = int(np.flatnonzero(regs)[0])
            count = int(regs[index])
        registers.append({"element": element, "index": index, "count": count})
    r.unlink(key)

    key = lab.key("growth")
    r.unlink(key)
    growth, done = [], 0
    for n in HLL_GROWTH:
        batch = rm.reader_ids(done, n)
        for i in range(0, len(batch), 5000):
            r.pfadd(key, *batch[i : i + 5000])
        done = n
        raw = r.get(key)
        row = {
            "n": n,
            "key": key,
            "encoding": "sparse" if raw[4] == 1 else "dense",
            "strlen": len(raw),
            "memory_usage": int(r.memory_usage(key)),
            "pfcount": int(r.pfcount(key)),
        }
        if n <= HLL_PAYLOAD_UP_TO:
            row["payload_hex"] = raw[16:].hex()
        growth.append(row)
    r.unlink(key)

    counts = []
    for n in (1_000, 10_000, 100_000, 1_000_000):
        key = lab.key("count", n)
        batch = rm.reader_ids(0, n)
        start = time.perf_counter()
        pipe = r.pipeline(transaction=False)
        for i in range(0, n, 5000):
            pipe.pfadd(key, *batch[i : i + 5000])
        pipe.execute()
        counts.append(
            {"n": n, "pfcount": int(r.pfcount(key)), "pfadd_s": time.perf_counter() - start}
        )
        r.unlink(key)
    replies = rm.pfadd_replies(lab, 100_000)
    edges = [0, 10, 100, 1_000, 10_000, 100_000]
    zero_share = [
        {"from": a, "to": b, "zero_replies": int((replies[a:b] == 0).sum())}
        for a, b in itertools.pairwise(edges)
    ]
    week = rm.run_week(lab, rm.week_of_readers(np.random.default_rng(7)))
    print("hll counts:", counts, "zero replies:", zero_share, "week:", week)
    path = reference.save(
        "hyperloglog-reference",
        registers,
        lab,
        registers=registers,
        growth=growth,
        counts=counts,
        zero_replies=zero_share,
        week=week,
    )
    print("wrote", path)


def measure_roaring(lab: setlab.lab.backend.Lab) -> None:
    rng = np.random.default_rng(2026)
    key = lab.key("shared-bitmap")
    contention = ro.contention_grid(lab, key)
    print("contention:", contention)
    rb = ro.unknown_command(lab, "RB.SETBIT", lab.key("rb"), 2_000_000_000, 1)
    rmw = ro.rmw_timings(lab, [1_000, 10_000, 100_000, 1_000_000], rng)
    snowflakes = birthday.snowflake_like_ids(rng, 1_000_000)
    dense = pyroaring.BitMap(ro.random_ids(1_000_000, rng, universe=100_000_000))
    snowflake = {
        "ids": len(snowflakes),
        "bitmap64_bytes": len(pyroaring.BitMap64(snowflakes).serialize()),
        "model_bytes": ro.layout64(snowflakes, run_optimize=True).serialized_bytes,
        "dense_population": 100_000_000,
        "dense_bytes": len(dense.serialize()),
    }
    window = ro.window_timings(lab, ro.daily_bitmaps(rng))
    print("rb:", rb, "rmw:", rmw, "snowflake:", snowflake, "window:", window)
    path = reference.save(
        "roaring-reference",
        contention,
        lab,
        contention=contention,
        lost_update=ro.lost_update(lab, key),
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
