"""The sharded Bloom filter on one server, a 1-master and a 3-master Redis Cluster (issue 16, 4).

Loads ``--items`` random 64-bit items into the book's sharded layout (2^8 shards sized for the
items at 1%) with :class:`setlab.lab.runs.bloom.RedisBloomFilter` unchanged — ``add_many``
(pipelined ``BITFIELD … SET``), ``contains_many`` on the items and on as many strangers
(``BITFIELD … GET``), and :func:`setlab.lab.runs.cluster_bloom.write_shards` (bitmaps built here,
one ``SET`` per shard) — on three private setups started for the run:

* ``server``: one plain redis-server, redis-py's ``Redis`` client;
* ``cluster-1``: a one-master cluster, redis-py's ``RedisCluster`` client (the client's
  routing cost alone);
* ``cluster-3``: three masters on this machine, the same client.

For each phase it prints the median wall time over ``--repeats`` runs, items per second, the
client's CPU seconds (``time.process_time``) and each master's (``INFO cpu``, user + system).
Every answer is checked (no false negatives; the same false positives on every setup).

Read the numbers for what they are: on a 2-core machine the Python client and three masters
share two cores, so three masters cannot run three times as fast; the client's CPU and the
busiest master's CPU say which side limits, and what separate machines would change (the
servers' share divides by the masters, the client's does not — more clients would be needed).

    .venv/bin/python benchmarks/cluster_bloom.py [--items 200000] [--repeats 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from setlab.lab.backend import Lab
from setlab.lab.cluster import LocalCluster
from setlab.lab.runs.bloom import RedisBloomFilter
from setlab.lab.runs.cluster_bloom import cluster_lab, write_shards
from setlab.lab.server import RedisServer
from setlab.models.bloom_sim import BloomLayout

SHARD_BITS = 8
PHASES = ("add_many", "contains (items)", "contains (strangers)", "write_shards")


def _server_cpu(nodes: list[RedisServer]) -> list[float]:
    out = []
    for node in nodes:
        cpu = node.client().info("cpu")
        out.append(float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]))
    return out


def _timed(nodes: list[RedisServer], work: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
    cpu0, client0, t0 = _server_cpu(nodes), time.process_time(), time.perf_counter()
    result = work()
    wall = time.perf_counter() - t0
    client = time.process_time() - client0
    servers = [b - a for a, b in zip(cpu0, _server_cpu(nodes), strict=True)]
    return result, {"wall_s": wall, "client_cpu_s": client, "server_cpu_s": servers}


def run_setup(lab: Lab, nodes: list[RedisServer], items: np.ndarray, strangers: np.ndarray,
              repeats: int) -> tuple[dict[str, list[dict[str, Any]]], np.ndarray]:  # fmt: skip
    """Every phase ``repeats`` times on a fresh filter; the strangers' answers of the last run."""
    layout = BloomLayout.for_items(items.size, 0.01, shard_bits=SHARD_BITS, seed=16)
    runs: dict[str, list[dict[str, Any]]] = {phase: [] for phase in PHASES}
    answers = np.zeros(0, dtype=bool)
    for r in range(repeats):
        bloom = RedisBloomFilter(lab, f"bench{r}", layout)
        _, row = _timed(nodes, lambda b=bloom: b.add_many(items))
        runs["add_many"].append(row)
        present, row = _timed(nodes, lambda b=bloom: b.contains_many(items))
        assert present.all(), "a false negative"
        runs["contains (items)"].append(row)
        answers, row = _timed(nodes, lambda b=bloom: b.contains_many(strangers))
        runs["contains (strangers)"].append(row)
        whole = RedisBloomFilter(lab, f"whole{r}", layout, preallocate=False)
        _, row = _timed(nodes, lambda w=whole: write_shards(w, items))
        runs["write_shards"].append(row)
        assert whole.contains_many(items[:1000]).all()
        lab.cleanup()
    return runs, answers


def summarise(name: str, runs: dict[str, list[dict[str, Any]]], n: int) -> list[str]:
    lines = []
    for phase, rows in runs.items():
        wall = statistics.median(r["wall_s"] for r in rows)
        client = statistics.median(r["client_cpu_s"] for r in rows)
        servers = np.median(np.array([r["server_cpu_s"] for r in rows]), axis=0)
        per_node = " ".join(f"{s:5.2f}" for s in servers)
        ceiling = f"{n / servers.max():11,.0f}/s" if servers.max() > 0 else "unmeasured"
        lines.append(
            f"{name:<10} {phase:<21} {wall:7.2f} s {n / wall:11,.0f}/s  client {client:5.2f} s"
            f"  masters {per_node} s (busiest {servers.max():.2f} s: {ceiling} if the clients"
            " kept up)"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write every run's figures to this file")
    args = parser.parse_args()
    rng = np.random.default_rng(16)
    items = rng.integers(0, 2**63, args.items, dtype=np.uint64)
    strangers = rng.integers(2**63, 2**64 - 1, args.items, dtype=np.uint64)
    results: dict[str, Any] = {}
    answers: dict[str, np.ndarray] = {}
    single = RedisServer.start(module=False)
    try:
        lab = Lab(
            single.client(),
            "live",
            "setlab:bench-cluster:",
            f"{single.host}:{single.port}",
            server=single,
        )
        results["server"], answers["server"] = run_setup(
            lab, [single], items, strangers, args.repeats
        )
        version = single.client().info("server")["redis_version"]
    finally:
        single.stop()
    for masters in (1, 3):
        with LocalCluster.start(masters=masters) as cluster:
            lab = cluster_lab(cluster, "bench-cluster")
            name = f"cluster-{masters}"
            results[name], answers[name] = run_setup(
                lab, cluster.nodes, items, strangers, args.repeats
            )
            lab.close()
    same = all(np.array_equal(answers["server"], a) for a in answers.values())
    fpr = float(answers["server"].mean())
    print(f"Redis {version}; {args.items:,} items into 2^{SHARD_BITS} shards at 1%; median of "
          f"{args.repeats} runs; strangers' false-positive rate {fpr:.3%}, the same answers on "
          f"every setup: {same}")  # fmt: skip
    for name, runs in results.items():
        print("\n".join(summarise(name, runs, args.items)))
    if args.json:
        with open(args.json, "w") as out:
            figures = {"items": args.items, "repeats": args.repeats, "redis": version,
                       "same_answers": same, "fpr": fpr, "runs": results}  # fmt: skip
            json.dump(figures, out, indent=1)
    if not same:
        raise SystemExit("the setups disagree")


if __name__ == "__main__":
    main()
