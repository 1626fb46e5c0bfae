"""How long ``setlab advise`` takes on files of 10^6 and 10^7 IDs (issue 16 item 5).

Writes three kinds of file, one decimal ID per line, into ``--dir`` (seeded, so every run
reads the same bytes), then runs ``setlab advise FILE`` on each ``--runs`` times as a child
process and prints the median wall time, CPU time (user + system of the child and its threads,
the kernel's own accounting) and peak RSS:

* ``snow`` — snowflake IDs (Twitter's layout: 41-bit milliseconds since 2010-11-04, 10-bit
  worker, 12-bit sequence) minted over 30 days by 64 workers, in time order, with 1% repeats:
  19-digit IDs, the shape of a service's export;
* ``hash`` — uniform 64-bit hashes (1 to 20 digits, most 19 or 20), in no order;
* ``user`` — user IDs drawn uniformly from 0 … 5n (dense enough for bitmap containers).

The package's bytecode is compiled first (``compileall``), as ``pip install`` does: with
``PYTHONDONTWRITEBYTECODE`` set, an editable checkout would otherwise compile every setlab
module from source on each start (about 0.06 s here). ``--src`` times another checkout's
``src`` folder instead (the same files, for a before/after); ``--json`` keeps the rows. The
load average before and after is printed: on a shared machine, wall time is only as good as
the quiet it was measured in (run it under the heavy-benchmark lock).

    .venv/bin/python benchmarks/advise_timing.py [--sizes 1e6 1e7] [--runs 3] [--dir /tmp/x]
        [--src OTHER/src] [--json rows.json]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
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


def time_command(command: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall seconds, CPU seconds (user + system of the child) and its peak RSS in MiB, from
    that one child's own accounting (``wait4``: a peak of an earlier, bigger run never leaks
    into a later one)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, command)
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "peak_mib": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp") + "/setlab-advise")
    parser.add_argument("--src", help="time the setlab package in this src folder instead")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    env = None
    if args.src:
        env = {**os.environ, "PYTHONPATH": str(Path(args.src).resolve())}
        package = Path(args.src) / "setlab"
    else:
        import setlab

        package = Path(setlab.__file__).parent
    compileall.compile_dir(package, quiet=1)
    setlab_cmd = [sys.executable, "-m", "setlab", "advise"]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = []
    for n in (int(s) for s in args.sizes):
        for kind, path in write_inputs(directory, n).items():
            rows = [time_command([*setlab_cmd, str(path)], env) for _ in range(args.runs)]
            wall = statistics.median(r["wall"] for r in rows)
            cpu = statistics.median(r["cpu"] for r in rows)
            peak = max(r["peak_mib"] for r in rows)
            print(f"{n:>12,} {kind:<5} wall {wall:6.2f} s  cpu {cpu:6.2f} s  "
                  f"peak RSS ≤ {peak:,.0f} MiB (median of {args.runs})")  # fmt: skip
            results.append({"ids": n, "kind": kind, "wall_s": wall, "cpu_s": cpu,
                            "peak_mib": peak, "runs": rows})  # fmt: skip
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        Path(args.json).write_text(json.dumps({"package": str(package), "rows": results}, indent=1))


if __name__ == "__main__":
    main()
