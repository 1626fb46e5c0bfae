"""A one-line progress report on stderr for long loops (bulk loads, simulations, ID files).

Used by the Bloom simulator (:mod:`setlab.models.bloom_sim`), the bulk loader
(:mod:`setlab.lab.wire.loading`) and the ID-file reader of :mod:`setlab.models.ids`. It prints
nothing unless ``enabled``, so library code can always call it.
"""

from __future__ import annotations

import sys
import time


class Progress:
    """A one-line text progress report (count done, rate, ETA) on stderr, rewritten in place.

    ``total``: the count at which the work is done (``None`` when unknown: no percentage, no
    ETA). ``every``: seconds between two printed updates. ``unit``: what is counted.
    """

    def __init__(
        self,
        total: int | None,
        label: str,
        enabled: bool = True,
        every: float = 0.5,
        unit: str = "items",
    ):
        self.total, self.label, self.enabled, self.every = total, label, enabled, every
        self.unit = unit
        self.done = 0
        self.start = self.last = time.perf_counter()

    def update(self, count: int) -> None:
        """Add ``count`` to the work done; print when ``every`` seconds have passed."""
        self.done += count
        now = time.perf_counter()
        if self.enabled and now - self.last >= self.every:
            self.last = now
            self._print(now, end="")

    def close(self) -> None:
        """Print the final line (and a newline), if enabled."""
        if self.enabled:
            self._print(time.perf_counter(), end="\n")

    def _print(self, now: float, end: str) -> None:
        rate = self.done / max(now - self.start, 1e-9)
        text = f"\r{self.label}: {self.done:,}"
        if self.total:
            eta = (self.total - self.done) / rate if rate else float("inf")
            text += f"/{self.total:,} ({100 * self.done / self.total:.0f}%, ETA {eta:.0f} s)"
        text += f", {rate:,.0f} {self.unit}/s"
        print(text, end=end, file=sys.stderr, flush=True)
