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

from setlab.backend import Lab


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
    lab: Lab, action: Callable[[], object], *, settle: float = 0.05, max_probes: int = 200_000
) -> ProbeResult:
    """Run ``action()`` while a second client times GETs against the same server.

    The probe starts ``settle`` seconds before the action and stops ``settle`` seconds after it,
    so the plot shows normal latency on both sides of the stall. ``max_probes`` bounds the loop.
    """
    if settle < 0:
        raise ValueError(f"settle must be >= 0 seconds, got {settle!r}")
    probe_key = lab.key("probe")
    lab.r.set(probe_key, b"x")
    client = lab.new_client()
    client.ping()
    stop = threading.Event()
    starts: list[float] = []
    latencies: list[float] = []
    origin = time.perf_counter()

    def probe() -> None:
        while not stop.is_set() and len(starts) < max_probes:
            t0 = time.perf_counter()
            client.get(probe_key)
            starts.append(t0 - origin)
            latencies.append(time.perf_counter() - t0)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    try:
        time.sleep(settle)
        action_start = time.perf_counter() - origin
        action()
        action_end = time.perf_counter() - origin
        time.sleep(settle)
    finally:
        stop.set()
        thread.join(timeout=30)
        client.close()
        lab.r.unlink(probe_key)
    return ProbeResult(np.array(starts), np.array(latencies), action_start, action_end)
