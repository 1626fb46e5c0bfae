"""A serialized Roaring bitmap kept in Redis: seed 000 §6's shared bitmap and seed 003's window.

Redis has no Roaring type, so seed 000 §6 (method B) stores the portable serialization
(:mod:`setlab.models.roaring` models its bytes) in a string and updates it from the client:
``GET``, deserialize, add, serialize, ``SET``. Two clients that both ``GET`` before either
``SET``\\ s lose one update. The experiments here show that on a Redis (real, or the embedded
fakeredis), measure the optimistic fix (``WATCH``/``MULTI``/``EXEC`` with retries), time one
update against the bitmap's size, ask the server for RedisBloom's non-existent ``RB.SETBIT``,
and time seed 003's seven-day union three ways.

``reference/measure_redis_memory.py --only roaring`` stores them in
``setlab/data/roaring-reference.json``; :class:`RoaringReference` reads that file as typed
records, which the chapter ``roaring-containers`` shows on the embedded backend (through
:func:`setlab.lab.reference.live_or_reference`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import redis
from pyroaring import BitMap

from setlab.core.validate import check_int
from setlab.lab import guard, reference
from setlab.lab.backend import Lab
from setlab.models.roaring import random_ids, redis_bitmap_bytes

#: The stored reference run's name (``setlab/data/roaring-reference.json``).
REFERENCE = "roaring-reference"

#: The two ways :func:`contend` updates the shared bitmap, as its rows name them.
METHODS = ("read-modify-write", "WATCH/MULTI")


# -- seed 000 §6: a serialized Roaring bitmap in Redis, updated by its clients -------------------


def load(client: redis.Redis, key: str) -> BitMap:
    """The bitmap stored at ``key`` (an empty one if the key does not exist)."""
    data = client.get(key)
    return BitMap.deserialize(data) if data else BitMap()


def rmw_add(client: redis.Redis, key: str, value: int) -> None:
    """Seed 000's method B: GET, deserialize, add, serialize, SET — not atomic."""
    bitmap = load(client, key)
    bitmap.add(value)
    client.set(key, bitmap.serialize())


def watched_add(client: redis.Redis, key: str, value: int, max_retries: int = 10_000) -> int:
    """The same update, retried until no other client changed the key in between
    (:func:`watched_add_many` with the one value). Returns the retries."""
    return watched_add_many(client, key, (value,), max_retries)


def watched_add_many(
    client: redis.Redis, key: str, values: Iterable[int], max_retries: int = 10_000
) -> int:
    """Add ``values`` (32-bit IDs) to the bitmap at ``key`` in one read-modify-write, retried
    until no other client changed the key in between: a whole batch per round trip.

    ``WATCH key`` → GET → modify → ``MULTI``/``SET``/``EXEC``; ``EXEC`` fails with
    ``WatchError`` if the key changed after ``WATCH`` (Redis's optimistic locking,
    https://redis.io/docs/latest/develop/interact/transactions/), and the whole
    read-modify-write starts again. Returns the retries; raises ``RuntimeError`` after
    ``max_retries``.
    """
    with client.pipeline() as pipe:
        for retries in range(max_retries + 1):
            try:
                pipe.watch(key)
                bitmap = load(pipe, key)
                bitmap.update(values)
                pipe.multi()
                pipe.set(key, bitmap.serialize())
                pipe.execute()
                return retries
            except redis.WatchError:
                continue
    raise RuntimeError(f"gave up after {max_retries} retries on {key!r}")


def lost_update(lab: Lab, key: str) -> dict[str, object]:
    """Two clients interleaved by hand: both read, both write. One update is lost, every time.

    Returns the row stored in the reference file (``added``, ``final``, ``lost``; see
    :class:`LostUpdate`).
    """
    a, b = lab.new_client(), lab.new_client()
    lab.r.delete(key)
    seen_a, seen_b = load(a, key), load(b, key)  # both GET the empty bitmap
    seen_a.add(1)
    seen_b.add(2)
    a.set(key, seen_a.serialize())  # A writes {1}
    b.set(key, seen_b.serialize())  # B overwrites it with {2}
    final = sorted(load(lab.r, key))
    lab.r.delete(key)
    return {"added": [1, 2], "final": final, "lost": sorted({1, 2} - set(final))}


@dataclass(frozen=True)
class LostUpdate:
    """The forced interleaving of :func:`lost_update`: what was added, kept and lost."""

    added: tuple[int, ...]
    final: tuple[int, ...]
    lost: tuple[int, ...]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> LostUpdate:
        """From :func:`lost_update`'s row (as stored in the reference file)."""
        return cls(tuple(row["added"]), tuple(row["final"]), tuple(row["lost"]))


@dataclass(frozen=True)
class Contention:
    """Several clients adding distinct IDs to one serialized bitmap at the same time."""

    method: str  #: "read-modify-write" or "WATCH/MULTI"
    clients: int
    adds: int  #: IDs added in total (each client adds its own)
    final: int  #: cardinality of the bitmap afterwards
    retries: int  #: EXEC failures that forced a retry (WATCH only)
    seconds: float

    @property
    def lost(self) -> int:
        return self.adds - self.final

    @property
    def retries_per_add(self) -> float:
        return self.retries / self.adds if self.adds else 0.0

    @property
    def seconds_per_add(self) -> float:
        return self.seconds / self.adds if self.adds else 0.0

    def row(self) -> dict[str, float]:
        """This result as a row of the reference file (with ``lost``)."""
        return {
            "method": self.method,
            "clients": self.clients,
            "adds": self.adds,
            "final": self.final,
            "lost": self.lost,
            "retries": self.retries,
            "seconds": self.seconds,
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Contention:
        """From a row of :meth:`row` / :func:`contention_grid` (``lost`` is recomputed)."""
        return cls(
            str(row["method"]),
            int(row["clients"]),
            int(row["adds"]),
            int(row["final"]),
            int(row["retries"]),
            float(row["seconds"]),
        )


def contend(lab: Lab, key: str, clients: int, adds_per_client: int, watch: bool) -> Contention:
    """Run ``clients`` threads, each with its own connection, adding its own IDs to ``key``."""
    clients = check_int("clients", clients, 1, 64)
    adds_per_client = check_int("adds_per_client", adds_per_client, 1, 100_000)
    lab.r.delete(key)
    retries = [0] * clients
    start_line = threading.Barrier(clients)

    def work(i: int) -> None:
        client = lab.new_client()
        start_line.wait()
        for j in range(adds_per_client):
            value = i * adds_per_client + j
            if watch:
                retries[i] += watched_add(client, key, value)
            else:
                rmw_add(client, key, value)
        client.close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    final = len(load(lab.r, key))
    lab.r.delete(key)
    method = METHODS[1] if watch else METHODS[0]
    return Contention(method, clients, clients * adds_per_client, final, sum(retries), seconds)


def contention_runs(
    lab: Lab, key: str, clients: Sequence[int] = (1, 2, 4, 8), adds_per_client: int = 250
) -> list[Contention]:
    """:func:`contend` both ways (naive first, then ``WATCH``) for each number of clients."""
    return [
        contend(lab, key, n, adds_per_client, watch) for n in clients for watch in (False, True)
    ]


def contention_grid(
    lab: Lab, key: str, clients: Sequence[int] = (1, 2, 4, 8), adds_per_client: int = 250
) -> list[dict[str, float]]:
    """:func:`contention_runs` as rows for a table (the reference file's ``contention``)."""
    return [result.row() for result in contention_runs(lab, key, clients, adds_per_client)]


def _median_seconds(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def rmw_timings(
    lab: Lab, sizes: Sequence[int], rng: np.random.Generator, repeat: int = 5
) -> list[dict[str, float]]:
    """Seconds one read-modify-write takes on a stored bitmap of each size (median of ``repeat``).

    The bitmap holds ``size`` random 32-bit IDs; every update moves all of it over the network
    twice and (de)serializes it, which is what seed 000 §6 objects to.
    """
    key = lab.key("rmw-size")
    rows = []
    for size in sizes:
        bitmap = BitMap(random_ids(check_int("size", size, 1, 10**8), rng))
        lab.r.set(key, bitmap.serialize())
        seconds = _median_seconds(lambda: rmw_add(lab.r, key, 2**32 - 1), repeat)
        rows.append(
            {
                "values": float(size),
                "serialized": float(len(bitmap.serialize())),
                "seconds": seconds,
            }
        )
    lab.r.delete(key)
    return rows


@dataclass(frozen=True)
class RmwTiming:
    """One row of :func:`rmw_timings`: a read-modify-write on a bitmap of ``values`` IDs."""

    values: int
    serialized: int  #: bytes of the stored bitmap
    seconds: float  #: median time of one update

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> RmwTiming:
        return cls(int(row["values"]), int(row["serialized"]), float(row["seconds"]))


def unknown_command(lab: Lab, *command: object) -> str | None:
    """The server's error for ``command`` if it does not know it, else ``None`` (it ran)."""
    try:
        lab.r.execute_command(*command)
    except redis.ResponseError as err:
        text = str(err)
        return text if "unknown command" in text.lower() else None
    return None


# -- seed 003's 7-day window ---------------------------------------------------------------------


def window_timings(lab: Lab, days: Sequence[BitMap], repeat: int = 5) -> dict[str, float]:
    """Seconds to get the union of the daily bitmaps three ways (median of ``repeat``).

    ``in process``: ``BitMap.union`` of bitmaps already in memory. ``from Redis``: ``MGET`` the
    serialized days, deserialize, union. ``BITOP OR`` (live Redis only, else ``nan``): the same
    days as plain Redis bitmaps, ORed by the server into a new key, time inside Redis.
    """
    keys = [lab.key("day", i) for i in range(len(days))]
    blobs = {k: d.serialize() for k, d in zip(keys, days, strict=True)}
    stored = sum(len(b) for b in blobs.values())
    # the days are written once and read back whole by each MGET (its reply buffer counts
    # against maxmemory too): declare both before writing anything
    writes = sum(guard.budget(string=len(b), key_bytes=len(k)) for k, b in blobs.items())
    lab.check_allocation(writes, "the 7-day Roaring window", reads=stored, scales=True)
    lab.r.mset(blobs)
    union = BitMap.union(*days)

    def from_redis() -> BitMap:
        return BitMap.union(*(BitMap.deserialize(v) for v in lab.r.mget(keys)))

    result = {
        "in process": _median_seconds(lambda: BitMap.union(*days), repeat),
        "from Redis": _median_seconds(from_redis, repeat),
        "BITOP OR": math.nan,
        "union size": float(len(union)),
        "serialized bytes per day": float(np.mean([len(d.serialize()) for d in days])),
    }
    plain = [lab.key("plain", i) for i in range(len(days))]
    # the plain days and BITOP's destination: one string of the union's length each
    plain_bytes = guard.budget(string=union.max() // 8 + 1, keys=len(days) + 1)
    if lab.is_real and lab.may_allocate(plain_bytes):
        for k, d in zip(plain, days, strict=True):
            lab.r.set(k, redis_bitmap_bytes(d))
        dest = lab.key("week")
        before = lab.r.info("commandstats").get("cmdstat_bitop", {"usec": 0})["usec"]
        for _ in range(repeat):
            lab.r.bitop("OR", dest, *plain)
        after = lab.r.info("commandstats")["cmdstat_bitop"]["usec"]
        result["BITOP OR"] = (after - before) / repeat / 1e6
        lab.r.delete(dest, *plain)
    lab.r.delete(*keys)
    return result


@dataclass(frozen=True)
class WindowTimings:
    """:func:`window_timings` as a record: seconds for the union of the days, three ways."""

    in_process: float  #: ``BitMap.union`` of days already in memory
    from_redis: float  #: ``MGET`` + deserialize + union
    bitop_or: float  #: server-side ``BITOP OR`` of plain bitmaps, time inside Redis (or nan)
    union_size: int  #: IDs in the union
    serialized_bytes_per_day: float

    @property
    def has_bitop(self) -> bool:
        """Whether ``BITOP OR`` was measured (live Redis, allocation allowed)."""
        return not math.isnan(self.bitop_or)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> WindowTimings:
        """From :func:`window_timings`'s dict (as stored in the reference file)."""
        return cls(
            float(row["in process"]),
            float(row["from Redis"]),
            float(row["BITOP OR"]),
            int(row["union size"]),
            float(row["serialized bytes per day"]),
        )


# -- the stored reference run --------------------------------------------------------------------


@dataclass(frozen=True)
class SnowflakeSizes:
    """Serialized sizes of snowflake IDs in a ``BitMap64``, and of as many dense 32-bit IDs."""

    ids: int
    bitmap64_bytes: int  #: ``len(BitMap64(snowflakes).serialize())``
    model_bytes: int  #: :func:`setlab.models.roaring.layout64` of the same IDs
    dense_population: int  #: the dense IDs are drawn from ``0 … dense_population − 1``
    dense_bytes: int  #: ``len(BitMap(dense IDs).serialize())``

    @property
    def bitmap64_per_id(self) -> float:
        return self.bitmap64_bytes / self.ids

    @property
    def dense_per_id(self) -> float:
        return self.dense_bytes / self.ids

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SnowflakeSizes:
        return cls(*(int(row[f]) for f in cls.__dataclass_fields__))


@dataclass(frozen=True)
class RoaringReference:
    """``roaring-reference.json``: the experiments of this module on a real Redis, typed."""

    run: reference.RunInfo
    contention: tuple[Contention, ...]
    lost_update: LostUpdate
    rb_setbit: str  #: the server's full reply to ``RB.SETBIT`` (RedisBloom loaded)
    rmw: tuple[RmwTiming, ...]
    snowflake: SnowflakeSizes
    window: WindowTimings
    pyroaring: str  #: pyroaring version used
    croaring: str  #: CRoaring version inside it

    @classmethod
    def load(cls) -> RoaringReference:
        """Read the stored reference run (package data)."""
        doc = reference.load(REFERENCE)
        data = doc.data
        return cls(
            run=doc.run,
            contention=tuple(Contention.from_row(r) for r in data["contention"]),
            lost_update=LostUpdate.from_row(data["lost_update"]),
            rb_setbit=str(data["rb_setbit"]),
            rmw=tuple(RmwTiming.from_row(r) for r in data["rmw"]),
            snowflake=SnowflakeSizes.from_row(data["snowflake"]),
            window=WindowTimings.from_row(data["window"]),
            pyroaring=str(data["pyroaring"]),
            croaring=str(data["croaring"]),
        )

    def contended(self, method: str, clients: int) -> Contention:
        """The contention row of ``method`` (see :data:`METHODS`) at ``clients`` clients."""
        for row in self.contention:
            if row.method == method and row.clients == clients:
                return row
        have = sorted({(r.method, r.clients) for r in self.contention})
        raise ValueError(f"no contention row for {method!r} at {clients} clients; have {have}")

    @property
    def largest_rmw(self) -> RmwTiming:
        """The read-modify-write timing on the biggest bitmap measured."""
        return max(self.rmw, key=lambda r: r.values)

    @property
    def rb_error(self) -> str:
        """The first clause of the server's reply to ``RB.SETBIT`` (without its arguments)."""
        return self.rb_setbit.split(",")[0]
