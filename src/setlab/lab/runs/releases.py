"""The same cases on every release this machine has: one measurement, one plain row.

setlab's models were made exact against one server (Debian's Redis 7.0.15 with its jemalloc);
:mod:`setlab.lab.servers` also brings Redis 6.2 and 8.2 (their bundled jemalloc) and Valkey 8.1
(glibc malloc). Each function here takes a redis-py client of a private server that a script
started (:meth:`setlab.lab.server.RedisServer.start`, never a reader's server: several of them
change its configuration or allocate 640 MiB), measures one case and returns a plain ``dict``,
which ``reference/measure_releases.py`` labels with the server (:func:`identity`) and stores in
``releases-reference.json``; :mod:`setlab.lab.releases_reference` reads it back.

What "allocated" means throughout: how far ``used_memory`` (less the clients' buffers,
:func:`setlab.lab.runs.memory.data_memory`) falls when ``DEL`` frees the key at once, read in one
transaction around the ``DEL`` (:func:`allocated`) — the bytes the key held, a set's once it had
finished rehashing (:func:`setlab.lab.runs.memory.settle`): what its ``used_memory`` growth was.
Valkey 8 frees big keys in a background thread by default (``lazyfree-lazy-user-del yes``), so
while a key's bytes are read, that setting is ``no`` (:func:`reading_memory`); :func:`del_row`
times ``DEL`` as the server is configured. On glibc (Valkey 8.1) a chunk's usable size depends
on the heap's history: the same set built twice differed by up to 1% there, to the byte
nowhere else.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import redis

from setlab.core.validate import check_int
from setlab.lab.runs.memory import data_memory, sadd_members, settle
from setlab.lab.runs.redisbloom import reply_dict
from setlab.lab.servers import ServerRelease
from setlab.models.hyperloglog import reader_ids, stored_encoding
from setlab.models.redis_memory import GROWTH_KINDS, growth_members

#: every key this module writes starts with it (the server is private: nothing else is there)
PREFIX = "setlab:releases:"
#: the key of every case: one name, so every release's MEMORY USAGE counts the same key bytes
KEY = PREFIX + "key"
#: a key kept for the whole run, so deleting a case's key never leaves the keyspace empty
SENTINEL = PREFIX + "sentinel"

#: the member kinds: :data:`setlab.models.redis_memory.GROWTH_KINDS` and eight random letters
RANDOM_STRINGS = "8-byte strings"
SET_KINDS: tuple[str, ...] = (*GROWTH_KINDS, RANDOM_STRINGS)
#: set sizes: both sides of 7.2's listpack limit (128) and of the intset limit (512), then decades
SET_SIZES: tuple[int, ...] = (100, 128, 129, 512, 513, 10_000, 100_000, 1_000_000)
#: only these kinds are measured at a million members (the others stop at 100,000)
MILLION_KINDS: tuple[str, ...] = ("integer ids", "16-hex device ids")
#: a bit at 2^20 (a 128 KiB string) and at the last offset SETBIT takes (a 512 MiB string)
BITMAP_OFFSETS: tuple[int, ...] = (2**20, 2**32 - 1)
#: HyperLogLogs: sparse ones (300-1,500 readers) and one past the sparse limit (dense)
HLL_SIZES: tuple[int, ...] = (300, 1_000, 1_500, 20_000)
#: the set whose DEL is timed (integer IDs, as the chapter "One slow command" builds it)
DEL_MEMBERS = 1_000_000
#: how many times that DEL is timed (the median is kept: the machine is shared)
DEL_REPEAT = 3
#: BF.RESERVE's capacity and error rate (RedisBloom's default filter, at a million items)
BLOOM_CAPACITY, BLOOM_ERROR = 1_000_000, 0.01
#: the hash seed: a set of this many 16-hex IDs, measured on this many fresh starts
SEED_MEMBERS, SEED_STARTS = 129, 4
#: the reply buffer, bytes, that holds a transaction's replies of :func:`allocated` (about 4 KB)
REPLY_ROOM = 16_384
#: the letters of :data:`RANDOM_STRINGS` (no digits: none may read as an integer) and its seed
_LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
_STRINGS_SEED = 8


def set_cases() -> list[tuple[str, int]]:
    """Every (member kind, size) measured, in the order a run measures them."""
    return [
        (kind, n) for kind in SET_KINDS for n in SET_SIZES if n < 1_000_000 or kind in MILLION_KINDS
    ]


def random_strings(count: int, length: int = 8, seed: int = _STRINGS_SEED) -> list[str]:
    """``count`` distinct strings of ``length`` random lowercase letters, the same every run
    (``numpy.random.default_rng(seed)``; a repeat is drawn again)."""
    count = check_int("count", count, 0)
    length = check_int("length", length, 1, 64)
    rng = np.random.default_rng(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        letters = _LETTERS[rng.integers(0, len(_LETTERS), size=(count - len(seen), length))]
        seen.update(dict.fromkeys(row.tobytes().decode() for row in letters))
    return list(seen)


def members(kind: str, count: int) -> list[str | int]:
    """The first ``count`` members of ``kind`` (one of :data:`SET_KINDS`)."""
    if kind == RANDOM_STRINGS:
        return list(random_strings(count))
    return growth_members(kind, 0, count)


# -- the server ---------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def identity(r: redis.Redis, release: ServerRelease) -> dict[str, str]:
    """What labels every row of one server: its release name (``"8.2"``), flavour, the version
    it reports (Valkey's own ``valkey_version``, not the ``redis_version`` it also reports), the
    allocator build the models name (``"debian"``, ``"bundled"``, ``"libc"``) and
    ``mem_allocator`` as ``INFO`` says it (``"jemalloc-5.3.0"``, ``"libc"``)."""
    info = r.info("server")
    version = _text(info.get("valkey_version") or info["redis_version"])
    if version != release.version:
        raise ValueError(f"{release.label} expected, but the server reports {version}")
    return {
        "server": release.name,
        "flavour": release.flavour,
        "version": version,
        "allocator": release.allocator,
        "mem_allocator": _text(r.info("memory")["mem_allocator"]),
    }


def modules(r: redis.Redis) -> dict[str, int]:
    """The modules loaded, name → version (``MODULE LIST``)."""
    return {
        _text(m["name"]): int(m["ver"])
        for m in (reply_dict(entry) for entry in r.execute_command("MODULE", "LIST"))
    }


#: what :func:`reading_memory` sets while a key's bytes are read, and why
READING_CONFIG = {
    # DEL frees the key before it replies (Valkey 8 defaults to "yes": a background thread)
    "lazyfree-lazy-user-del": "no",
    # a DEL slower than 10 ms would add a slow-log entry (232 B on 7.0) between the readings
    "slowlog-log-slower-than": "-1",
}


@contextlib.contextmanager
def reading_memory(r: redis.Redis) -> Iterator[None]:
    """:data:`READING_CONFIG` for the block, then the server's settings as they were."""
    old = {name: r.config_get(name)[name] for name in READING_CONFIG}
    for name, value in READING_CONFIG.items():
        r.config_set(name, value)
    try:
        yield
    finally:
        for name, value in old.items():
            r.config_set(name, value)


def prepare(r: redis.Redis) -> None:
    """Ready a fresh server: the :data:`SENTINEL` key, and :func:`settle`'s script cached (its
    first ``EVAL`` adds the script to the server's memory, not to any key's)."""
    r.set(SENTINEL, "x")
    r.delete(KEY)
    r.sadd(KEY, "a", "b")
    settle(r, KEY)
    r.delete(KEY)


def _reply_room(client: dict[str, Any]) -> int:
    """``rbs`` of a ``CLIENT INFO`` reply: the connection's reply buffer, bytes (6.2 says
    nothing: its buffer is a fixed 16 KiB array)."""
    return int(client.get("rbs", REPLY_ROOM))


def make_reply_room(r: redis.Redis, attempts: int = 12) -> None:
    """Grow this connection's reply buffer to :data:`REPLY_ROOM` bytes: fill it (``ECHO``) and
    give the server's cron, ten times a second, the time to double it, until ``CLIENT INFO``
    says so. The cron shrinks it to 1 KiB after five seconds of small replies."""
    for _ in range(check_int("attempts", attempts, 1)):
        if _reply_room(r.client_info()) >= REPLY_ROOM:
            return
        r.echo("x" * REPLY_ROOM)
        time.sleep(0.12)
    raise RuntimeError(f"the reply buffer stayed under {REPLY_ROOM} bytes")


def allocated(r: redis.Redis, key: str = KEY) -> int:
    """The bytes ``key`` held, from ``INFO memory``, ``DEL key``, ``INFO memory`` in one
    ``MULTI`` (see the module docstring); the key is gone afterwards.

    Not in a script (as :func:`setlab.lab.runs.memory.measure_big_set` reads 7.0): on Redis 8.2
    the Lua heap is counted in ``used_memory``, and each ``redis.call`` reply grew it by 1.8-2.0
    KB between the two readings (a 48-byte key "freed" -1,856 B). In a transaction the replies
    go to this connection's reply buffer; one overflowing it would allocate a block between the
    readings, so the buffer is grown first (:func:`make_reply_room`) and the transaction's own
    ``CLIENT INFO`` must confirm it. On 7.0 this gives the model's allocated bytes to the byte
    (:func:`setlab.models.redis_memory.set_cost`, sets of 513 to 200,000 device IDs).
    """
    with reading_memory(r):
        make_reply_room(r)
        pipe = r.pipeline(transaction=True)
        pipe.client_info().info("memory").delete(key).info("memory")
        client, held, _, left = pipe.execute()
    if _reply_room(client) < REPLY_ROOM:
        raise RuntimeError(f"the transaction ran on a reply buffer of {client.get('rbs')} bytes")
    return data_memory(held) - data_memory(left)


def _usage(r: redis.Redis, key: str) -> int:
    return int(r.memory_usage(key, samples=0))


# -- the cases ----------------------------------------------------------------------------------


def set_row(r: redis.Redis, kind: str, count: int) -> dict[str, Any]:
    """A SET of the first ``count`` members of ``kind``, settled: ``OBJECT ENCODING``,
    ``MEMORY USAGE key SAMPLES 0`` and the bytes it holds."""
    count = check_int("count", count, 1)
    r.delete(KEY)
    sadd_members(r, KEY, members(kind, count))
    settle(r, KEY)
    row = {
        "case": "set",
        "kind": kind,
        "n": int(r.scard(KEY)),
        "encoding": _text(r.object("encoding", KEY)),
        "memory_usage": _usage(r, KEY),
    }
    return {**row, "allocated": allocated(r)}


def key_row(r: redis.Redis) -> dict[str, Any]:
    """A small string key (``SET key x``): what one key costs beside its value."""
    r.set(KEY, "x")
    row = {"case": "key", "value": "x", "encoding": _text(r.object("encoding", KEY))}
    return {**row, "memory_usage": _usage(r, KEY), "allocated": allocated(r)}


def bitmap_row(r: redis.Redis, offset: int) -> dict[str, Any]:
    """One bit set at ``offset`` (``SETBIT``; 512 MiB of string at 2^32 - 1), then freed."""
    offset = check_int("offset", offset, 0, 2**32 - 1)
    r.delete(KEY)
    r.setbit(KEY, offset, 1)
    row = {"case": "bitmap", "offset": offset, "strlen": int(r.strlen(KEY))}
    return {**row, "memory_usage": _usage(r, KEY), "allocated": allocated(r)}


def hll_row(r: redis.Redis, count: int) -> dict[str, Any]:
    """A HyperLogLog of readers ``reader:0`` … (``PFADD``): its encoding (the string's header:
    ``OBJECT ENCODING`` says only ``raw``), length, ``MEMORY USAGE`` and bytes held."""
    count = check_int("count", count, 1)
    r.delete(KEY)
    elements = reader_ids(0, count)
    for i in range(0, count, 5_000):
        r.pfadd(KEY, *elements[i : i + 5_000])
    raw = r.get(KEY)
    row = {"case": "hll", "n": count, "encoding": stored_encoding(raw), "strlen": len(raw)}
    return {**row, "memory_usage": _usage(r, KEY), "allocated": allocated(r)}


def _lazyfree(r: redis.Redis) -> tuple[int, int]:
    """``lazyfree_pending_objects`` (INFO memory) and ``lazyfreed_objects`` (INFO stats)."""
    info = r.info("all")
    return int(info.get("lazyfree_pending_objects", 0)), int(info.get("lazyfreed_objects", 0))


def _delete_once(r: redis.Redis, count: int, wait_s: float) -> dict[str, Any]:
    """Build, settle and ``DEL`` one SET of ``count`` integer IDs (see :func:`del_row`)."""
    sadd_members(r, KEY, range(count), batch=2_000)
    settle(r, KEY)
    _, lazyfreed_before = _lazyfree(r)
    r.config_resetstat()
    start = time.perf_counter()
    r.delete(KEY)
    client_s = time.perf_counter() - start
    pending, _ = _lazyfree(r)
    server_us = int(r.info("commandstats")["cmdstat_del"]["usec"])
    while (state := _lazyfree(r))[0] and time.perf_counter() - start < wait_s:
        time.sleep(0.001)
    return {
        "server_us": server_us,
        "client_us": round(client_s * 1e6),
        "pending_after": pending,
        "lazyfreed": state[1] - lazyfreed_before,
        "freed_after_ms": round((time.perf_counter() - start) * 1e3, 1),
    }


def del_row(
    r: redis.Redis, count: int = DEL_MEMBERS, repeat: int = DEL_REPEAT, wait_s: float = 30.0
) -> dict[str, Any]:
    """``DEL`` of a settled SET of ``count`` integer IDs, ``repeat`` times, as the server is
    configured: the median time inside the server (``INFO commandstats``, µs) and seen by this
    client (µs), whether the server frees such keys lazily (``lazyfree-lazy-user-del``),
    ``lazyfree_pending_objects`` right after, ``lazyfreed_objects`` counted by it, and the
    median time until nothing was pending (ms). Each run's server time is kept: the machine is
    shared, and one run can take twice another's."""
    count = check_int("count", count, 1)
    repeat = check_int("repeat", repeat, 1)
    r.delete(KEY)
    lazy = _text(r.config_get("lazyfree-lazy-user-del")["lazyfree-lazy-user-del"])
    runs = [_delete_once(r, count, wait_s) for _ in range(repeat)]
    return {
        "case": "del",
        "kind": "integer ids",
        "n": count,
        "lazyfree_lazy_user_del": lazy,
        **{
            field: statistics.median(run[field] for run in runs)
            for field in ("server_us", "client_us", "freed_after_ms")
        },
        "pending_after": max(run["pending_after"] for run in runs),
        "lazyfreed": max(run["lazyfreed"] for run in runs),
        "server_us_runs": [run["server_us"] for run in runs],
    }


def bloom_row(
    r: redis.Redis, capacity: int = BLOOM_CAPACITY, error_rate: float = BLOOM_ERROR
) -> dict[str, Any] | None:
    """``BF.RESERVE key error_rate capacity`` (RedisBloom): ``MEMORY USAGE``, ``BF.INFO``'s
    size and the bytes held; ``None`` where the module is not loaded."""
    loaded = modules(r)
    if "bf" not in loaded:
        return None
    r.delete(KEY)
    r.execute_command("BF.RESERVE", KEY, error_rate, capacity)
    info = reply_dict(r.execute_command("BF.INFO", KEY))
    row = {
        "case": "bloom",
        "capacity": capacity,
        "error_rate": error_rate,
        "module_version": loaded["bf"],
        "bf_info_size": int(info["Size"]),
    }
    return {**row, "memory_usage": _usage(r, KEY), "allocated": allocated(r)}


def hash_seed_row(allocations: Sequence[int]) -> dict[str, Any]:
    """The bytes a set of :data:`SEED_MEMBERS` 16-hex IDs held on each of several fresh starts
    (each start draws a new hash seed, so a new pattern of shared buckets)."""
    if not allocations:
        raise ValueError("allocations must hold one figure per start; got none")
    return {
        "case": "hash seed",
        "kind": "16-hex device ids",
        "n": SEED_MEMBERS,
        "starts": len(allocations),
        "allocations": list(allocations),
        "min": min(allocations),
        "max": max(allocations),
    }


def seeded_allocation(r: redis.Redis) -> int:
    """One start's figure for :func:`hash_seed_row`: a set of :data:`SEED_MEMBERS` 16-hex IDs,
    settled, bytes held."""
    return int(set_row(r, "16-hex device ids", SEED_MEMBERS)["allocated"])


def hashes_by_seed(version: Sequence[int]) -> bool:
    """Whether a set's bytes depend on the hash seed: from Redis 7.2 (and so Valkey, which
    reports 7.2.4) a member alone in its bucket has no ``dictEntry`` (Redis #11595), so how
    many members share buckets — the seed's doing — changes the allocation."""
    return tuple(version[:2]) >= (7, 2)
