"""Seed 002's load at full scale, really run: 8 × 10^8 IDs into 2^17 Redis keys of 2^17 bits.

Seed 002 (§8) set 8 × 10^8 openids × 10 hashes into 2^17 strings of 2^17 bits and took about 20
hours. :func:`run` does the same work on one real Redis: it hashes the IDs with the book's layout
(:class:`setlab.models.bloom_sim.BloomLayout`), builds every shard in one packed bit array
(:mod:`setlab.models.packed_bloom`, 2 GiB at full scale), writes each shard whole with a pipelined
``SET`` (:class:`setlab.lab.wire.loading.Wire`), and then asks Redis: inserted IDs must all answer
yes (``BITFIELD_RO key GET u1 o1 … GET u1 ok``, pipelined), and IDs never inserted give the measured
false-positive rate, compared with the model's (:func:`setlab.models.bloom.sharded_fpr`, which
averages over the binomial spread of per-key loads). It also reports the loader's peak RSS and what
Redis's ``used_memory`` and ``MEMORY USAGE`` say against the memory model
(:func:`setlab.models.redis_memory.string_cost`, for both jemalloc builds).

``reference/measure_full_scale_002.py`` runs it and stores the result as the reference file
``full-scale-002``; :class:`FullScaleReference` reads it back for the chapter sharded-bloom.
"""

from __future__ import annotations

import math
import resource
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.core.progress import Progress
from setlab.core.validate import check_int
from setlab.lab import guard, reference
from setlab.lab.backend import Lab
from setlab.lab.reference import RunInfo
from setlab.lab.runs.bulk_load import FULL_LAYOUT, PER_CONTAINER
from setlab.lab.runs.memory import data_memory, lab_allocator
from setlab.lab.wire.encode import encode, key_table
from setlab.lab.wire.loading import Wire
from setlab.models import packed_bloom
from setlab.models.allocator import QUANTUM, size_class
from setlab.models.bloom_sim import BloomLayout
from setlab.models.redis_memory import POINTER_BYTES, dict_buckets, string_cost

#: The reference file's name.
REFERENCE = "full-scale-002"
#: Seed 002's load: 8 × 10^8 IDs.
SEED_002_IDS = 800_000_000
#: Seed 002's reported load time: "about 20 hours" (seconds).
SEED_002_SECONDS = 20 * 3600.0
#: IDs per build step (one progress update each: one pass of the compiled kernel) and shards
#: per pipelined write.
_BUILD_STEP = packed_bloom.NUMBA_CHUNK
_SHARDS_PER_SEND = 64
#: Items per pipelined verification round trip.
_VERIFY_BATCH = 20_000
_GET_U1 = b"$3\r\nGET\r\n$2\r\nu1\r\n"


def layout_for(ids: int) -> BloomLayout:
    """Seed 002's layout (2^17-bit keys, k = 10) with as many keys as keep seed 002's load of
    about 6,104 IDs per key: the full layout (2^17 keys) at 8 × 10^8 IDs, 2^7 keys at 10^6."""
    ids = check_int("ids", ids, 1)
    shard_bits = min(FULL_LAYOUT.shard_bits, max(0, round(math.log2(ids / PER_CONTAINER))))
    return BloomLayout(FULL_LAYOUT.bits_per_shard, FULL_LAYOUT.k, shard_bits, FULL_LAYOUT.seed)


def _build(
    layout: BloomLayout,
    ids: int,
    kernel: packed_bloom.Kernel,
    progress: bool,
    phases: dict[str, float],
) -> tuple[np.ndarray, int]:
    """Hash every ID alone (timed as ``hash``), then build the packed filter (``build``: the
    kernel hashes again as it sets the bits). Returns the array and the hash pass's checksum."""
    packed = np.zeros(packed_bloom.packed_bytes(layout), dtype=np.uint8)
    checksum = 0
    t0 = time.perf_counter()
    report = Progress(ids, "hash IDs", progress, unit="IDs")
    for lo in range(0, ids, _BUILD_STEP):
        count = min(_BUILD_STEP, ids - lo)
        checksum ^= packed_bloom.build_packed(layout, packed, lo, count, kernel, write=False)
        report.update(count)
    report.close()
    t1 = time.perf_counter()
    report = Progress(ids, "build bits", progress, unit="IDs")
    for lo in range(0, ids, _BUILD_STEP):
        count = min(_BUILD_STEP, ids - lo)
        packed_bloom.build_packed(layout, packed, lo, count, kernel)
        report.update(count)
    report.close()
    phases["hash"], phases["build"] = t1 - t0, time.perf_counter() - t1
    return packed, checksum


def _write_shards(lab: Lab, keys: list[bytes], packed: np.ndarray, m: int, progress: bool) -> int:
    """SET every shard whole, ``_SHARDS_PER_SEND`` a round trip; returns the round trips."""
    rows = packed.reshape(len(keys), m // 8)
    report = Progress(len(keys), "SET shards", progress, unit="keys")
    wire = Wire(lab)
    try:
        for lo in range(0, len(keys), _SHARDS_PER_SEND):
            parts = []
            for s in range(lo, min(len(keys), lo + _SHARDS_PER_SEND)):
                value = rows[s].tobytes()
                parts.append(
                    b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n"
                    % (len(keys[s]), keys[s], len(value), value)
                )
            wire.send(b"".join(parts))
            wire.expect(5 * len(parts), len(parts))  # +OK\r\n each
            report.update(len(parts))
        return wire.round_trips
    finally:
        wire.close()
        report.close()


def _bitfield_requests(table: np.ndarray, shard: np.ndarray, offsets: np.ndarray) -> bytes:
    """``BITFIELD_RO key GET u1 o1 … GET u1 ok`` per item, RESP-encoded with numpy.

    ``table``: :func:`setlab.lab.wire.encode.key_table` rows prefixed with the command header;
    ``shard``: each item's row; ``offsets``: shape ``(n, k)``."""
    n, k = offsets.shape
    body, bounds, _ = encode(offsets.ravel(), _GET_U1, b"", in_order=True)
    head = table.shape[1]
    starts = bounds[:-1:k] + head * np.arange(n)  # where each item's header goes
    out = np.empty(len(body) + n * head, dtype=np.uint8)
    is_body = np.ones(out.size, dtype=bool)
    where = starts[:, None] + np.arange(head)
    is_body[where] = False
    out[is_body] = np.frombuffer(body, dtype=np.uint8)
    out[where] = table[shard]
    return out.tobytes()


def query_redis(lab: Lab, name: str, layout: BloomLayout, items: np.ndarray) -> np.ndarray:
    """Ask the filter ``name`` in Redis about each item: ``True`` where all ``k`` bits are set.

    Pipelined ``BITFIELD_RO`` (one command per item, ``_VERIFY_BATCH`` items a round trip) over
    a raw :class:`Wire`; every reply is ``*k`` then ``k`` integers ``:0``/``:1``."""
    keys = [lab.key(name, *layout.key_suffix(s)) for s in range(layout.shards)]
    header = b"*%d\r\n$11\r\nBITFIELD_RO\r\n" % (2 + 3 * layout.k)
    rows = key_table(keys)
    table = np.hstack([np.tile(np.frombuffer(header, np.uint8), (len(keys), 1)), rows])
    reply_size = len(b"*%d\r\n" % layout.k) + 4 * layout.k
    answers = np.empty(items.size, dtype=bool)
    wire = Wire(lab)
    if not wire.raw:
        wire.close()
        raise ValueError("query_redis needs a plain TCP connection to a real Redis")

    def receive(lo: int, n: int) -> None:
        buf = bytearray(n * reply_size)
        view, got = memoryview(buf), 0
        while got < len(buf):
            got += wire.sock.recv_into(view[got:], len(buf) - got)  # type: ignore[union-attr]
        replies = np.frombuffer(buf, dtype=np.uint8).reshape(n, reply_size)
        digits = replies[:, reply_size - 4 * layout.k + 1 :: 4]
        if not np.isin(digits, (ord("0"), ord("1"))).all():
            raise RuntimeError(f"unexpected BITFIELD_RO reply: {bytes(replies[0])!r}")
        answers[lo : lo + n] = (digits == ord("1")).all(axis=1)

    # one batch in flight while the next is encoded: Redis works while Python encodes
    pending: tuple[int, int] | None = None
    try:
        for lo in range(0, items.size, _VERIFY_BATCH):
            part = items[lo : lo + _VERIFY_BATCH]
            shard, offsets = layout.locate(part)
            wire.send(_bitfield_requests(table, shard.astype(np.int64), offsets))
            if pending:
                receive(*pending)
            pending = (lo, part.size)
        if pending:
            receive(*pending)
    finally:
        wire.close()
    return answers


def fpr_interval(p: float, queries: int, z: float = 3.29) -> tuple[float, float]:
    """The range of measured rates (fractions) within ``z`` binomial standard deviations of the
    model's rate ``p`` over ``queries`` independent queries (z = 3.29: two-sided 99.9 %)."""
    sd = math.sqrt(p * (1 - p) / queries)
    return max(0.0, p - z * sd), p + z * sd


def memory_model(layout: BloomLayout, key: str, allocator: str) -> dict[str, int]:
    """What the filter's keys cost on Redis 7.0 with ``allocator``'s jemalloc build (bytes):
    ``memory_usage`` of one shard key (``MEMORY USAGE``), ``per_key`` allocated for it, and
    ``used_memory`` growth for all shards (keys + the keyspace's bucket table)."""
    cost = string_cost(bytes(layout.bytes_per_shard), key, allocator)
    table = size_class(dict_buckets(layout.shards) * POINTER_BYTES, allocator)
    return {
        "memory_usage": int(cost.memory_usage or 0),
        "per_key": cost.allocated,
        "used_memory_growth": layout.shards * cost.allocated + table,
        "value_allocation": cost.allocated_parts.get("value (sds)", 0),
    }


def run(
    lab: Lab,
    ids: int = SEED_002_IDS,
    queries: int = 1_000_000,
    layout: BloomLayout | None = None,
    kernel: packed_bloom.Kernel = "numba",
    name: str = "bf",
    progress: bool = True,
    seed: int = 2,
) -> dict[str, Any]:
    """Hash, build, load and verify ``ids`` IDs into ``layout`` (default :func:`layout_for`:
    seed 002's at 8 × 10^8) on the lab's real Redis; returns the figures (seconds, bytes,
    rates) as a JSON-ready dict.

    ``queries`` inserted IDs (a seeded sample) and as many never-inserted IDs are asked. The
    keys are deleted at the end. Timings are wall-clock seconds on this machine.
    """
    if not lab.is_real:
        raise ValueError("the full-scale run needs a real Redis, not the embedded fakeredis")
    ids = check_int("ids", ids, 1, 2**40)
    layout = layout or layout_for(ids)
    queries = check_int("queries", queries, 1, ids)
    first_key = lab.key(name, *layout.key_suffix(0))
    lab.check_allocation(
        guard.budget(string=layout.bytes_per_shard, keys=layout.shards, key_bytes=len(first_key)),
        "seed 002 at full scale",
    )
    lab.cleanup()
    used_before = data_memory(lab.r.info("memory"))
    phases: dict[str, float] = {}
    start = time.perf_counter()
    packed, checksum = _build(layout, ids, kernel, progress, phases)
    keys = [lab.key(name, *layout.key_suffix(s)).encode() for s in range(layout.shards)]
    try:  # the shards are deleted at once, also when the run fails
        t0 = time.perf_counter()
        trips = _write_shards(lab, keys, packed, layout.bits_per_shard, progress)
        phases["load"] = time.perf_counter() - t0
        rng = np.random.default_rng(seed)
        present = packed_bloom.splitmix64(rng.choice(ids, size=queries, replace=False))
        absent = packed_bloom.ids(ids, queries)
        t0 = time.perf_counter()
        said_present = query_redis(lab, name, layout, present)
        said_absent = query_redis(lab, name, layout, absent)
        phases["verify"] = time.perf_counter() - t0
        wall = time.perf_counter() - start
        local_absent = packed_bloom.contains_packed(layout, packed, absent)
        fill = float(np.unpackbits(packed[: min(packed.size, 2**24)]).mean())
        del packed
        peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        used_after = data_memory(lab.r.info("memory"))
        sample = [keys[i].decode() for i in np.linspace(0, layout.shards - 1, 8).astype(int)]
        usage = [int(lab.r.memory_usage(k, samples=0)) for k in sample]
    finally:
        lab.cleanup()
    p_model = layout.expected_fpr(ids)
    low, high = fpr_interval(p_model, queries)
    false_positives = int(np.count_nonzero(said_absent))
    server_build = lab_allocator(lab)
    models = {
        build: memory_model(layout, sample[0], build) for build in sorted(QUANTUM)
    }  # both jemalloc builds, for comparison
    return {
        "ids": ids,
        "id_kind": "splitmix64(i) for i < ids: 64-bit stand-ins for hashed openids",
        "layout": {
            "shards": layout.shards,
            "bits_per_shard": layout.bits_per_shard,
            "k": layout.k,
            "seed": layout.seed,
        },
        "kernel": kernel,
        "payload_bytes": layout.total_bytes,
        "phases_seconds": phases,
        "wall_seconds": wall,
        "load_round_trips": trips,
        "peak_rss_bytes": peak_rss,
        "bits_per_second": ids * layout.k / (phases["build"] + phases["load"]),
        "fill_ratio_sample": fill,
        "queries": queries,
        "false_negatives": int(queries - np.count_nonzero(said_present)),
        "false_positives": false_positives,
        "measured_fpr": false_positives / queries,
        "model_fpr": p_model,
        "model_fpr_interval": [low, high],
        "redis_matches_local_build": bool((local_absent == said_absent).all()),
        "hash_checksum": checksum,
        "used_memory_before": used_before,
        "used_memory_after": used_after,
        "used_memory_growth": used_after - used_before,
        "memory_usage_sample": dict(zip(sample, usage, strict=True)),
        "server_build": server_build,
        "memory_model": models,
        "seed_002_seconds": SEED_002_SECONDS,
    }


# -- the stored run, typed ----------------------------------------------------------------------


@dataclass(frozen=True)
class FullScaleReference:
    """The stored full-scale run (reference file ``full-scale-002``), typed for the chapter."""

    run: RunInfo
    ids: int
    shards: int
    bits_per_shard: int
    k: int
    payload_bytes: int
    phases: dict[str, float]  #: seconds: hash, build, load, verify
    wall_seconds: float
    peak_rss_bytes: int
    queries: int
    false_negatives: int
    false_positives: int
    model_fpr: float
    model_fpr_interval: tuple[float, float]
    used_memory_growth: int
    memory_usage: int  #: MEMORY USAGE of a sample shard key
    model_memory_usage: int  #: the model's, for the server's build
    model_used_memory_growth: int
    server_build: str
    seed_002_seconds: float
    #: the least a build could take on the measuring machine
    #: (:func:`setlab.lab.full_scale.machine_limits.build_floor`), and the limits it was computed
    #: from
    build_floor_seconds: float
    machine_limits: dict[str, float]

    @property
    def measured_fpr(self) -> float:
        return self.false_positives / self.queries

    @property
    def speedup(self) -> float:
        """Seed 002's 20 hours over this run's end-to-end wall time."""
        return self.seed_002_seconds / self.wall_seconds

    @classmethod
    def load(cls) -> FullScaleReference:
        """Read the reference file (cached by :func:`setlab.lab.reference.load`)."""
        doc = reference.load(REFERENCE)
        d = doc.data
        model = d["memory_model"][d["server_build"]]
        return cls(
            run=doc.run,
            ids=int(d["ids"]),
            shards=int(d["layout"]["shards"]),
            bits_per_shard=int(d["layout"]["bits_per_shard"]),
            k=int(d["layout"]["k"]),
            payload_bytes=int(d["payload_bytes"]),
            phases={k: float(v) for k, v in d["phases_seconds"].items()},
            wall_seconds=float(d["wall_seconds"]),
            peak_rss_bytes=int(d["peak_rss_bytes"]),
            queries=int(d["queries"]),
            false_negatives=int(d["false_negatives"]),
            false_positives=int(d["false_positives"]),
            model_fpr=float(d["model_fpr"]),
            model_fpr_interval=(
                float(d["model_fpr_interval"][0]),
                float(d["model_fpr_interval"][1]),
            ),
            used_memory_growth=int(d["used_memory_growth"]),
            memory_usage=int(next(iter(d["memory_usage_sample"].values()))),
            model_memory_usage=int(model["memory_usage"]),
            model_used_memory_growth=int(model["used_memory_growth"]),
            server_build=str(d["server_build"]),
            seed_002_seconds=float(d["seed_002_seconds"]),
            build_floor_seconds=float(d["build_floor_seconds"]),
            machine_limits={k: float(v) for k, v in d["machine_limits"].items()},
        )
