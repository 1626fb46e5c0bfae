"""Slow commands and big keys on a single-threaded server: what they cost everyone else.

Experiments for the chapter "One slow command stalls everyone" (seed 000 §5), each returning plain
rows (dicts) that the chapter plots and ``scripts/measure_stalls.py`` stores as reference data:

* :func:`stall_sweep` — other clients' GET latency while one first SETBIT allocates more and more;
* :func:`delete_costs` — DEL vs UNLINK for a big string and a big SET (server-side time);
* :func:`keys_vs_scan` — one KEYS call vs a full SCAN iteration as the keyspace grows;
* :func:`fork_costs` — ``fork()`` time of a BGSAVE with and without a big key;
* :func:`like_events` and :func:`design_keys` — a Zipf-skewed like workload for the cluster.

Everything runs through a :class:`~setlab.lab.backend.Lab` on a real server, inside the lab's namespace.
Commands that block a server (KEYS over a big keyspace, BGSAVE) and big allocations refuse on a
server setlab did not start unless the reader opted in.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

import numpy as np

from setlab.lab import cluster, latency
from setlab.lab.backend import BigAllocationRefused, Lab
from setlab.models import bitmap

#: The seed of the book's skewed like workload (chapter and claims registry use the same one).
SKEW_SEED = 20261130
#: Rough bytes per member of a hashtable SET of small integers on Redis 7.0 (for the guard only).
SET_BYTES_PER_MEMBER_GUESS = 80


def _need_real(lab: Lab, what: str) -> None:
    if not lab.is_real:
        raise ValueError(f"{what} measures Redis itself: it needs a real server, not fakeredis")


def check_blocking(lab: Lab, what: str) -> None:
    """Refuse a deliberately blocking experiment on a server setlab did not start (no opt-in)."""
    if not lab.owns_server and not lab.allow_big:
        raise BigAllocationRefused(
            f"{what} blocks every client of {lab.address}, a server setlab did not start; "
            "set SETLAB_ALLOW_BIG=1 or use connect(allow_big=True) if that is fine"
        )


def stall_sweep(lab: Lab, offsets: list[int], clients: int = 2) -> list[dict]:
    """For each offset: time a first SETBIT while ``clients`` other clients send GETs.

    Rows: offset, string bytes, the SETBIT's own time, and the probes' p50 / p99 / max (ms).
    Offsets the lab may not allocate are skipped.
    """
    _need_real(lab, "stall_sweep")
    rows = []
    key = lab.key("stall")
    for offset in offsets:
        nbytes = bitmap.bytes_for_offset(offset)
        if not lab.may_allocate(nbytes):
            continue
        lab.r.unlink(key)
        result = latency.probe_during(
            lab, lambda o=offset: lab.r.setbit(key, o, 1), clients=clients
        )
        lab.r.unlink(key)
        during = result.during()
        rows.append(
            {
                "offset": offset,
                "bytes": nbytes,
                "setbit_ms": result.action_seconds * 1e3,
                "p50_ms": result.percentile(50) * 1e3,
                "p99_ms": result.percentile(99) * 1e3,
                "max_ms": result.worst * 1e3,
                "probes": int(result.latencies.size),
                "probes_during": int(during.size),
            }
        )
    return rows


def fill_string(lab: Lab, key: str, nbytes: int) -> None:
    """Make ``key`` a string of ``nbytes`` zero bytes with one SETRANGE (one allocation)."""
    if not isinstance(nbytes, int) or nbytes < 1:
        raise ValueError(f"nbytes must be a positive int, got {nbytes!r}")
    lab.check_allocation(nbytes, f"a {nbytes:,}-byte string")
    lab.r.setrange(key, nbytes - 1, b"\0")


def fill_set(lab: Lab, key: str, members: int, batch: int = 2_000) -> None:
    """Make ``key`` a SET of ``members`` integers (a hashtable above 512 members), pipelined."""
    if not isinstance(members, int) or members < 1:
        raise ValueError(f"members must be a positive int, got {members!r}")
    lab.check_allocation(members * SET_BYTES_PER_MEMBER_GUESS, f"a {members:,}-member SET")
    pipe = lab.r.pipeline(transaction=False)
    for start in range(0, members, batch):
        pipe.sadd(key, *range(start, min(members, start + batch)))
    pipe.execute()


def delete_costs(lab: Lab, string_bytes: list[int], set_members: list[int]) -> list[dict]:
    """Server-side time of DEL and of UNLINK for big strings and big SETs of each size.

    UNLINK hands an object to a background thread only when freeing it takes more than 64
    allocations (``LAZYFREE_THRESHOLD`` in ``src/lazyfree.c``); a string is one allocation, so
    UNLINK frees it on the main thread exactly like DEL.
    """
    _need_real(lab, "delete_costs")
    rows = []
    key = lab.key("big")
    for kind, sizes, fill in (
        ("string", string_bytes, fill_string),
        ("set", set_members, fill_set),
    ):
        for size in sizes:
            for command in ("del", "unlink"):
                lab.r.unlink(key)
                fill(lab, key, size)
                used = int(lab.r.info("memory")["used_memory"])
                seconds = latency.timed_on_server(
                    lab, command, lambda c=command: lab.r.execute_command(c.upper(), key)
                )
                time.sleep(0.05)  # let a background free finish before the next measurement
                freed = used - int(lab.r.info("memory")["used_memory"])
                rows.append(
                    {"kind": kind, "size": size, "command": command,
                     "server_ms": seconds * 1e3, "freed_bytes": freed}
                )  # fmt: skip
    return rows


def keys_vs_scan(lab: Lab, counts: list[int], scan_count: int = 1_000) -> list[dict]:
    """For keyspaces of each size: one KEYS call vs a full SCAN (its longest call and total).

    The keys are created in the lab's namespace; the KEYS pattern matches nothing, because KEYS
    walks the whole keyspace whatever the pattern, so matching only adds reply time.
    """
    _need_real(lab, "keys_vs_scan")
    check_blocking(lab, "KEYS over the whole keyspace")
    rows = []
    created = 0
    pattern = lab.key("nothing-matches", "*")
    for count in sorted(counts):
        if count > created:
            fill_keys_from(lab, "many", created, count)
            created = count
        keys_s = latency.timed_on_server(lab, "keys", lambda: lab.r.keys(pattern))
        calls = []
        cursor = 0
        while True:
            before = latency.server_usec(lab, "scan")
            cursor, _ = lab.r.scan(cursor=cursor, match=pattern, count=scan_count)
            calls.append((latency.server_usec(lab, "scan") - before) / 1e6)
            if cursor == 0:
                break
        rows.append(
            {"keys": int(lab.r.dbsize()), "keys_ms": keys_s * 1e3,
             "scan_calls": len(calls), "scan_total_ms": sum(calls) * 1e3,
             "scan_max_ms": max(calls) * 1e3}
        )  # fmt: skip
    return rows


def fill_keys_from(lab: Lab, part: str, start: int, stop: int, batch: int = 1_000) -> None:
    """Create keys ``<namespace><part>:<i>`` for ``start <= i < stop``."""
    if stop <= start:
        return
    lab.check_allocation((stop - start) * 64, f"{stop - start:,} keys")
    pipe = lab.r.pipeline(transaction=False)
    for first in range(start, stop, batch):
        pipe.mset({lab.key(part, i): b"1" for i in range(first, min(stop, first + batch))})
    pipe.execute()


@dataclass(frozen=True)
class ForkCost:
    used_memory: int  #: bytes in use when BGSAVE forked
    fork_ms: float  #: INFO stats latest_fork_usec, in ms: the main thread is stopped this long
    bgsave_s: float  #: wall time until the child finished writing the RDB file


def fork_cost(lab: Lab, timeout: float = 120.0) -> ForkCost:
    """Run one BGSAVE and report how long the fork blocked Redis and how long the save took."""
    _need_real(lab, "fork_cost")
    check_blocking(lab, "BGSAVE")
    if not lab.owns_server:
        raise BigAllocationRefused("BGSAVE writes a dump file on the server: only on setlab's own")
    used = int(lab.r.info("memory")["used_memory"])
    start = time.perf_counter()
    lab.r.bgsave()
    while True:
        persistence = lab.r.info("persistence")
        if not int(persistence["rdb_bgsave_in_progress"]):
            break
        if time.perf_counter() - start > timeout:
            raise TimeoutError(f"BGSAVE still running after {timeout} s")
        time.sleep(0.01)
    elapsed = time.perf_counter() - start
    fork_usec = int(lab.r.info("stats")["latest_fork_usec"])
    return ForkCost(used, fork_usec / 1e3, elapsed)


def fork_costs(lab: Lab, big_bytes: list[int]) -> list[dict]:
    """:func:`fork_cost` with no big key, then with a big string of each size."""
    rows = []
    key = lab.key("fork-big")
    for nbytes in [0, *big_bytes]:
        lab.r.unlink(key)
        if nbytes:
            fill_string(lab, key, nbytes)
            lab.r.setrange(key, 0, b"\1" * min(nbytes, 1))
        cost = fork_cost(lab)
        rows.append({"big_key_bytes": nbytes, "used_memory": cost.used_memory,
                     "fork_ms": cost.fork_ms, "bgsave_s": cost.bgsave_s})  # fmt: skip
    lab.r.unlink(key)
    return rows


def like_events(
    events: int, users: int, contents: int, zipf_s: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``events`` (user, content) likes: users uniform, content popularity Zipf with exponent
    ``zipf_s`` over ``contents`` items (rank 1 the hottest). Returns two int arrays."""
    for name, value in (("events", events), ("users", users), ("contents", contents)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not zipf_s > 0:
        raise ValueError(f"zipf_s must be > 0, got {zipf_s!r}")
    weights = 1.0 / np.arange(1, contents + 1) ** zipf_s
    content = rng.choice(contents, size=events, p=weights / weights.sum())
    user = rng.integers(0, users, size=events)
    return user, content


def design_keys(user: np.ndarray, content: np.ndarray, design: str, prefix: str = "") -> list[str]:
    """The key each command of a like touches, under one of seed 000's two designs.

    ``"bitmap"``: one SETBIT on the content's bitmap ``like:bit:<content>``.
    ``"set"``: SADD on the user's set ``like:user:<user>`` and INCR on ``like:count:<content>``.
    """
    if design == "bitmap":
        return [f"{prefix}like:bit:{c}" for c in content]
    if design == "set":
        keys = []
        for u, c in zip(user, content, strict=True):
            keys += [f"{prefix}like:user:{u}", f"{prefix}like:count:{c}"]
        return keys
    raise ValueError(f"design must be 'bitmap' or 'set', got {design!r}")


def per_node_commands(user: np.ndarray, content: np.ndarray, masters: int = 3) -> dict[str, list]:
    """Commands per cluster node for both designs, and for the set design's SADDs and INCRs
    separately (a routing simulation: :class:`~setlab.lab.cluster.LocalCluster` reproduces it)."""
    set_keys = design_keys(user, content, "set")
    return {
        "bitmap": cluster.commands_per_node(design_keys(user, content, "bitmap"), masters),
        "set": cluster.commands_per_node(set_keys, masters),
        "set: SADD only": cluster.commands_per_node(set_keys[0::2], masters),
        "set: INCR only": cluster.commands_per_node(set_keys[1::2], masters),
    }


@cache
def skew_shares(zipf_s: float = 1.1, seed: int = SKEW_SEED) -> dict[str, float]:
    """The busiest node's share of commands, per design, for the book's 20,000-like workload."""
    user, content = like_events(20_000, 100_000, 1_000, zipf_s, np.random.default_rng(seed))
    return {name: max(c) / sum(c) for name, c in per_node_commands(user, content).items()}


def per_node_commands_live(
    local: cluster.LocalCluster, user: np.ndarray, content: np.ndarray
) -> dict[str, list[int]]:
    """Run both designs' commands on a real cluster (pipelined through ``RedisCluster``) and read
    each node's command count from ``INFO commandstats``: the live counterpart of
    :func:`per_node_commands`."""
    client = local.client()
    counts = {}
    for design in ("bitmap", "set"):
        local.reset_stats()
        pipe = client.pipeline()
        for u, c in zip(user, content, strict=True):
            if design == "bitmap":
                pipe.setbit(f"like:bit:{c}", int(u), 1)
            else:
                pipe.sadd(f"like:user:{u}", int(c))
                pipe.incr(f"like:count:{c}")
        pipe.execute()
        counts[design] = local.commands_per_node()
    client.close()
    return counts
