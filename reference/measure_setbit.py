"""Measure first-SETBIT latency, memory and head-of-line blocking on a real Redis.

Writes src/setlab/data/setbit-reference.json, which the chapter "SETBIT is O(offset)" shows to
readers on the embedded backend. Rerun it on your own machine (it starts a private redis-server):

    .venv/bin/python reference/measure_setbit.py [--repeat 3] [--only sequence]

``--only sequence`` re-measures only the replay of seed 000's three favourites and stores it as
its own labelled section of the existing file (the sweep and the stall keep their label).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import setlab
from setlab.lab import reference
from setlab.lab.runs import setbit
from setlab.models import bitmap

SEED_OFFSETS = [10**6, 10**8, 10**9, 1_823_456_789, 2_147_483_648]
BLOCKING_OFFSETS = [2**24, 2**26, 2**28, 2**30, bitmap.MAX_OFFSET]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per offset (default 3)")
    parser.add_argument("--only", choices=("all", "sequence"), default="all")
    args = parser.parse_args()
    lab = setlab.connect("reference", backend="live")
    if args.only == "all":
        measure_sweep_and_stall(lab, args.repeat)
    path = measure_sequence(lab, args.repeat)
    lab.cleanup()
    steps = setbit.SetbitReference.load().sequence_steps()
    print(f"wrote {path}; seed 000's sequence inside Redis: " + ", ".join(
        f"{s.offset:,} {s.kind} {s.server_us / 1e3:.1f} ms" for s in steps
    ))  # fmt: skip


def measure_sequence(lab: setlab.Lab, repeat: int) -> Path:
    """Replay seed 000's three favourites ``repeat`` times; store them as their own section."""
    rows = []
    for run in range(repeat):
        rows += setbit.writes_to_rows(setbit.replay_sequence(lab), run)
    return reference.save_section(setbit.REFERENCE, setbit.SEQUENCE_SECTION, rows, lab)


def measure_sweep_and_stall(lab: setlab.Lab, repeat: int) -> None:
    """The first-write sweep over offsets and the stall timeline (rewrites the whole file)."""
    offsets = sorted(set(bitmap.log_spaced_offsets(1_000, bitmap.MAX_OFFSET, 14) + SEED_OFFSETS))
    rows = []
    for run in range(repeat):
        rows += setbit.writes_to_rows(setbit.sweep_first_writes(lab, offsets), run)
        print(f"sweep {run + 1}/{repeat} done")
    blocking = []
    timeline = None
    for offset in BLOCKING_OFFSETS:
        result = setbit.probe_first_setbit(lab, offset)
        blocking.append(dataclasses.asdict(setbit.BlockingRow.from_probe(offset, result)))
        if offset == bitmap.MAX_OFFSET:
            timeline = setbit.StallTimeline.from_probe(result).to_json()  # keeps the worst wait
    lab.cleanup()
    path = reference.save(
        "setbit-reference", rows, lab, writer=__file__, blocking=blocking, timeline=timeline
    )
    top = setbit.SetbitReference.load().median(bitmap.MAX_OFFSET)
    print(f"wrote {path}; median first SETBIT at 2^32-1: {top.server_s * 1e3:.0f} ms inside Redis")


if __name__ == "__main__":
    main()
