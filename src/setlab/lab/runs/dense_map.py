"""A dense re-mapping on Redis: sparse 64-bit IDs → 0, 1, 2, …, made atomic with a Lua script.

Seed 000 §4.5 proposes a mapping table userId → local ID so that a like bitmap's offsets grow
with the number of users, not with the IDs' values. :class:`DenseMap` keeps it on Redis (a hash
and a counter) and runs "read, else take a number, else bind it" as one Lua script, so two
clients can never both take a number for the same ID. :func:`lookup_without_script` does the same
steps from the client: still correct (HSETNX), but a lost race wastes a number.
:func:`count_commands` counts the round trips each costs (:func:`commands_sent`: call by call, for
several ways of finding an offset), and :func:`measure_map_memory` what the map costs in memory
(``MEMORY USAGE``), stored from a real Redis as :class:`DenseMapReference`.

Without Redis, :func:`setlab.models.snowflake.first_seen_ranks` computes the same ints.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import redis

from setlab.core.hashing import LONG_MAX
from setlab.core.validate import check_int
from setlab.lab import reference
from setlab.lab.backend import Lab

#: The reference file :func:`measure_map_memory` rows are stored in (written by
#: reference/measure_dense_map.py).
REFERENCE_NAME = "dense-map-reference"

#: The Lua script behind :class:`DenseMap`. KEYS[1]: hash id → dense int; KEYS[2]: the counter;
#: ARGV[1]: the ID. Redis runs a script atomically, so two clients can never both miss and
#: both INCR for the same ID: the ints come out distinct and consecutive from 0.
DENSE_MAP_LUA = """
local dense = redis.call('HGET', KEYS[1], ARGV[1])
if dense then return tonumber(dense) end
dense = redis.call('INCR', KEYS[2]) - 1
redis.call('HSETNX', KEYS[1], ARGV[1], dense)
return dense
"""


class DenseMap:
    """A Redis-side map from (sparse) IDs to dense ints 0, 1, 2, ..., one per distinct ID.

    The ints are bitmap offsets that grow with the number of users, not with the ID's value.
    Two keys: ``<name>:map`` (a hash) and ``<name>:next`` (the counter). One round trip per
    lookup (EVALSHA; the first call also loads the script).
    """

    def __init__(self, client: redis.Redis, map_key: str, counter_key: str) -> None:
        self.client = client
        self.map_key = map_key
        self.counter_key = counter_key
        self._script = client.register_script(DENSE_MAP_LUA)

    @classmethod
    def for_lab(cls, lab: Lab, name: str = "dense", client: redis.Redis | None = None) -> DenseMap:
        """A map whose keys live in ``lab``'s namespace (``client``: another connection)."""
        return cls(client or lab.r, lab.key(name, "map"), lab.key(name, "next"))

    def lookup(self, snowflake: int) -> int:
        """The dense int of ``snowflake``, assigning the next free one if it has none."""
        snowflake = check_int("snowflake", snowflake, 0, LONG_MAX)
        return int(self._script(keys=[self.map_key, self.counter_key], args=[snowflake]))

    def lookup_many(self, snowflakes: Iterable[int], batch: int = 1_000) -> list[int]:
        """:meth:`lookup` for many IDs, ``batch`` script calls per pipelined round trip."""
        batch = check_int("batch", batch, 1)
        ids = [check_int("snowflake", s, 0, LONG_MAX) for s in snowflakes]
        out: list[int] = []
        keys = [self.map_key, self.counter_key]
        for start in range(0, len(ids), batch):
            pipe = self.client.pipeline(transaction=False)
            for snowflake in ids[start : start + batch]:
                self._script(keys=keys, args=[snowflake], client=pipe)
            out.extend(int(v) for v in pipe.execute())
        return out

    def size(self) -> int:
        """How many IDs have a dense int (HLEN)."""
        return int(self.client.hlen(self.map_key))

    def issued(self) -> int:
        """How many dense ints the counter has handed out (gaps included)."""
        return int(self.client.get(self.counter_key) or 0)


def lookup_without_script(
    client: redis.Redis, map_key: str, counter_key: str, snowflake: int
) -> int:
    """The same map driven from the client: HGET, then on a miss INCR + HSETNX (+ HGET if lost).

    Still correct (HSETNX lets exactly one writer bind an ID), but a writer that loses the race
    has already taken a number from the counter, which nobody will ever use: a gap, one more
    bit of every bitmap that stays 0. A new ID costs 3 or 4 round trips instead of 1.
    """
    snowflake = check_int("snowflake", snowflake, 0, LONG_MAX)
    dense = client.hget(map_key, snowflake)
    if dense is not None:
        return int(dense)
    mine = int(client.incr(counter_key)) - 1
    if client.hsetnx(map_key, snowflake, mine):
        return mine
    return int(client.hget(map_key, snowflake))


@contextlib.contextmanager
def count_commands(client: redis.Redis) -> Iterator[Counter]:
    """Count the commands ``client`` sends (one round trip each, outside pipelines) by name.

    >>> with count_commands(lab.r) as sent:
    ...     lab.r.ping()
    >>> sent  # Counter({'PING': 1})
    """
    sent: Counter = Counter()
    shadowed = vars(client).get("execute_command")
    original = client.execute_command

    def counting(*args: Any, **options: Any) -> Any:
        sent[str(args[0]).upper()] += 1
        return original(*args, **options)

    client.execute_command = counting
    try:
        yield sent
    finally:
        if shadowed is None:
            del client.execute_command
        else:
            client.execute_command = shadowed


def commands_sent(
    client: redis.Redis,
    lookups: Mapping[str, Callable[[int], object]],
    snowflake: int,
    calls: int = 2,
) -> dict[str, list[Counter]]:
    """The commands (by name, :func:`count_commands`) that each of ``lookups`` sends through
    ``client`` for ``snowflake``, call by call: ``calls`` calls of each, so for an ID no lookup
    has seen the first call is a new user's and the next ones the same user's again. A lookup
    that computes its offset in the client sends none (an empty ``Counter``)."""
    calls = check_int("calls", calls, 1)
    sent: dict[str, list[Counter]] = {}
    for name, lookup in lookups.items():
        sent[name] = []
        for _ in range(calls):
            with count_commands(client) as counted:
                lookup(snowflake)
            sent[name].append(counted)
    return sent


# -- what the map costs in memory ---------------------------------------------------------------


@dataclass(frozen=True)
class MapMemory:
    """``MEMORY USAGE`` (SAMPLES 0: every field counted) of a :class:`DenseMap`'s hash."""

    users: int  #: IDs mapped (fields of the hash)
    bytes: int  #: MEMORY USAGE of the hash
    encoding: str  #: OBJECT ENCODING of the hash ("listpack" while small, then "hashtable")

    @property
    def per_user(self) -> float:
        """Bytes per mapped ID."""
        return self.bytes / self.users


def measure_map_memory(lab: Lab, ids: Iterable[int], name: str = "dense-memory") -> MapMemory:
    """Map ``ids`` with a fresh :class:`DenseMap` on ``lab`` and read what its hash costs.

    Needs a real Redis (``MEMORY USAGE``); the map's keys are deleted afterwards.
    """
    dense = DenseMap.for_lab(lab, name)
    lab.r.delete(dense.map_key, dense.counter_key)
    try:
        dense.lookup_many(ids)
        size = dense.size()
        if size == 0:
            raise ValueError("ids must contain at least one ID")
        used = int(lab.r.memory_usage(dense.map_key, samples=0))
        encoding = lab.r.object("encoding", dense.map_key)
        encoding = encoding.decode() if isinstance(encoding, bytes) else str(encoding)
        return MapMemory(size, used, encoding)
    finally:
        lab.r.delete(dense.map_key, dense.counter_key)


@dataclass(frozen=True)
class DenseMapReference:
    """The stored run of :func:`measure_map_memory` (``dense-map-reference.json``): the memory
    of the chapter's map at a few user counts, from a real Redis."""

    run: reference.RunInfo
    rows: tuple[MapMemory, ...]

    @classmethod
    def load(cls) -> DenseMapReference:
        document = reference.load(REFERENCE_NAME)
        rows = tuple(
            MapMemory(int(r["users"]), int(r["bytes"]), str(r["encoding"]))
            for r in document.data["rows"]
        )
        return cls(document.run, rows)

    def at(self, users: int) -> MapMemory:
        """The row for ``users`` mapped IDs."""
        for row in self.rows:
            if row.users == users:
                return row
        known = ", ".join(f"{r.users:,}" for r in self.rows)
        raise KeyError(f"no reference row for {users:,} users (stored: {known})")
