"""The mass-insertion ceiling: ``redis-cli --pipe`` beside setlab's streamed loader, in one run.

Redis's documentation on mass insertion (https://redis.io/docs/latest/develop/use/patterns/
bulk-loading/) recommends generating the raw protocol into a file and piping it into
``redis-cli --pipe``. :func:`measure` does exactly that on a real Redis for two kinds of command
and times, on the same server and for the very same bytes:

- ``SETBIT``: seed 002's layout (2^17-bit shards, k = 10; 256 shards so the run fits anywhere),
  one ``SETBIT key offset 1`` per bit;
- ``BF.MADD``: RedisBloom, 1,000 items per command, into a ``BF.RESERVE``'d filter at 1 %.

For each kind and each repeat it writes the protocol file (``generate``: hashing and encoding,
timed but not part of redis-cli's time), runs ``redis-cli --pipe`` on it, loads the same
commands with :mod:`setlab.lab.wire.pipe` (``setlab``: hashing and encoding included), and sends
the file's bytes through setlab's pump (``setlab-pipe``: the protocol read into memory before the
clock starts, as redis-cli gets it ready-made), checking that all three leave the same data. The
order of the three reverses between repeats.
``reference/measure_mass_insertion.py`` prints it and stores it as the reference file
``mass-insertion``; :class:`MassInsertionReference` reads it back.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from setlab.core.progress import Progress
from setlab.lab import guard, reference
from setlab.lab.backend import Lab
from setlab.lab.reference import RunInfo
from setlab.lab.wire import encode as resp_encode
from setlab.lab.wire import pipe as resp_pipe
from setlab.models.bloom_sim import BloomLayout
from setlab.models.redisbloom import ChainLayout

REFERENCE = "mass-insertion"
#: Seed 002's shard size and hash count; 256 shards keep the run at 4 MiB of bitmaps.
LAYOUT = BloomLayout(2**17, 10, shard_bits=8)
#: BF.MADD: items per command, the filter's error rate, and its capacity over the items loaded.
BF_BATCH, BF_ERROR = 1000, 0.01
KINDS = ("SETBIT", "BF.MADD")


@dataclass(frozen=True)
class PipeRow:
    """One kind of command, one repeat: the same commands through redis-cli and setlab."""

    kind: str
    repeat: int
    commands: int
    writes: int  #: bit writes (SETBIT) or items added (BF.MADD)
    protocol_bytes: int
    generate_seconds: float  #: hashing + encoding + writing the protocol file
    redis_cli_seconds: float  #: ``redis-cli --pipe < file``, process start to exit
    setlab_seconds: float  #: setlab's streamed load, hashing and encoding included
    setlab_pipe_seconds: float  #: setlab's pump sending the protocol file's bytes (read first)
    #: CPU seconds of Redis's main thread during each load (INFO cpu, user + sys), by client:
    #: ``redis-cli``, ``setlab`` and ``setlab-pipe``
    redis_cpu_seconds: dict[str, float]

    @property
    def ratio(self) -> float:
        """Speed of setlab's pump over redis-cli's, both sending the generated protocol
        (> 1: setlab is faster)."""
        return self.redis_cli_seconds / self.setlab_pipe_seconds

    @property
    def ratio_with_generation(self) -> float:
        """Speed of setlab's loader (hashing, encoding, sending) over generating the file and
        ``redis-cli --pipe``: both from the items to the loaded data."""
        return (self.generate_seconds + self.redis_cli_seconds) / self.setlab_seconds

    @property
    def ratio_setlab_encoding(self) -> float:
        """setlab's loader, encoding included, over redis-cli with the file already written."""
        return self.redis_cli_seconds / self.setlab_seconds

    @property
    def redis_busy(self) -> dict[str, float]:
        """Share of each load's wall time Redis's main thread spent on the CPU (1.0: the
        server, not the client, set the pace)."""
        walls = {
            "redis-cli": self.redis_cli_seconds,
            "setlab": self.setlab_seconds,
            "setlab-pipe": self.setlab_pipe_seconds,
        }
        return {who: self.redis_cpu_seconds[who] / wall for who, wall in walls.items()}

    @property
    def setlab_rate(self) -> float:
        """Writes per second through setlab."""
        return self.writes / self.setlab_seconds

    @property
    def redis_cli_rate(self) -> float:
        """Writes per second through ``redis-cli --pipe`` (file already written)."""
        return self.writes / self.redis_cli_seconds


@dataclass(frozen=True)
class MassInsertionReference:
    """The stored run (reference file ``mass-insertion``), typed."""

    run: RunInfo
    rows: tuple[PipeRow, ...]
    redis_cli: str  #: ``redis-cli --version``

    @classmethod
    def load(cls) -> MassInsertionReference:
        """Read the reference file (cached by :func:`setlab.lab.reference.load`)."""
        doc = reference.load(REFERENCE)
        rows = tuple(PipeRow(**r) for r in doc.data["rows"])
        return cls(doc.run, rows, doc.data["redis_cli"])

    def of(self, kind: str) -> tuple[PipeRow, ...]:
        """The repeats of one kind of command, in run order."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        return tuple(r for r in self.rows if r.kind == kind)

    def final(self, kind: str) -> PipeRow:
        """The last repeat of one kind (the run the issue asks to quote)."""
        return self.of(kind)[-1]


def redis_cli_pipe(lab: Lab, path: Path) -> tuple[float, int, int]:
    """Seconds, replies and errors of ``redis-cli --pipe < path`` on the lab's server."""
    kwargs = lab.r.connection_pool.connection_kwargs
    args = [shutil.which("redis-cli") or "redis-cli", "-h", str(kwargs["host"])]
    args += ["-p", str(kwargs["port"]), "-n", str(int(kwargs.get("db") or 0)), "--pipe"]
    with path.open("rb") as stdin:
        t0 = time.perf_counter()
        done = subprocess.run(args, stdin=stdin, capture_output=True, text=True, timeout=3600)
        seconds = time.perf_counter() - t0
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode or not last.startswith("errors:"):
        raise RuntimeError(f"redis-cli --pipe failed: {done.stdout[-300:]} {done.stderr[-300:]}")
    errors, replies = (int(part.split(":")[1]) for part in last.split(","))
    return seconds, replies, errors


def _main_thread_cpu(lab: Lab) -> float:
    """CPU seconds Redis's main thread has used so far (``INFO cpu``, user + sys)."""
    cpu = lab.r.info("cpu")
    return float(cpu["used_cpu_user_main_thread"]) + float(cpu["used_cpu_sys_main_thread"])


def _setbit_digest(lab: Lab, keys: list[str]) -> str:
    """SHA-256 of every shard's bytes, in key order: equal digests, equal bits."""
    digest = hashlib.sha256()
    for key in keys:
        digest.update(lab.r.get(key) or b"")
    return digest.hexdigest()


def _bf_state(lab: Lab, key: str, probe: np.ndarray) -> tuple[Any, ...]:
    """BF.INFO and the answers for ``probe``: equal states, equal filters for a reader."""
    info = lab.r.execute_command("BF.INFO", key)
    answers = lab.r.execute_command("BF.MEXISTS", key, *probe.tolist())
    return tuple(info), tuple(int(a) for a in answers)


def _one_kind(lab: Lab, kind: str, items: np.ndarray, repeat: int, folder: Path) -> PipeRow:
    path = folder / f"{kind.lower()}.resp"
    if kind == "SETBIT":
        keys = [lab.key("setbit", *LAYOUT.key_suffix(s)) for s in range(LAYOUT.shards)]

        def chunks():
            return resp_pipe.setbit_chunks(keys, LAYOUT, items)

        def prepare() -> None:
            lab.cleanup()

        def run() -> None:
            resp_pipe.load_setbits(lab, "setbit", LAYOUT, items)

        def state() -> Any:
            return _setbit_digest(lab, keys)

        writes = items.size * LAYOUT.k
        allocates = guard.budget(string=LAYOUT.bytes_per_shard, keys=LAYOUT.shards)
    else:
        key = lab.key("bf")
        capacity = items.size

        def chunks():
            return resp_pipe.multi_item_chunks(b"BF.MADD", key, items, BF_BATCH)

        def prepare() -> None:
            lab.cleanup()
            lab.r.execute_command("BF.RESERVE", key, BF_ERROR, capacity)

        allocates = guard.budget(allocated=ChainLayout(BF_ERROR, capacity).allocated(items.size))

        def run() -> None:
            resp_pipe.bf_madd(lab, key, items, BF_BATCH, allocates=allocates)

        def state() -> Any:
            return _bf_state(lab, key, items[:: max(1, items.size // 1000)])

        writes = items.size
    lab.check_allocation(allocates, f"mass insertion ({kind})")
    t0 = time.perf_counter()
    with path.open("wb") as sink:
        size, lines = resp_pipe.write_protocol(chunks(), sink.write)
    generate = time.perf_counter() - t0
    commands = writes if kind == "SETBIT" else -(-items.size // BF_BATCH)
    timings, states, cpu = {}, {}, {}
    runs = ("redis-cli", "setlab", "setlab-pipe")
    for who in runs if repeat % 2 == 0 else runs[::-1]:
        prepare()
        cpu_before = _main_thread_cpu(lab)
        if who == "redis-cli":
            seconds, replies, errors = redis_cli_pipe(lab, path)
            if errors or replies != commands:
                raise RuntimeError(f"redis-cli: {errors} errors, {replies} of {commands} replies")
        elif who == "setlab":
            t0 = time.perf_counter()
            run()
            seconds = time.perf_counter() - t0
        else:
            data = path.read_bytes()
            t0 = time.perf_counter()
            resp_pipe.pump(lab, [(data, commands, lines)], lines)
            seconds = time.perf_counter() - t0
            del data
        cpu[who] = _main_thread_cpu(lab) - cpu_before
        timings[who], states[who] = seconds, state()
    path.unlink()
    lab.cleanup()
    if not states["redis-cli"] == states["setlab"] == states["setlab-pipe"]:
        raise RuntimeError(f"{kind}: redis-cli and setlab left different data")
    return PipeRow(
        kind, repeat, commands, writes, size, generate, timings["redis-cli"], timings["setlab"],
        timings["setlab-pipe"], cpu,
    )  # fmt: skip


def measure(
    lab: Lab,
    setbit_items: int = 1_000_000,
    bf_items: int = 10_000_000,
    repeat: int = 3,
    seed: int = 2,
    progress: bool = True,
) -> dict[str, Any]:
    """Run both kinds ``repeat`` times on the lab's real Redis (RedisBloom needed for BF.MADD);
    returns ``{"rows": [...], "facts": {...}}`` for :func:`setlab.lab.reference.save`.

    ``setbit_items`` items make ``× 10`` SETBITs; ``bf_items`` items go into BF.MADD. Items are
    seeded random 63-bit integers. The protocol files go to a temporary folder.
    """
    if not lab.is_real or shutil.which("redis-cli") is None:
        raise ValueError("the mass-insertion benchmark needs a real Redis and redis-cli")
    resp_encode.encode(np.arange(3, dtype=np.uint64), b"", b"")  # compile before timing
    rng = np.random.default_rng(seed)
    setbit = rng.integers(0, 2**63, size=setbit_items, dtype=np.uint64)
    bf = rng.integers(0, 2**63, size=bf_items, dtype=np.uint64)
    kinds = KINDS if lab.has_redisbloom else KINDS[:1]
    report = Progress(repeat * len(kinds), "mass insertion", progress, unit="runs")
    rows = []
    with tempfile.TemporaryDirectory(prefix="setlab-pipe-") as folder:
        for i in range(repeat):
            for kind in kinds:
                row = _one_kind(lab, kind, setbit if kind == "SETBIT" else bf, i, Path(folder))
                rows.append(row)
                report.update(1)
    report.close()
    version = subprocess.run(["redis-cli", "--version"], capture_output=True, text=True).stdout
    facts = {
        "redis_cli": version.strip(),
        "setbit_layout": {
            "bits_per_shard": LAYOUT.bits_per_shard,
            "k": LAYOUT.k,
            "shards": LAYOUT.shards,
        },
        "bf": {"batch": BF_BATCH, "error_rate": BF_ERROR, "capacity": bf_items},
        "protocol_file": "written to a temporary folder (page cache) before redis-cli starts",
    }
    return {"rows": [r.__dict__ for r in rows], "facts": facts}
