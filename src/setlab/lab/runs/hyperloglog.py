"""HyperLogLog on a real Redis: the experiments, and their stored reference run.

Each experiment talks to the lab's server with ``PFADD``, ``PFCOUNT``, ``PFMERGE``, ``GET`` and
``MEMORY USAGE`` and returns typed rows; beside them the chapter "HyperLogLog" and the tests put
what :class:`setlab.models.hyperloglog.HyperLogLog` says Redis replies. The same functions write
the reference file (``reference/measure_redis_memory.py`` → ``hyperloglog-reference.json``), which
:class:`HyperLogLogReference` reads back as the same rows.

On the embedded backend fakeredis keeps a "HyperLogLog" as an exact set: experiments that need
Redis's own encoding (:func:`observe`, :func:`measure_hll_growth`) need a real server; the
others run anywhere and show what that backend replies.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from setlab.core.figure_cache import kept
from setlab.core.validate import check_int
from setlab.lab import reference
from setlab.lab.backend import Lab
from setlab.models.hyperloglog import (
    HLL_HEADER_BYTES,
    HyperLogLog,
    hll_hashes,
    reader_ids,
    stored_encoding,
    unpack_registers,
)

#: the seed of the seven-day window's readers (:func:`setlab.models.hyperloglog.week_of_readers`)
WEEK_SEED = 7
#: readers already added before each bin of :func:`zero_replies` (the last edge is the count)
REPLY_EDGES = (0, 10, 100, 1_000, 10_000, 100_000)


def pfadd_many(lab: Lab, key: str, elements: Sequence[str], batch: int = 5000) -> None:
    """``PFADD key e1 e2 …`` for all elements, ``batch`` per command, pipelined."""
    batch = check_int("batch", batch, 1)
    pipe = lab.r.pipeline(transaction=False)
    for i in range(0, len(elements), batch):
        pipe.pfadd(key, *elements[i : i + batch])
    pipe.execute()


# -- what one key holds -------------------------------------------------------------------------


@dataclass(frozen=True)
class HllGrowthRow:
    """What Redis says about a HyperLogLog key after ``n`` readers (``reader:0`` …)."""

    n: int
    key: str
    encoding: str  #: "sparse" or "dense" (byte 4 of the string's header)
    strlen: int
    memory_usage: int  #: MEMORY USAGE key
    pfcount: int
    payload_hex: str | None = None  #: the bytes after the 16-byte header, when recorded


def observe(lab: Lab, key: str, n: int, payload: bool = False) -> HllGrowthRow:
    """``GET``, ``MEMORY USAGE`` and ``PFCOUNT`` of a HyperLogLog key holding ``n`` readers.

    Needs a real server: fakeredis does not store Redis's HyperLogLog string.
    """
    if not lab.is_real:
        raise ValueError("observe needs a real Redis: fakeredis keeps no HyperLogLog string")
    raw = lab.r.get(key)
    return HllGrowthRow(
        n=check_int("n", n, 0),
        key=key,
        encoding=stored_encoding(raw),
        strlen=len(raw),
        memory_usage=int(lab.r.memory_usage(key)),
        pfcount=int(lab.r.pfcount(key)),
        payload_hex=raw[HLL_HEADER_BYTES:].hex() if payload else None,
    )


def measure_hll_growth(
    lab: Lab, sizes: Sequence[int], payload_up_to: int = 0
) -> list[HllGrowthRow]:
    """``PFADD`` readers into one key through ``sizes`` and :func:`observe` it at each size
    (recording the payload while ``n <= payload_up_to``). Needs a real server."""
    key = lab.key("hll-growth")
    lab.r.unlink(key)
    rows, done = [], 0
    for n in sorted(set(sizes)):
        pfadd_many(lab, key, reader_ids(done, n))
        done = n
        rows.append(observe(lab, key, n, payload=n <= payload_up_to))
    lab.r.unlink(key)
    return rows


@dataclass(frozen=True)
class RegisterRow:
    """The one register an element set in an empty HyperLogLog, read back from Redis."""

    element: str
    index: int
    count: int


def _single_register(payload: bytes) -> tuple[int, int]:
    """(index, value) of the only non-zero register in a sparse payload."""
    index, p = 0, 0
    while p < len(payload):
        op = payload[p]
        if op >> 6 == 0:
            index += (op & 63) + 1
            p += 1
        elif op >> 6 == 1:
            index += (((op & 63) << 8) | payload[p + 1]) + 1
            p += 2
        else:
            return index, ((op >> 2) & 31) + 1
    raise ValueError("no register set")


def measure_registers(lab: Lab, count: int = 500) -> list[RegisterRow]:
    """For ``e:0`` … ``e:count-1``: ``PFADD`` each into an empty key and read its register."""
    count = check_int("count", count, 1)
    if not lab.is_real:
        raise ValueError("measure_registers needs a real Redis")
    key = lab.key("one")
    rows = []
    for i in range(count):
        element = f"e:{i}"
        lab.r.unlink(key)
        lab.r.pfadd(key, element)
        raw = lab.r.get(key)
        payload = raw[HLL_HEADER_BYTES:]
        if stored_encoding(raw) == "sparse":
            index, value = _single_register(payload)
        else:  # a run over 32: dense
            regs = unpack_registers(payload)
            index = int(np.flatnonzero(regs)[0])
            value = int(regs[index])
        rows.append(RegisterRow(element, index, value))
    lab.r.unlink(key)
    return rows


@dataclass(frozen=True)
class CountRow:
    """``PFCOUNT`` of a key holding ``n`` readers, and how long the ``PFADD`` calls took."""

    n: int
    pfcount: int
    pfadd_s: float


def measure_counts(lab: Lab, sizes: Sequence[int]) -> list[CountRow]:
    """For each size: add that many readers to a fresh key, time it, read ``PFCOUNT``."""
    rows = []
    for n in sizes:
        key = lab.key("count", n)
        start = time.perf_counter()
        pfadd_many(lab, key, reader_ids(0, n))
        rows.append(CountRow(n, int(lab.r.pfcount(key)), time.perf_counter() - start))
        lab.r.unlink(key)
    return rows


# -- PFADD's reply is not membership ------------------------------------------------------------


def pfadd_replies(lab: Lab, count: int, batch: int = 10_000) -> np.ndarray:
    """``PFADD key reader:i`` for i = 0 … count-1, one element per call: the server's 0/1 replies.

    Every element is new. Redis replies 1 only when a register grew (the model,
    :func:`setlab.models.hyperloglog.new_reader_replies`, gives the same replies); fakeredis
    keeps an exact set and replies 1 to every new element.
    """
    count = check_int("count", count, 0)
    batch = check_int("batch", batch, 1)
    key = lab.key("pfadd-replies")
    lab.r.unlink(key)
    replies: list[int] = []
    for start in range(0, count, batch):
        pipe = lab.r.pipeline(transaction=False)
        for element in reader_ids(start, min(count, start + batch)):
            pipe.pfadd(key, element)
        replies += [int(r) for r in pipe.execute()]
    lab.r.unlink(key)
    return np.array(replies, dtype=np.int8)


@dataclass(frozen=True)
class ZeroReplies:
    """How many ``PFADD`` calls replied 0 while the key held ``start`` … ``stop`` readers."""

    start: int
    stop: int
    zero_replies: int

    @property
    def share(self) -> float:
        """The fraction of the bin's brand-new readers that got 0."""
        return self.zero_replies / (self.stop - self.start)


def zero_replies(replies: np.ndarray, edges: Sequence[int] = REPLY_EDGES) -> list[ZeroReplies]:
    """Count the 0 replies between consecutive ``edges`` (the last edge capped at the count)."""
    replies = np.asarray(replies)
    stops = [min(e, len(replies)) for e in edges]
    return [
        ZeroReplies(a, b, int((replies[a:b] == 0).sum()))
        for a, b in itertools.pairwise(stops)
        if b > a
    ]


# -- a seven-day window -------------------------------------------------------------------------


@dataclass(frozen=True)
class WeekResult:
    """One HyperLogLog per day, and the week's unique readers three ways.

    ``server_*`` are the lab's replies (fakeredis's exact counts on the embedded backend),
    ``model_*`` what Redis replies according to the model.
    """

    true_daily: list[int]
    true_union: int
    server_daily: list[int]
    server_union: int  #: PFCOUNT day1 … day7 (a union on the fly)
    server_merged: int  #: PFMERGE week day1 … day7, then PFCOUNT week
    model_daily: list[int]
    model_union: int
    model_merged_bytes: int  #: MEMORY USAGE of the merged key, model
    server_merged_bytes: int | None  #: MEMORY USAGE of the merged key (None: embedded)


def _members(readers: np.ndarray) -> list[str]:
    return [f"reader:{int(r)}" for r in readers]


@kept("hll-daily-sketches")
def daily_sketches(week: tuple[np.ndarray, ...]) -> list[HyperLogLog]:
    """The model's sketch of each day's readers (``reader:<id>``): Redis's sparse encoding is
    rebuilt at every register change, so this is seconds of Python, and kept."""
    sketches = []
    for readers in week:
        hll = HyperLogLog()
        hll.add_hashes(hll_hashes(_members(readers)))
        sketches.append(hll)
    return sketches


def run_week(lab: Lab, week: Sequence[np.ndarray]) -> WeekResult:
    """One HyperLogLog per day of ``week`` (reader IDs per day), then ``PFCOUNT`` of every day,
    ``PFCOUNT day1 … day7`` and ``PFMERGE`` into a week key; beside them the true union and the
    model's answers."""
    keys = [lab.key("day", d + 1) for d in range(len(week))]
    for key, readers in zip(keys, week, strict=True):
        lab.r.unlink(key)
        pfadd_many(lab, key, _members(readers))
    sketches = daily_sketches(tuple(week))
    week_key = lab.key("week")
    lab.r.unlink(week_key)
    lab.r.pfmerge(week_key, *keys)
    merged = HyperLogLog()
    merged.merge(*sketches)
    result = WeekResult(
        true_daily=[len(r) for r in week],
        true_union=len(np.unique(np.concatenate(week))),
        server_daily=[int(lab.r.pfcount(k)) for k in keys],
        server_union=int(lab.r.pfcount(*keys)),
        server_merged=int(lab.r.pfcount(week_key)),
        model_daily=[h.count() for h in sketches],
        model_union=merged.count(),
        model_merged_bytes=merged.cost(week_key).memory_usage,
        server_merged_bytes=int(lab.r.memory_usage(week_key)) if lab.is_real else None,
    )
    lab.r.unlink(week_key, *keys)
    return result


# -- the stored reference run -------------------------------------------------------------------


def _rows(cls: type, raw: Iterable[Mapping[str, Any]]) -> tuple:
    return tuple(cls(**dict(r)) for r in raw)


@dataclass(frozen=True)
class HyperLogLogReference:
    """``hyperloglog-reference.json``: the experiments above, run once on a real Redis."""

    run: reference.RunInfo
    registers: tuple[RegisterRow, ...]
    growth: tuple[HllGrowthRow, ...]
    counts: tuple[CountRow, ...]
    zero_replies: tuple[ZeroReplies, ...]
    week: WeekResult

    NAME = "hyperloglog-reference"

    @classmethod
    @cache
    def load(cls) -> HyperLogLogReference:
        """The stored run (read once)."""
        doc = reference.load(cls.NAME)
        data = doc.data
        zeros = tuple(
            ZeroReplies(r["from"], r["to"], r["zero_replies"]) for r in data["zero_replies"]
        )
        return cls(
            doc.run,
            _rows(RegisterRow, data["registers"]),
            _rows(HllGrowthRow, data["growth"]),
            _rows(CountRow, data["counts"]),
            zeros,
            WeekResult(**data["week"]),
        )

    def count_at(self, n: int) -> CountRow:
        """The stored ``PFCOUNT`` of ``n`` readers."""
        for row in self.counts:
            if row.n == n:
                return row
        raise ValueError(f"n must be one of {[r.n for r in self.counts]}; got {n!r}")

    def growth_at(self, n: int) -> HllGrowthRow:
        """The stored key after ``n`` readers."""
        for row in self.growth:
            if row.n == n:
                return row
        raise ValueError(f"n must be one of {[r.n for r in self.growth]}; got {n!r}")

    def zeros(self, start: int, stop: int) -> ZeroReplies:
        """The stored bin of 0 replies from ``start`` to ``stop`` readers."""
        for row in self.zero_replies:
            if (row.start, row.stop) == (start, stop):
                return row
        bins = [(r.start, r.stop) for r in self.zero_replies]
        raise ValueError(f"(start, stop) must be one of {bins}; got {(start, stop)}")


def zero_replies_as_stored(bins: Sequence[ZeroReplies]) -> list[dict[str, int]]:
    """Bins in the reference file's form (``from``/``to`` keys)."""
    return [{"from": b.start, "to": b.stop, "zero_replies": b.zero_replies} for b in bins]
