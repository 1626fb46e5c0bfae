"""setlab.lab.wire.pipe: the streamed loader sends redis-py's own bytes and leaves redis-py's data.

The chunks are checked against ``redis.connection.Connection.pack_command`` (redis-py's RESP
encoder, an independent implementation) for the same commands, on both encoder paths
(tests/lab/wire/test_encode.py checks the encoder itself); the live tests compare the streamed
loads with a plain redis-py pipeline of the same commands on the same server.
"""

from __future__ import annotations

import numpy as np
import pytest
import redis

from setlab.lab.errors import CommandRefused
from setlab.lab.wire import encode as resp_encode
from setlab.lab.wire import pipe as resp_pipe
from setlab.models.bloom_sim import BloomLayout

LAYOUT = BloomLayout(2**12, 5, shard_bits=3)
ITEMS = np.arange(3000, dtype=np.uint64) * np.uint64(2654435761)
EDGES = np.array(
    [0, 1, 9, 10, 99, 9999, 10_000, 10**8, 10**9 - 1, 2**32 - 1, 2**32, 10**10, 2**63, 2**64 - 1],
    dtype=np.uint64,
)


def _packed(*args: object) -> bytes:
    return b"".join(redis.connection.Connection().pack_command(*args))


@pytest.fixture(params=["compiled", "numpy"])
def encoder(request, monkeypatch):
    """Each encoder the loads use: numba's compiled loop, and the numpy fallback."""
    if request.param == "numpy":
        monkeypatch.setattr(resp_encode, "_kernel", lambda: None)
    elif resp_encode._kernel() is None:
        pytest.skip("numba is not installed (the dev extra)")
    return request.param


def test_setbit_chunks_are_redis_py_setbit_commands_for_every_bit(encoder):
    keys = [f"setlab:t:f:{LAYOUT.key_suffix(s)[0]}" for s in range(LAYOUT.shards)]
    items = ITEMS[:700]
    shard, offsets = LAYOUT.locate(items)
    commands = {
        _packed("SETBIT", keys[int(s)], int(o), 1)
        for s, row in zip(shard.tolist(), offsets.tolist(), strict=True)
        for o in row
    }
    sent, total = b"", 0
    for payload, n_commands, lines in resp_pipe.setbit_chunks(keys, LAYOUT, items, 256):
        sent += bytes(payload)
        total += n_commands
        assert n_commands == lines
    assert total == items.size * LAYOUT.k
    # every command is one of redis-py's encodings, and together they are all of them
    parts = [b"*4" + p for p in sent.split(b"*4")[1:]]
    assert len(parts) == total and set(parts) == commands


def test_multi_item_chunks_are_redis_py_commands_of_batch_items(encoder):
    items = np.concatenate([EDGES, ITEMS[:90]])
    order: list[np.ndarray] = []
    chunks = list(resp_pipe.multi_item_chunks(b"BF.MADD", "setlab:t:bf", items, 7, 3, order))
    sent = np.concatenate(order)
    assert sorted(sent.tolist()) == list(range(items.size))
    batches = [sent[i : i + 7] for i in range(0, sent.size, 7)]
    expected = b"".join(_packed("BF.MADD", "setlab:t:bf", *items[b].tolist()) for b in batches)
    assert b"".join(c[0] for c in chunks) == expected
    assert sum(c[1] for c in chunks) == len(batches)
    assert sum(c[2] for c in chunks) == len(batches) + items.size


def test_write_protocol_returns_the_bytes_and_reply_lines_it_wrote():
    out: list[bytes] = []
    size, lines = resp_pipe.write_protocol(
        resp_pipe.multi_item_chunks(b"BF.MADD", "setlab:t:bf", ITEMS, 1000), out.append
    )
    assert size == sum(map(len, out)) and lines == ITEMS.size + 3


def test_the_streamed_loader_refuses_the_embedded_backend_and_foreign_keys(fake_lab):
    with pytest.raises(ValueError, match="real Redis"):
        resp_pipe.load_setbits(fake_lab, "f", LAYOUT, ITEMS)
    with pytest.raises(ValueError, match=r"lab\.key"):
        resp_pipe.bf_madd(fake_lab, "other:key", ITEMS, allocates=1)
    with pytest.raises(ValueError, match="numpy integer array"):
        resp_pipe.bf_mexists(fake_lab, fake_lab.key("bf"), [1, 2, 3])


# -- live: the same data as redis-py -------------------------------------------------------------


@pytest.mark.live
def test_streamed_setbits_leave_the_bits_of_a_redis_py_pipeline(live_lab):
    result = resp_pipe.load_setbits(live_lab, "fast", LAYOUT, ITEMS, chunk_items=500)
    shard, offsets = LAYOUT.locate(ITEMS)
    pipe = live_lab.r.pipeline(transaction=False)
    for s, row in zip(shard.tolist(), offsets.tolist(), strict=True):
        for o in row:
            pipe.setbit(live_lab.key("slow", *LAYOUT.key_suffix(s)), o, 1)
    pipe.execute()
    for s in range(LAYOUT.shards):
        fast = live_lab.r.get(live_lab.key("fast", *LAYOUT.key_suffix(s)))
        assert fast == live_lab.r.get(live_lab.key("slow", *LAYOUT.key_suffix(s)))
        assert fast  # every shard got bits
    assert result.bits == ITEMS.size * LAYOUT.k


@pytest.mark.live
def test_streamed_bf_madd_and_mexists_answer_as_redis_py(live_lab):
    if not live_lab.has_redisbloom:
        pytest.skip("RedisBloom is not loaded on this server")
    fast, slow = live_lab.key("fast"), live_lab.key("slow")
    for key in (fast, slow):
        live_lab.r.execute_command("BF.RESERVE", key, 0.01, 2000)
    added = ITEMS[:2500]
    out = resp_pipe.bf_madd(live_lab, fast, added, 300, allocates=10_000)
    pipe = live_lab.r.pipeline(transaction=False)
    for lo in range(0, added.size, 300):
        pipe.execute_command("BF.MADD", slow, *added[lo : lo + 300].tolist())
    pipe.execute()
    assert out.commands == -(-added.size // 300)
    info = [live_lab.r.execute_command("BF.INFO", k) for k in (fast, slow)]
    assert info[0] == info[1]
    probe = np.concatenate([ITEMS, EDGES])  # 500 absent items, and numbers of every length
    answers = resp_pipe.bf_mexists(live_lab, fast, probe, 400)
    expected = live_lab.r.execute_command("BF.MEXISTS", slow, *probe.tolist())
    assert answers.tolist() == [int(a) for a in expected]
    assert answers[: added.size].all()  # no false negatives


@pytest.mark.live
def test_an_error_reply_stops_the_streamed_load_with_the_servers_message(live_lab):
    live_lab.r.rpush(live_lab.key("f", *LAYOUT.key_suffix(0)), "not a bitmap")
    with pytest.raises(CommandRefused, match=r"refused SETBIT .*: WRONGTYPE"):
        resp_pipe.load_setbits(live_lab, "f", LAYOUT, ITEMS)


@pytest.mark.live
def test_on_someone_elses_server_the_guard_refuses_a_big_streamed_load(monkeypatch):
    import setlab
    from setlab.lab.server import RedisServer
    from tests.conftest import _need_redis_server

    _need_redis_server()
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG"):
        monkeypatch.delenv(name, raising=False)
    server = RedisServer.start(module=False)
    try:
        server.client().set("other:key", b"theirs")
        monkeypatch.setenv("REDIS_URL", server.url)
        lab = setlab.connect("resp-pipe", quiet=True)
        before = set(server.client().keys("*"))  # theirs, and the run's own heartbeat
        assert b"other:key" in before
        big = BloomLayout(2**27, 5, shard_bits=3)  # 128 MiB of bitmaps
        with pytest.raises(setlab.BigAllocationRefused):
            resp_pipe.load_setbits(lab, "f", big, ITEMS)
        with pytest.raises(setlab.BigAllocationRefused):
            resp_pipe.bf_madd(lab, lab.key("bf"), ITEMS, allocates=2**30)
        resp_pipe.load_setbits(lab, "small", LAYOUT, ITEMS)  # a small load goes through
        added = set(server.client().keys("*")) - before
        assert added and all(k.decode().startswith(lab.key("small")) for k in added)
        lab.cleanup()
        assert set(server.client().keys("*")) <= before
        assert server.client().get("other:key") == b"theirs"
    finally:
        server.stop()
