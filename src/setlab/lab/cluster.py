"""Redis Cluster: the key → slot → node mapping, and a real local cluster to measure it on.

A cluster splits the keyspace into 16384 hash slots; a key's slot is ``CRC16(key) mod 16384``
(CRC-16/XMODEM, ``src/crc16.c`` and ``keyHashSlot`` in ``src/cluster.c``), where only the part
inside the first non-empty ``{…}`` counts when the key has one (a *hash tag*). Every command on a
key goes to the one master owning its slot — so a hot key is a hot node, whatever the cluster size.

:class:`LocalCluster` starts ``masters`` cluster-enabled ``redis-server`` processes on free loopback
ports (through :class:`setlab.lab.server.RedisServer`), assigns them equal slot ranges, joins them with
``CLUSTER MEET`` and waits for ``cluster_state:ok``. It is for measuring, not for production: no
replicas, no persistence.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from redis.cluster import RedisCluster

from setlab.lab.server import RedisServer, ServerError, binary_version, free_port

SLOTS = 16384


def _crc16_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _crc16_table()


def crc16(data: bytes) -> int:
    """CRC-16/XMODEM (polynomial 0x1021, initial value 0), as Redis Cluster uses it."""
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def hash_tag(key: str | bytes) -> bytes:
    """The part of ``key`` that is hashed: inside the first ``{…}`` if it is non-empty."""
    raw = key.encode() if isinstance(key, str) else bytes(key)
    start = raw.find(b"{")
    if start != -1:
        end = raw.find(b"}", start + 1)
        if end > start + 1:
            return raw[start + 1 : end]
    return raw


def key_slot(key: str | bytes) -> int:
    """The hash slot (0…16383) of ``key``, equal to ``CLUSTER KEYSLOT key``."""
    if not isinstance(key, str | bytes | bytearray):
        raise ValueError(f"key must be str or bytes, got {type(key).__name__}")
    return crc16(hash_tag(key)) % SLOTS


def slot_ranges(masters: int) -> list[tuple[int, int]]:
    """Equal contiguous slot ranges ``(first, last)`` for ``masters`` nodes, as redis-cli does."""
    if not isinstance(masters, int) or not 1 <= masters <= 64:
        raise ValueError(f"masters must be an int from 1 to 64, got {masters!r}")
    bounds = [round(i * SLOTS / masters) for i in range(masters + 1)]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(masters)]


def node_of_slot(slot: int, ranges: list[tuple[int, int]]) -> int:
    """Index of the node whose range holds ``slot``."""
    for index, (first, last) in enumerate(ranges):
        if first <= slot <= last:
            return index
    raise ValueError(f"slot {slot} is in no range")


def commands_per_node(keys: Iterable[str | bytes], masters: int) -> list[int]:
    """How many commands each of ``masters`` nodes receives when one command is sent per key.

    A pure simulation of the routing (no Redis): the live cluster must agree with it exactly.
    """
    ranges = slot_ranges(masters)
    counts = Counter(node_of_slot(key_slot(k), ranges) for k in keys)
    return [counts.get(i, 0) for i in range(masters)]


def _cluster_info(node: RedisServer) -> dict[str, str]:
    text = node.client().execute_command("CLUSTER", "INFO")
    text = text.decode() if isinstance(text, bytes) else text
    return dict(line.split(":", 1) for line in text.split() if ":" in line)


@dataclass
class LocalCluster:
    """A real Redis Cluster of ``len(nodes)`` masters on loopback; stop it with :meth:`stop`."""

    nodes: list[RedisServer]
    ranges: list[tuple[int, int]]

    @classmethod
    def start(cls, masters: int = 3, timeout: float = 20.0) -> LocalCluster:
        """Start the nodes, assign slots, join them and wait until the cluster is ``ok``.

        Needs redis-server 7.0 or later (``--cluster-port`` and ``CLUSTER ADDSLOTSRANGE``).
        """
        ranges = slot_ranges(masters)
        version = binary_version()
        if version < (7, 0):
            raise ServerError(
                f"a local cluster needs redis-server 7.0 or later; this one is "
                f"{'.'.join(map(str, version))}"
            )
        nodes: list[RedisServer] = []
        bus_ports: list[int] = []
        try:
            for _ in range(masters):
                bus_ports.append(free_port())
                nodes.append(
                    RedisServer.start(
                        module=False,
                        extra_args=[
                            "--cluster-enabled", "yes",
                            "--cluster-config-file", "nodes.conf",
                            "--cluster-port", str(bus_ports[-1]),
                            "--cluster-node-timeout", "5000",
                        ],
                    )
                )  # fmt: skip
            for node, (first, last) in zip(nodes, ranges, strict=True):
                node.client().execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
            for node, bus in zip(nodes[1:], bus_ports[1:], strict=True):
                nodes[0].client().execute_command("CLUSTER", "MEET", node.host, node.port, bus)
            cluster = cls(nodes, ranges)
            cluster._wait_ok(timeout)
            return cluster
        except BaseException:
            for node in nodes:
                node.stop()
            raise

    def _wait_ok(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            infos = [_cluster_info(node) for node in self.nodes]
            if all(
                info.get("cluster_state") == "ok"
                and int(info.get("cluster_known_nodes", 0)) == len(self.nodes)
                for info in infos
            ):
                return
            time.sleep(0.05)
        raise ServerError(f"the local cluster did not reach cluster_state:ok in {timeout} s")

    def client(self) -> RedisCluster:
        """A redis-py cluster client (it discovers every node from the first)."""
        first = self.nodes[0]
        return RedisCluster(host=first.host, port=first.port, protocol=2)

    def reset_stats(self) -> None:
        """``CONFIG RESETSTAT`` on every node (the cluster is ours: no one else's counters)."""
        for node in self.nodes:
            node.client().config_resetstat()

    def commands_per_node(self, command: str | None = None) -> list[int]:
        """Calls each node has served since the last reset (``INFO commandstats``), in node order.

        ``command`` (e.g. ``"setbit"``) counts only that command; ``None`` counts all but the
        cluster-management commands the client itself sends.
        """
        totals = []
        for node in self.nodes:
            stats = node.client().info("commandstats")
            calls = 0
            for name, values in stats.items():
                cmd = name.removeprefix("cmdstat_")
                if command is not None and cmd != command.lower():
                    continue
                if command is None and cmd.startswith(("cluster", "config", "info", "command")):
                    continue
                calls += int(values["calls"])
            totals.append(calls)
        return totals

    def keyslots(self, keys: Iterable[str | bytes]) -> list[int]:
        """``CLUSTER KEYSLOT`` for each key, asked of the first node (one pipelined round trip)."""
        pipe = self.nodes[0].client().pipeline(transaction=False)
        for key in keys:
            pipe.execute_command("CLUSTER", "KEYSLOT", key)
        return [int(slot) for slot in pipe.execute()]

    @property
    def alive(self) -> bool:
        return all(node.alive for node in self.nodes)

    def stop(self) -> None:
        """Stop every node. Idempotent."""
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = [
    "SLOTS",
    "LocalCluster",
    "commands_per_node",
    "crc16",
    "hash_tag",
    "key_slot",
    "node_of_slot",
    "slot_ranges",
]
