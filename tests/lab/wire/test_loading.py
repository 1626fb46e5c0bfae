"""setlab.lab.wire.loading: every bulk-load strategy leaves byte-identical bitmaps, on both
backends."""

from __future__ import annotations

import numpy as np
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.lab.runs.bloom import RedisBloomFilter
from setlab.lab.wire import loading
from setlab.models.bloom_sim import BloomLayout, BloomSimulator


def _expected(layout: BloomLayout, items: np.ndarray) -> list[bytes]:
    sim = BloomSimulator(layout)
    sim.add(items)
    return [sim.shard_bytes(s) for s in range(layout.shards)]


def _loaded(lab, name: str, layout: BloomLayout) -> list[bytes]:
    filt = RedisBloomFilter(lab, name, layout, preallocate=False)
    return [filt.shard_bytes(s) for s in range(layout.shards)]


LAYOUT = BloomLayout(2**12, 5, shard_bits=3)
ITEMS = np.arange(2000, dtype=np.uint64) * np.uint64(2654435761)


@pytest.mark.parametrize("strategy", loading.STRATEGIES)
def test_every_strategy_writes_the_simulators_bitmaps_on_fakeredis(fake_lab, strategy):
    result = loading.load(fake_lab, "f", LAYOUT, ITEMS, strategy, batch=300)
    assert _loaded(fake_lab, "f", LAYOUT) == _expected(LAYOUT, ITEMS)
    assert result.items == ITEMS.size and result.bits == ITEMS.size * LAYOUT.k


@pytest.mark.live
@pytest.mark.parametrize("strategy", loading.STRATEGIES)
def test_every_strategy_writes_the_simulators_bitmaps_on_live_redis(live_lab, strategy):
    result = loading.load(live_lab, "f", LAYOUT, ITEMS, strategy, batch=300)
    assert _loaded(live_lab, "f", LAYOUT) == _expected(LAYOUT, ITEMS)
    assert result.seconds > 0


def test_round_trips_follow_the_strategy(fake_lab):
    n_bits = ITEMS.size * LAYOUT.k
    by = {s: loading.load(fake_lab, s, LAYOUT, ITEMS, s, batch=1000) for s in loading.STRATEGIES}
    assert by["one-by-one"].round_trips == n_bits
    assert by["multi-roundtrip"].round_trips == n_bits + 2 * 10  # MULTI and EXEC per 1000
    assert by["pipeline"].round_trips == by["multi-pipelined"].round_trips == 10
    assert by["bitfield"].commands < by["pipeline"].commands / 10
    assert by["local"].commands == LAYOUT.shards


def test_local_build_in_several_passes_gives_the_same_bitmaps(fake_lab):
    layout = BloomLayout(2**10, 4, shard_bits=4)
    result = loading.load(fake_lab, "passes", layout, ITEMS, "local", block_bits=3 * 2**10)
    assert result.phases["passes"] == 6  # 16 shards, 3 per pass
    assert _loaded(fake_lab, "passes", layout) == _expected(layout, ITEMS)


def test_single_key_filters_load_too(fake_lab):
    layout = BloomLayout(10_007, 3)
    loading.load(fake_lab, "one", layout, ITEMS, "bitfield", batch=500)
    assert _loaded(fake_lab, "one", layout) == _expected(layout, ITEMS)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"strategy": "telepathy"}, "strategy"),
        ({"items": [1, 2, 3]}, "items"),
        ({"items": np.array([-1, 2])}, "items"),
        ({"items": np.array([0.5])}, "items"),
        ({"batch": 0}, "batch"),
        ({"layout": "2^17 bits"}, "layout"),
    ],
)
def test_bad_arguments_raise_value_error(fake_lab, kwargs, name):
    args = {"layout": LAYOUT, "items": ITEMS, "strategy": "pipeline", "batch": 10} | kwargs
    with pytest.raises(ValueError, match=name):
        loading.load(
            fake_lab, "bad", args["layout"], args["items"], args["strategy"], args["batch"]
        )
    assert fake_lab.keys() == []


def test_load_asks_the_lab_before_allocating(fake_lab, monkeypatch):
    asked = []
    monkeypatch.setattr(fake_lab, "check_allocation", lambda n, what="": asked.append(n))
    loading.load(fake_lab, "ask", LAYOUT, ITEMS[:10], "pipeline")
    # 8 shards of 512 B: 512 + a 5-byte sds header + NUL → jemalloc's 640-byte class, and per
    # key robj 16, a 128-byte name's sds in the 160-byte class, dictEntry 32, buckets 16
    assert asked == [8 * (640 + 16 + 160 + 32 + 16)]


def _wrong_type_key(lab):
    layout = BloomLayout(2**12, 3)
    lab.r.rpush(lab.key("clash"), "not a bitmap")
    return layout


def test_an_error_reply_stops_the_load_on_fakeredis(fake_lab):
    layout = _wrong_type_key(fake_lab)
    with pytest.raises(redis.exceptions.ResponseError, match="WRONGTYPE"):
        loading.load(fake_lab, "clash", layout, ITEMS[:5], "pipeline")


@pytest.mark.live
def test_an_error_reply_stops_the_load_on_live_redis(live_lab):
    layout = _wrong_type_key(live_lab)
    with pytest.raises(RuntimeError, match="WRONGTYPE"):
        loading.load(live_lab, "clash", layout, ITEMS[:5], "pipeline")


def test_speedup_is_one_without_latency_and_the_batch_with_only_latency():
    assert loading.speedup_from_rtt(0.0, 1e-6, 1000) == pytest.approx(1.0)
    assert loading.speedup_from_rtt(1.0, 1e-12, 1000) == pytest.approx(1000, rel=1e-6)


@settings(max_examples=50, deadline=None)
@given(rtt=st.floats(1e-6, 1e-2), per_bit=st.floats(1e-8, 1e-5), batch=st.integers(2, 100_000))
def test_rtt_for_speedup_inverts_speedup_from_rtt(rtt, per_bit, batch):
    speedup = loading.speedup_from_rtt(rtt, per_bit, batch)
    if 1 + 1e-6 < speedup < batch * (1 - 1e-6):
        assert loading.rtt_for_speedup(speedup, per_bit, batch) == pytest.approx(rtt, rel=1e-6)


@pytest.mark.parametrize(("speedup", "batch"), [(1.0, 100), (100.0, 100), (500.0, 100)])
def test_unreachable_speedups_are_refused(speedup, batch):
    with pytest.raises(ValueError, match="speedup"):
        loading.rtt_for_speedup(speedup, 1e-6, batch)


def test_measure_rtt_is_positive(fake_lab):
    assert 0 < loading.measure_rtt(fake_lab, samples=20) < 1


def test_redis_benchmark_refuses_fakeredis(fake_lab):
    with pytest.raises(ValueError, match="real Redis"):
        loading.redis_benchmark(fake_lab, ["SET", fake_lab.key("b"), "x"])


@pytest.mark.live
def test_redis_benchmark_reports_a_rate_and_stays_in_the_namespace(live_lab):
    before = {k for k in live_lab.r.scan_iter() if not k.startswith(live_lab.namespace.encode())}
    rate = loading.redis_benchmark(
        live_lab, ["SETBIT", live_lab.key("bench"), "1000", "1"], requests=20_000
    )
    after = {k for k in live_lab.r.scan_iter() if not k.startswith(live_lab.namespace.encode())}
    assert rate > 1000 and after == before
    assert live_lab.r.exists(live_lab.key("bench"))
