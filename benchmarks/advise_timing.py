"""How long ``setlab advise`` takes on files of 10^6 and 10^7 IDs (issue 16 item 5).

Writes three kinds of file, one decimal ID per line, into ``--dir`` (seeded, so every run
reads the same bytes), then runs ``setlab advise FILE`` on each ``--runs`` times as a child
process and prints the median wall time, CPU time (user + system, the child's own accounting)
and peak RSS:

* ``snow`` — snowflake IDs (Twitter's layout: 41-bit milliseconds since 2010-11-04, 10-bit
  worker, 12-bit sequence) minted over 30 days by 64 workers, in time order, with 1% repeats:
  19-digit IDs, the shape of a service's export;
* ``hash`` — uniform 64-bit hashes (1 to 20 digits, most 19 or 20), in no order;
* ``user`` — user IDs drawn uniformly from 0 … 5n (dense enough for bitmap containers).

    .venv/bin/python benchmarks/advise_timing.py [--sizes 1e6 1e7] [--runs 3] [--dir /tmp/x]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SNOWFLAKE_EPOCH_MS = 1_288_834_974_657  # Twitter's epoch, 2010-11-04


def write_inputs(directory: Path, n: int) -> dict[str, Path]:
    """The three files of ``n`` IDs (written once; reused when already there)."""
    rng = np.random.default_rng(11)
    paths = {kind: directory / f"{kind}_{n}.txt" for kind in ("snow", "hash", "user")}
    if all(p.exists() for p in paths.values()):
        return paths
    ms = np.sort(rng.integers(0, 30 * 86_400_000, n)) + (1_700_000_000_000 - SNOWFLAKE_EPOCH_MS)
    snow = (ms.astype(np.uint64) << np.uint64(22)) | (
        rng.integers(0, 64, n).astype(np.uint64) << np.uint64(12)
    ) | rng.integers(0, 4096, n).astype(np.uint64)  # fmt: skip
    snow[rng.integers(0, n, n // 100)] = snow[rng.integers(0, n, n // 100)]
    files = {
        "snow": snow,
        "hash": rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True),
        "user": rng.integers(0, 5 * n, n).astype(np.uint64),
    }
    for kind, values in files.items():
        paths[kind].write_text("\n".join(map(str, values.tolist())) + "\n")
    return paths


def time_command(command: list[str]) -> dict[str, float]:
    """Wall seconds, CPU seconds (user + system of the child) and its peak RSS in MiB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak_mib": after.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp") + "/setlab-advise")
    args = parser.parse_args()
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    setlab = [sys.executable, "-m", "setlab", "advise"]
    for n in (int(s) for s in args.sizes):
        for kind, path in write_inputs(directory, n).items():
            rows = [time_command([*setlab, str(path)]) for _ in range(args.runs)]
            wall = statistics.median(r["wall"] for r in rows)
            cpu = statistics.median(r["cpu"] for r in rows)
            print(f"{n:>12,} {kind:<5} wall {wall:6.2f} s  cpu {cpu:6.2f} s  "
                  f"peak RSS ≤ {max(r['peak_mib'] for r in rows):,.0f} MiB "
                  f"(median of {args.runs})")  # fmt: skip


if __name__ == "__main__":
    main()
