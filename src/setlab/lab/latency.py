"""What other clients feel while one slow command runs: head-of-line blocking on a single thread.

Redis executes commands one at a time. :func:`probe_during` runs a second client in a thread that
issues a cheap command (GET of a small key) back to back, while the main thread runs a slow action
(a first SETBIT at a huge offset, a DEL of a big key, a KEYS). Every probe's start time and latency
is recorded, so a chapter can plot the stall and read off percentiles.

Only meaningful on a real server: on fakeredis the "server" is Python code sharing the GIL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from setlab.lab.backend import Lab


@dataclass(frozen=True)
class ProbeResult:
    """Probe start times and latencies (seconds, relative to the probe's start) and when the slow
    action ran."""

    starts: np.ndarray
    latencies: np.ndarray
    action_start: float
    action_end: float

    @property
    def action_seconds(self) -> float:
        """How long the slow action took, seen by its own client (seconds)."""
        return self.action_end - self.action_start

    @property
    def worst(self) -> float:
        """The longest any probe waited (seconds)."""
        return float(self.latencies.max()) if self.latencies.size else 0.0

    def during(self) -> np.ndarray:
        """Latencies of the probes that overlapped the slow action."""
        ends = self.starts + self.latencies
        mask = (ends >= self.action_start) & (self.starts <= self.action_end)
        return self.latencies[mask]

    def percentile(self, q: float) -> float:
        """The ``q``-th percentile of all probe latencies (seconds)."""
        return float(np.percentile(self.latencies, q)) if self.latencies.size else 0.0


def probe_during(
    lab: Lab,
    action: Callable[[], object],
    *,
    clients: int = 1,
    settle: float = 0.05,
    max_probes: int = 200_000,
) -> ProbeResult:
    """Run ``action()`` while ``clients`` other clients time GETs against the same server.

    The probes start ``settle`` seconds before the action and stop ``settle`` seconds after it,
    so the plot shows normal latency on both sides of the stall. ``max_probes`` bounds each loop.
    """
    if settle < 0:
        raise ValueError(f"settle must be >= 0 seconds, got {settle!r}")
    if not isinstance(clients, int) or not 1 <= clients <= 16:
        raise ValueError(f"clients must be an int from 1 to 16, got {clients!r}")
    probe_key = lab.key("probe")
    lab.r.set(probe_key, b"x")
    connections = [lab.new_client() for _ in range(clients)]
    for connection in connections:
        connection.ping()
    stop = threading.Event()
    samples: list[list[tuple[float, float]]] = [[] for _ in range(clients)]
    origin = time.perf_counter()

    def probe(connection, out: list[tuple[float, float]]) -> None:
        while not stop.is_set() and len(out) < max_probes:
            t0 = time.perf_counter()
            connection.get(probe_key)
            out.append((t0 - origin, time.perf_counter() - t0))

    threads = [
        threading.Thread(target=probe, args=(c, out), daemon=True)
        for c, out in zip(connections, samples, strict=True)
    ]
    for thread in threads:
        thread.start()
    try:
        time.sleep(settle)
        action_start = time.perf_counter() - origin
        action()
        action_end = time.perf_counter() - origin
        time.sleep(settle)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        for connection in connections:
            connection.close()
        lab.r.unlink(probe_key)
    merged = sorted(pair for out in samples for pair in out)
    starts = np.array([s for s, _ in merged])
    latencies = np.array([d for _, d in merged])
    return ProbeResult(starts, latencies, action_start, action_end)


def server_usec(lab: Lab, command: str) -> float:
    """Total microseconds Redis has spent in ``command`` (``INFO commandstats``); 0 if never run.

    The difference across one call is the server-side time of that call, network excluded.
    """
    if not lab.is_real:
        raise ValueError("server-side time needs a real Redis (fakeredis has no INFO)")
    stats = lab.r.info("commandstats").get(f"cmdstat_{command.lower()}")
    return float(stats["usec"]) if stats else 0.0


def timed_on_server(lab: Lab, command: str, call: Callable[[], object]) -> float:
    """Run ``call()`` (one ``command``) and return its time inside Redis, in seconds."""
    before = server_usec(lab, command)
    call()
    return (server_usec(lab, command) - before) / 1e6
