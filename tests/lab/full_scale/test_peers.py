"""setlab.lab.full_scale.peers: every peer of seed 002's load, run small on private live servers,
and the stored full-size run (reference/measure_peers_002.py) held to its own arithmetic."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest
from scipy import stats

import setlab
from setlab.lab import backend
from setlab.lab.full_scale import peers, sharded_bloom
from setlab.models import bloom

IDS, SLICE, ABSENT = 200_000, 20_000, 50_000


def _plausible_rate(hits: float, p: float, queries: int) -> bool:
    """``hits`` (a fraction of ``queries``) within the 99.99 % binomial range of rate ``p`` — or
    up to twice ``p``: RedisBloom and rbloom round their sizes, so "at the same rate" is within a
    factor, not exact."""
    low, high = stats.binom.interval(0.9999, queries, p)
    return low / queries <= hits <= max(high / queries, 2 * p)


@pytest.fixture(scope="module")
def peer_run():
    """One small run of every peer, on servers of its own (it restarts them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("REDIS_URL", raising=False)
        patch.setattr(backend, "_private_server", None)
        lab = setlab.connect("peers", backend="live", quiet=True)
        out, last = peers.measure(lab, IDS, SLICE, ABSENT, progress=False)
        last.server.stop()
    return out


@pytest.mark.live
def test_every_peer_runs_on_the_same_ids_and_reports_its_own_costs(peer_run):
    rows = {r["peer"]: r for r in peer_run["rows"]}
    assert list(rows) == list(peers.PEERS)
    rate = peer_run["facts"]["rate"]
    assert rate == pytest.approx(sharded_bloom.layout_for(IDS).expected_fpr(IDS))
    for name, r in rows.items():
        sliced = name in peers.SLICED
        assert r["ids"] == (SLICE if sliced else IDS)
        assert r["full_seconds"] == pytest.approx(r["seconds"] * IDS / r["ids"])
        assert r["seconds"] > 0 and r["client_peak_rss"] > 0
        assert (r["server_peak_rss"] is None) == (name == "rbloom")
        if sliced:
            assert r["fpr"] is None  # a filter holding a slice says nothing about the full one
            assert r["used_memory_growth"] > 0
        else:
            assert r["false_negatives"] == 0
            assert _plausible_rate(r["fpr"], rate, ABSENT), (name, r["fpr"], rate)


@pytest.mark.live
def test_the_two_setbit_peers_send_the_same_commands(peer_run):
    rows = {r["peer"]: r for r in peer_run["rows"]}
    py, cli = rows["redis-py SETBIT"], rows["redis-cli --pipe"]
    assert cli["used_memory_growth"] == pytest.approx(py["used_memory_growth"], rel=0.02)


@pytest.mark.live
def test_each_peer_gets_a_fresh_server(peer_run):
    rows = {r["peer"]: r for r in peer_run["rows"]}
    # redis-cli runs after redis-py filled the same 2^17 keys: on a reused server its peak
    # would start at redis-py's; on a fresh one both peaks hold one copy of the keys
    py, cli = rows["redis-py SETBIT"], rows["redis-cli --pipe"]
    assert cli["server_peak_rss"] < py["server_peak_rss"] + py["used_memory_growth"] / 2


def test_the_stored_run_is_consistent_with_itself():
    data = json.loads((files("setlab") / "data" / "peers-002.json").read_text())
    assert data["writer"] == "reference/measure_peers_002.py"
    ids, rows = data["ids"], {r["peer"]: r for r in data["rows"]}
    assert ids == sharded_bloom.SEED_002_IDS and list(rows) == list(peers.PEERS)
    layout = sharded_bloom.layout_for(ids)
    assert data["rate"] == pytest.approx(
        bloom.sharded_fpr(ids, layout.shards, layout.bits_per_shard, layout.k), rel=1e-6
    )
    for name, r in rows.items():
        assert r["full_seconds"] == pytest.approx(r["seconds"] * ids / r["ids"])
        if name in peers.SLICED:
            assert r["ids"] == data["slice_ids"] < ids and r["fpr"] is None
        else:
            assert r["ids"] == ids and r["false_negatives"] == 0
            assert _plausible_rate(r["fpr"], data["rate"], data["absent"]), name
    # the seed's method, per bit, is the slowest by far; setlab's build + load the fastest load
    assert rows["setlab"]["seconds"] < rows["redisbloom"]["seconds"]
    assert rows["redis-py SETBIT"]["full_seconds"] > 10 * rows["setlab"]["seconds"]
    # the chapter's greedy-SETBIT sentence: a slice grown bit by bit outweighs the whole filter
    slice_used = rows["redis-py SETBIT"]["used_memory_growth"]
    assert slice_used > rows["setlab"]["used_memory_growth"]
