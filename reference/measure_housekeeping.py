"""Measure what one big key does to eviction, an AOF rewrite and a replica's full sync.

Writes src/setlab/data/housekeeping-reference.json for the chapter "One slow command stalls
everyone". Every experiment starts private redis-server processes (maxmemory, AOF, a replica);
nothing touches another server:

    .venv/bin/python reference/measure_housekeeping.py
"""

from __future__ import annotations

import setlab
from setlab.lab import reference
from setlab.lab.full_scale import housekeeping


def main() -> None:
    evictions = [housekeeping.eviction(policy) for policy in housekeeping.POLICIES]
    for row in evictions:
        print(row)
    layouts = [housekeeping.layout(keys) for keys in (1, housekeeping.SPREAD_KEYS)]
    for row in layouts:
        print(row)
    lab = setlab.connect("reference", backend="live")  # labels the run: version, allocator
    path = reference.save(
        housekeeping.REFERENCE, housekeeping.as_rows(layouts), lab, writer=__file__,
        eviction=housekeeping.as_rows(evictions),
    )  # fmt: skip
    lab.close()
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
