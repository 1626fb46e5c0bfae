"""Time and peak memory of ``setlab advise`` on string IDs (issue 26's benchmark).

Two runs of the command as a reader runs it, each in its own process:

1. ``--lines`` openid-like IDs (default 10^7: "o" and 27 characters of [A-Za-z0-9_-], seed
   002's 28 bytes, one in ten repeated) written to a temporary file and read from it;
2. ``--stream`` of them (default 10^8) generated on the fly into ``setlab advise -`` through a
   pipe: no file, more distinct IDs than the default ``--memory`` counts exactly, so the count
   is the HyperLogLog estimate and memory must stay bounded.

Each prints wall seconds, lines per second, the distinct count the command reported against the
true one, and the command's peak RSS (``os.wait4``'s ``ru_maxrss`` of that child alone). The
generator runs in this process, so the stream's seconds include waiting for it.

    .venv/bin/python benchmarks/advise_strings.py [--lines 1e7] [--stream 1e8] [--memory 1GiB]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from setlab.core.formats import format_bytes
from setlab.core.quantities import parse_bytes, parse_count

CHARS = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", np.uint8)
#: lines generated per step
STEP = 1_000_000


def openid_blocks(lines: int, seed: int, repeat: float = 0.1) -> Iterator[tuple[bytes, int]]:
    """Blocks of ``lines`` openid lines in all, ``repeat`` of them copies of an earlier line of
    their block; yields (bytes, distinct lines in the block)."""
    rng = np.random.default_rng(seed)
    for start in range(0, lines, STEP):
        n = min(STEP, lines - start)
        fresh = n - int(n * repeat)
        rows = np.empty((n, 29), dtype=np.uint8)
        rows[:fresh, 0] = ord("o")
        rows[:fresh, 1:28] = CHARS[rng.integers(0, 64, size=(fresh, 27), dtype=np.uint8)]
        rows[fresh:] = rows[rng.integers(0, fresh, size=n - fresh)]
        rows[:, 28] = ord("\n")
        yield rows.tobytes(), fresh


def _run(command: list[str], feed: Iterator[tuple[bytes, int]] | None) -> tuple[float, int, str]:
    """Run ``command`` (feeding its stdin from ``feed``); seconds, peak RSS bytes, stdout."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(
            command, stdin=subprocess.PIPE if feed else None, stdout=out, stderr=subprocess.PIPE
        )
        if feed is not None:
            for block, _ in feed:
                child.stdin.write(block)
            child.stdin.close()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        if child.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{child.stderr.read().decode()}")
        out.seek(0)
        return seconds, usage.ru_maxrss * 1024, out.read().decode()


def report(label: str, lines: int, distinct: int, seconds: float, rss: int, result: str) -> None:
    data = json.loads(result)
    exact = "exact" if data["exact"] else f"estimate ±{data['relative_error']:.2%}"
    off = (data["distinct"] - distinct) / distinct
    print(f"{label}: {lines:,} lines in {seconds:.1f} s ({lines / seconds / 1e6:.2f} M lines/s); "
          f"distinct {data['distinct']:,} ({exact}; true {distinct:,}, {off:+.3%}); "
          f"peak RSS {format_bytes(rss)}; recommends {data['recommendation']['name']}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=lambda t: parse_count(t, "lines"), default=10**7)
    parser.add_argument("--stream", type=lambda t: parse_count(t, "stream", 0), default=10**8)
    parser.add_argument("--memory", type=parse_bytes, default=None, help="setlab's --memory")
    args = parser.parse_args()
    command = [sys.executable, "-m", "setlab", "advise", "--json", "--no-progress"]
    if args.memory:
        command += ["--memory", str(args.memory)]
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "openids.txt"
        distinct = 0
        with path.open("wb") as f:
            for block, fresh in openid_blocks(args.lines, seed=1):
                f.write(block)
                distinct += fresh
        print(f"file: {path.stat().st_size / 1e6:,.0f} MB")
        seconds, rss, out = _run([*command, str(path)], None)
        report("file  ", args.lines, distinct, seconds, rss, out)
    if args.stream:
        # fresh lines are 27 random characters of 64: two alike are as likely as 64^-27
        distinct = sum(n - int(n * 0.1) for n in _steps(args.stream))
        seconds, rss, out = _run([*command, "-"], openid_blocks(args.stream, seed=2))
        report("stream", args.stream, distinct, seconds, rss, out)


def _steps(lines: int) -> list[int]:
    return [min(STEP, lines - start) for start in range(0, lines, STEP)]


if __name__ == "__main__":
    main()
