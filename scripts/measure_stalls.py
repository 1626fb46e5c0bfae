"""Measure head-of-line stalls, DEL vs UNLINK, KEYS vs SCAN and fork time on a real Redis.

Writes src/setlab/data/stalls-reference.json for the chapter "One slow command stalls everyone", which
shows it to readers on the embedded backend. Rerun it on your machine (it starts a private
redis-server; nothing touches another server):

    .venv/bin/python scripts/measure_stalls.py
"""

from __future__ import annotations

import setlab
from setlab.lab import reference, stalls
from setlab.models import bitmap

STALL_OFFSETS = [2**20, 2**22, 2**24, 2**26, 2**28, 2**30, 2**31, bitmap.MAX_OFFSET]
STRING_BYTES = [2**20, 2**24, 2**26, 2**28, 2**29]
SET_MEMBERS = [10**3, 10**4, 10**5, 10**6]
KEYSPACES = [10**3, 10**4, 10**5, 10**6]
FORK_BYTES = [2**26, 2**28, 2**29]


def main() -> None:
    lab = setlab.connect("reference", backend="live")
    stall_rows = stalls.stall_sweep(lab, STALL_OFFSETS)
    print("stalls measured")
    delete_rows = stalls.delete_costs(lab, STRING_BYTES, SET_MEMBERS)
    print("deletes measured")
    keys_rows = stalls.keys_vs_scan(lab, KEYSPACES)
    lab.cleanup()
    print("KEYS/SCAN measured")
    fork_rows = stalls.fork_costs(lab, FORK_BYTES)
    lab.cleanup()
    path = reference.save(
        "stalls-reference", stall_rows, lab,
        deletes=delete_rows, keys=keys_rows, forks=fork_rows,
    )  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
