"""A streamed load that fails says why, at once, in one setlab line (issue 25, item 6).

Each test starts its own real redis-server, set up to fail the way a reader's can: out of memory
under ``noeviction``, an ACL without the command, the command renamed away, the process stopped
(SIGSTOP) or killed (SIGKILL) mid-load. References are the server's own counters
(``INFO commandstats``, ``INFO errorstats``), the signal the test sent, and the kernel's socket
buffer limits, never the loader's output alone.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import redis

import setlab
from setlab.lab import backend, errors
from setlab.lab.errors import (
    PermissionDenied,
    ServerOutOfMemory,
    ServerTimeout,
    ServerUnavailable,
    SetlabError,
)
from setlab.lab.server import RedisServer
from setlab.lab.wire import encode as resp_encode
from setlab.lab.wire import pipe as resp_pipe
from setlab.models.bloom_sim import BloomLayout

pytestmark = [pytest.mark.live, pytest.mark.timeout(90)]  # a hang fails, it does not wait

ITEMS = np.arange(300_000, dtype=np.uint64) * np.uint64(2654435761)
LAYOUT = BloomLayout(2**16, 7, shard_bits=6)  # 64 keys of 8 KiB: 2.1 million SETBITs
#: 16,384 keys of 256 bytes (4 MiB of bitmaps and ~1.5 MiB of key overhead): the keys appear
#: one by one as items arrive, so a 4 MiB maxmemory runs out in the middle of the load
GROWING = BloomLayout(2**11, 7, shard_bits=14)
WITHIN_S = 5.0  # the brief: one line at most this long after the fault


@pytest.fixture
def own_lab(monkeypatch):
    """``start(*redis_args)``: a lab on a fresh private server started with those arguments."""
    from tests.conftest import _need_redis_server

    _need_redis_server()
    resp_encode.encode(np.arange(3, dtype=np.uint64), b"", b"")  # compile before timing
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG"):
        monkeypatch.delenv(name, raising=False)
    started: list[RedisServer] = []

    def start(*extra: str) -> tuple[setlab.Lab, RedisServer]:
        server = RedisServer.start(module=False, extra_args=list(extra))
        started.append(server)
        monkeypatch.setattr(backend, "_private_server", server)
        return setlab.connect("stream-faults", backend="live", quiet=True), server

    yield start
    for server in started:
        if server.alive:
            os.kill(server.process.pid, signal.SIGCONT)
        server.stop()


def _stat(server: RedisServer, section: str, name: str, field: str) -> int:
    return int(server.client().info(section).get(name, {}).get(field, 0))


def _in_flight(lab: setlab.Lab, layout: BloomLayout) -> int:
    """The most SETBITs that can still reach the server once the loader stops sending: its
    socket's send buffer (Linux doubles the 4 MiB the loader asks for, capped by
    net.core.wmem_max), the server's receive buffer (at most tcp_rmem's maximum) and one 256 KiB
    slice being sent, over the shortest SETBIT the load contains."""
    wmem = int(Path("/proc/sys/net/core/wmem_max").read_text())
    rmem = int(Path("/proc/sys/net/ipv4/tcp_rmem").read_text().split()[2])
    key = lab.key("f", *layout.key_suffix(0))
    shortest = len(b"".join(redis.connection.Connection().pack_command("SETBIT", key, 0, 1)))
    return (2 * min(4 << 20, wmem) + rmem + (256 << 10)) // shortest


def _acknowledged(message: str) -> int:
    match = re.search(r"([\d,]+) items acknowledged", message)
    assert match, message
    return int(match.group(1).replace(",", ""))


def _one_line(exc: pytest.ExceptionInfo, *words: str) -> str:
    message = str(exc.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return message


def test_out_of_memory_mid_load_is_one_line_within_seconds_and_stops_the_load(own_lab):
    lab, server = own_lab("--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
    with (
        _timed_from_first(server, "errorstat_OOM") as after,
        pytest.raises(ServerOutOfMemory) as exc,
    ):
        resp_pipe.load_setbits(lab, "f", GROWING, ITEMS)
    assert after() < WITHIN_S
    message = _one_line(exc, "SETBIT", "OOM command not allowed", "maxmemory")
    items = _acknowledged(message)
    assert 0 < items < ITEMS.size  # it ran out in the middle
    # every acknowledged item's k SETBITs ran on the server
    assert _stat(server, "commandstats", "cmdstat_setbit", "calls") >= items * GROWING.k
    refused = _stat(server, "errorstats", "errorstat_OOM", "count")
    assert 0 < refused <= _in_flight(lab, GROWING)  # not the 1.8 million left to send


def test_a_user_denied_the_command_gets_one_noperm_line_and_nothing_more_is_sent(own_lab):
    lab, server = own_lab()
    server.client().execute_command("ACL", "SETUSER", "default", "-setbit")
    with (
        _timed_from_first(server, "errorstat_NOPERM") as after,
        pytest.raises(PermissionDenied) as exc,
    ):
        resp_pipe.load_setbits(lab, "f", LAYOUT, ITEMS)
    assert after() < WITHIN_S
    message = _one_line(exc, "SETBIT", "NOPERM", "+setbit")
    assert _acknowledged(message) == 0
    refused = _stat(server, "errorstats", "errorstat_NOPERM", "count")
    assert 0 < refused <= _in_flight(lab, LAYOUT) < ITEMS.size * LAYOUT.k
    assert server.client().dbsize() == 0


def test_a_renamed_command_gets_one_unknown_command_line(own_lab):
    lab, server = own_lab("--rename-command", "SETBIT", "")
    with (
        _timed_from_first(server, "errorstat_ERR") as after,
        pytest.raises(SetlabError) as exc,
    ):
        resp_pipe.load_setbits(lab, "f", LAYOUT, ITEMS)
    assert after() < WITHIN_S
    assert isinstance(exc.value, errors.CommandRefused)
    message = _one_line(exc, "does not know SETBIT", "rename-command", "unknown command")
    assert _acknowledged(message) == 0
    refused = _stat(server, "errorstats", "errorstat_ERR", "count")
    assert 0 < refused <= _in_flight(lab, LAYOUT)


class _Strike(threading.Thread):
    """Sends ``sig`` to the server once it has run ``after`` SETBITs: the fault lands mid-load."""

    def __init__(self, server: RedisServer, sig: int, after: int = 200_000) -> None:
        super().__init__(daemon=True)
        self.server, self.sig, self.after = server, sig, after
        self.at: float | None = None

    def run(self) -> None:
        client = self.server.client(socket_timeout=5)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            stats = client.info("commandstats").get("cmdstat_setbit", {})
            if int(stats.get("calls", 0)) >= self.after:
                self.at = time.monotonic()
                os.kill(self.server.process.pid, self.sig)
                return
            time.sleep(0.002)


@contextlib.contextmanager
def _timed_from_first(server: RedisServer, error: str) -> Iterator[Callable[[], float]]:
    """Yields ``after()``: the seconds from the server's first ``error`` (``INFO errorstats``)
    to the end of the ``with`` body. Timed from the fault, not from the start of the load: a
    loaded machine (stop 37) took 6–8.5 s to start the load or fill 4 MB, which is the load's
    work, not its reaction to the fault; the counters say it stopped at once."""
    first = _FirstRefusal(server, error)
    first.start()
    ended: list[float] = []
    try:
        yield lambda: ended[0] - first.at if first.at is not None else math.inf
    finally:
        ended.append(time.monotonic())
        first.join(5)


class _FirstRefusal(threading.Thread):
    """Notes when the server first counts an ``error`` in ``INFO errorstats`` (polled every
    10 ms on a connection of its own), and stops there."""

    def __init__(self, server: RedisServer, error: str) -> None:
        super().__init__(daemon=True)
        self.server, self.error, self.at = server, error, None

    def run(self) -> None:
        probe = self.server.client()
        deadline = time.monotonic() + 60
        while self.at is None and time.monotonic() < deadline:
            if probe.info("errorstats").get(self.error, {}).get("count", 0):
                self.at = time.monotonic()
            time.sleep(0.01)
        probe.close()


def _load_until_struck(lab: setlab.Lab, server: RedisServer, sig: int, error: type) -> tuple:
    strike = _Strike(server, sig)
    strike.start()
    with pytest.raises(error) as exc:
        resp_pipe.load_setbits(lab, "f", LAYOUT, ITEMS)
    failed = time.monotonic()
    strike.join(5)
    assert strike.at is not None, "the load ended before the signal: make it longer"
    return exc, failed - strike.at


def test_a_server_stopped_mid_load_is_one_frozen_line_within_seconds(own_lab):
    lab, server = own_lab()
    exc, after = _load_until_struck(lab, server, signal.SIGSTOP, ServerTimeout)
    assert after < WITHIN_S
    message = _one_line(exc, "SETBIT", "frozen")
    assert 0 < _acknowledged(message) < ITEMS.size


def test_a_server_killed_mid_load_is_one_connection_closed_line(own_lab):
    lab, server = own_lab()
    exc, after = _load_until_struck(lab, server, signal.SIGKILL, ServerUnavailable)
    assert after < WITHIN_S
    message = _one_line(exc, "SETBIT", "connection closed", "exited with code -9")
    assert 0 < _acknowledged(message) < ITEMS.size
