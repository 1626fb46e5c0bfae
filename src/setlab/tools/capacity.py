"""Sets × IDs: what a size per set becomes at the reader's number of sets, and whether it still
fits one Redis (the capacity of one server, or of a cluster; the chapters' size knob
``SETLAB_SCALE`` is another thing, :mod:`setlab.core.scale`).

Seed 000's likes are one set per post: "10^7 likes per post × 10^5 posts" is 10^5 keys, and the
bytes per ID a calculator prints are only the start. :class:`Scale` multiplies them out (with
what is paid once for every set, such as a string-ID remap's HASH), compares the total with one
Redis's memory, and past it says how many Redis Cluster masters the total needs at that memory
each — and what a cluster cannot do: a set is one key, so it lives on one master whatever their
number, and that master takes every command on it (chapter one-slow-command's skewed like
workload: the busiest of three masters takes :func:`hot_share` of the commands).

One Redis's memory is, in order: what the reader gives (``--server-memory``), the ``maxmemory``
of the server at ``REDIS_URL`` when it answers within a second and sets one
(:func:`server_budget`; read-only ``CONFIG GET``), else :data:`DEFAULT_SERVER_BYTES`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from setlab.core.formats import format_bytes
from setlab.core.validate import check_int

#: One Redis's memory when nothing says otherwise: 16 GiB. Not a limit of Redis: past a few
#: tens of GB a fork for RDB or an AOF rewrite copies page tables for seconds and a replica's
#: full resync moves the whole dataset, so operators shard before that.
DEFAULT_SERVER_BYTES = 16 << 30
DEFAULT_SOURCE = "a 16 GiB server (the default; --server-memory SIZE for yours)"


def hot_share() -> float:
    """The busiest master's share of commands in chapter one-slow-command's skewed like
    workload with one bitmap per post, on three masters (an even share is a third)."""
    from setlab.models.like_workload import skew_shares

    return skew_shares()["bitmap"]


@dataclass(frozen=True)
class Scale:
    """``sets`` keys of ``per_set`` bytes each, plus ``shared`` bytes paid once, against one
    Redis of ``server`` bytes (``source`` says where that figure came from)."""

    per_set: int
    sets: int = 1
    shared: int = 0
    server: int = DEFAULT_SERVER_BYTES
    source: str = DEFAULT_SOURCE

    def __post_init__(self) -> None:
        check_int("sets", self.sets, 1)
        check_int("per_set", self.per_set, 0)
        check_int("shared", self.shared, 0)
        check_int("server", self.server, 1)

    @property
    def total(self) -> int:
        """Bytes of every set, and what they share once."""
        return self.shared + self.sets * self.per_set

    @property
    def fits(self) -> bool:
        return self.total <= self.server

    @property
    def masters(self) -> int:
        """Redis Cluster masters that hold the total at :attr:`server` bytes each."""
        return max(1, math.ceil(self.total / self.server))

    def rows(self) -> list[tuple[str, str]]:
        """Labelled rows for a report: the total, and one Redis or a cluster."""
        shared = f" + {format_bytes(self.shared)} shared" if self.shared else ""
        rows = [(f"for {self.sets:,} sets", f"{format_bytes(self.total)} "
                 f"({self.sets:,} × {format_bytes(self.per_set)}{shared})")]  # fmt: skip
        share = self.total / self.server
        if self.fits:
            rows.append(("one Redis", f"fits: {share:.0%} of {self.source}"))
        else:
            rows.append(("one Redis", f"does not fit: {share:.1f}× {self.source}"))
            rows.append((
                "Redis Cluster",
                f"{self.masters:,} masters of {format_bytes(self.server)} ({2 * self.masters:,} "
                "servers with a replica each)",
            ))  # fmt: skip
        return rows

    def notes(self) -> list[str]:
        """What a cluster does not fix, when one is needed."""
        if self.fits:
            return []
        notes = [
            f"a set is one key, so a cluster spreads the sets, not a set: each "
            f"{format_bytes(self.per_set)} key lives on one master, which takes every command "
            f"on it (chapter one-slow-command: with one bitmap per post the busiest of three "
            f"masters takes {hot_share():.0%} of a skewed like workload's commands, not 33%)"
        ]
        if self.per_set > self.server:
            notes.append(
                f"one set alone ({format_bytes(self.per_set)}) is more than a master holds: "
                "split it over keys (chapter sharded-bloom) or choose a smaller structure"
            )
        return notes

    def as_json(self) -> dict[str, object]:
        return {
            "sets": self.sets, "per_set": self.per_set, "shared": self.shared,
            "total": self.total, "server": self.server, "server_source": self.source,
            "fits_one_server": self.fits, "masters": self.masters,
            "cluster_masters": None if self.fits else self.masters,
        }  # fmt: skip


def server_budget(given: int | None = None, timeout: float = 1.0) -> tuple[int, str]:
    """One Redis's memory in bytes and where the figure came from (see the module's doc)."""
    if given is not None:
        return check_int("server memory", given, 1), f"a {format_bytes(given)} server (yours)"
    url = os.environ.get("REDIS_URL", "")
    if url:
        maxmemory = _maxmemory(url, timeout)
        if maxmemory:
            return maxmemory, f"REDIS_URL's maxmemory ({format_bytes(maxmemory)})"
    return DEFAULT_SERVER_BYTES, DEFAULT_SOURCE


def _maxmemory(url: str, timeout: float) -> int | None:
    """``CONFIG GET maxmemory`` of the server at ``url``; None when it does not answer in
    ``timeout`` seconds, refuses (an ACL user without CONFIG) or sets none (0)."""
    import redis

    from setlab.core.secrets import check_url

    try:
        check_url(url)  # a password that would name another server: no figure from it
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            value = int(client.config_get("maxmemory").get("maxmemory", 0))
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError):
        return None
    return value or None


#: The most sets a calculator's "sets" control reaches (10^7: ten million posts, days, users).
MAX_WIDGET_SETS = 10**7


def widget_parts(per_set: str, model: Callable[[Mapping[str, float]], float]) -> tuple[Any, list]:
    """A calculator widget's "how many sets" control and its two readouts: the total for that
    many keys of ``per_set`` bytes (a Vega expression over the widget's other parameters;
    ``model`` computes the same in Python), and the 16 GiB Redis servers the total needs
    (:data:`DEFAULT_SERVER_BYTES`, one when it fits) — what ``setlab calc … --sets N`` prints
    as ``total`` and ``masters``."""
    from setlab.core.quantities import parse_count
    from setlab.render.widgets import Control, Readout

    # --sets as the CLI parses it: 0 refused with its words, past the page's span the page's
    sets = Control("sets", "sets (keys) of this size", 1, 1, MAX_WIDGET_SETS, log=True,
                   integer=True, check=lambda v: parse_count(str(v), "sets"),
                   cli=(1, 2**62))  # fmt: skip

    def at(s: Mapping[str, float], field: str) -> float:  # no "sets": its default
        one = model(s)
        if not math.isfinite(one):  # no such set (more IDs than their range): no total
            return math.nan
        return getattr(Scale(round(one), round(s.get("sets", sets.value))), field)

    total = Readout("total", "for all the sets", f"({per_set}) * sets",
                    lambda s: at(s, "total"), kind="bytes")  # fmt: skip
    masters = Readout(
        "masters", "16 GiB servers for them",
        f"max(1, ceil(({per_set}) * sets / {DEFAULT_SERVER_BYTES}))",
        lambda s: at(s, "masters"), kind="int",
    )  # fmt: skip
    return sets, [total, masters]
