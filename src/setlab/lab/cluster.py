"""A real local Redis Cluster to measure on (the slot mapping itself is
:mod:`setlab.models.cluster_slots`).

:class:`LocalCluster` starts ``masters`` cluster-enabled ``redis-server`` processes on free
loopback ports (through :class:`setlab.lab.server.RedisServer`), assigns them equal slot ranges,
joins them with ``CLUSTER MEET`` and waits for ``cluster_state:ok``. It is for measuring, not for
production: no replicas, no persistence.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from redis.cluster import RedisCluster

from setlab.lab.server import RedisServer, ServerError, binary_version, free_port
from setlab.models.cluster_slots import slot_ranges


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


__all__ = ["LocalCluster"]
