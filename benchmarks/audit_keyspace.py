"""``setlab audit`` of a 10^6-key keyspace on a private server: keys a second, the audit's peak
RSS, and what it adds to the server's latency for everyone else (issue 26's benchmark).

A private ``redis-server`` (with RedisBloom) is filled with ``--keys`` keys shaped like a
production keyspace: mostly small strings with a TTL (sessions), small integer SETs, hashes,
HyperLogLogs, a few bitmaps and a Bloom filter. A probe thread then sends ``PING`` every
``--every`` milliseconds on its own connection: first alone (the baseline), then while
``setlab audit --json`` runs in its own process at its default rate (or ``--rate``). The
report compares the probe's round trips (median, p99, max) in the two phases: the latency the
audit added, and prints the audit's keys a second and peak RSS (``os.wait4``).

    .venv/bin/python benchmarks/audit_keyspace.py [--keys 1e6] [--rate 10000] [--every 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import redis

from setlab.core.formats import format_bytes
from setlab.core.quantities import parse_count
from setlab.lab.server import RedisServer


def fill(r: redis.Redis, keys: int) -> None:
    """``keys`` keys: 90% session strings (half with a TTL), 6% small integer SETs, 3% hashes,
    1% HyperLogLogs, plus 10 bitmaps and a Bloom filter."""
    pipe = r.pipeline(transaction=False)
    shapes = [(0.90, "session"), (0.06, "set"), (0.03, "hash"), (0.01, "hll")]
    i = 0
    for share, shape in shapes:
        for _ in range(int(keys * share)):
            if shape == "session":
                pipe.set(f"session:{i}", "x" * 40, ex=86_400 if i % 2 else None)
            elif shape == "set":
                pipe.sadd(f"follows:{i}", *range(i % 50 + 1))
            elif shape == "hash":
                pipe.hset(f"user:{i}", mapping={"name": f"u{i}", "plan": "free"})
            else:
                pipe.pfadd(f"uv:{i}", *range(i % 100))
            i += 1
            if i % 5000 == 0:
                pipe.execute()
    for b in range(10):
        pipe.setbit(f"like:bit:{b}", (1 << 24) + b, 1)
    pipe.execute()
    r.execute_command("BF.RESERVE", "filter:ids", 0.01, 10_000)


def probe(url: str, every: float, stop: threading.Event, out: list[float]) -> None:
    client = redis.Redis.from_url(url)
    while not stop.is_set():
        start = time.perf_counter()
        client.ping()
        out.append(time.perf_counter() - start)
        time.sleep(every)
    client.close()


def summary(samples: list[float]) -> str:
    ms = np.array(samples) * 1e3
    return (f"median {np.median(ms):.3f} ms, p99 {np.percentile(ms, 99):.3f} ms, "
            f"max {ms.max():.2f} ms ({len(ms):,} pings)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=lambda t: parse_count(t, "keys"), default=10**6)
    parser.add_argument("--rate", type=lambda t: parse_count(t, "rate", 0), default=None)
    parser.add_argument("--every", type=float, default=5.0, help="ms between probe pings")
    args = parser.parse_args()
    with RedisServer.start() as server:
        r = redis.Redis.from_url(server.url)
        start = time.perf_counter()
        fill(r, args.keys)
        print(f"filled {r.dbsize():,} keys in {time.perf_counter() - start:.0f} s; "
              f"used_memory {format_bytes(r.info('memory')['used_memory'])}")  # fmt: skip
        phases: dict[str, list[float]] = {}
        stop = threading.Event()
        baseline: list[float] = []
        thread = threading.Thread(target=probe, args=(server.url, args.every / 1e3, stop, baseline))
        thread.start()
        time.sleep(10)
        stop.set()
        thread.join()
        phases["alone"] = baseline
        during: list[float] = []
        stop = threading.Event()
        thread = threading.Thread(target=probe, args=(server.url, args.every / 1e3, stop, during))
        thread.start()
        command = [sys.executable, "-m", "setlab", "audit", "--json", "--no-progress"]
        if args.rate is not None:
            command += ["--rate", str(args.rate)]
        began = time.perf_counter()
        with tempfile.TemporaryFile() as out:
            child = subprocess.Popen(
                command, stdout=out, env={**os.environ, "REDIS_URL": server.url}
            )
            _, status, usage = os.wait4(child.pid, 0)
            seconds = time.perf_counter() - began
            stop.set()
            thread.join()
            out.seek(0)
            report = json.loads(out.read())
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("the audit failed")
        phases["during the audit"] = during
        read = report["scan"]["keys_read"]
        findings = sum(g["findings_total"] for g in report["groups"])
        print(f"audit: {read:,} keys in {seconds:.1f} s ({read / seconds:,.0f} keys/s), "
              f"{len(report['groups'])} patterns, {findings:,} findings; peak RSS "
              f"{format_bytes(usage.ru_maxrss * 1024)}")  # fmt: skip
        for name, samples in phases.items():
            print(f"probe {name}: {summary(samples)}")


if __name__ == "__main__":
    main()
