"""Bulk-loading a Bloom filter into Redis: six ways to set hundreds of millions of bits, timed.

Seed 002 (§8) loaded 8 × 10^8 openids × 10 hashes = 8 × 10^9 bit writes, says pipelining was
"50× faster than MULTI", and that the pipelined load took about 20 hours. This module loads the
same items into the same :class:`setlab.models.bloom_sim.BloomLayout` in each of these ways, so
their times can be compared and their results checked byte for byte:

``one-by-one``
    ``SETBIT`` per bit, waiting for each reply: one network round trip per bit.
``multi-roundtrip``
    ``MULTI``, then each ``SETBIT`` sent and its ``+QUEUED`` read before the next, then ``EXEC``:
    what phpredis does in its default ``Redis::MULTI`` mode. Still a round trip per bit.
``multi-pipelined``
    ``MULTI`` + ``batch`` SETBITs + ``EXEC`` written at once: one round trip per batch.
``pipeline``
    ``batch`` SETBITs written at once, no transaction (phpredis ``Redis::PIPELINE``).
``bitfield``
    the bits sorted by key, then one ``BITFIELD key SET u1 o1 1 SET u1 o2 1 …`` per key per batch:
    many bits per command.
``local``
    the bitmaps built in numpy (:class:`setlab.models.bloom_sim.BloomSimulator`'s bit order) and
    each shard written whole with one ``SET``.

Commands are encoded to RESP by a vectorised numpy encoder, so that the Python client is not
what is measured, and sent over a plain socket to a real Redis (through redis-py's connection on
fakeredis or on a server that needs a password: same bytes, slower).

The round-trip model: a mode that waits for a reply after every ``b`` bits costs about
``RTT / b + c`` per bit, ``c`` being the per-bit cost of encoding, sending and executing a
pipelined command. The ratio of a round-trip-per-bit mode to a pipelined one is therefore
``(RTT + c) / (RTT / b + c)``: it grows with the network's round-trip time, which is why the
same comparison gives different ratios on loopback, in a data centre and across regions
(:func:`speedup_from_rtt`, :func:`rtt_for_speedup`).

The benchmark of seed 002's load (every strategy on one server, with ``redis-benchmark`` as the
ceiling) and its stored reference run are in :mod:`setlab.lab.runs.bulk_load`.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import redis

from setlab.core.progress import Progress
from setlab.core.validate import check_int, check_items
from setlab.lab import guard
from setlab.lab.backend import SOCKET_TIMEOUT_S
from setlab.lab.errors import translate
from setlab.lab.wire.encode import encode, key_table
from setlab.models.bloom_sim import BloomLayout

if TYPE_CHECKING:
    from setlab.lab.backend import Lab

STRATEGIES = ("one-by-one", "multi-roundtrip", "multi-pipelined", "pipeline", "bitfield", "local")
_SETBIT = b"*4\r\n$6\r\nSETBIT\r\n"
_ONE = b"$1\r\n1\r\n"
_SET_U1 = b"$3\r\nSET\r\n$2\r\nu1\r\n"
_MULTI = b"*1\r\n$5\r\nMULTI\r\n"
_EXEC = b"*1\r\n$4\r\nEXEC\r\n"


# -- the wire -------------------------------------------------------------------------------------


class Wire:
    """Pre-encoded RESP out, replies counted in: a raw socket to a real Redis, else redis-py.

    With a raw socket the caller says how many reply bytes to expect (every reply here has a
    known size); an error reply (``-ERR …``) raises. Through redis-py (fakeredis, or a server
    with a password or TLS) each reply is parsed, and errors raise the same way.
    """

    def __init__(self, lab: Lab, timeout: float | None = None) -> None:
        kwargs = lab.r.connection_pool.connection_kwargs
        plain = not any(kwargs.get(k) for k in ("password", "username", "ssl", "path"))
        self.sock: socket.socket | None = None
        self.conn: Any = None
        self.lab = lab
        # a big pipeline on setlab's own server may take a while; someone else's server gets
        # the lab's usual patience, so a frozen one fails in seconds, not minutes
        timeout = timeout or (120.0 if lab.owns_server else SOCKET_TIMEOUT_S)
        with self._errors("connect"):
            if lab.is_real and plain and "host" in kwargs:
                address = (kwargs["host"], kwargs["port"])
                self.sock = socket.create_connection(address, timeout=timeout)
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                db = int(kwargs.get("db") or 0)
                if db:
                    self.send(b"*2\r\n$6\r\nSELECT\r\n$%d\r\n%d\r\n" % (len(str(db)), db))
                    self.expect(5, 1)
            else:
                self.pool = lab.r.connection_pool
                self.conn = self.pool.get_connection()
                self.conn.connect()
        self.round_trips = 0

    @contextlib.contextmanager
    def _errors(self, step: str) -> Iterator[None]:
        """Socket and Redis errors of the raw wire, as the lab's errors (server, step, remedy)."""
        try:
            yield
        except TimeoutError as exc:
            raise translate(
                redis.exceptions.TimeoutError(str(exc) or "timed out"), self.lab.address,
                f"bulk load ({step})", self.lab.namespace,
            ) from None  # fmt: skip
        except (ConnectionError, OSError) as exc:
            raise translate(
                redis.exceptions.ConnectionError(str(exc) or type(exc).__name__),
                self.lab.address, f"bulk load ({step})", self.lab.namespace,
            ) from None  # fmt: skip
        except redis.exceptions.RedisError as exc:
            raise translate(
                exc, self.lab.address, f"bulk load ({step})", self.lab.namespace
            ) from None

    @property
    def raw(self) -> bool:
        return self.sock is not None

    def send(self, payload: bytes) -> None:
        with self._errors("send"):
            if self.sock is not None:
                self.sock.sendall(payload)
            else:
                self.conn.send_packed_command([bytes(payload)], check_health=False)

    def expect(self, nbytes: int, replies: int) -> None:
        """Read the replies to what was sent: ``nbytes`` bytes raw, or ``replies`` parsed."""
        self.round_trips += 1
        with self._errors("reply"):
            if self.sock is None:
                for _ in range(replies):
                    reply = self.conn.read_response()
                    if isinstance(reply, list):
                        errors = [r for r in reply if isinstance(r, Exception)]
                        if errors:
                            raise errors[0]
                return
            view = memoryview(bytearray(nbytes))
            got = 0
            while got < nbytes:
                n = self.sock.recv_into(view[got:], nbytes - got)
                if n == 0:
                    raise ConnectionError("Redis closed the connection during a bulk load")
                got += n
        data = view.tobytes()
        if b"-" in data:
            raise RuntimeError(f"Redis replied with an error during a bulk load: {data[:200]!r}")

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        else:
            self.pool.release(self.conn)


# -- the strategies -------------------------------------------------------------------------------


@dataclass
class LoadResult:
    """What one bulk load did and how long it took (seconds, wall clock, client included)."""

    strategy: str
    batch: int | None
    items: int
    bits: int  #: bit writes: items × k
    commands: int
    round_trips: int
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)  #: seconds per phase (local build)

    @property
    def bits_per_second(self) -> float:
        return self.bits / self.seconds

    @property
    def items_per_second(self) -> float:
        return self.items / self.seconds

    @property
    def label(self) -> str:
        return self.strategy if self.batch is None else f"{self.strategy} (batch {self.batch:,})"

    def extrapolate(self, bits: float) -> float:
        """Seconds for ``bits`` bit writes at this run's rate (linear)."""
        return bits / self.bits_per_second


def _bits(layout: BloomLayout, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shard, offset) of every bit write, in item order."""
    shard, offsets = layout.locate(items)
    return np.repeat(shard, layout.k).astype(np.int64), offsets.ravel()


def _keys(lab: Lab, name: str, layout: BloomLayout) -> list[str]:
    return [lab.key(name, *layout.key_suffix(s)) for s in range(layout.shards)]


def _setbit_records(lab: Lab, name: str, layout: BloomLayout, items: np.ndarray):
    shard, offsets = _bits(layout, items)
    table = key_table(_keys(lab, name, layout))
    data, bounds, _ = encode(offsets, _SETBIT, _ONE, table, shard, in_order=True)
    return data, bounds


def load(
    lab: Lab,
    name: str,
    layout: BloomLayout,
    items: np.ndarray,
    strategy: str,
    batch: int = 1000,
    *,
    progress: bool = False,
    block_bits: int = 2**30,
) -> LoadResult:
    """Load ``items`` into the filter ``name``, keys as a
    :class:`setlab.lab.runs.bloom.RedisBloomFilter` of that name would have them.

    ``batch``: bit writes per round trip (``multi-roundtrip``: per transaction; ignored by
    ``one-by-one`` and ``local``). ``block_bits``: the most bits ``local`` holds in memory at once
    (one byte each); more shards than that are built in several passes over the items. Checks
    ``lab.check_allocation`` for the filter's full size first. Returns a :class:`LoadResult`.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    if not isinstance(layout, BloomLayout):
        raise ValueError(f"layout must be a BloomLayout, got {layout!r}")
    items = check_items(items)
    batch = check_int("batch", batch, 1)
    block_bits = check_int("block_bits", block_bits, layout.bits_per_shard)
    lab.check_allocation(
        guard.budget(string=layout.bytes_per_shard, keys=layout.shards), f"bulk load of {name!r}"
    )
    report = Progress(items.size * layout.k, f"{strategy} load", progress, unit="bits")
    wire = Wire(lab)
    start = time.perf_counter()
    try:
        if strategy == "local":
            commands, phases = _load_local(lab, name, layout, items, wire, block_bits, report)
        else:
            phases = {}
            commands = _LOADERS[strategy](lab, name, layout, items, wire, batch, report)
    finally:
        wire.close()
    seconds = time.perf_counter() - start
    report.close()
    used_batch = None if strategy in ("one-by-one", "local") else batch
    bits = items.size * layout.k
    return LoadResult(
        strategy, used_batch, int(items.size), bits, commands, wire.round_trips, seconds, phases
    )


def _load_one_by_one(lab, name, layout, items, wire, batch, report) -> int:
    payload, bounds = _setbit_records(lab, name, layout, items)
    view = memoryview(payload)
    for i in range(bounds.size - 1):
        wire.send(view[bounds[i] : bounds[i + 1]])
        wire.expect(4, 1)
        if (i + 1) % 4096 == 0:
            report.update(4096)
    report.update((bounds.size - 1) % 4096)
    return bounds.size - 1


def _load_multi_roundtrip(lab, name, layout, items, wire, batch, report) -> int:
    payload, bounds = _setbit_records(lab, name, layout, items)
    view = memoryview(payload)
    n = bounds.size - 1
    for lo in range(0, n, batch):
        hi = min(n, lo + batch)
        wire.send(_MULTI)
        wire.expect(5, 1)
        for i in range(lo, hi):
            wire.send(view[bounds[i] : bounds[i + 1]])
            wire.expect(9, 1)  # +QUEUED
        wire.send(_EXEC)
        wire.expect(len(b"*%d\r\n" % (hi - lo)) + 4 * (hi - lo), 1)
        report.update(hi - lo)
    return n + 2 * -(-n // batch)


def _load_pipelined(lab, name, layout, items, wire, batch, report, transaction: bool) -> int:
    payload, bounds = _setbit_records(lab, name, layout, items)
    view = memoryview(payload)
    n = bounds.size - 1
    for lo in range(0, n, batch):
        hi = min(n, lo + batch)
        body = view[bounds[lo] : bounds[hi]]
        if transaction:
            wire.send(_MULTI + body.tobytes() + _EXEC)
            size = 5 + 9 * (hi - lo) + len(b"*%d\r\n" % (hi - lo)) + 4 * (hi - lo)
            wire.expect(size, hi - lo + 2)
        else:
            wire.send(body)
            wire.expect(4 * (hi - lo), hi - lo)
        report.update(hi - lo)
    return n + (2 * -(-n // batch) if transaction else 0)


def _load_bitfield(lab, name, layout, items, wire, batch, report) -> int:
    shard, offsets = _bits(layout, items)
    order = np.argsort(shard, kind="stable")
    shard, offsets = shard[order], offsets[order]
    ops, bounds, _ = encode(offsets, _SET_U1, _ONE, in_order=True)
    view = memoryview(ops)
    keys = [k.encode() for k in _keys(lab, name, layout)]
    n = shard.size
    commands = 0
    for lo in range(0, n, batch):
        hi = min(n, lo + batch)
        cuts = np.flatnonzero(np.diff(shard[lo:hi])) + lo + 1
        starts = [lo, *cuts.tolist()]
        ends = [*cuts.tolist(), hi]
        parts, reply_bytes = [], 0
        for a, b in zip(starts, ends, strict=True):
            key = keys[shard[a]]
            parts.append(
                b"*%d\r\n$8\r\nBITFIELD\r\n$%d\r\n%s\r\n" % (2 + 4 * (b - a), len(key), key)
            )
            parts.append(view[bounds[a] : bounds[b]])
            reply_bytes += len(b"*%d\r\n" % (b - a)) + 4 * (b - a)
        wire.send(b"".join(parts))
        wire.expect(reply_bytes, len(starts))
        commands += len(starts)
        report.update(hi - lo)
    return commands


def _load_local(lab, name, layout, items, wire, block_bits, report):
    """Build the bitmaps in numpy, a block of shards at a time, and SET each shard whole."""
    m, shards = layout.bits_per_shard, layout.shards
    per_block = max(1, min(shards, block_bits // m))
    keys = [k.encode() for k in _keys(lab, name, layout)]
    phases = {"hash": 0.0, "set bits": 0.0, "pack and write": 0.0}
    chunk = 1 << 20
    for first in range(0, shards, per_block):
        last = min(shards, first + per_block)
        bits = np.zeros((last - first) * m, dtype=bool)
        for lo in range(0, items.size, chunk):
            t0 = time.perf_counter()
            shard, offsets = layout.locate(items[lo : lo + chunk])
            index = offsets.T + (shard * np.uint64(m))[None, :]
            if per_block < shards:
                keep = (shard >= first) & (shard < last)
                index = index[:, keep]
            index = index.view(np.int64) - first * m
            t1 = time.perf_counter()
            bits[index] = True
            phases["hash"] += t1 - t0
            phases["set bits"] += time.perf_counter() - t1
            if per_block == shards:
                report.update(offsets.size)
        t0 = time.perf_counter()
        packed = np.packbits(bits.reshape(last - first, m), axis=1)
        for s0 in range(0, last - first, 64):
            group = packed[s0 : s0 + 64]
            parts = []
            for j, row in enumerate(group):
                value = row.tobytes()
                key = keys[first + s0 + j]
                parts.append(
                    b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n"
                    % (len(key), key, len(value), value)
                )
            wire.send(b"".join(parts))
            wire.expect(5 * len(parts), len(parts))
        phases["pack and write"] += time.perf_counter() - t0
        if per_block < shards:
            report.update(items.size * layout.k * (last - first) // shards)
    phases["passes"] = float(-(-shards // per_block))
    return shards, phases


_LOADERS = {
    "one-by-one": _load_one_by_one,
    "multi-roundtrip": _load_multi_roundtrip,
    "multi-pipelined": lambda *a: _load_pipelined(*a, transaction=True),
    "pipeline": lambda *a: _load_pipelined(*a, transaction=False),
    "bitfield": _load_bitfield,
}


# -- the round-trip model and the server's ceiling ------------------------------------------------


def speedup_from_rtt(rtt: float, per_bit: float, batch: int) -> float:
    """How much faster ``batch`` bits per round trip is than one per round trip.

    ``(rtt + per_bit) / (rtt / batch + per_bit)``; ``rtt`` and ``per_bit`` in seconds.
    """
    batch = check_int("batch", batch, 1)
    if rtt < 0 or per_bit <= 0:
        raise ValueError(f"need rtt >= 0 and per_bit > 0 seconds; got {rtt!r}, {per_bit!r}")
    return (rtt + per_bit) / (rtt / batch + per_bit)


def rtt_for_speedup(speedup: float, per_bit: float, batch: int) -> float:
    """The round-trip time (seconds) at which ``batch``-bit round trips are ``speedup``× faster.

    Solves :func:`speedup_from_rtt` for ``rtt``: ``per_bit (S - 1) / (1 - S / batch)``. Raises
    when the speedup is not reachable with that batch (``S >= batch``).
    """
    batch = check_int("batch", batch, 1)
    if speedup <= 1 or speedup >= batch or per_bit <= 0:
        raise ValueError(
            f"speedup must be in (1, batch={batch}) and per_bit > 0; got {speedup!r}, {per_bit!r}"
        )
    return per_bit * (speedup - 1) / (1 - speedup / batch)


def measure_rtt(lab: Lab, samples: int = 2000) -> float:
    """Median seconds for one ``PING`` round trip over the lab's wire."""
    samples = check_int("samples", samples, 1)
    wire = Wire(lab)
    times = []
    try:
        for _ in range(samples):
            t0 = time.perf_counter()
            wire.send(b"*1\r\n$4\r\nPING\r\n")
            wire.expect(7, 1)
            times.append(time.perf_counter() - t0)
    finally:
        wire.close()
    return float(np.median(times))


def redis_benchmark(
    lab: Lab, command: list[str], requests: int = 2_000_000, pipeline: int = 64, clients: int = 50
) -> float:
    """Requests per second ``redis-benchmark`` reaches with ``command`` on the lab's server.

    The server's own ceiling for a command: many clients, deep pipelining, no Python. Use a key
    from ``lab.key(...)`` in ``command`` so nothing lands outside the namespace (``-t set`` would
    write ``key:__rand_int__``), and a fixed bit offset: ``__rand_int__`` expands to a
    zero-padded number, which SETBIT rejects. Needs a real server and ``redis-benchmark``.
    """
    binary = shutil.which("redis-benchmark")
    if not lab.is_real or binary is None:
        raise ValueError("redis_benchmark needs a real Redis and the redis-benchmark binary")
    kwargs = lab.r.connection_pool.connection_kwargs
    args = [binary, "-h", str(kwargs["host"]), "-p", str(kwargs["port"]), "-P", str(pipeline)]
    args += ["-c", str(clients), "-n", str(requests), "--csv", *command]
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=600).stdout
    for line in out.splitlines():
        cells = [c.strip('"') for c in line.split(",")]
        with contextlib.suppress(ValueError, IndexError):
            return float(cells[1])
    raise RuntimeError(f"could not read redis-benchmark's output: {out[:300]!r}")
