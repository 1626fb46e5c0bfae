"""Seed 002's bulk load (§8), measured: every loading strategy on one server, and its stored run.

Seed 002 set 8 × 10^8 openids × 10 hashes = 8 × 10^9 bits, found a pipeline "50× faster than MULTI",
and took about 20 hours. :func:`measure` runs each strategy of :mod:`setlab.lab.wire.loading` on a
real Redis (a scaled-down copy of seed 002's layout: 2^17-bit containers, k = 10, seed 002's 6,104
items per container), measures the round trip and ``redis-benchmark`` on the same server (the
server's own ceiling), and extrapolates every strategy to seed 002's 8 × 10^9 bit writes.
``reference/measure_bulk_load.py`` stores the result as the reference file ``bulk-load``;
:class:`BulkLoadReference` reads it back as typed rows.

:func:`compare_strategies` is the chapter's own small run: three strategies live when the lab is
a real Redis, else the same three rows of the reference run, labelled either way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.lab import guard, reference
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, RunInfo
from setlab.lab.wire import loading
from setlab.models.bloom_sim import BloomLayout, BloomSimulator
from setlab.models.seeds import SEED_002_FIX_K, SEED_002_ITEMS

#: Seed 002's load: openids and hashes per openid (:mod:`setlab.models.seeds`), and the bit
#: writes they make.
SEED_002_K = SEED_002_FIX_K
SEED_002_BIT_WRITES = SEED_002_ITEMS * SEED_002_K
#: Seed 002's items per 2^17-bit container in its final layout of 2^17 containers.
PER_CONTAINER = SEED_002_ITEMS / 2**17
#: Seed 002's full layout, and the most bits the local build may hold at full scale (8 GiB).
FULL_LAYOUT = BloomLayout(2**17, SEED_002_K, shard_bits=17)
FULL_BLOCK_BITS = 2**33
#: The name of the reference file.
REFERENCE = "bulk-load"


# -- the stored reference run ---------------------------------------------------------------------


@dataclass(frozen=True)
class StrategyRow:
    """One strategy of the benchmark: what it loaded, how fast, and seed 002's load at that rate."""

    strategy: str
    batch: int | None  #: bit writes per round trip (None: one-by-one and local)
    items: int
    bits: int  #: bit writes: items × k
    commands: int
    round_trips: int
    seconds: float
    bits_per_second: float
    ratio_to_setbit_ceiling: float  #: bits/s over redis-benchmark's SETBIT requests/s
    seed_002_seconds: float  #: seed 002's 8 × 10^9 bit writes at this rate (local: a model)

    @property
    def label(self) -> str:
        """``pipeline (batch 1,000)``, as :attr:`setlab.lab.wire.loading.LoadResult.label`."""
        return self.strategy if self.batch is None else f"{self.strategy} (batch {self.batch:,})"


@dataclass(frozen=True)
class BulkLoadReference:
    """The stored benchmark (reference file ``bulk-load``), typed."""

    run: RunInfo
    rows: tuple[StrategyRow, ...]
    rtt_seconds: float  #: median PING round trip (loopback)
    setbit_ceiling: float  #: redis-benchmark SETBIT requests/s (-P 64, 50 clients)
    set_ceiling: float  #: redis-benchmark SET requests/s

    @classmethod
    def load(cls) -> BulkLoadReference:
        """Read the reference file (cached by :func:`setlab.lab.reference.load`)."""
        doc = reference.load(REFERENCE)
        rows = tuple(
            StrategyRow(
                strategy=r["strategy"],
                batch=r["batch"],
                items=int(r["items"]),
                bits=int(r["bits"]),
                commands=int(r["commands"]),
                round_trips=int(r["round_trips"]),
                seconds=float(r["seconds"]),
                bits_per_second=float(r["bits_per_second"]),
                ratio_to_setbit_ceiling=float(r["ratio_to_setbit_ceiling"]),
                seed_002_seconds=float(r["seed_002_seconds"]),
            )
            for r in doc.data["rows"]
        )
        return cls(
            doc.run,
            rows,
            float(doc.data["rtt_seconds"]),
            float(doc.data["redis_benchmark_setbit_rps"]),
            float(doc.data["redis_benchmark_set_rps"]),
        )

    def row(self, strategy: str, batch: int | None = None) -> StrategyRow:
        """The row of ``strategy`` at ``batch``; ValueError if the run has none."""
        for r in self.rows:
            if r.strategy == strategy and r.batch == batch:
                return r
        have = ", ".join(r.label for r in self.rows)
        raise ValueError(f"the reference run has no {strategy!r} at batch {batch!r}; it has {have}")

    def best(self, strategy: str) -> StrategyRow:
        """The fastest row of ``strategy`` (over its batch sizes)."""
        rows = [r for r in self.rows if r.strategy == strategy]
        if not rows:
            raise ValueError(f"the reference run has no {strategy!r} rows")
        return max(rows, key=lambda r: r.bits_per_second)

    @property
    def pipeline_vs_multi(self) -> float:
        """The best pipeline's rate over MULTI with a round trip per command (batches of 1,000)."""
        return (
            self.best("pipeline").bits_per_second
            / self.row("multi-roundtrip", 1000).bits_per_second
        )

    @property
    def pipelined_seconds_per_bit(self) -> float:
        """``c`` of the round-trip model: seconds per bit of the best pipeline."""
        return 1 / self.best("pipeline").bits_per_second

    def rtt_for(self, speedup: float = 50.0, batch: int = 1000) -> float:
        """The round trip (s) at which ``batch`` bits a round trip are ``speedup``× faster than
        one bit a round trip, at this run's pipelined cost per bit."""
        return loading.rtt_for_speedup(speedup, self.pipelined_seconds_per_bit, batch)


# -- the benchmark (reference/measure_bulk_load.py stores it) -------------------------------------


def _items(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**63, size=n, dtype=np.uint64)


def measure(lab: Lab, scale: float = 1.0, progress: bool = True) -> dict[str, Any]:
    """Run every strategy on the lab's real Redis; returns ``{"rows": [...], "facts": {...}}``,
    the content of the reference file (:func:`setlab.lab.reference.save` adds the labels).

    ``scale`` multiplies the sample sizes. Also times the in-process simulator on 10^7 integers
    (the local build's hashing, without Redis).
    """
    if not lab.is_real:
        raise ValueError("the bulk-load benchmark needs a real Redis, not the embedded fakeredis")
    rng = np.random.default_rng(2)
    layout = BloomLayout(2**17, SEED_002_K, shard_bits=8)
    plan = [  # (strategy, batch, items)
        ("one-by-one", 1, int(5_000 * scale)),
        ("multi-roundtrip", 1000, int(5_000 * scale)),
        ("multi-pipelined", 1000, int(100_000 * scale)),
        *[("pipeline", b, int(100_000 * scale)) for b in (10, 100, 1000, 10_000)],
        *[("bitfield", b, int(layout.shards * PER_CONTAINER * scale)) for b in (1000, 100_000)],
    ]
    results = []
    for strategy, batch, n in plan:
        lab.cleanup()
        results.append(
            loading.load(lab, "bf", layout, _items(rng, n), strategy, batch, progress=progress)
        )
    lab.cleanup()
    local_layout = BloomLayout(2**17, SEED_002_K, shard_bits=11)
    local_n = int(local_layout.shards * PER_CONTAINER * scale)
    local = loading.load(lab, "bf", local_layout, _items(rng, local_n), "local", progress=progress)
    lab.cleanup()

    rtt = loading.measure_rtt(lab)
    ceiling_set = loading.redis_benchmark(lab, ["SET", lab.key("bench-set"), "xxx"])
    ceiling_setbit = loading.redis_benchmark(lab, ["SETBIT", lab.key("bench-setbit"), "1000", "1"])
    lab.cleanup()

    sim_items = _items(rng, int(10_000_000 * scale))
    sim = BloomSimulator(BloomLayout.for_items(sim_items.size, 0.01))
    t0 = time.perf_counter()
    sim.add(sim_items)
    sim_seconds = time.perf_counter() - t0

    rows = [
        {
            "strategy": r.strategy,
            "batch": r.batch,
            "items": r.items,
            "bits": r.bits,
            "commands": r.commands,
            "round_trips": r.round_trips,
            "seconds": r.seconds,
            "bits_per_second": r.bits_per_second,
            "ratio_to_setbit_ceiling": r.bits_per_second / ceiling_setbit,
            "seed_002_seconds": r.extrapolate(SEED_002_BIT_WRITES),
        }
        for r in [*results, local]
    ]
    # The local build at full scale: hashing repeats once per pass over the items, setting bits
    # and writing scale with the bits and the bytes.
    passes = -(-FULL_LAYOUT.total_bits // FULL_BLOCK_BITS)
    per_item_hash = local.phases["hash"] / local.items
    per_bit_set = local.phases["set bits"] / local.bits
    per_byte_write = local.phases["pack and write"] / local_layout.total_bytes
    rows[-1]["seed_002_seconds"] = (
        passes * per_item_hash * SEED_002_ITEMS
        + per_bit_set * SEED_002_BIT_WRITES
        + per_byte_write * FULL_LAYOUT.total_bytes
    )
    one = next(r for r in results if r.strategy == "multi-roundtrip")
    pipe = max((r for r in results if r.strategy == "pipeline"), key=lambda r: r.bits_per_second)
    facts = {
        "rtt_seconds": rtt,
        "redis_benchmark_set_rps": ceiling_set,
        "redis_benchmark_setbit_rps": ceiling_setbit,
        "redis_benchmark_args": "-P 64 -c 50 -n 2000000",
        "layout": {"bits_per_shard": layout.bits_per_shard, "k": layout.k, "shards": layout.shards},
        "local_layout_shards": local_layout.shards,
        "local_full_scale": {
            "passes": passes,
            "block_bits": FULL_BLOCK_BITS,
            "hash_seconds_per_item": per_item_hash,
            "set_seconds_per_bit": per_bit_set,
            "write_seconds_per_byte": per_byte_write,
        },
        "multi_roundtrip_vs_best_pipeline": pipe.bits_per_second / one.bits_per_second,
        "best_pipeline_batch": pipe.batch,
        "simulator_items": int(sim_items.size),
        "simulator_insert_per_second": sim_items.size / sim_seconds,
        "seed_002_bits": SEED_002_BIT_WRITES,
    }
    return {"rows": rows, "facts": facts}


# -- the chapter's small run, live or reference ----------------------------------------------------


@dataclass(frozen=True)
class StrategyRate:
    """How fast one strategy set bits (bits per second), under its label."""

    label: str
    bits_per_second: float


#: The chapter's three strategies: (strategy, batch as the reference run records it).
COMPARED = (("one-by-one", None), ("pipeline", 1000), ("local", None))


def run_strategies(lab: Lab, scale: float = 1.0, seed: int = 3) -> tuple[StrategyRate, ...]:
    """Load ``20,000 × scale`` random items (2,000 one by one) into 16 keys of 2^17 bits, k = 10,
    with each of :data:`COMPARED`, on the lab; deletes the keys after each. Timings only mean
    something on a real Redis."""
    rng = np.random.default_rng(seed)
    items = _items(rng, max(1, int(20_000 * scale)))
    layout = BloomLayout(2**17, SEED_002_K, shard_bits=4)
    rates = []
    for strategy, batch in COMPARED:
        name = f"run-{strategy}"
        some = items[:2_000] if strategy == "one-by-one" else items
        result = loading.load(lab, name, layout, some, strategy, batch or 1)
        lab.r.unlink(*[lab.key(name, *layout.key_suffix(s)) for s in range(layout.shards)])
        rates.append(StrategyRate(result.label, result.bits_per_second))
    return tuple(rates)


def reference_strategies() -> tuple[StrategyRate, ...]:
    """The rows of :data:`COMPARED` in the stored reference run."""
    ref = BulkLoadReference.load()
    return tuple(
        StrategyRate(row.label, row.bits_per_second)
        for row in (ref.row(strategy, batch) for strategy, batch in COMPARED)
    )


def compare_strategies(lab: Lab, scale: float = 1.0) -> Measurement[tuple[StrategyRate, ...]]:
    """One-by-one, pipelined and local loading timed on the lab when it is a real Redis, else
    the same rows of the reference run; :attr:`Measurement.label` says which."""
    small = BloomLayout(2**17, SEED_002_K, shard_bits=4)
    return reference.live_or_reference(
        lab,
        lambda live: run_strategies(live, scale),
        reference_strategies,
        needs=("real",),
        allocates=guard.budget(string=small.bytes_per_shard, keys=small.shards),
        run_info=BulkLoadReference.load().run,
    )
