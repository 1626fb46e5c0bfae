"""What SETs and bitmaps cost on a real Redis: the experiments, and their stored reference run.

Each experiment builds keys through a :class:`~setlab.lab.backend.Lab`, asks the server
(``MEMORY USAGE key SAMPLES 0``, ``OBJECT ENCODING``, ``INFO memory``) and returns typed rows
that carry the model's figures (:mod:`setlab.models.redis_memory`) beside the server's. The
same functions write the reference file (``reference/measure_redis_memory.py`` →
``redis-memory.json``) and run live in the chapter "What a Redis SET really costs";
:class:`SetMemoryReference` reads the stored run back as the same rows.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import numpy as np
import redis
from redis.exceptions import RedisError

from setlab.core.validate import check_int
from setlab.lab import guard, reference
from setlab.lab.backend import Lab
from setlab.models import hashed_offsets
from setlab.models.allocator import DEFAULT_ALLOCATOR, QUANTUM
from setlab.models.redis_memory import (
    GROWTH_KINDS,
    KeyCost,
    bitmap_cost,
    dict_buckets,
    growth_members,
    growth_summary,
    set_cost,
)

# -- building keys ------------------------------------------------------------------------------


def sadd_all(lab: Lab, key: str, members: Iterable[str | bytes | int], batch: int = 1000) -> int:
    """``SADD`` members in pipelined batches; returns how many were new."""
    return sadd_members(lab.r, key, members, batch)


def sadd_members(
    r: redis.Redis, key: str, members: Iterable[str | bytes | int], batch: int = 1000
) -> int:
    """:func:`sadd_all` on a bare client (a server of another release, started by a script)."""
    batch = check_int("batch", batch, 1)
    pipe = r.pipeline(transaction=False)
    chunk: list[str | bytes | int] = []
    for member in members:
        chunk.append(member)
        if len(chunk) >= batch:
            pipe.sadd(key, *chunk)
            chunk = []
    if chunk:
        pipe.sadd(key, *chunk)
    return int(sum(pipe.execute()))


SCRIPT_STEPS = 100_000
"""The most Redis commands one of the book's ``EVAL`` calls runs (a chunk of :func:`settle_set`'s
lookups, of :func:`setbit_all`'s bits). 100,000 ``SISMEMBER`` take about 70 ms of the server's
time on a quiet machine and up to 210 ms beside a busy test suite (CI, 2026-12): a fifth of a
classroom's ``busy-reply-threshold`` (1,000 ms), so no participant's script stalls the others."""

_SETTLE_SCRIPT = """
for i = 1, tonumber(ARGV[1]) do redis.call('SISMEMBER', KEYS[1], '') end
return 1
"""


def settle_set(lab: Lab, key: str, chunk: int = SCRIPT_STEPS) -> int:
    """Finish any incremental rehash of a hashtable set; returns the lookups it made.

    Every lookup moves at least one bucket of the old table (``_dictRehashStep`` in
    ``dictFind``), and a set grown by ``SADD`` rehashes from a table half the current size, so
    that many ``SISMEMBER`` calls always finish the job. They run server-side in a Lua loop,
    ``chunk`` per ``EVAL`` (at most :data:`SCRIPT_STEPS`).
    """
    return settle(lab.r, key, chunk)


def settle(r: redis.Redis, key: str, chunk: int = SCRIPT_STEPS) -> int:
    """:func:`settle_set` on a bare client. Enough on every release measured: Valkey 8.1's
    hashtable also moves a bucket (of up to seven entries) per lookup while it rehashes
    (``rehashStepOnReadIfNeeded`` in ``src/hashtable.c``), so its fewer buckets need fewer."""
    chunk = check_int("chunk", chunk, 1, SCRIPT_STEPS)
    size = int(r.scard(key))
    if not size:
        return 0
    lookups = dict_buckets(size) // 2
    for done in range(0, lookups, chunk):
        r.eval(_SETTLE_SCRIPT, 1, key, min(chunk, lookups - done))
    return lookups


_SETBIT_SCRIPT = """
for i = 1, #ARGV do redis.call('SETBIT', KEYS[1], ARGV[i], 1) end
return #ARGV
"""


def setbit_all(lab: Lab, key: str, offsets: Iterable[int], chunk: int = 10_000) -> None:
    """``SETBIT key offset 1`` for every offset, in order, run server-side ``chunk`` per ``EVAL``.

    The same commands in the same order as a client loop (so the string grows the same way),
    without a network round trip or client-side command packing per bit.
    """
    chunk = check_int("chunk", chunk, 1, SCRIPT_STEPS)
    batch: list[int] = []
    for offset in offsets:
        batch.append(int(offset))
        if len(batch) >= chunk:
            lab.r.eval(_SETBIT_SCRIPT, 1, key, *batch)
            batch = []
    if batch:
        lab.r.eval(_SETBIT_SCRIPT, 1, key, *batch)


# -- asking the server ------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """What a real server says about one key (``None`` where the backend cannot say)."""

    memory_usage: int | None  #: MEMORY USAGE key SAMPLES 0, bytes
    encoding: str | None  #: OBJECT ENCODING
    size: int  #: SCARD for a set, STRLEN for a string


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def measure(lab: Lab, key: str) -> Measured:
    """``MEMORY USAGE key SAMPLES 0``, ``OBJECT ENCODING`` and the size of a key."""
    r = lab.r
    kind = _text(r.type(key))
    size = int(r.scard(key)) if kind == "set" else int(r.strlen(key))
    if not lab.is_real:
        return Measured(None, None, size)
    return Measured(int(r.memory_usage(key, samples=0)), _text(r.object("encoding", key)), size)


def jemalloc_build(r: Any) -> str | None:
    """Which jemalloc build a server's allocator is (:mod:`setlab.models.allocator`), from the
    "Quantum size" line of ``MEMORY MALLOC-STATS``: 16 → ``"debian"``, 8 → ``"bundled"``.

    ``r`` is a redis-py client. ``None`` when the server does not say (another allocator, an ACL
    that denies MEMORY, the embedded fakeredis).
    """
    try:
        stats = _text(r.execute_command("MEMORY", "MALLOC-STATS"))
    except RedisError:  # an unknown command, an ACL, another allocator: cannot tell
        return None
    for line in stats.splitlines():
        if line.strip().lower().startswith("quantum size:"):
            quantum = int(line.split(":", 1)[1])
            return {q: name for name, q in QUANTUM.items()}.get(quantum)
    return None


def lab_allocator(lab: Lab) -> str:
    """The jemalloc build to model ``lab``'s server with: what :func:`jemalloc_build` reads from
    a real server, else the default (Debian's, what the reference runs measured)."""
    return (jemalloc_build(lab.r) if lab.is_real else None) or DEFAULT_ALLOCATOR


def intset_switch_point(lab: Lab, key: str, max_intset_entries: int) -> int | None:
    """Grow a set of integers 0, 1, 2, … and return the size at which it becomes a hashtable.

    Sets ``set-max-intset-entries`` for the experiment and restores it after. Needs a real
    server the lab started (it changes the server's config); returns ``None`` otherwise.
    """
    limit = check_int("max_intset_entries", max_intset_entries, 0, 1_000_000)
    if not (lab.is_real and lab.owns_server):
        return None
    r = lab.r
    old = r.config_get("set-max-intset-entries")["set-max-intset-entries"]
    try:
        r.config_set("set-max-intset-entries", limit)
        r.unlink(key)
        sadd_all(lab, key, range(limit))
        before = _text(r.object("encoding", key)) if limit else "intset"
        r.sadd(key, limit)
        after = _text(r.object("encoding", key))
        r.unlink(key)
    finally:
        r.config_set("set-max-intset-entries", old)
    return limit + 1 if (before, after) == ("intset", "hashtable") else None


def switch_points(lab: Lab, limits: Sequence[int]) -> dict[int, int | None]:
    """:func:`intset_switch_point` for each ``set-max-intset-entries`` value in ``limits``."""
    return {m: intset_switch_point(lab, lab.key("switch"), m) for m in limits}


# -- bytes per member as a set grows -------------------------------------------------------------


@dataclass(frozen=True)
class GrowthRow:
    """One set of one member kind at one size: the server's figures beside the model's."""

    kind: str  #: one of :data:`setlab.models.redis_memory.GROWTH_KINDS`
    n: int  #: members
    key: str
    encoding: str | None  #: OBJECT ENCODING (None on the embedded backend)
    memory_usage: int | None  #: MEMORY USAGE key SAMPLES 0, settled (None: not measured)
    model: int  #: the model's MEMORY USAGE
    model_encoding: str


def measure_growth(lab: Lab, kind: str, sizes: Sequence[int]) -> list[GrowthRow]:
    """Grow one set of ``kind`` through ``sizes`` (ascending) and measure it at each size,
    after :func:`settle_set`."""
    key = lab.key("growth", kind.replace(" ", "-"))
    lab.r.unlink(key)
    rows, done = [], 0
    for n in sorted(set(sizes)):
        sadd_all(lab, key, growth_members(kind, done, n))
        done = n
        settle_set(lab, key)
        measured = measure(lab, key)
        model = set_cost(growth_summary(kind, n), key)
        rows.append(
            GrowthRow(
                kind=kind,
                n=n,
                key=key,
                encoding=measured.encoding,
                memory_usage=measured.memory_usage,
                model=model.memory_usage,
                model_encoding=model.encoding,
            )
        )
    lab.r.unlink(key)
    return rows


def measure_all_growth(
    lab: Lab, sizes: Sequence[int], kinds: Sequence[str] = GROWTH_KINDS
) -> list[GrowthRow]:
    """:func:`measure_growth` of every member kind in ``kinds``, one after the other."""
    return [row for kind in kinds for row in measure_growth(lab, kind, sizes)]


# -- one big set, and what DEL gives back ---------------------------------------------------------


@dataclass(frozen=True)
class BigSetRow:
    """One big set: build time, ``MEMORY USAGE`` two ways, ``used_memory`` freed by ``DEL``."""

    kind: str
    n: int
    key: str
    build_s: float  #: seconds to SADD every member (pipelined)
    model_usage: int  #: the model's MEMORY USAGE
    model_allocated: int  #: the model's allocated bytes
    memory_usage: int | None  #: MEMORY USAGE key SAMPLES 0
    default_samples: int | None  #: MEMORY USAGE key (five samples)
    freed: int | None  #: how far used_memory (less clients' buffers) fell on DEL


#: INFO memory, DEL, INFO memory, with nothing in between (see :func:`measure_big_set`)
_DEL_BETWEEN_INFO = """
local before = redis.call('INFO', 'memory')
redis.call('DEL', KEYS[1])
return {before, redis.call('INFO', 'memory')}
"""


def _info_fields(text: str | bytes) -> dict[str, str]:
    """The ``name:value`` fields of an ``INFO`` reply as text (what a script returns)."""
    if isinstance(text, bytes):
        text = text.decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def data_memory(memory: Mapping[str, Any]) -> int:
    """``used_memory`` without the clients' buffers, bytes, from one ``INFO memory`` reply.

    A client's query buffer after a pipeline of 16 KiB values, or its reply buffer after a
    pipeline of answers, stays allocated until Redis's cron shrinks it (idle for 2 s), and it is
    counted in ``used_memory``: 129 KiB of a 640 KiB load in one CI run. Keys are what is
    measured, so those buffers (``mem_clients_normal``) are taken out."""
    return int(memory["used_memory"]) - int(memory.get("mem_clients_normal", 0))


def big_set_budget(lab: Lab, kind: str, count: int) -> int:
    """What :func:`measure_big_set` asks the guard for (bytes): the set priced by the allocator
    model (:func:`setlab.lab.guard.budget`), its key's parts included."""
    key = lab.key("big", kind.replace(" ", "-"))
    return guard.budget(cost=set_cost(growth_summary(kind, count), key))


def measure_big_set(lab: Lab, kind: str, count: int) -> BigSetRow:
    """Build one set of ``count`` members of ``kind``, measure it, then free it with ``DEL``.

    ``DEL`` frees at once (``UNLINK`` would free in a background thread), so the fall of
    ``used_memory`` is what the set really held, less what clients' buffers hold
    (``mem_clients_normal``). The two readings and the ``DEL`` run in one script
    (:data:`_DEL_BETWEEN_INFO`): Redis's cron (ten times a second) shrinks idle clients'
    buffers and the keyspace's tables on its own clock, and on a busy machine it fell between
    separate readings (37,632 bytes too many freed of a 1.86 MB set). In a ``MULTI`` the first
    reading's reply could itself overflow a client buffer the cron had shrunk, and the 16 KiB
    reply block it allocated fell between the readings (20,512 bytes too few freed); a script's
    replies go to its own client, which allocates nothing for them. Server figures are ``None``
    on the embedded backend.
    """
    count = check_int("count", count, 1)
    key = lab.key("big", kind.replace(" ", "-"))
    cost = set_cost(growth_summary(kind, count), key)
    lab.check_allocation(guard.budget(cost=cost), f"a set of {count:,} members", scales=True)
    members = growth_members(kind, 0, count)
    lab.r.delete(key)
    try:  # deleted at once, also when the build fails
        start = time.perf_counter()
        sadd_all(lab, key, members)
        build_s = time.perf_counter() - start
        settle_set(lab, key)
        usage = samples = freed = None
        if lab.is_real:
            usage = int(lab.r.memory_usage(key, samples=0))
            samples = int(lab.r.memory_usage(key))
            held, left = (_info_fields(text) for text in lab.r.eval(_DEL_BETWEEN_INFO, 1, key))
            left = freed_lazily(lab, left)
            freed = data_memory(held) - data_memory(left)
    finally:
        lab.r.delete(key)
    return BigSetRow(
        kind, count, key, build_s, cost.memory_usage, cost.allocated, usage, samples, freed
    )


#: how long :func:`freed_lazily` waits for a background free (seconds)
LAZY_FREE_WAIT_S = 30.0


def freed_lazily(lab: Lab, after: dict[str, str]) -> dict[str, str]:
    """``INFO memory`` once a ``DEL`` that the server handed to its background thread is done.

    Valkey 8 frees big values lazily by default (``lazyfree-lazy-user-del yes``): right after
    the ``DEL`` the value is still allocated and ``lazyfree_pending_objects`` counts it, so the
    fall of ``used_memory`` would read as nothing, or less than nothing. ``after`` is the reading
    taken just after the ``DEL``; when nothing is pending it is returned as it is, otherwise
    ``INFO memory`` is read again until nothing is (a reading the cron may have touched: a few
    KiB of a set's megabytes)."""
    deadline = time.monotonic() + LAZY_FREE_WAIT_S
    while int(after.get("lazyfree_pending_objects", 0)) and time.monotonic() < deadline:
        time.sleep(0.005)
        after = {k: str(v) for k, v in lab.r.info("memory").items()}
    return after


# -- MEMORY USAGE's sampling --------------------------------------------------------------------

#: Half the members 2–5 bytes long, half over 200: five samples cannot represent them.
MIXED_MEMBERS = tuple([f"s{i}" for i in range(5000)] + ["L" * 200 + str(i) for i in range(5000)])


@dataclass(frozen=True)
class Sampling:
    """``MEMORY USAGE`` of one settled set exactly (``SAMPLES 0``) and by default (5 samples)."""

    members: int
    exact: int
    default_samples: int
    model: int


def measure_sampling(lab: Lab, members: Sequence[str] = MIXED_MEMBERS) -> Sampling:
    """Build a settled set of ``members`` and read ``MEMORY USAGE`` with and without sampling."""
    key = lab.key("sampling")
    lab.r.unlink(key)
    sadd_all(lab, key, members)
    settle_set(lab, key)
    exact, default = int(lab.r.memory_usage(key, samples=0)), int(lab.r.memory_usage(key))
    lab.r.unlink(key)
    return Sampling(len(members), exact, default, set_cost(members, key).memory_usage)


# -- seed 004's Set-versus-Bitmap experiment ----------------------------------------------------


@dataclass(frozen=True)
class Seed004Key:
    """One key of seed 004's Set-versus-Bitmap experiment (§2)."""

    name: str  #: the seed's key name
    description: str
    kind: Literal["set", "bitmap"]
    items: list  #: members (set) or offsets in write order (bitmap)

    def model(self, key: str | bytes) -> KeyCost:
        """What the key costs according to the model (Redis 7.0.15, jemalloc 5.3)."""
        return set_cost(self.items, key) if self.kind == "set" else bitmap_cost(self.items, key)


def seed_004_keys(count: int = 100_000, seed: int = 4) -> list[Seed004Key]:
    """The six keys of seed 004 §2, built from ``count`` seeded random UUIDs.

    Hashes as in the seed's Java: ``Murmur3.hash_x86_32`` of the UUID string as an unsigned
    offset, and ``|Murmur3.hash_x64_128[0]| % 100000``
    (:func:`setlab.models.hashed_offsets.seed_004_offsets`).
    """
    count = check_int("count", count, 1)
    uuids = hashed_offsets.uuid4_strings(np.random.default_rng(seed), count)
    hashed, sized = hashed_offsets.seed_004_offsets(uuids)
    last = f"{count - 1:,}"
    return [
        Seed004Key("set10w_uuid", f"SET of {count:,} UUID strings", "set", uuids),
        Seed004Key("set10w_incr", f"SET of the integers 0…{last}", "set", list(range(count))),
        Seed004Key("bitMap10w_hash", "bitmap, offset = murmur3 x86_32 of the UUID", "bitmap",
                   [int(x) for x in hashed]),
        Seed004Key("bitMap10w_hash_size", "bitmap, offset = abs(murmur3 x64_128) mod 100,000",
                   "bitmap", [int(x) for x in sized]),
        Seed004Key("bitMap10w_incr", f"bitmap, offsets 0…{last}", "bitmap", list(range(count))),
        Seed004Key("bitMap_1_bitHash", "bitmap, one bit at offset 1,000,000,000", "bitmap",
                   [10**9]),
    ]  # fmt: skip


@dataclass(frozen=True)
class Seed004Row:
    """One of seed 004's keys as built (or skipped) on a server, with the model's figures."""

    name: str
    description: str
    kind: str  #: "set" or "bitmap"
    items: int  #: members or bits written
    key: str
    model: int  #: the model's MEMORY USAGE
    model_encoding: str
    built: bool  #: False where the lab may not allocate it (or on the embedded backend)
    memory_usage: int | None = None
    encoding: str | None = None
    size: int | None = None  #: SCARD or STRLEN
    count: int | None = None  #: SCARD or BITCOUNT, the seed's first query
    query_ms: float | None = None  #: median round trip of the seed's two queries, ms


def run_seed_004(lab: Lab, specs: Sequence[Seed004Key], repeat: int = 3) -> list[Seed004Row]:
    """Build seed 004's keys on the lab's server, measure them, time the seed's two queries.

    A bitmap the lab may not allocate (:meth:`Lab.may_allocate`), and any bitmap on the embedded
    backend (where a 512 MiB string would be a Python object measuring nothing), is skipped and
    reported with ``built=False``. Query time is the median client round trip of the seed's pair
    of commands (``SCARD`` + ``SISMEMBER``, or ``BITCOUNT`` + ``GETBIT``), in milliseconds.
    """
    rows = []
    for spec in specs:
        key = lab.key("seed004", spec.name)
        model = spec.model(key)
        row = Seed004Row(spec.name, spec.description, spec.kind, len(spec.items), key,
                         model.memory_usage, model.encoding, False)  # fmt: skip
        lab.r.unlink(key)
        if spec.kind == "bitmap":
            budget = guard.budget(setbits=spec.items, key_bytes=len(key))
            if not (lab.is_real and lab.may_allocate(budget)):
                rows.append(row)
                continue
            setbit_all(lab, key, spec.items)
            query = [("bitcount", (key,)), ("getbit", (key, 1000))]
        else:
            sadd_all(lab, key, spec.items)
            settle_set(lab, key)
            query = [("scard", (key,)), ("sismember", (key, "xxxxx"))]
        measured = measure(lab, key)
        times, answer = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            answer = [getattr(lab.r, name)(*args) for name, args in query]
            times.append((time.perf_counter() - start) * 1e3)
        rows.append(
            dataclasses.replace(
                row,
                built=True,
                memory_usage=measured.memory_usage,
                encoding=measured.encoding,
                size=measured.size,
                count=int(answer[0]),
                query_ms=statistics.median(times),
            )
        )
        lab.r.unlink(key)
    return rows


# -- the stored reference run -------------------------------------------------------------------


@dataclass(frozen=True)
class SwitchRow:
    """At which member a set of integers 0, 1, … became a hashtable, for one limit."""

    max_intset_entries: int
    switch_at: int | None


def _rows(cls: type, raw: Iterable[Mapping[str, Any]]) -> tuple:
    return tuple(cls(**dict(r)) for r in raw)


@dataclass(frozen=True)
class SetMemoryReference:
    """``redis-memory.json``: every SET experiment above, run once on a real Redis."""

    run: reference.RunInfo
    seed_004: tuple[Seed004Row, ...]
    growth: tuple[GrowthRow, ...]
    switch: tuple[SwitchRow, ...]
    sampling: Sampling
    big_sets: tuple[BigSetRow, ...]

    NAME = "redis-memory"

    @classmethod
    @cache
    def load(cls) -> SetMemoryReference:
        """The stored run (read once)."""
        doc = reference.load(cls.NAME)
        data = doc.data
        return cls(
            doc.run,
            _rows(Seed004Row, data["rows"]),
            _rows(GrowthRow, data["growth"]),
            _rows(SwitchRow, data["switch"]),
            Sampling(**data["sampling"]),
            _rows(BigSetRow, data["allocated"]),
        )

    def seed_004_row(self, name: str) -> Seed004Row:
        """The row of seed 004's key ``name`` (``"bitMap10w_hash"``, …)."""
        for row in self.seed_004:
            if row.name == name:
                return row
        raise ValueError(f"name must be one of {[r.name for r in self.seed_004]}; got {name!r}")

    def switch_points(self, limits: Sequence[int]) -> dict[int, int | None]:
        """The stored switch point of each limit in ``limits`` that was measured."""
        stored = {r.max_intset_entries: r.switch_at for r in self.switch}
        missing = [m for m in limits if m not in stored]
        if missing:
            raise ValueError(f"limits {missing} were not measured; measured: {sorted(stored)}")
        return {m: stored[m] for m in limits}

    def big_set(self, kind: str) -> BigSetRow:
        """The stored big set of member ``kind``."""
        for row in self.big_sets:
            if row.kind == kind:
                return row
        raise ValueError(f"kind must be one of {[r.kind for r in self.big_sets]}; got {kind!r}")
