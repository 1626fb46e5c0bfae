"""Measure head-of-line stalls, DEL vs UNLINK, KEYS vs SCAN and fork time on a real Redis.

Writes src/setlab/data/stalls-reference.json for the chapter "One slow command stalls everyone",
which shows it to readers on the embedded backend. Rerun it on your machine (it starts a private
redis-server; nothing touches another server):

    .venv/bin/python reference/measure_stalls.py
"""

from __future__ import annotations

import setlab
from setlab.lab import reference
from setlab.lab.runs import stalls

#: Strings (bytes) to delete: up to 512 MiB, beyond the seed's 256 MB the chapter does live.
STRING_BYTES = [2**20, 2**24, 2**26, 2**28, 2**29]
#: Keyspaces for KEYS vs SCAN: up to a million keys, more than the chapter walks live.
KEYSPACES = [10**3, 10**4, 10**5, 10**6]


def main() -> None:
    lab = setlab.connect("reference", backend="live")
    stall_rows = stalls.stall_sweep(lab, stalls.STALL_OFFSETS)
    print("stalls measured")
    delete_rows = stalls.delete_costs(lab, STRING_BYTES, stalls.SET_MEMBERS)
    print("deletes measured")
    keys_rows = stalls.keys_vs_scan(lab, KEYSPACES)
    lab.cleanup()
    print("KEYS/SCAN measured")
    fork_rows = stalls.fork_costs(lab, stalls.FORK_BYTES)
    lab.cleanup()
    path = reference.save(
        "stalls-reference", stalls.as_rows(stall_rows), lab, writer=__file__,
        deletes=stalls.as_rows(delete_rows), keys=stalls.as_rows(keys_rows),
        forks=stalls.as_rows(fork_rows),
    )  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
