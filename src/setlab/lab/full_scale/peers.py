"""Seed 002's filter built by each tool a reader could pick instead, on the same IDs, in one run.

Seed 002 loaded 8 × 10^8 openids into a Bloom filter of 2^17 Redis strings of 2^17 bits (k = 10)
and took about 20 hours. "setlab does it in a minute" means little without the alternatives,
measured the same way, so :func:`measure` runs them one after another on one private Redis, on
the same IDs (:func:`setlab.models.packed_bloom.ids`: ``splitmix64(i)``, 64-bit stand-ins for
hashed openids) and asks each one about the same never-inserted IDs:

- ``setlab``: the packed build and pipelined ``SET`` of every shard
  (:func:`setlab.lab.full_scale.sharded_bloom.run`: its build and load phases; its separate
  hashing pass and its verification are not counted), all 8 × 10^8 IDs;
- ``redisbloom``: ``BF.RESERVE key p n NONSCALING`` at the false-positive rate setlab's layout
  reaches (the module sizes its own array and hashes server-side), then ``BF.MADD`` streamed;
- ``rbloom``: the Rust library in this process (``rbloom.Bloom(n, p)``, ``update`` in blocks):
  build only, nothing reaches Redis;
- ``redis-py SETBIT``: the seed's own method, one ``SETBIT`` per bit through redis-py pipelines;
- ``redis-cli --pipe``: the same ``SETBIT`` commands as a protocol file piped into
  ``redis-cli``, Redis's documented way to mass-insert.

The last two would take hours at full size (that is seed 002's story), so they load a slice of
the IDs and the row says so: ``seconds`` is what the slice took, ``full_seconds`` the linear
scaling to all the IDs (stated as scaled, never as measured), and the slice asks no false-positive
question (a filter that holds a slice of the IDs says nothing about the full one).

Each peer runs in a forked child, so each row's client peak RSS is its own (``ru_maxrss`` of the
child, which starts from the parent's pages: ``parent_rss_at_fork``), and on a private
redis-server of its own, so the server's peak RSS (its ``VmHWM``) is its own too.
``reference/measure_peers_002.py`` stores the run as ``peers-002``; :class:`PeersReference` reads
it back for the chapter sharded-bloom.
"""

from __future__ import annotations

import multiprocessing
import resource
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from setlab.core.progress import Progress
from setlab.core.validate import check_int
from setlab.lab import backend, guard, reference
from setlab.lab.backend import Lab
from setlab.lab.full_scale import mass_insertion, sharded_bloom
from setlab.lab.reference import RunInfo
from setlab.lab.runs.memory import data_memory
from setlab.lab.wire import pipe as resp_pipe
from setlab.models import packed_bloom
from setlab.models.redisbloom import ChainLayout

REFERENCE = "peers-002"
PEERS = ("setlab", "redisbloom", "rbloom", "redis-py SETBIT", "redis-cli --pipe")
#: The peers that load a slice of the IDs (one SETBIT per bit: hours at full size).
SLICED = ("redis-py SETBIT", "redis-cli --pipe")
#: Never-inserted IDs asked of each full filter, and the IDs of the slice.
ABSENT, SLICE = 1_000_000, 1_000_000
#: IDs per block handed to rbloom and to BF.MADD, and items per BF.MADD / BF.MEXISTS command.
_BLOCK, _BATCH = 1 << 22, 1000
#: SETBITs per redis-py pipeline execute.
_PIPELINE = 10_000


@dataclass(frozen=True)
class PeerRow:
    """One tool's run: what it did, how long, and what it cost."""

    peer: str
    how: str  #: what ran, in one line
    ids: int  #: IDs this run loaded (a slice for :data:`SLICED`)
    seconds: float  #: measured wall time for ``ids``
    full_seconds: float  #: at all the IDs: ``seconds`` when ``ids`` is all, else scaled linearly
    client_peak_rss: int  #: bytes, the loading process's peak RSS
    server_peak_rss: int | None  #: bytes, redis-server's VmHWM during the run (None: no Redis)
    used_memory_growth: int | None  #: bytes of Redis's used_memory the loaded filter holds
    fpr: float | None  #: on :data:`ABSENT` never-inserted IDs (None for a slice)
    false_negatives: int | None  #: of a sample of inserted IDs (None where not asked)

    @property
    def scaled(self) -> bool:
        return self.peer in SLICED


def _server_peak(lab: Lab) -> int:
    """The private server's peak RSS so far (``VmHWM``), in bytes."""
    assert lab.server is not None  # measure() refuses a server it did not start
    status = Path(f"/proc/{lab.server.process.pid}/status").read_text()
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/<pid>/status")


def _fresh(lab: Lab) -> Lab:
    """Stop the lab's private server and connect to a new one: each peer's server peak is its
    own, with nothing a previous peer left in the allocator."""
    assert lab.server is not None
    lab.server.stop()
    return backend.connect("peers", backend="live", quiet=True)


def _used_memory(lab: Lab) -> int:
    return data_memory(lab.r.info("memory"))


def _in_child(job: Any, *args: Any) -> dict[str, Any]:
    """Run ``job(*args)`` in a forked child and return its dict with the child's peak RSS."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def target() -> None:
        try:
            out = job(*args)
            out["client_peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            send.send(("ok", out))
        except BaseException:  # the parent raises it, with the child's traceback
            send.send(("error", traceback.format_exc()))

    child = context.Process(target=target)
    child.start()
    send.close()  # the child's copy is the only one left: its death ends the pipe
    try:
        status, value = receive.recv()
    except EOFError:  # it died without a word (a signal, an abort in a native library)
        child.join()
        raise RuntimeError(
            f"{getattr(job, '__name__', job)} died in its child (exit code {child.exitcode})"
        ) from None
    child.join()
    if status != "ok":
        raise RuntimeError(f"{getattr(job, '__name__', job)} failed in its child:\n{value}")
    return value


def _setlab(lab: Lab, ids: int, absent: int, progress: bool) -> dict[str, Any]:
    out = sharded_bloom.run(lab, ids, absent, progress=progress)
    return {
        "how": "packed build (numba, every core) + pipelined SET of each 16 KiB shard",
        "seconds": out["phases_seconds"]["build"] + out["phases_seconds"]["load"],
        "used_memory_growth": out["used_memory_growth"],
        "fpr": out["measured_fpr"],
        "false_negatives": out["false_negatives"],
        "rate": out["model_fpr"],
    }


def _redisbloom(lab: Lab, ids: int, absent: int, rate: float, progress: bool) -> dict[str, Any]:
    layout = ChainLayout(rate, ids, nonscaling=True)
    key = lab.key("peers", "redisbloom")
    allocates = guard.budget(allocated=layout.allocated(ids), key_bytes=len(key))
    lab.check_allocation(allocates, "RedisBloom at seed 002's size")
    before = _used_memory(lab)
    start = time.perf_counter()
    lab.r.execute_command("BF.RESERVE", key, *layout.reserve_args())
    report = Progress(ids, "redisbloom: BF.MADD", progress, unit="IDs")
    for lo in range(0, ids, _BLOCK):
        block = packed_bloom.ids(lo, min(_BLOCK, ids - lo))
        resp_pipe.bf_madd(lab, key, block, _BATCH, allocates=allocates)
        report.update(block.size)
    report.close()
    seconds = time.perf_counter() - start
    growth = _used_memory(lab) - before
    said = resp_pipe.bf_mexists(lab, key, packed_bloom.ids(ids, absent), _BATCH)
    inserted = packed_bloom.ids(0, min(ids, absent))
    missed = int(np.count_nonzero(resp_pipe.bf_mexists(lab, key, inserted, _BATCH) == 0))
    lab.r.unlink(key)
    return {
        "how": f"BF.RESERVE key {rate:.3g} {ids} NONSCALING, then BF.MADD {_BATCH:,} IDs a "
        "command, streamed",
        "seconds": seconds,
        "used_memory_growth": growth,
        "fpr": float(said.mean()),
        "false_negatives": missed,
    }


def _rbloom(ids: int, absent: int, rate: float, progress: bool) -> dict[str, Any]:
    import rbloom

    start = time.perf_counter()
    bloom = rbloom.Bloom(ids, rate)
    report = Progress(ids, "rbloom: update", progress, unit="IDs")
    for lo in range(0, ids, _BLOCK):
        block = packed_bloom.ids(lo, min(_BLOCK, ids - lo))
        bloom.update(block.tolist())
        report.update(block.size)
    report.close()
    seconds = time.perf_counter() - start
    said = sum(x in bloom for x in packed_bloom.ids(ids, absent).tolist())
    missed = sum(x not in bloom for x in packed_bloom.ids(0, min(ids, absent)).tolist())
    return {
        "how": f"rbloom.Bloom({ids}, {rate:.3g}) in this process, update() in blocks of "
        f"{_BLOCK:,} Python ints; nothing sent to Redis",
        "seconds": seconds,
        "used_memory_growth": None,
        "fpr": said / absent,
        "false_negatives": missed,
    }


def _slice_keys(lab: Lab, name: str) -> list[str]:
    layout = sharded_bloom.layout_for(sharded_bloom.SEED_002_IDS)
    return [lab.key(name, *layout.key_suffix(s)) for s in range(layout.shards)]


def _redis_py(lab: Lab, count: int, progress: bool) -> dict[str, Any]:
    layout = sharded_bloom.layout_for(sharded_bloom.SEED_002_IDS)
    keys = _slice_keys(lab, "redispy")
    lab.check_allocation(
        guard.budget(string=layout.bytes_per_shard, keys=layout.shards), "redis-py SETBIT slice"
    )
    before = _used_memory(lab)
    report = Progress(count * layout.k, "redis-py: SETBIT", progress, unit="bits")
    start = time.perf_counter()
    pipe = lab.r.pipeline(transaction=False)
    queued = 0
    for lo in range(0, count, _BLOCK):
        shard, offsets = layout.locate(packed_bloom.ids(lo, min(_BLOCK, count - lo)))
        for s, row in zip(shard.tolist(), offsets.tolist(), strict=True):
            for offset in row:
                pipe.setbit(keys[s], offset, 1)
            queued += layout.k
            if queued >= _PIPELINE:
                pipe.execute()
                report.update(queued)
                queued = 0
    pipe.execute()
    report.update(queued)
    report.close()
    seconds = time.perf_counter() - start
    growth = _used_memory(lab) - before
    lab.cleanup()
    return {
        "how": f"one SETBIT per bit, redis-py pipelines of {_PIPELINE:,} (the seed's method)",
        "seconds": seconds,
        "used_memory_growth": growth,
        "fpr": None,
        "false_negatives": None,
    }


def _redis_cli(lab: Lab, count: int, progress: bool) -> dict[str, Any]:
    layout = sharded_bloom.layout_for(sharded_bloom.SEED_002_IDS)
    keys = _slice_keys(lab, "rediscli")
    lab.check_allocation(
        guard.budget(string=layout.bytes_per_shard, keys=layout.shards), "redis-cli SETBIT slice"
    )
    with tempfile.TemporaryDirectory(prefix="setlab-peers-") as folder:
        path = Path(folder) / "setbit.resp"
        t0 = time.perf_counter()
        with path.open("wb") as sink:
            resp_pipe.write_protocol(
                resp_pipe.setbit_chunks(keys, layout, packed_bloom.ids(0, count)), sink.write
            )
        generate = time.perf_counter() - t0
        before = _used_memory(lab)
        seconds, replies, errors = mass_insertion.redis_cli_pipe(lab, path)
    if errors or replies != count * layout.k:
        raise RuntimeError(f"redis-cli: {errors} errors, {replies} of {count * layout.k} replies")
    growth = _used_memory(lab) - before
    lab.cleanup()
    return {
        "how": f"the same SETBITs as a protocol file ({generate:.1f} s to write, not counted) "
        "piped into redis-cli --pipe",
        "seconds": seconds,
        "used_memory_growth": growth,
        "fpr": None,
        "false_negatives": None,
    }


def measure(
    lab: Lab,
    ids: int = sharded_bloom.SEED_002_IDS,
    slice_ids: int = SLICE,
    absent: int = ABSENT,
    progress: bool = True,
) -> tuple[dict[str, Any], Lab]:
    """Every peer of :data:`PEERS` on ``ids`` IDs (the sliced ones on ``slice_ids``), one after
    another, each on a fresh private Redis (the first is ``lab``'s); returns ``{"rows": [...],
    "facts": {...}}`` and the lab of the last server (still running, for the stored label)."""
    if not lab.is_real or lab.server is None:
        raise ValueError(
            "the peers run needs the private redis-server setlab starts (unset REDIS_URL): it "
            "restarts it between peers and reads its peak memory from /proc"
        )
    ids = check_int("ids", ids, 1, 2**40)
    slice_ids = check_int("slice_ids", slice_ids, 1, ids)
    absent = check_int("absent", absent, 1, ids)
    rows: list[PeerRow] = []
    rate = 0.0
    parent_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    for n, peer in enumerate(PEERS):
        lab = _fresh(lab) if n else lab
        lab.cleanup()
        if peer == "setlab":
            out = _in_child(_setlab, lab, ids, absent, progress)
            rate = float(out["rate"])
        elif peer == "redisbloom":
            out = _in_child(_redisbloom, lab, ids, absent, rate, progress)
        elif peer == "rbloom":
            out = _in_child(_rbloom, ids, absent, rate, progress)
        elif peer == "redis-py SETBIT":
            out = _in_child(_redis_py, lab, slice_ids, progress)
        else:
            out = _in_child(_redis_cli, lab, slice_ids, progress)
        count = slice_ids if peer in SLICED else ids
        seconds = float(out["seconds"])
        row = PeerRow(
            peer=peer, how=out["how"], ids=count, seconds=seconds,
            full_seconds=seconds * ids / count, client_peak_rss=int(out["client_peak_rss"]),
            server_peak_rss=None if peer == "rbloom" else _server_peak(lab),
            used_memory_growth=out["used_memory_growth"], fpr=out["fpr"],
            false_negatives=out["false_negatives"],
        )  # fmt: skip
        rows.append(row)
    lab.cleanup()
    facts = {
        "ids": ids, "slice_ids": slice_ids, "absent": absent, "rate": rate,
        "parent_rss_at_fork": parent_rss,
    }  # fmt: skip
    return {"rows": [asdict(r) for r in rows], "facts": facts}, lab


@dataclass(frozen=True)
class PeersReference:
    """The stored run (reference file ``peers-002``), typed for the chapter."""

    run: RunInfo
    ids: int
    slice_ids: int
    absent: int
    rate: float
    parent_rss_at_fork: int  #: bytes: every child's RSS starts from the parent's pages
    rows: tuple[PeerRow, ...]

    def row(self, peer: str) -> PeerRow:
        return next(r for r in self.rows if r.peer == peer)

    @classmethod
    def load(cls) -> PeersReference:
        doc = reference.load(REFERENCE)
        d = doc.data
        return cls(
            run=doc.run, ids=int(d["ids"]), slice_ids=int(d["slice_ids"]),
            absent=int(d["absent"]), rate=float(d["rate"]),
            parent_rss_at_fork=int(d["parent_rss_at_fork"]),
            rows=tuple(PeerRow(**r) for r in d["rows"]),
        )  # fmt: skip
