"""RedisBloom's ``BF.*`` on a server: the commands the chapters send, the experiments they run,
and the typed records those experiments return (and the reference run stores).

The pure model of what ``BF.RESERVE`` builds is :mod:`setlab.models.redisbloom`; everything here
talks to a :class:`~setlab.lab.backend.Lab`: a live Redis with redisbloom.so, or the embedded
fakeredis, whose ``BF.*`` is pyprobables' model (see that module's docstring). Items are sent as
8 little-endian bytes (:func:`setlab.models.redisbloom.encode`).

- commands: :func:`reserve`, :func:`read_info`, :func:`read_debug`, :func:`read_dump`,
  :func:`add_items`, :func:`mexists` (``BF.MEXISTS`` and ``CF.MEXISTS``), :func:`exists_items`,
  :func:`fill_to`;
- experiments: :func:`scaling_run` (grow a chain, measure its rate and ``BF.EXISTS`` after each
  sub-filter: :class:`ScalingRow`), :func:`window_run` (seven daily filters ORed:
  :class:`WindowRun`) and its in-process counterpart :func:`roaring_window_costs`
  (:class:`RoaringWindow`).

Times are in seconds. ``reference/measure_redisbloom.py`` runs these experiments on a private server
to write the reference file (:mod:`setlab.lab.runs.redisbloom_reference`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from setlab.core.validate import check_int
from setlab.lab import guard, latency
from setlab.lab.backend import Lab
from setlab.models.redisbloom import ChainLayout, FreshValues, any_of_fpr, encode, seed_compound_fpr

# -- records ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExistsTimes:
    """Single ``BF.EXISTS`` calls timed: the client's round trip (median, 99th percentile) and
    the mean time inside Redis from ``INFO commandstats`` (NaN on fakeredis). Seconds."""

    rtt_p50: float
    rtt_p99: float
    server: float


@dataclass(frozen=True)
class ScalingRow:
    """One point of :func:`scaling_run`: the chain after ``filters_full`` sub-filters are full.

    ``info`` is ``BF.INFO`` (the module's field names); rates are fractions, times seconds (the
    timing fields are NaN when the run timed nothing).
    """

    filters_full: int
    info: Mapping[str, int | None]
    items_sent: int
    load_items_per_second: float
    queries: int
    false_positives: int
    fpr_measured: float
    fpr_model: float
    fpr_design: float
    fpr_seed_formula: float
    stranger_rtt_p50: float = math.nan
    stranger_rtt_p99: float = math.nan
    stranger_server: float = math.nan
    member_rtt_p50: float = math.nan
    member_rtt_p99: float = math.nan
    member_server: float = math.nan

    @property
    def items(self) -> int:
        """``BF.INFO`` "Number of items inserted"."""
        return int(self.info["Number of items inserted"] or 0)

    @property
    def size(self) -> int:
        """``BF.INFO`` "Size" (bytes on RedisBloom; the item count on fakeredis)."""
        return int(self.info["Size"] or 0)

    @property
    def capacity(self) -> int:
        """``BF.INFO`` "Capacity" (items)."""
        return int(self.info["Capacity"] or 0)

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> ScalingRow:
        """A row as the reference file stores it."""
        return cls(**{**row, "info": dict(row["info"])})

    def to_dict(self) -> dict[str, Any]:
        """The row as the reference file stores it (timings left out when not measured)."""
        row = asdict(self)
        return {k: v for k, v in row.items() if k not in _TIMINGS or not math.isnan(v)}


_TIMINGS = {
    f"{who}_{what}" for who in ("stranger", "member") for what in ("rtt_p50", "rtt_p99", "server")
}


@dataclass(frozen=True)
class QueryTimes:
    """Per-question times of :func:`time_window_queries`: median and 99th percentile, seconds."""

    p50: float
    p99: float


@dataclass(frozen=True)
class WindowRun:
    """:func:`window_run`: ``days`` daily filters asked "seen on any day?".

    ``fpr_measured`` on ``queries`` strangers beside the model (``fpr_day_model`` per day,
    ``fpr_model`` for the OR); times per question for one filter, one round trip per day, and one
    pipelined round trip for all days.
    """

    days: int
    queries: int
    false_positives: int
    fpr_measured: float
    fpr_day_model: float
    fpr_model: float
    one_filter: QueryTimes
    round_trips: QueryTimes
    pipelined: QueryTimes

    @property
    def multiplier(self) -> float:
        """How many times the day's modelled rate the window's measured rate is."""
        return self.fpr_measured / self.fpr_day_model

    @property
    def round_trip_ratio(self) -> float:
        """Median of ``days`` round trips over the median of one."""
        return self.round_trips.p50 / self.one_filter.p50

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WindowRun:
        """The run as the reference file stores it."""
        times = {k: QueryTimes(**data[k]) for k in ("one_filter", "round_trips", "pipelined")}
        return cls(**{**data, **times})


@dataclass(frozen=True)
class RoaringWindow:
    """:func:`roaring_window_costs`: the 7-day question answered in process with pyroaring.

    Times per question (seconds) testing each day's bitmap and one precomputed union, the time to
    build that union, serialized bytes of the day bitmaps and of the union, and the hits.
    """

    days: int
    per_day: int
    per_query_each_day: float
    per_query_union: float
    union_build: float
    day_bytes: int
    union_bytes: int
    hits: int

    @property
    def bytes_per_id(self) -> float:
        """Serialized bytes of the day bitmaps per ID stored."""
        return self.day_bytes / (self.days * self.per_day)


# -- talking to the module -------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def reply_dict(reply: Any) -> dict[str, Any]:
    """A flat RESP2 ``[name, value, …]`` reply (``BF.INFO``, ``CF.INFO``; or a dict) as
    ``{name: value}`` with text names."""
    if isinstance(reply, dict):
        return {_text(k): v for k, v in reply.items()}
    return {_text(reply[i]): reply[i + 1] for i in range(0, len(reply), 2)}


def reserve(lab: Lab, key: str, layout: ChainLayout) -> None:
    """``BF.RESERVE key …`` for ``layout`` (the key must not exist). Checks the allocation of the
    first sub-filter with ``lab.check_allocation``."""
    lab.check_allocation(
        guard.budget(allocated=layout.allocated(0), key_bytes=len(key)), f"BF.RESERVE {key}"
    )
    lab.r.execute_command("BF.RESERVE", key, *layout.reserve_args())


def read_info(lab: Lab, key: str) -> dict[str, int | None]:
    """``BF.INFO key`` as a dict with the module's field names."""
    return {
        k: (None if v is None else int(v))
        for k, v in reply_dict(lab.r.execute_command("BF.INFO", key)).items()
    }


def read_debug(lab: Lab, key: str) -> list[str]:
    """``BF.DEBUG key`` as text lines (real RedisBloom only; fakeredis has no BF.DEBUG)."""
    return [_text(line) for line in lab.r.execute_command("BF.DEBUG", key)]


def read_dump(lab: Lab, key: str) -> list[bytes]:
    """The chain's bit arrays as ``BF.SCANDUMP`` returns them, concatenated then split per
    sub-filter using ``BF.DEBUG``'s byte counts (real RedisBloom only)."""
    sizes = [int(line.split()[0].split(":")[1]) for line in read_debug(lab, key)[1:]]
    cursor, _header = lab.r.execute_command("BF.SCANDUMP", key, 0)
    data = b""
    while True:
        cursor, chunk = lab.r.execute_command("BF.SCANDUMP", key, cursor)
        if not cursor:
            break
        data += chunk
    out, start = [], 0
    for size in sizes:
        out.append(data[start : start + size])
        start += size
    return out


def add_items(lab: Lab, key: str, values: object, batch: int = 1000) -> np.ndarray:
    """``BF.MADD`` the values (8-byte encoding) in pipelined batches; the replies (int8 array:
    1 added, 0 looked present)."""
    batch = check_int("batch", batch, 1)
    items = encode(values)
    replies: list[int] = []
    pipe = lab.r.pipeline(transaction=False)
    for start in range(0, len(items), batch):
        pipe.execute_command("BF.MADD", key, *items[start : start + batch])
        if len(pipe) >= 16:
            replies += [int(v) for reply in pipe.execute() for v in reply]
    replies += [int(v) for reply in pipe.execute() for v in reply]
    return np.array(replies, dtype=np.int8)


def mexists(lab: Lab, command: str, key: str, values: object, batch: int = 1000) -> np.ndarray:
    """``BF.MEXISTS`` or ``CF.MEXISTS`` for the values, in pipelined batches (bool array)."""
    batch = check_int("batch", batch, 1)
    items = encode(values)
    pipe = lab.r.pipeline(transaction=False)
    for start in range(0, len(items), batch):
        pipe.execute_command(command, key, *items[start : start + batch])
    return np.array([bool(v) for reply in pipe.execute() for v in reply], dtype=bool)


def exists_items(lab: Lab, key: str, values: object, batch: int = 1000) -> np.ndarray:
    """``BF.MEXISTS`` for the values in pipelined batches (bool array)."""
    return mexists(lab, "BF.MEXISTS", key, values, batch)


def fill_to(lab: Lab, key: str, target: int, values: FreshValues, batch: int = 1000) -> int:
    """Add fresh values until ``BF.INFO`` counts ``target`` items; returns how many were sent.

    Values that look present are not counted by the module, so more values than ``target`` are
    sent; the last batch is cut so the chain holds exactly ``target`` (and no sub-filter beyond).
    """
    target = check_int("target", target, 0)
    counted = int(read_info(lab, key)["Number of items inserted"] or 0)
    sent = 0
    while counted < target:
        replies = add_items(lab, key, values.take(target - counted), batch)
        counted += int(np.count_nonzero(replies == 1))
        sent += replies.size
    return sent


# -- experiments -----------------------------------------------------------------------------------


def time_exists(lab: Lab, key: str, values: np.ndarray) -> ExistsTimes:
    """Time one ``BF.EXISTS`` per value, one round trip each.

    Returns the client-side round trip's median and 99th percentile (seconds), and the mean
    time inside Redis per call from ``INFO commandstats`` (seconds; real Redis only, else NaN).
    """
    items = encode(values)
    rtts = np.empty(len(items))
    before = latency.server_usec(lab, "bf.exists") if lab.is_real else math.nan
    for i, item in enumerate(items):
        t0 = time.perf_counter()
        lab.r.execute_command("BF.EXISTS", key, item)
        rtts[i] = time.perf_counter() - t0
    after = latency.server_usec(lab, "bf.exists") if lab.is_real else math.nan
    return ExistsTimes(
        float(np.percentile(rtts, 50)),
        float(np.percentile(rtts, 99)),
        (after - before) / 1e6 / max(1, len(items)),
    )


def scaling_run(
    lab: Lab,
    name: str,
    layout: ChainLayout,
    filters: int,
    queries: int = 100_000,
    timed: int = 2_000,
) -> list[ScalingRow]:
    """Grow one chain sub-filter by sub-filter; after each is full, measure it.

    For ``n = 1 … filters`` full sub-filters: ``BF.INFO``, the false-positive rate on ``queries``
    fresh non-members (with the model's expected rate, the design rate and seed 003's formula
    beside it), and ``BF.EXISTS`` timings for ``timed`` non-members and ``timed`` members (the
    oldest ones, which a query finds last). Works on fakeredis too (pyprobables' filter, no
    server timings). The key is ``lab.key(name)``; it is removed at the end.
    """
    filters = check_int("filters", filters, 1, 1 if layout.nonscaling else 64)
    queries, timed = check_int("queries", queries, 1), check_int("timed", timed, 0)
    key = lab.key(name)
    lab.r.delete(key)
    chain = layout.allocated(layout.items_for(filters))
    lab.check_allocation(
        guard.budget(allocated=chain, key_bytes=len(key)), f"chain {name!r}", scales=True
    )
    reserve(lab, key, layout)
    members, strangers = FreshValues(0), FreshValues(1)
    rows, sent = [], 0
    for n in range(1, filters + 1):
        target = layout.items_for(n)
        t0 = time.perf_counter()
        added = fill_to(lab, key, target, members)
        load_seconds = time.perf_counter() - t0
        sent += added
        hits = int(np.count_nonzero(exists_items(lab, key, strangers.take(queries))))
        info = read_info(lab, key)
        row: dict[str, Any] = {
            "filters_full": n,
            "info": info,
            "items_sent": sent,
            "load_items_per_second": added / load_seconds if load_seconds > 0 else math.nan,
            "queries": queries,
            "false_positives": hits,
            "fpr_measured": hits / queries,
            "fpr_model": layout.expected_fpr(target),
            "fpr_design": layout.design_fpr(n),
            "fpr_seed_formula": seed_compound_fpr(layout.error, n),
        }
        if timed:
            stranger_t = time_exists(lab, key, strangers.take(timed))
            member_t = time_exists(lab, key, members.first(timed))
            row.update({f"stranger_{k}": v for k, v in asdict(stranger_t).items()})
            row.update({f"member_{k}": v for k, v in asdict(member_t).items()})
        rows.append(ScalingRow(**row))
    lab.r.unlink(key)
    return rows


def time_window_queries(
    lab: Lab, keys: Sequence[str], values: np.ndarray, pipelined: bool
) -> QueryTimes:
    """Time "is the value in any of these daily filters?" for each value (seconds).

    ``pipelined=False``: one ``BF.EXISTS`` round trip per key, stopping at the first yes, as a
    loop over seven day keys does. ``pipelined=True``: all keys' ``BF.EXISTS`` in one round trip.
    Returns the median and 99th percentile per query.
    """
    if not keys:
        raise ValueError("keys must name at least one filter")
    items = encode(values)
    times = np.empty(len(items))
    for i, item in enumerate(items):
        t0 = time.perf_counter()
        if pipelined:
            pipe = lab.r.pipeline(transaction=False)
            for key in keys:
                pipe.execute_command("BF.EXISTS", key, item)
            any(pipe.execute())
        else:
            any(lab.r.execute_command("BF.EXISTS", key, item) for key in keys)
        times[i] = time.perf_counter() - t0
    return QueryTimes(float(np.percentile(times, 50)), float(np.percentile(times, 99)))


def window_run(
    lab: Lab,
    name: str,
    layout: ChainLayout,
    days: int = 7,
    queries: int = 50_000,
    timed: int = 2000,
) -> WindowRun:
    """Seven daily filters (``days`` of them), each reserved with ``layout`` and filled to its
    capacity with different items, queried as "seen on any day?".

    Returns the measured rate of the OR on ``queries`` strangers beside :func:`any_of_fpr` of the
    model's per-day rate, and per-query times (seconds) for one filter, for ``days`` round trips
    and for one pipelined round trip. Keys are ``lab.key(name, day)``, removed at the end.
    """
    days = check_int("days", days, 1, 31)
    keys = [lab.key(name, day) for day in range(days)]
    lab.check_allocation(
        guard.budget(
            allocated=layout.allocated(layout.capacity), keys=days, key_bytes=len(keys[-1])
        ),
        f"{days} daily filters",
        scales=True,
    )
    members = FreshValues(0)
    for key in keys:
        lab.r.delete(key)
        reserve(lab, key, layout)
        fill_to(lab, key, layout.capacity, members)
    strangers = FreshValues(1)
    sample = strangers.take(check_int("queries", queries, 1))
    hit = np.zeros(sample.size, dtype=bool)
    for key in keys:
        hit |= exists_items(lab, key, sample)
    timed_values = strangers.take(check_int("timed", timed, 1))
    out = WindowRun(
        days=days,
        queries=int(sample.size),
        false_positives=int(hit.sum()),
        fpr_measured=float(hit.mean()),
        fpr_day_model=layout.expected_fpr(layout.capacity),
        fpr_model=any_of_fpr([layout.expected_fpr(layout.capacity)] * days),
        one_filter=time_window_queries(lab, keys[:1], timed_values, pipelined=False),
        round_trips=time_window_queries(lab, keys, timed_values, pipelined=False),
        pipelined=time_window_queries(lab, keys, timed_values, pipelined=True),
    )
    lab.r.unlink(*keys)
    return out


def roaring_window_costs(
    days: int = 7, per_day: int = 100_000, queries: int = 20_000, seed: int = 0
) -> RoaringWindow:
    """The same question answered in process with pyroaring: ``days`` bitmaps of ``per_day``
    random 32-bit IDs, asked "seen on any day?" for ``queries`` IDs.

    Roaring needs the IDs to be (or map to) 32-bit integers, and answers exactly. Returns the
    per-query time (seconds) of testing each day's bitmap in turn and of one precomputed union,
    the time to build that union, and the serialized bytes of the day bitmaps and of the union.
    """
    from pyroaring import BitMap

    days, per_day = check_int("days", days, 1, 31), check_int("per_day", per_day, 1)
    rng = np.random.default_rng(seed)
    bitmaps = [BitMap(rng.integers(0, 2**32, size=per_day, dtype=np.uint32)) for _ in range(days)]
    asked = rng.integers(0, 2**32, size=check_int("queries", queries, 1), dtype=np.uint64).tolist()
    t0 = time.perf_counter()
    each = [any(x in bm for bm in bitmaps) for x in asked]
    t1 = time.perf_counter()
    union = BitMap.union(*bitmaps)
    t2 = time.perf_counter()
    once = [x in union for x in asked]
    t3 = time.perf_counter()
    if each != once:
        raise AssertionError("the union and the per-day loop disagree")  # cannot happen
    return RoaringWindow(
        days=days,
        per_day=per_day,
        per_query_each_day=(t1 - t0) / len(asked),
        per_query_union=(t3 - t2) / len(asked),
        union_build=t2 - t1,
        day_bytes=sum(len(bm.serialize()) for bm in bitmaps),
        union_bytes=len(union.serialize()),
        hits=int(sum(once)),
    )
