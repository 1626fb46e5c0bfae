"""A real local Redis Cluster to measure on (the slot mapping itself is
:mod:`setlab.models.cluster_slots`).

:class:`LocalCluster` starts ``masters`` cluster-enabled ``redis-server`` processes on free
loopback ports (through :class:`setlab.lab.server.RedisServer`), assigns them equal slot ranges,
joins them with ``CLUSTER MEET`` and waits for ``cluster_state:ok``. It is for measuring, not for
production: no replicas, no persistence.

Its client (:meth:`LocalCluster.client`) waits at most :data:`SOCKET_TIMEOUT_S` for a reply and
does not retry. redis-py's cluster client without a timeout waits forever on a frozen master
(``SIGSTOP``); with a 2 s timeout and its default three retries and topology refreshes a batch
still took 30 s here, and a pipeline whose batch timed out is then re-sent one command at a
time, each waiting out its own timeout (minutes for a batch of thousands). So the client does
not retry, and in a pipeline the first command that fails on the network fails the rest at
once: a frozen or dead master is one setlab error (:mod:`setlab.lab.errors`), naming the
masters that do not answer, within two timeouts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from setlab.lab.errors import spoken, translate
from setlab.lab.server import RedisServer, ServerError, binary_version, free_port
from setlab.models.cluster_slots import slot_ranges

#: seconds the cluster client waits for a reply: the local masters answer a pipelined batch of
#: the book's loads in milliseconds, so silence this long is a frozen master, not a slow command
SOCKET_TIMEOUT_S = 2.0
CONNECT_TIMEOUT_S = 2.0
_PROBE_S = 0.5  # seconds each master gets to answer PING when naming the silent ones


def _cluster_info(node: RedisServer) -> dict[str, str]:
    text = node.client().execute_command("CLUSTER", "INFO")
    text = text.decode() if isinstance(text, bytes) else text
    return dict(line.split(":", 1) for line in text.split() if ":" in line)


class _LabCluster(RedisCluster):
    """redis-py's cluster client speaking the lab's errors, as the single-server client of
    :mod:`setlab.lab.backend` does: a timeout is ``ServerTimeout``, a lost connection
    ``ServerUnavailable``, each one line naming the masters that do not answer."""

    _lab_namespace = ""

    def _lab_error(self, exc: redis.exceptions.RedisError, command: str) -> Exception:
        if not isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
            return translate(exc, self._lab_where(), command, self._lab_namespace)
        silent = []
        for node in self.get_primaries():
            probe = redis.Redis(
                host=node.host, port=node.port, socket_timeout=_PROBE_S,
                socket_connect_timeout=_PROBE_S, retry=Retry(NoBackoff(), 0),
            )  # fmt: skip
            try:
                probe.ping()
            except redis.exceptions.RedisError:
                silent.append(node.name)
            finally:
                probe.close()
        if silent:
            where = f"{', '.join(silent)} ({'masters' if len(silent) > 1 else 'a master'} of the "
            where += "local Redis Cluster)"
        else:
            where = f"{self._lab_where()} (the local Redis Cluster's masters)"
        return translate(exc, where, command, self._lab_namespace)

    def _lab_where(self) -> str:
        return ", ".join(node.name for node in self.get_primaries())

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        with spoken(self._lab_error, str(args[0]) if args else "?"):
            return super().execute_command(*args, **kwargs)

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> Any:
        pipe = super().pipeline(transaction=transaction, shard_hint=shard_hint)
        execute, one_command = pipe.execute, pipe.parent_execute_command
        lost: list[redis.exceptions.RedisError] = []

        def fail_fast(*args: Any, **kwargs: Any) -> Any:
            """redis-py's command-by-command retry of a failed batch: after the first network
            failure the others fail at once instead of each waiting out a timeout."""
            if lost:
                raise lost[0]
            try:
                return one_command(*args, **kwargs)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
                lost.append(exc)
                raise

        def checked_execute(raise_on_error: bool = True) -> list[Any]:
            lost.clear()
            with spoken(self._lab_error, "a pipeline"):
                return execute(raise_on_error=raise_on_error)

        pipe.execute = checked_execute
        pipe.parent_execute_command = fail_fast
        return pipe


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

    def client(self, namespace: str = "") -> RedisCluster:
        """A redis-py cluster client (it discovers every node from the first) with the timeouts
        of the module docstring; ``namespace``: the keys' prefix, for its out-of-memory errors."""
        first = self.nodes[0]
        client = _LabCluster(
            host=first.host, port=first.port, protocol=2, socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=CONNECT_TIMEOUT_S, retry=Retry(NoBackoff(), 0),
        )  # fmt: skip
        client._lab_namespace = namespace
        return client

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
