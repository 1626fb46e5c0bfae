"""What one big key does to a server's housekeeping: eviction under ``maxmemory``, an AOF rewrite
and a replica's full sync — the three sentences of seed 000 §5 the book used to leave unjudged.

Each experiment starts private ``redis-server`` processes of its own (it sets ``maxmemory``,
turns AOF on, makes one server the other's replica), so it never runs on a reader's server.
The same payload is stored once as one string and once spread over many small strings: what a
big key changes is then the difference between the two layouts, at equal bytes.

``reference/measure_housekeeping.py`` stores a run as ``housekeeping-reference.json``;
:class:`HousekeepingReference` reads it back. Times are wall-clock seconds on this machine,
seen by a client polling ``INFO`` every 5 ms.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import redis

from setlab.lab import reference
from setlab.lab.server import RedisServer

REFERENCE = "housekeeping-reference"
#: the maxmemory of the eviction experiment (bytes), and the small keys written before the big
#: write (1 KiB each: 16 MiB in all, a quarter of the limit)
EVICTION_LIMIT = 64 * 2**20
SMALL_KEYS, SMALL_BYTES = 16_384, 1_024
#: the big write: a first SETBIT whose string (96 MiB) alone is over the limit
EVICTION_OFFSET = 96 * 2**20 * 8 - 1
#: the policies compared: Redis's default, and the two a cache would set
POLICIES = ("noeviction", "allkeys-lru", "allkeys-lfu")
#: the payload of the AOF and replication experiments: one key, or this many keys of equal size
PAYLOAD_BYTES = 256 * 2**20
SPREAD_KEYS = 4_096
_POLL_S = 0.005


@dataclass(frozen=True)
class EvictionRow:
    """A first SETBIT over the limit, under one ``maxmemory-policy``."""

    policy: str
    setbit_error: str | None  #: the SETBIT's error, None when Redis ran it
    next_write_error: str | None  #: the error of one small SET right after, None if it ran
    evicted_keys: int  #: INFO stats evicted_keys after both writes
    small_keys_left: int  #: of SMALL_KEYS
    big_key_left: bool
    used_memory_after: int  #: bytes


@dataclass(frozen=True)
class LayoutRow:
    """The same bytes as one key or as many: an AOF rewrite and a replica's full sync."""

    keys: int
    payload_bytes: int
    aof_rewrite_s: float  #: BGREWRITEAOF until aof_rewrite_in_progress is 0
    full_sync_s: float  #: REPLICAOF until the replica's link is up and its sync is done


def _info(client: redis.Redis, section: str) -> dict[str, Any]:
    return client.info(section)


def _fill_small(client: redis.Redis) -> None:
    pipe = client.pipeline(transaction=False)
    value = b"x" * SMALL_BYTES
    for i in range(SMALL_KEYS):
        pipe.set(f"small:{i}", value)
        if i % 1_000 == 999:
            pipe.execute()
    pipe.execute()


def _error(call) -> str | None:
    try:
        call()
    except redis.ResponseError as refused:
        return str(refused).split(" (")[0]
    return None


def eviction(policy: str) -> EvictionRow:
    """Fill a fresh server to a quarter of :data:`EVICTION_LIMIT` with small keys, then send a
    first SETBIT whose string alone is over the limit, then one small SET."""
    limit = ["--maxmemory", str(EVICTION_LIMIT), "--maxmemory-policy", policy]
    with RedisServer.start(module=False, extra_args=limit) as server:
        client = server.client()
        _fill_small(client)
        setbit = _error(lambda: client.setbit("big", EVICTION_OFFSET, 1))
        after = _error(lambda: client.set("small:after", b"x"))
        stats, memory = _info(client, "stats"), _info(client, "memory")
        left = sum(1 for _ in client.scan_iter(match="small:*", count=1_000))
        row = EvictionRow(
            policy, setbit, after, int(stats["evicted_keys"]),
            left - (after is None), bool(client.exists("big")), int(memory["used_memory"]),
        )  # fmt: skip
        client.close()
        return row


def _fill_payload(client: redis.Redis, keys: int) -> None:
    size = PAYLOAD_BYTES // keys
    block = bytes(range(256)) * (size // 256) + bytes(size % 256)
    pipe = client.pipeline(transaction=False)
    for i in range(keys):
        pipe.set(f"payload:{i}", block)
        if i % 64 == 63:
            pipe.execute()
    pipe.execute()


def _wait(client: redis.Redis, section: str, done, timeout: float = 600.0) -> float:
    """Poll ``INFO section`` until ``done(info)``; returns the seconds waited."""
    start = time.perf_counter()
    while not done(_info(client, section)):
        if time.perf_counter() - start > timeout:
            raise TimeoutError(f"INFO {section} did not settle in {timeout:.0f} s")
        time.sleep(_POLL_S)
    return time.perf_counter() - start


def layout(keys: int) -> LayoutRow:
    """:data:`PAYLOAD_BYTES` in ``keys`` strings: time an AOF rewrite of them, then a fresh
    replica's full sync (``repl-diskless-sync-delay 0``: the default waits 5 s for more
    replicas before it starts, whatever the keys)."""
    with RedisServer.start(
        module=False, extra_args=["--appendonly", "yes", "--repl-diskless-sync-delay", "0"]
    ) as master:
        client = master.client()
        _wait(client, "persistence", lambda i: not i["aof_rewrite_in_progress"])
        _fill_payload(client, keys)
        client.bgrewriteaof()
        rewrite = _wait(
            client, "persistence",
            lambda i: not i["aof_rewrite_in_progress"] and not i["aof_rewrite_scheduled"],
        )  # fmt: skip
        with RedisServer.start(module=False) as replica:
            follower = replica.client()
            start = time.perf_counter()
            follower.execute_command("REPLICAOF", master.host, str(master.port))
            _wait(
                follower, "replication",
                lambda i: i.get("master_link_status") == "up" and not i["master_sync_in_progress"],
            )  # fmt: skip
            sync = time.perf_counter() - start
            assert follower.dbsize() == keys, "the replica did not receive every key"
            follower.close()
        client.close()
        return LayoutRow(keys, PAYLOAD_BYTES, rewrite, sync)


def as_rows(rows: list[Any]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]


@dataclass(frozen=True)
class HousekeepingReference:
    """``housekeeping-reference.json``: the eviction rows and the two layouts, one run."""

    run: reference.RunInfo
    eviction: tuple[EvictionRow, ...]
    layouts: tuple[LayoutRow, ...]  #: one key first, then spread

    @classmethod
    def load(cls) -> HousekeepingReference:
        doc = reference.load(REFERENCE)
        return cls(
            doc.run,
            tuple(EvictionRow(**r) for r in doc.data["eviction"]),
            tuple(sorted((LayoutRow(**r) for r in doc.data["rows"]), key=lambda r: r.keys)),
        )

    def policy(self, name: str) -> EvictionRow:
        for row in self.eviction:
            if row.policy == name:
                return row
        raise KeyError(f"the reference run has no eviction row for {name}")
