"""RedisBloom's cuckoo filter filled until it fails, on a server: the first-failure load as a
distribution over item streams and table sizes, and the stored reference run of it.

One run is ``CF.RESERVE key 2^k BUCKETSIZE b MAXITERATIONS n EXPANSION 0`` (``2^k`` slots: the
module reserves ``next_pow2(2^k / b)`` buckets of ``b``), fed values of one numbered stream
(:func:`setlab.models.cuckoo_walls.stream_values`) with ``CF.INSERT`` until the refused inserts
(``-1``, "full"; the module rolls a failed insert back) reach a share of the attempts. The bit-exact
model (:func:`setlab.models.cuckoo_walls.model_fill`) predicts every mark; the module is simply
faster. ``reference/measure_cuckoo_walls.py`` runs the grid and writes
``setlab/data/cuckoo-walls.json``, read here as :class:`CuckooWallsReference`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from setlab.core.validate import check_int
from setlab.lab import reference
from setlab.models.cuckoo_walls import FillMarks, MarkCounter, Spread, stream_values
from setlab.models.redisbloom_cuckoo import RedisBloomCuckoo

if TYPE_CHECKING:  # the stored walls (setlab calc, setlab advise) load no Redis client
    from setlab.lab.backend import Lab

#: The reference file's name (``setlab/data/<NAME>.json``).
NAME = "cuckoo-walls"

#: ``CF.INSERT`` of many 8-byte items sent as one string (ARGV[1]), 4096 per call; replies one
#: byte per item, 1 where the module answered -1 ("full"). redis-py spends about 10 µs per item
#: packing arguments and parsing replies, the module well under 1 µs: this keeps a fill of
#: 10^8 inserts to minutes.
_INSERT_LUA = """
local s, out = ARGV[1], {}
local n = #s / 8
for start = 0, n - 1, 4096 do
  local items = {}
  for j = start, math.min(n, start + 4096) - 1 do
    items[#items + 1] = string.sub(s, j * 8 + 1, j * 8 + 8)
  end
  local replies = redis.call('CF.INSERT', KEYS[1], 'NOCREATE', 'ITEMS', unpack(items))
  for j = 1, #replies do
    out[#out + 1] = replies[j] == -1 and '\\1' or '\\0'
  end
end
return table.concat(out)
"""


def insert_failed(lab: Lab, key: str, values: np.ndarray) -> np.ndarray:
    """``CF.INSERT key NOCREATE ITEMS …`` of ``values`` (8 little-endian bytes each, as
    :func:`setlab.models.redisbloom.encode` sends them) in one script call: True where the module
    answered "full" (bool array)."""
    payload = np.ascontiguousarray(values, dtype="<u8").tobytes()
    reply = lab.r.eval(_INSERT_LUA, 1, key, payload)
    failed = np.frombuffer(reply, dtype=np.uint8) == 1
    if failed.size != values.size:
        raise ValueError(f"CF.INSERT script answered {failed.size} items for {values.size}")
    return failed


@dataclass(frozen=True)
class WallFill:
    """One live fill (see the module docstring): its configuration and :class:`FillMarks`.

    ``chunk`` and ``chunk_failures``: refused inserts among attempts ``[i·chunk, (i+1)·chunk)``
    (only for runs asked to keep them, ``record_every``; empty otherwise).
    """

    log_slots: int
    bucket_size: int
    max_iterations: int
    stream: int
    marks: FillMarks
    chunk: int = 0
    chunk_failures: tuple[int, ...] = ()

    def failures_within(self, attempts: int) -> int:
        """Refused inserts among the first ``attempts`` (a multiple of :attr:`chunk`)."""
        if not self.chunk or attempts % self.chunk or attempts > self.marks.attempts:
            raise ValueError(
                f"attempts must be a multiple of the run's chunk {self.chunk:,} within its "
                f"{self.marks.attempts:,} attempts; got {attempts:,}"
            )
        return sum(self.chunk_failures[: attempts // self.chunk])

    def to_dict(self) -> dict[str, Any]:
        """The fill as the reference file stores it."""
        return {
            "log_slots": self.log_slots, "bucket_size": self.bucket_size,
            "max_iterations": self.max_iterations, "stream": self.stream,
            "marks": vars(self.marks), "chunk": self.chunk,
            "chunk_failures": list(self.chunk_failures),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> WallFill:
        """A fill as the reference file stores it."""
        return cls(
            int(row["log_slots"]), int(row["bucket_size"]), int(row["max_iterations"]),
            int(row["stream"]), FillMarks(**row["marks"]), int(row.get("chunk", 0)),
            tuple(int(n) for n in row.get("chunk_failures", ())),
        )  # fmt: skip


def wall_fill(
    lab: Lab,
    log_slots: int,
    bucket_size: int,
    max_iterations: int,
    stream: int,
    share: float,
    *,
    min_attempts: int = 0,
    chunk: int | None = None,
    record_every: int = 0,
    stop_at_first: bool = False,
) -> WallFill:
    """Fill a fresh ``EXPANSION 0`` filter of ``2^log_slots`` slots with ``stream``, ``chunk``
    values per script call (default: 1/64 of the slots, 2^10 to 2^16, so a run stops soon after
    its mark instead of paying for long failing chains; a sixteenth of that once inserts fail,
    so one call of long failing chains stays short), until the refused inserts reach ``share`` of
    the attempts and at least ``min_attempts`` were made (or every slot had an attempt). With
    ``stop_at_first`` it stops at the call of the first refusal instead (the share's mark may
    then be missing). The key is ``lab.key(...)`` and is removed at the end. ``record_every``
    (attempts) keeps the refusals per window of that many attempts."""
    model = RedisBloomCuckoo(2 ** check_int("log_slots", log_slots, 2, 30), bucket_size,
                             max_iterations, expansion=0)  # fmt: skip
    slots = model.num_buckets * model.bucket_size
    chunk = max(2**10, min(2**16, slots >> 6)) if chunk is None else check_int("chunk", chunk, 1)
    record_every = check_int("record_every", record_every, 0)
    key = lab.key(f"wall-{log_slots}-{bucket_size}-{max_iterations}-{stream}")
    lab.r.delete(key)
    from setlab.lab.runs.cuckoo import cf_reserve

    cf_reserve(lab, key, model)
    counter = MarkCounter(slots, share)
    windows = np.zeros(-(-slots // record_every) if record_every else 0, dtype=np.int64)
    try:
        while counter.attempts < slots and not (
            (counter.reached or (stop_at_first and counter.failures))
            and counter.attempts >= min_attempts
        ):
            size = chunk if not counter.failures else max(1, chunk // 16)
            start = counter.attempts
            failed = insert_failed(lab, key, stream_values(stream, start, min(size, slots - start)))
            if record_every:
                np.add.at(windows, (start + np.flatnonzero(failed)) // record_every, 1)
            counter.add(failed)
    finally:
        lab.r.unlink(key)
    kept = windows[: -(-counter.attempts // record_every)] if record_every else windows
    return WallFill(log_slots, bucket_size, max_iterations, stream, counter.marks(), record_every,
                    tuple(int(n) for n in kept))  # fmt: skip


@dataclass(frozen=True)
class CuckooWallsReference:
    """The stored run of ``reference/measure_cuckoo_walls.py``.

    Attributes:
        run: where and when (its ``label`` goes beside every figure taken from here).
        share: the failure share whose load each fill also marks (seed 003's 0.03%).
        grid: fills for every ``(log_slots, b, MAXITERATIONS, stream)`` measured.
        seed_scale: fills at seed 003's size, kept per chunk of attempts.
        model_checked: how many grid fills the bit-exact model replayed in the same run, and
            how many of those gave exactly the module's marks.
        seconds: how long the run took.
    """

    run: reference.RunInfo
    share: float
    grid: tuple[WallFill, ...]
    seed_scale: tuple[WallFill, ...]
    model_checked: Mapping[str, int]
    seconds: float

    @classmethod
    def load(cls) -> CuckooWallsReference:
        """Read the stored run from the package data."""
        document = reference.load(NAME)
        data = document.data
        return cls(
            run=document.run,
            share=float(data["share"]),
            grid=tuple(WallFill.from_dict(r) for r in data["rows"]),
            seed_scale=tuple(WallFill.from_dict(r) for r in data["seed_scale"]),
            model_checked=dict(data["model_checked"]),
            seconds=float(data["seconds"]),
        )

    def sizes(self) -> list[int]:
        """``log2(slots)`` of the grid, ascending."""
        return sorted({f.log_slots for f in self.grid})

    def fills(self, log_slots: int, bucket_size: int, max_iterations: int) -> list[WallFill]:
        """The grid's fills of one configuration, by stream."""
        found = [f for f in self.grid
                 if (f.log_slots, f.bucket_size, f.max_iterations)
                 == (log_slots, bucket_size, max_iterations)]  # fmt: skip
        if not found:
            raise ValueError(
                f"the reference run has no fill with log_slots={log_slots}, "
                f"bucket_size={bucket_size}, max_iterations={max_iterations}"
            )
        return sorted(found, key=lambda f: f.stream)

    def first_fail(self, log_slots: int, bucket_size: int, max_iterations: int) -> Spread:
        """Median and range over streams of the load at the first "full" (fractions)."""
        return Spread.of(f.marks.first_fail_load for f in self.fills(log_slots, bucket_size,
                                                                      max_iterations))  # fmt: skip

    def reach(self, log_slots: int, bucket_size: int, max_iterations: int) -> Spread:
        """Median and range over streams of the load where failures reach :attr:`share`."""
        return Spread.of(f.marks.reach_load for f in self.fills(log_slots, bucket_size,
                                                                 max_iterations))  # fmt: skip

    def at_seed_scale(self, bucket_size: int, max_iterations: int) -> WallFill:
        """The seed-scale fill of this configuration."""
        for f in self.seed_scale:
            if (f.bucket_size, f.max_iterations) == (bucket_size, max_iterations):
                return f
        raise ValueError(
            f"the reference run has no seed-scale fill with bucket_size={bucket_size}, "
            f"max_iterations={max_iterations}"
        )


@cache
def stored() -> CuckooWallsReference:
    """The stored run, read once."""
    return CuckooWallsReference.load()
