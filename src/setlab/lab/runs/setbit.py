"""The first-SETBIT experiment on a real Redis, and its stored reference run as typed records.

What :mod:`setlab.models.bitmap` predicts (the string a first ``SETBIT`` creates, and what
``MEMORY USAGE`` says about it), this module measures:

* :func:`first_write` — one first ``SETBIT`` on a fresh key: its time inside Redis (``INFO
  commandstats``) and seen by the client, ``STRLEN``, ``MEMORY USAGE``, and a second ``SETBIT``
  on the same key; :func:`sweep_first_writes` repeats it over offsets, and
  :func:`median_by_offset` collapses repeated runs;
* :func:`replay_sequence` — seed 000's own three favourites on one key, in its order: which
  write creates, grows or only flips a bit, its time inside Redis and ``MEMORY USAGE`` after it;
* :func:`stall_timeline` — another client's ``GET`` latency while the largest first ``SETBIT``
  runs (head-of-line blocking, through :func:`setlab.lab.latency.probe_during`).

``reference/measure_setbit.py`` stores both in ``setlab/data/setbit-reference.json``;
:meth:`SetbitReference.load` reads that file back into the same record types, so a chapter
handles a live run and the stored one alike (see :func:`setlab.lab.reference.live_or_reference`).
"""

from __future__ import annotations

import bisect
import dataclasses
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from setlab.lab import guard, latency, reference
from setlab.lab.backend import Lab
from setlab.lab.reference import RunInfo
from setlab.lab.runs import memory as memory_runs
from setlab.models import bitmap

#: The stored reference run's name (``setlab/data/setbit-reference.json``).
REFERENCE = "setbit-reference"
#: The section of that file holding the replay of seed 000's sequence (its own label).
SEQUENCE_SECTION = "sequence"
#: How many probe samples a stored timeline keeps (the worst one is always among them).
TIMELINE_POINTS = 400


# -- one first write ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FirstWrite:
    """One measured first SETBIT on a fresh key."""

    offset: int
    strlen: int  #: bytes of the string Redis created
    memory_usage: int | None  #: MEMORY USAGE in bytes (None where the server has no MEMORY)
    model: int  #: what :func:`setlab.models.bitmap.first_setbit_memory_usage` predicts, bytes
    server_us: float | None  #: time inside Redis (INFO commandstats delta), microseconds
    client_ms: float  #: round trip seen by the client, milliseconds
    second_client_ms: float  #: a second SETBIT at a smaller offset on the same key, milliseconds


def first_write(
    lab: Lab, offset: int, key: str | None = None, allocator: str | None = None
) -> FirstWrite:
    """Time one first ``SETBIT key offset 1`` and read back what it allocated, then delete it.

    Refuses (``BigAllocationRefused``) when :func:`sequence_peak_bytes` is too big for this server.
    On the embedded fakeredis there is no server time (``server_us`` is None) and no ``MEMORY
    USAGE``. The model prices the server's own jemalloc build (``allocator``; None: ask the
    server). The key is deleted whatever happens, at once (a refused or failed write must not
    leave a 640 MiB string on a full server until ``lab.cleanup()``).
    """
    offset = bitmap.check_offset(offset)
    key = key or lab.key("first-write", offset)
    lab.check_allocation(sequence_peak_bytes([offset], len(key)), f"SETBIT at offset {offset:,}")
    r = lab.r
    r.unlink(key)
    try:
        before = latency.server_usec(lab, "setbit") if lab.is_real else None
        start = time.perf_counter()
        r.setbit(key, offset, 1)
        client_ms = (time.perf_counter() - start) * 1e3
        after = latency.server_usec(lab, "setbit") if lab.is_real else None
        start = time.perf_counter()
        r.setbit(key, offset // 2, 1)
        second_ms = (time.perf_counter() - start) * 1e3
        usage = r.memory_usage(key) if lab.has_memory_usage else None
        strlen = r.strlen(key)
    finally:
        r.unlink(key)
    server_us = None if before is None or after is None else after - before
    allocator = allocator or memory_runs.lab_allocator(lab)
    model = bitmap.first_setbit_memory_usage(offset, key, allocator)
    return FirstWrite(offset, strlen, usage, model, server_us, client_ms, second_ms)


def sweep_first_writes(
    lab: Lab, offsets: Iterable[int], progress: bool = False
) -> list[FirstWrite]:
    """:func:`first_write` for each offset, skipping those the lab may not allocate."""
    rows = []
    offsets = list(offsets)
    allocator = memory_runs.lab_allocator(lab)
    for i, offset in enumerate(offsets, 1):
        if not lab.may_allocate(sequence_peak_bytes([offset])):
            continue
        rows.append(first_write(lab, offset, allocator=allocator))
        if progress:
            print(f"\r{i}/{len(offsets)} offsets", end="", flush=True)
    if progress:
        print()
    return rows


@dataclass(frozen=True)
class OffsetSummary:
    """Repeated first writes at one offset: the median of each field, and the server time's
    range across runs (microseconds)."""

    offset: int
    runs: int
    strlen: int
    memory_usage: float | None  #: bytes (None where no run had MEMORY USAGE)
    model: int  #: bytes
    server_us: float | None
    client_ms: float
    second_client_ms: float
    server_us_min: float | None
    server_us_max: float | None

    @property
    def server_s(self) -> float:
        """Median time of the first SETBIT inside Redis, in seconds."""
        if self.server_us is None:
            raise ValueError(f"offset {self.offset:,} has no server-side time (not a real Redis)")
        return self.server_us / 1e6

    @property
    def second_s(self) -> float:
        """Median round trip of the second SETBIT on the same key, in seconds."""
        return self.second_client_ms / 1e3

    @property
    def seconds_per_gib(self) -> float:
        """Median first-write time inside Redis per GiB of string created (seconds)."""
        return self.server_s / (self.strlen / 2**30)


def _median_or_none(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def median_by_offset(writes: Iterable[FirstWrite]) -> list[OffsetSummary]:
    """Collapse repeated measurements to one :class:`OffsetSummary` per offset, by offset."""
    groups: dict[int, list[FirstWrite]] = {}
    for write in writes:
        groups.setdefault(write.offset, []).append(write)
    summary = []
    for offset in sorted(groups):
        runs = groups[offset]
        server = [w.server_us for w in runs if w.server_us is not None]
        summary.append(
            OffsetSummary(
                offset=offset,
                runs=len(runs),
                strlen=statistics.median_low([w.strlen for w in runs]),
                memory_usage=_median_or_none(w.memory_usage for w in runs),
                model=statistics.median_low([w.model for w in runs]),
                server_us=_median_or_none(server),
                client_ms=statistics.median(w.client_ms for w in runs),
                second_client_ms=statistics.median(w.second_client_ms for w in runs),
                server_us_min=min(server) if server else None,
                server_us_max=max(server) if server else None,
            )
        )
    return summary


# -- the seed's own sequence: three favourites on one key ---------------------------------------

#: Seed 000 §1: the offsets of the incident's three favourites on one key, in the seed's order.
SEED_000_SEQUENCE = (1_823_456_789, 3_456_789_012, 987_654_321)


@dataclass(frozen=True)
class SequenceStep:
    """One ``SETBIT key offset 1`` of a sequence on one key: what it did and what it cost."""

    step: int  #: 1 for the write that creates the key
    offset: int
    strlen_before: int  #: bytes of the string before the write (0: no key)
    strlen: int  #: bytes after
    memory_usage: int | None  #: MEMORY USAGE after, bytes (None where the server has none)
    model: int  #: what :func:`setlab.models.bitmap.bitmap_memory_usage` predicts after, bytes
    server_us: float | None  #: time inside Redis (INFO commandstats delta), microseconds
    client_ms: float  #: round trip seen by the client, milliseconds

    @property
    def added_bytes(self) -> int:
        """Bytes the write appended (and zeroed) to the string; 0 for a write inside it."""
        return self.strlen - self.strlen_before

    @property
    def kind(self) -> str:
        """``"creates the key"``, ``"grows the string"`` or ``"inside the string"``."""
        if self.strlen_before == 0:
            return "creates the key"
        return "grows the string" if self.added_bytes else "inside the string"


def sequence_peak_bytes(offsets: Sequence[int], key_bytes: int = guard.KEY_NAME_BYTES) -> int:
    """The most ``SETBIT key o 1`` for each offset in order, on a fresh key, takes from the
    server at once (bytes): :func:`setlab.lab.guard.budget` of the bitmap (greedy growth; a
    growing write may hold the old block while it copies it into the new one) and the key's
    own parts. Seed 000's three clicks: 224 MiB + 448 MiB while the second one reallocates."""
    return guard.budget(setbits=offsets, key_bytes=key_bytes)


def replay_sequence(
    lab: Lab, offsets: Sequence[int] = SEED_000_SEQUENCE, key: str | None = None
) -> list[SequenceStep]:
    """``SETBIT key o 1`` for each offset in order on a fresh key, each step timed inside Redis
    (``INFO commandstats``) and followed by ``STRLEN`` and ``MEMORY USAGE``; the key is deleted.

    Refuses (``BigAllocationRefused``) when :func:`sequence_peak_bytes` is too big for this
    server. On the embedded fakeredis there is no server time and no ``MEMORY USAGE``.
    """
    offsets = [bitmap.check_offset(o) for o in offsets]
    key = key or lab.key("sequence")
    lab.check_allocation(sequence_peak_bytes(offsets, len(key)), f"SETBIT at offsets {offsets}")
    allocator = memory_runs.lab_allocator(lab)
    r = lab.r
    r.unlink(key)
    steps: list[SequenceStep] = []
    try:
        for i, offset in enumerate(offsets, 1):
            before = latency.server_usec(lab, "setbit") if lab.is_real else None
            start = time.perf_counter()
            r.setbit(key, offset, 1)
            client_ms = (time.perf_counter() - start) * 1e3
            after = latency.server_usec(lab, "setbit") if lab.is_real else None
            usage = r.memory_usage(key, samples=0) if lab.has_memory_usage else None
            steps.append(
                SequenceStep(
                    i, offset, steps[-1].strlen if steps else 0, int(r.strlen(key)),
                    None if usage is None else int(usage),
                    bitmap.bitmap_memory_usage(offsets[:i], key, allocator),
                    None if before is None or after is None else after - before, client_ms,
                )
            )  # fmt: skip
    finally:
        r.unlink(key)
    return steps


def median_sequence(steps: Iterable[SequenceStep]) -> list[SequenceStep]:
    """Repeated replays collapsed to one step each: the median time inside Redis and round trip
    (the rest is the same in every run, or the stored rows would disagree with each other)."""
    groups: dict[int, list[SequenceStep]] = {}
    for s in steps:
        groups.setdefault(s.step, []).append(s)
    return [
        dataclasses.replace(
            runs[0],
            server_us=_median_or_none(s.server_us for s in runs),
            client_ms=statistics.median(s.client_ms for s in runs),
        )
        for _, runs in sorted(groups.items())
    ]


# -- another client's view: head-of-line blocking ---------------------------------------------


@dataclass(frozen=True)
class BlockingRow:
    """One first SETBIT timed by its own client while another client probes with GETs (ms)."""

    offset: int
    action_ms: float  #: the SETBIT, seen by its own client
    worst_probe_ms: float  #: the longest GET of the other client
    median_probe_ms: float
    probes: int

    @classmethod
    def from_probe(cls, offset: int, result: latency.ProbeResult) -> BlockingRow:
        return cls(
            offset,
            result.action_seconds * 1e3,
            result.worst * 1e3,
            result.percentile(50) * 1e3,
            int(result.latencies.size),
        )


@dataclass(frozen=True)
class StallTimeline:
    """Another client's GETs around one slow command: when each started and how long it waited
    (milliseconds since the probe began), and when the slow command ran.

    A timeline is thinned to at most :data:`TIMELINE_POINTS` samples for storage, and the
    longest wait is always kept: :attr:`worst_ms` is the stall, never a sample next to it.
    """

    starts_ms: tuple[float, ...]
    latency_ms: tuple[float, ...]
    action_start_ms: float
    action_end_ms: float

    def __post_init__(self) -> None:
        if len(self.starts_ms) != len(self.latency_ms) or not self.latency_ms:
            raise ValueError("a timeline needs as many start times as latencies, at least one")

    @property
    def worst_ms(self) -> float:
        """The longest any GET waited (ms)."""
        return max(self.latency_ms)

    @property
    def worst_start_ms(self) -> float:
        """When the longest-waiting GET was sent (ms)."""
        return self.starts_ms[self.latency_ms.index(self.worst_ms)]

    @property
    def median_ms(self) -> float:
        """A GET's typical wait (ms): the median of the samples."""
        return statistics.median(self.latency_ms)

    @classmethod
    def from_probe(
        cls, result: latency.ProbeResult, points: int = TIMELINE_POINTS
    ) -> StallTimeline:
        """Every ``n``-th probe (at most ``points`` of them) plus the worst one, in time order."""
        if result.latencies.size == 0:
            raise ValueError("the probe recorded no GETs")
        step = -(-result.latencies.size // points)
        keep = set(range(0, result.latencies.size, step)) | {int(result.latencies.argmax())}
        chosen = sorted(keep)
        return cls(
            tuple(round(float(result.starts[i]) * 1e3, 3) for i in chosen),
            tuple(round(float(result.latencies[i]) * 1e3, 3) for i in chosen),
            result.action_start * 1e3,
            result.action_end * 1e3,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StallTimeline:
        """Read a stored timeline. Files written before the worst sample was kept in the
        samples record it separately (``worst_start_ms``, ``worst_ms``): it is put back."""
        starts, waits = list(data["starts_ms"]), list(data["latency_ms"])
        worst = data.get("worst_ms")
        if worst is not None and worst > max(waits, default=0.0):
            at = bisect.bisect(starts, data["worst_start_ms"])
            starts.insert(at, data["worst_start_ms"])
            waits.insert(at, worst)
        return cls(tuple(starts), tuple(waits), data["action_start_ms"], data["action_end_ms"])

    def to_json(self) -> dict[str, Any]:
        """The stored form (readers of older files also find ``worst_*`` there)."""
        return {
            "starts_ms": list(self.starts_ms),
            "latency_ms": list(self.latency_ms),
            "worst_start_ms": self.worst_start_ms,
            "worst_ms": self.worst_ms,
            "action_start_ms": self.action_start_ms,
            "action_end_ms": self.action_end_ms,
        }


def probe_first_setbit(lab: Lab, offset: int = bitmap.MAX_OFFSET) -> latency.ProbeResult:
    """Another client's GETs while a first ``SETBIT`` at ``offset`` runs; the key is deleted.

    Refuses (``BigAllocationRefused``) when :func:`sequence_peak_bytes` is too big for this server.
    """
    offset = bitmap.check_offset(offset)
    key = lab.key("stall")
    lab.check_allocation(sequence_peak_bytes([offset], len(key)), f"SETBIT at offset {offset:,}")
    lab.r.unlink(key)
    try:
        return latency.probe_during(lab, lambda: lab.r.setbit(key, offset, 1))
    finally:
        lab.r.unlink(key)


def stall_timeline(lab: Lab, offset: int = bitmap.MAX_OFFSET) -> StallTimeline:
    """:func:`probe_first_setbit` as a :class:`StallTimeline` (the stored run's type)."""
    return StallTimeline.from_probe(probe_first_setbit(lab, offset))


def memory_after_writes(lab: Lab, key: str, offsets: Sequence[int]) -> int | None:
    """``MEMORY USAGE key SAMPLES 0`` (bytes) after ``SETBIT key o 1`` for each offset in order
    on a fresh ``key`` (a name from ``lab.key``), which is then deleted: what the string costs
    once it has grown write by write. None where the server has no ``MEMORY USAGE`` (the
    embedded fakeredis). Needs no ``INFO``, so an ACL user without it runs it too; refuses
    (``BigAllocationRefused``) what :func:`sequence_peak_bytes` says is too big here."""
    offsets = [bitmap.check_offset(o) for o in offsets]
    if not lab.has_memory_usage:
        return None
    lab.check_allocation(sequence_peak_bytes(offsets, len(key)), f"SETBIT at offsets {offsets}")
    r = lab.r
    r.unlink(key)
    try:
        for offset in offsets:
            r.setbit(key, offset, 1)
        return int(r.memory_usage(key, samples=0))
    finally:
        r.unlink(key)


def setbit_past_the_limit(
    lab: Lab, key: str, offset: int = 2**32, max_bulk_bytes: int = 2**30
) -> tuple[int, int] | None:
    """A first ``SETBIT key offset 1`` past the 2^32 − 1 limit, let through by raising
    ``proto-max-bulk-len`` to ``max_bulk_bytes`` for the one write (Redis 7.0 checks the offset
    against that setting, ``t_string.c`` ``getBitOffsetFromArgument``): the string's ``STRLEN``
    and ``MEMORY USAGE`` (bytes) of ``key`` (a name from ``lab.key``), then the key is deleted
    and the setting put back.

    Changes a server setting, so it runs only on a private server setlab started (None
    elsewhere, and on the embedded fakeredis)."""
    if not (lab.is_real and lab.owns_server and lab.server is not None):
        return None
    r = lab.r
    before = r.config_get("proto-max-bulk-len")["proto-max-bulk-len"]
    r.config_set("proto-max-bulk-len", max_bulk_bytes)
    try:
        r.setbit(key, offset, 1)
        return int(r.strlen(key)), int(r.memory_usage(key, samples=0))
    finally:
        r.unlink(key)
        r.config_set("proto-max-bulk-len", before)


# -- the stored reference run -----------------------------------------------------------------


def _fields(cls: type, raw: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in raw.items() if k in names}


@dataclass(frozen=True)
class SetbitReference:
    """``setbit-reference.json``: first writes swept over offsets (several runs each), the
    blocking rows, and one timeline of the largest first SETBIT."""

    run: RunInfo
    writes: tuple[FirstWrite, ...]
    blocking: tuple[BlockingRow, ...]
    timeline: StallTimeline
    #: seed 000's three favourites replayed (several runs), and where and when (its own label)
    sequence: tuple[SequenceStep, ...] = ()
    sequence_run: RunInfo | None = None

    @classmethod
    def load(cls) -> SetbitReference:
        """The stored run shipped with setlab (``make reference`` rewrites it)."""
        doc = reference.load(REFERENCE)
        data = doc.data
        section = data.get(SEQUENCE_SECTION)
        return cls(
            doc.run,
            tuple(FirstWrite(**_fields(FirstWrite, row)) for row in data["rows"]),
            tuple(BlockingRow(**_fields(BlockingRow, row)) for row in data["blocking"]),
            StallTimeline.from_json(data["timeline"]),
            tuple(SequenceStep(**_fields(SequenceStep, row)) for row in section["rows"])
            if section
            else (),
            reference.run_info(REFERENCE, section) if section else None,
        )

    def sequence_steps(self) -> list[SequenceStep]:
        """The stored replay of seed 000's sequence, one median step per write."""
        if not self.sequence:
            raise KeyError("the reference run has no replay of seed 000's sequence")
        return median_sequence(self.sequence)

    def summaries(self) -> list[OffsetSummary]:
        """One :class:`OffsetSummary` per offset, by offset."""
        return median_by_offset(self.writes)

    def median(self, offset: int) -> OffsetSummary:
        """The summary of the runs at ``offset``; ``KeyError`` if the run has none there."""
        for summary in self.summaries():
            if summary.offset == offset:
                return summary
        raise KeyError(f"the reference run has no first write at offset {offset:,}")

    def blocking_at(self, offset: int) -> BlockingRow:
        """The blocking row at ``offset``; ``KeyError`` if there is none."""
        for row in self.blocking:
            if row.offset == offset:
                return row
        raise KeyError(f"the reference run has no blocking row at offset {offset:,}")


def writes_to_rows(writes: Sequence[FirstWrite | SequenceStep], run: int) -> list[dict[str, Any]]:
    """Stored rows of one sweep or replay (``run`` numbers the repetition)."""
    return [{"run": run, **dataclasses.asdict(w)} for w in writes]
