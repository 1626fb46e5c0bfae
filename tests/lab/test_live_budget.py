"""The setbit-offset chapter's experiments on a full, evicting server: no foreign key is evicted
or changed, with or without ``SETLAB_ALLOW_BIG=1``, and nothing of the book's is left behind.

Each case starts a real redis-server with ``--maxmemory`` and ``--maxmemory-policy allkeys-lru``
and fills it with foreign keys (64 KiB of random bytes each, under ``foreign:``) until 20–45 %
of maxmemory is free, then calls the lab functions the chapter calls, as its cells call them
(``live_or_reference`` with the page's own ``allocates``). Redis evicts only once
``used_memory`` passes maxmemory, so ``evicted_keys`` in ``INFO stats`` counts every key a
budget too small (512 MiB asked, 640 MiB allocated) would have cost its owner.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import setlab
from setlab.lab import guard
from setlab.lab.reference import Measurement, beside, live_or_reference
from setlab.lab.runs import setbit
from setlab.lab.server import RedisServer
from setlab.models import bitmap

pytestmark = pytest.mark.live

MiB, GiB = 2**20, 2**30
#: a foreign value: 64 KiB less room for a 5-byte sds header and its NUL, so each key's value
#: fills jemalloc's 64 KiB class exactly and the server fills in few round trips
VALUE_BYTES = 64 * 2**10 - 64
#: clients' buffers (the probe's second connection, INFO replies): what the margin is kept for
CLIENT_SLACK = MiB


def _evicting_server(maxmemory: int) -> RedisServer:
    from tests.conftest import _need_redis_server

    _need_redis_server()
    return RedisServer.start(
        module=False,
        extra_args=["--maxmemory", str(maxmemory), "--maxmemory-policy", "allkeys-lru"],
    )


def _fill(client, free: float) -> dict[str, bytes]:
    """Foreign keys of random bytes until ``free`` of maxmemory is left; their digests."""
    maxmemory = int(client.config_get("maxmemory")["maxmemory"])
    pool = np.random.default_rng(25).bytes(4 * MiB)
    digests: dict[str, bytes] = {}
    while int(client.info("memory")["used_memory"]) < (1 - free) * maxmemory - VALUE_BYTES:
        pipe = client.pipeline(transaction=False)
        for _ in range(64):
            i = len(digests)
            start = (i * 65_537) % (len(pool) - VALUE_BYTES)
            value = i.to_bytes(8, "little") + pool[start + 8 : start + VALUE_BYTES]
            pipe.set(f"foreign:{i}", value)
            digests[f"foreign:{i}"] = hashlib.blake2b(value, digest_size=16).digest()
        pipe.execute()
    return digests


def _small_book_keys(client) -> list[bytes]:
    """The book's keys outside any experiment (a run's heartbeat): each must stay tiny."""
    keys = list(client.scan_iter(match="setlab:*", count=1000))
    assert all(client.memory_usage(k, samples=0) < 4096 for k in keys), keys
    return keys


def _changed(client, digests: dict[str, bytes]) -> list[str]:
    """Foreign keys whose value is gone or differs from what was written."""
    keys, changed = list(digests), []
    for first in range(0, len(keys), 256):
        batch = keys[first : first + 256]
        for key, value in zip(batch, client.mget(batch), strict=True):
            if value is None or hashlib.blake2b(value, digest_size=16).digest() != digests[key]:
                changed.append(key)
    return changed


def _chapter_experiments(lab):
    """The three live measurements of book/setbit-offset.md, called as its cells call them."""
    ref = setbit.SetbitReference.load()
    offsets = bitmap.log_spaced_offsets(1_000, bitmap.MAX_OFFSET, 12)
    yield (
        "sweep",
        live_or_reference(
            lab,
            lambda lab: setbit.median_by_offset(setbit.sweep_first_writes(lab, offsets)),
            ref.summaries,
            run_info=ref.run,
        ),
    )
    yield "replay", live_or_reference(
        lab, setbit.replay_sequence, ref.sequence_steps,
        allocates=setbit.sequence_peak_bytes(setbit.SEED_000_SEQUENCE), run_info=ref.sequence_run,
    )  # fmt: skip
    yield "stall", live_or_reference(
        lab, setbit.stall_timeline, lambda: ref.timeline,
        allocates=setbit.sequence_peak_bytes([bitmap.MAX_OFFSET]), run_info=ref.run,
    )  # fmt: skip


#: what each experiment that can be refused whole allocates at its peak, by hand (and a key):
#: the stall's first SETBIT at 2^32 − 1 is 2^29 bytes + a 9-byte sds header + NUL, jemalloc's
#: 640 MiB class; seed 000's replay holds its 224 MiB string and the 448 MiB it grows into
BY_HAND = {"stall": 640 * MiB + 512, "replay": (224 + 448) * MiB + 512}


@pytest.mark.parametrize(
    ("maxmemory", "free"),
    [(GiB, 0.45), (GiB, 0.20), (2 * GiB, 0.31), (2 * GiB, 0.45)],
    ids=["1GiB-45%free", "1GiB-20%free", "2GiB-31%free", "2GiB-45%free"],
)
def test_the_chapter_never_evicts_on_a_full_evicting_server(maxmemory, free, monkeypatch):
    for name in ("SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG", "SETLAB_SCALE"):
        monkeypatch.delenv(name, raising=False)
    server = _evicting_server(maxmemory)
    try:
        admin = server.client()
        digests = _fill(admin, free)
        monkeypatch.setenv("REDIS_URL", server.url)
        # the margin the guard documents for an evicting policy: 5 % of maxmemory, at least 2 MiB
        margin = max(2 * MiB, maxmemory // 20)
        for allow_big in (True, False):
            lab = setlab.connect("setbit-offset", quiet=True, allow_big=allow_big)
            for name, measured in _chapter_experiments(lab):
                where = f"{name}, allow_big={allow_big}"
                stats, memory = admin.info("stats"), admin.info("memory")
                assert int(stats["evicted_keys"]) == 0, f"{where}: evicted foreign keys"
                assert lab.keys() == [], f"{where}: left {lab.keys()}"
                assert admin.dbsize() == len(digests) + len(_small_book_keys(admin)), where
                assert int(memory["used_memory_peak"]) <= maxmemory - margin + CLIENT_SLACK, where
                _check_outcome(measured, name, allow_big, admin, maxmemory, margin)
        assert _changed(admin, digests) == []
    finally:
        server.stop()


def _check_outcome(measured: Measurement, name: str, allow_big: bool, admin, maxmemory: int,
                   margin: int) -> None:  # fmt: skip
    """An experiment runs live exactly when its allocation fits the headroom and the reader
    opted in; a refusal names only remedies that help: the opt-in only when the opt-in limit
    (not the headroom) refused, never a SETLAB_SCALE (every experiment here has a fixed size)."""
    headroom = maxmemory - int(admin.info("memory")["used_memory"]) - margin
    if name not in BY_HAND:  # the sweep skips the offsets it may not allocate, never all
        assert measured.live, measured.why_not_live
        return
    fits = BY_HAND[name] <= headroom
    assert measured.live == (fits and allow_big), (name, allow_big, measured.why_not_live)
    if measured.live:
        return
    message = measured.why_not_live
    assert "\n" not in message and "SETLAB_SCALE" not in message, message
    assert "..)" not in beside(measured, str)
    # refused whole: the opt-in is offered only when it is what stands in the way
    assert ("SETLAB_ALLOW_BIG=1" in message) == (fits and not allow_big), message


def test_the_worst_setbit_is_budgeted_at_what_redis_allocates(monkeypatch):
    """The budget of a first SETBIT at 2^32 − 1 against used_memory's growth on a real server
    (after a warm-up: Redis creates a command's latency histogram on its first call). The most
    of three growths: Redis frees a client's spare query buffer on its own clock, and on a
    loaded machine that took 14,360 bytes off one reading (a free only ever lowers it)."""
    from tests.conftest import _need_redis_server

    _need_redis_server()
    with RedisServer.start(module=False) as server:
        client = server.client(socket_timeout=120)  # a 512 MiB zero-fill on a loaded machine
        key = "setlab:@budget:00000000-0000:setbit-offset:first-write:4294967295"
        client.setbit("warm", 7, 1)
        client.delete("warm")
        growths = []
        for _ in range(3):
            before = int(client.info("memory")["used_memory"])
            client.setbit(key, bitmap.MAX_OFFSET, 1)
            growths.append(int(client.info("memory")["used_memory"]) - before)
            client.delete(key)
        grown = max(growths)
    priced = guard.budget(string=bitmap.bytes_for_offset(bitmap.MAX_OFFSET), key_bytes=len(key))
    assert grown > 640 * MiB  # the 512 MiB of bits take jemalloc's 640 MiB class
    assert abs(grown - priced) <= 4096, (grown, priced)  # within a client buffer's growth
