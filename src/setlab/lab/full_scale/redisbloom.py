"""Seed 003 at full scale: 1.2 × 10^8 items into RedisBloom through streamed BF.MADD, measured.

Seed 003 sizes its filter for a day's peak of 1.2 × 10^8 device IDs at 1 % ("m ≈ 1.15 × 10^9 bits
≈ 137 MiB") and then advises ``BF.RESERVE key 0.01 150000000`` — capacity 1.5× the peak, and the
module's default scaling (``EXPANSION 2``) since it names no option. :func:`measure` loads the
seed's 1.2 × 10^8 items, on one real Redis with RedisBloom, into each configuration of
:data:`CONFIGS`:

- ``advised``: ``BF.RESERVE key 0.01 150000000`` (default scaling: sub-filter 0 at 0.5 %);
- ``advised-nonscaling``: the same with ``NONSCALING`` (one filter at 1 %);
- ``seed-sizing``: ``BF.RESERVE key 0.01 120000000 NONSCALING``, the filter of the seed's
  137 MiB arithmetic;
- ``first-version``: ``BF.RESERVE key 0.01 100000000``, the seed's first capacity, which the
  peak outgrows: the chain adds a sub-filter.

For each: load time (streamed ``BF.MADD``, 1,000 items per command, :mod:`setlab.lab.wire.pipe`),
``BF.INFO``, ``MEMORY USAGE``, ``used_memory`` before and after, the layout model of
:class:`setlab.models.redisbloom.ChainLayout` beside them, the false-positive rate on 10^6
items never added (``BF.MEXISTS``, streamed) beside the model's, and the loader's peak RSS.

Items are distinct 64-bit integers, ``i · 0x9E3779B97F4A7C15 mod 2^64`` (an odd multiplier is a
bijection), sent as decimal text; the absent probes are the next 10^6 values of ``i``. The seed
stores 16-hex-character OAID hashes: another spelling of a 64-bit hash, which changes neither the
filter's size (fixed by ``BF.RESERVE``) nor its false-positive rate (the module hashes the bytes,
whatever they spell). ``reference/measure_full_scale_003.py`` runs it and stores the reference file
``full-scale-003``; :class:`FullScale003` reads it back.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.core.progress import Progress
from setlab.lab import guard, reference
from setlab.lab.backend import Lab
from setlab.lab.reference import RunInfo
from setlab.lab.runs.redisbloom import read_info, reserve
from setlab.lab.wire import encode as resp_encode
from setlab.lab.wire import pipe as resp_pipe
from setlab.models.redisbloom import ChainLayout

REFERENCE = "full-scale-003"
#: Seed 003's daily peak (items) and error rate.
SEED_003_ITEMS, SEED_003_ERROR = 120_000_000, 0.01
ABSENT = 1_000_000
BATCH = 1000
BLOCK = 10_000_000  # items generated and streamed at a time (80 MB of uint64)
_STEP = np.uint64(0x9E3779B97F4A7C15)
#: name → (capacity, nonscaling): the configurations loaded, in order.
CONFIGS: dict[str, tuple[int, bool]] = {
    "advised": (150_000_000, False),
    "advised-nonscaling": (150_000_000, True),
    "seed-sizing": (SEED_003_ITEMS, True),
    "first-version": (100_000_000, False),
}


def items(first: int, count: int) -> np.ndarray:
    """The distinct items ``first … first + count - 1`` (uint64): ``i · 0x9E37…15 mod 2^64``."""
    return np.arange(first, first + count, dtype=np.uint64) * _STEP


@dataclass(frozen=True)
class FullScaleRow:
    """One configuration, loaded with the seed's items and measured."""

    config: str
    capacity: int
    nonscaling: bool
    sent: int  #: items sent with BF.MADD
    inserted: int  #: BF.INFO "Number of items inserted" (adds that looked present are not)
    filters: int  #: BF.INFO "Number of filters"
    info_size: int  #: BF.INFO "Size", bytes
    memory_usage: int  #: MEMORY USAGE key, bytes
    used_memory_delta: int  #: INFO used_memory after the load minus before, bytes
    model_size: int  #: ChainLayout.memory(inserted), bytes
    model_allocated: int  #: ChainLayout.allocated(inserted): jemalloc classes, bytes
    model_filters: int
    load_seconds: float
    fpr_measured: float  #: share of ABSENT never-added items BF.MEXISTS called present
    fpr_model: float  #: ChainLayout.expected_fpr(inserted)
    absent: int
    query_seconds: float
    peak_rss_bytes: int  #: the loader process's peak RSS so far (ru_maxrss)

    @property
    def items_per_second(self) -> float:
        return self.sent / self.load_seconds

    @property
    def layout(self) -> ChainLayout:
        return ChainLayout(SEED_003_ERROR, self.capacity, nonscaling=self.nonscaling)


@dataclass(frozen=True)
class FullScale003:
    """The stored run (reference file ``full-scale-003``), typed."""

    run: RunInfo
    rows: tuple[FullScaleRow, ...]

    @classmethod
    def load(cls) -> FullScale003:
        doc = reference.load(REFERENCE)
        return cls(doc.run, tuple(FullScaleRow(**r) for r in doc.data["rows"]))

    def row(self, config: str) -> FullScaleRow:
        for r in self.rows:
            if r.config == config:
                return r
        raise ValueError(f"config must be one of {', '.join(r.config for r in self.rows)}")


def _used_memory(lab: Lab) -> int:
    return int(lab.r.info("memory")["used_memory"])


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def load_one(lab: Lab, config: str, n: int, progress: bool = True) -> FullScaleRow:
    """Reserve ``config``'s filter, stream ``n`` items into it, measure it, delete it."""
    capacity, nonscaling = CONFIGS[config]
    layout = ChainLayout(SEED_003_ERROR, capacity, nonscaling=nonscaling)
    sent = min(n, capacity) if nonscaling else n
    key = lab.key("bf", config)
    allocates = guard.budget(allocated=layout.allocated(sent), key_bytes=len(key))
    lab.check_allocation(allocates, f"full-scale {config}")
    lab.r.unlink(key)
    before = _used_memory(lab)
    reserve(lab, key, layout)
    report = Progress(sent, f"{config}: BF.MADD", progress, every=1.0)
    start = time.perf_counter()
    for lo in range(0, sent, BLOCK):
        block = items(lo, min(BLOCK, sent - lo))
        resp_pipe.bf_madd(lab, key, block, BATCH, allocates=allocates)
        report.update(block.size)
    load_seconds = time.perf_counter() - start
    report.close()
    info = read_info(lab, key)
    after = _used_memory(lab)
    usage = int(lab.r.memory_usage(key, samples=0) or 0)
    inserted = int(info["Number of items inserted"])
    t0 = time.perf_counter()
    answers = resp_pipe.bf_mexists(lab, key, items(n, ABSENT), BATCH, progress=progress)
    query_seconds = time.perf_counter() - t0
    lab.r.unlink(key)
    return FullScaleRow(
        config=config,
        capacity=capacity,
        nonscaling=nonscaling,
        sent=sent,
        inserted=inserted,
        filters=int(info["Number of filters"]),
        info_size=int(info["Size"]),
        memory_usage=usage,
        used_memory_delta=after - before,
        model_size=layout.memory(inserted),
        model_allocated=layout.allocated(inserted),
        model_filters=layout.filters_for(inserted),
        load_seconds=load_seconds,
        fpr_measured=float(answers.mean()),
        fpr_model=layout.expected_fpr(inserted),
        absent=ABSENT,
        query_seconds=query_seconds,
        peak_rss_bytes=_peak_rss(),
    )


def measure(
    lab: Lab, n: int = SEED_003_ITEMS, configs: tuple[str, ...] = tuple(CONFIGS), progress=True
) -> dict[str, Any]:
    """Every configuration of ``configs`` with ``n`` items (the seed's 1.2 × 10^8 by default) on
    the lab's real Redis with RedisBloom; ``{"rows": [...], "facts": {...}}`` for
    :func:`setlab.lab.reference.save`."""
    if not lab.has_redisbloom:
        raise ValueError("the full-scale seed 003 run needs a real Redis with RedisBloom")
    resp_encode.encode(np.arange(3, dtype=np.uint64), b"", b"")  # compile before timing
    rows = [load_one(lab, config, n, progress).__dict__ for config in configs]
    facts = {
        "items": n,
        "error_rate": SEED_003_ERROR,
        "batch": BATCH,
        "items_are": "i * 0x9E3779B97F4A7C15 mod 2^64 as decimal text; absent: the next 10^6 i",
        "loader": "setlab.lab.wire.pipe.bf_madd (streamed BF.MADD, 1,000 items per command)",
    }
    return {"rows": rows, "facts": facts}
