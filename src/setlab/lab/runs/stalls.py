"""Slow commands and big keys on a single-threaded server: what they cost everyone else.

Experiments for the chapter "One slow command stalls everyone" (seed 000 §5), each returning typed
rows that the chapter plots and ``reference/measure_stalls.py`` stores as reference data
(:class:`StallsReference` reads them back into the same types):

* :func:`stall_sweep` — other clients' GET latency while one first SETBIT allocates more and more;
* :func:`delete_costs` — DEL vs UNLINK for a big string and a big SET (server-side time);
* :func:`keys_vs_scan` — one KEYS call vs a full SCAN iteration as the keyspace grows;
* :func:`fork_costs` — ``fork()`` time of a BGSAVE with and without a big key;
* :func:`per_node_commands_live` — a like workload (:mod:`setlab.models.like_workload`) on a
  real local cluster, per node; :func:`cluster_routing` adds ``CLUSTER KEYSLOT`` beside the
  model's slots.

Everything runs through a :class:`~setlab.lab.backend.Lab` on a real server, inside the lab's
namespace. Commands that block a server (KEYS over a big keyspace, BGSAVE) and big allocations
refuse on a server setlab did not start unless the reader opted in.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.core.validate import check_int
from setlab.lab import cluster, guard, latency, reference
from setlab.lab.backend import BigAllocationRefused, Lab
from setlab.lab.reference import RunInfo
from setlab.models import bitmap, cluster_slots
from setlab.models.redis_memory import Members, set_cost

#: The stored reference run's name (``setlab/data/stalls-reference.json``).
REFERENCE = "stalls-reference"
#: Offsets of the first SETBITs in the stall sweep (the reference run and the chapter's).
STALL_OFFSETS = [2**20, 2**22, 2**24, 2**26, 2**28, 2**30, 2**31, bitmap.MAX_OFFSET]
#: SET sizes (members) that DEL and UNLINK are timed on.
SET_MEMBERS = [10**3, 10**4, 10**5, 10**6]
#: Big-key sizes (bytes) that a BGSAVE's fork is timed with.
FORK_BYTES = [2**26, 2**28, 2**29]


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


@dataclass(frozen=True)
class StallRow:
    """A first SETBIT at ``offset`` and what other clients' GETs saw meanwhile (ms)."""

    offset: int
    bytes: int  #: bytes of the string the SETBIT created
    setbit_ms: float  #: the SETBIT, seen by its own client
    p50_ms: float  #: the other clients' GETs: median ...
    p99_ms: float  #: ... 99th percentile ...
    max_ms: float  #: ... and the worst
    probes: int  #: GETs sent in all
    probes_during: int  #: GETs that overlapped the SETBIT


def stall_sweep(lab: Lab, offsets: list[int], clients: int = 2) -> list[StallRow]:
    """For each offset: time a first SETBIT while ``clients`` other clients send GETs.

    Offsets the lab may not allocate are skipped.
    """
    _need_real(lab, "stall_sweep")
    rows = []
    key = lab.key("stall")
    for offset in offsets:
        nbytes = bitmap.bytes_for_offset(offset)
        if not lab.may_allocate(guard.budget(string=nbytes, key_bytes=len(key))):
            continue
        lab.r.unlink(key)
        try:
            result = latency.probe_during(
                lab, lambda o=offset: lab.r.setbit(key, o, 1), clients=clients
            )
        finally:
            lab.r.unlink(key)
        during = result.during()
        rows.append(
            StallRow(
                offset=offset,
                bytes=nbytes,
                setbit_ms=result.action_seconds * 1e3,
                p50_ms=result.percentile(50) * 1e3,
                p99_ms=result.percentile(99) * 1e3,
                max_ms=result.worst * 1e3,
                probes=int(result.latencies.size),
                probes_during=int(during.size),
            )
        )
    return rows


def fill_string(lab: Lab, key: str, nbytes: int) -> None:
    """Make ``key`` a string of ``nbytes`` zero bytes with one SETRANGE (one allocation)."""
    if not isinstance(nbytes, int) or nbytes < 1:
        raise ValueError(f"nbytes must be a positive int, got {nbytes!r}")
    lab.check_allocation(
        guard.budget(string=nbytes, key_bytes=len(key)), f"a {nbytes:,}-byte string"
    )
    lab.r.setrange(key, nbytes - 1, b"\0")


def fill_set(lab: Lab, key: str, members: int, batch: int = 2_000) -> None:
    """Make ``key`` a SET of ``members`` integers (a hashtable above 512 members), pipelined."""
    if not isinstance(members, int) or members < 1:
        raise ValueError(f"members must be a positive int, got {members!r}")
    cost = set_cost(Members.decimal_range(0, members), key)
    lab.check_allocation(guard.budget(cost=cost), f"a {members:,}-member SET")
    pipe = lab.r.pipeline(transaction=False)
    for start in range(0, members, batch):
        pipe.sadd(key, *range(start, min(members, start + batch)))
    pipe.execute()


@dataclass(frozen=True)
class DeleteRow:
    """One DEL or UNLINK of a big key, timed inside Redis."""

    kind: str  #: "string" or "set"
    size: int  #: bytes of the string, or members of the SET
    command: str  #: "del" or "unlink"
    server_ms: float  #: time inside Redis (INFO commandstats delta), ms
    freed_bytes: int  #: drop in used_memory 50 ms later


def delete_costs(lab: Lab, string_bytes: list[int], set_members: list[int]) -> list[DeleteRow]:
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
                rows.append(DeleteRow(kind, size, command, seconds * 1e3, freed))
    return rows


@dataclass(frozen=True)
class KeysRow:
    """One KEYS call and one full SCAN over a keyspace of ``keys`` keys, inside Redis (ms)."""

    keys: int
    keys_ms: float
    scan_calls: int
    scan_total_ms: float
    scan_max_ms: float  #: the longest single SCAN call


def keys_vs_scan(lab: Lab, counts: list[int], scan_count: int = 1_000) -> list[KeysRow]:
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
            KeysRow(int(lab.r.dbsize()), keys_s * 1e3, len(calls), sum(calls) * 1e3,
                    max(calls) * 1e3)
        )  # fmt: skip
    return rows


def fill_keys_from(lab: Lab, part: str, start: int, stop: int, batch: int = 1_000) -> None:
    """Create keys ``<namespace><part>:<i>`` for ``start <= i < stop``."""
    if stop <= start:
        return
    longest = len(lab.key(part, stop - 1))
    lab.check_allocation(
        guard.budget(string=1, keys=stop - start, key_bytes=longest), f"{stop - start:,} keys"
    )
    pipe = lab.r.pipeline(transaction=False)
    for first in range(start, stop, batch):
        pipe.mset({lab.key(part, i): b"1" for i in range(first, min(stop, first + batch))})
    pipe.execute()


@dataclass(frozen=True)
class ForkCost:
    """One BGSAVE: how long its fork stopped Redis, and how long the save took."""

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


@dataclass(frozen=True)
class ForkRow:
    """:class:`ForkCost` with a big string of ``big_key_bytes`` in the server (0: none)."""

    big_key_bytes: int
    used_memory: int
    fork_ms: float
    bgsave_s: float


def fork_costs(lab: Lab, big_bytes: list[int]) -> list[ForkRow]:
    """:func:`fork_cost` with no big key, then with a big string of each size."""
    rows = []
    key = lab.key("fork-big")
    for nbytes in [0, *big_bytes]:
        lab.r.unlink(key)
        if nbytes:
            fill_string(lab, key, nbytes)
            lab.r.setrange(key, 0, b"\1" * min(nbytes, 1))
        cost = fork_cost(lab)
        rows.append(ForkRow(nbytes, cost.used_memory, cost.fork_ms, cost.bgsave_s))
    lab.r.unlink(key)
    return rows


def per_node_commands_live(
    local: cluster.LocalCluster, user: np.ndarray, content: np.ndarray
) -> dict[str, list[int]]:
    """Run both designs' commands on a real cluster (pipelined through ``RedisCluster``) and read
    each node's command count from ``INFO commandstats``: the live counterpart of
    :func:`setlab.models.like_workload.per_node_commands`."""
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


@dataclass(frozen=True)
class ClusterRouting:
    """A like workload on a real cluster, beside the routing model
    (:mod:`setlab.models.cluster_slots`)."""

    probe_keys: int  #: keys whose ``CLUSTER KEYSLOT`` was compared with the model's slot
    slots_agree: bool  #: every probe key's slot is :func:`~setlab.models.cluster_slots.key_slot`'s
    per_node: dict[str, list[int]]  #: commands per node, by design (:func:`per_node_commands_live`)


def cluster_routing(
    local: cluster.LocalCluster, user: np.ndarray, content: np.ndarray, probes: int = 500
) -> ClusterRouting:
    """Does a real cluster route as the model does? ``CLUSTER KEYSLOT`` of ``probes`` plain keys
    (``key:<i>``) and ``probes`` hash-tagged ones (``{tag<i>}:x``) against
    :func:`~setlab.models.cluster_slots.key_slot`, then the like workload ``(user, content)`` on
    ``local`` (:func:`per_node_commands_live`)."""
    probes = check_int("probes", probes, 1)
    keys = [f"key:{i}" for i in range(probes)] + [f"{{tag{i}}}:x" for i in range(probes)]
    agree = local.keyslots(keys) == [cluster_slots.key_slot(k) for k in keys]
    return ClusterRouting(len(keys), agree, per_node_commands_live(local, user, content))


# -- the stored reference run -----------------------------------------------------------------


def _rows(cls: type, raw: list[Mapping[str, Any]]) -> tuple:
    names = {f.name for f in dataclasses.fields(cls)}
    return tuple(cls(**{k: v for k, v in row.items() if k in names}) for row in raw)


@dataclass(frozen=True)
class StallsReference:
    """``stalls-reference.json``: every experiment of this module, run once on a real Redis."""

    run: RunInfo
    stalls: tuple[StallRow, ...]  #: by offset
    deletes: tuple[DeleteRow, ...]
    keys: tuple[KeysRow, ...]  #: by keyspace size
    forks: tuple[ForkRow, ...]  #: no big key first, then bigger ones

    @classmethod
    def load(cls) -> StallsReference:
        """The stored run shipped with setlab (``make reference`` rewrites it)."""
        doc = reference.load(REFERENCE)
        data = doc.data
        return cls(
            doc.run,
            _rows(StallRow, data["rows"]),
            _rows(DeleteRow, data["deletes"]),
            _rows(KeysRow, data["keys"]),
            _rows(ForkRow, data["forks"]),
        )

    def stall(self, offset: int) -> StallRow:
        """The stall row at ``offset``; ``KeyError`` if there is none."""
        for row in self.stalls:
            if row.offset == offset:
                return row
        raise KeyError(f"the reference run has no stall row at offset {offset:,}")

    def delete(self, kind: str, size: int, command: str) -> DeleteRow:
        """The row of one ``command`` ("del"/"unlink") on a ``kind`` of ``size``."""
        for row in self.deletes:
            if (row.kind, row.size, row.command) == (kind, size, command):
                return row
        raise KeyError(f"the reference run has no {command} of a {size:,} {kind}")


def biggest_delete(
    rows: list[DeleteRow] | tuple[DeleteRow, ...], kind: str, command: str
) -> DeleteRow:
    """The row of ``command`` on the largest ``kind`` in ``rows``."""
    chosen = [r for r in rows if r.kind == kind and r.command == command]
    if not chosen:
        raise ValueError(f"no {command} of a {kind} in these rows")
    return max(chosen, key=lambda r: r.size)


def as_rows(records: list) -> list[dict[str, Any]]:
    """Typed rows as the plain dicts a reference file stores."""
    return [dataclasses.asdict(r) for r in records]
