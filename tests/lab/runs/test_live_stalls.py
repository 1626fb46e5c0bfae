"""setlab.lab.runs.stalls on a real server: lazy-free behaviour, guards, and the experiments'
shapes."""

from __future__ import annotations

import numpy as np
import pytest

import setlab
from setlab.lab.runs import stalls

pytestmark = pytest.mark.live


def _lazyfreed(lab) -> int:
    return int(lab.r.info("memory")["lazyfreed_objects"])


def test_unlink_frees_a_big_string_on_the_main_thread(live_lab):
    key = live_lab.key("s")
    stalls.fill_string(live_lab, key, 2**26)
    before_used, before_lazy = int(live_lab.r.info("memory")["used_memory"]), _lazyfreed(live_lab)
    live_lab.r.unlink(key)
    after_used = int(live_lab.r.info("memory")["used_memory"])
    assert _lazyfreed(live_lab) == before_lazy  # not handed to the background thread
    assert before_used - after_used >= 2**26  # already freed when UNLINK returned


def test_unlink_hands_a_big_set_to_the_background(live_lab):
    key = live_lab.key("set")
    stalls.fill_set(live_lab, key, 10_000)
    before = _lazyfreed(live_lab)
    live_lab.r.unlink(key)
    assert live_lab.r.exists(key) == 0
    # lazyfreed_objects counts objects the background thread has finished; wait for it.
    for _ in range(200):
        if _lazyfreed(live_lab) == before + 1:
            break
        import time

        time.sleep(0.01)
    assert _lazyfreed(live_lab) == before + 1


def test_experiments_return_one_row_per_case(live_lab):
    rows = stalls.delete_costs(live_lab, [2**20], [1_000])
    assert [(r.kind, r.command) for r in rows] == [
        ("string", "del"), ("string", "unlink"), ("set", "del"), ("set", "unlink"),
    ]  # fmt: skip
    assert all(r.server_ms >= 0 for r in rows)
    keys = stalls.keys_vs_scan(live_lab, [500, 1500])
    assert [r.keys >= n for r, n in zip(keys, [500, 1500], strict=True)] == [True, True]
    assert all(r.scan_calls >= 1 for r in keys)
    sweep = stalls.stall_sweep(live_lab, [2**20, 2**24])
    assert [r.offset for r in sweep] == [2**20, 2**24]
    assert all(r.probes > 0 for r in sweep)
    (no_key, with_key) = stalls.fork_costs(live_lab, [2**24])
    assert with_key.used_memory > no_key.used_memory + 2**24
    # the same types the stored run reads back as, so a chapter plots either alike
    ref = stalls.StallsReference.load()
    assert {type(ref.deletes[0]), type(ref.keys[0]), type(ref.stalls[0]), type(ref.forks[0])} == {
        type(rows[0]), type(keys[0]), type(sweep[0]), type(no_key),
    }  # fmt: skip


def test_blocking_experiments_refuse_on_a_server_setlab_did_not_start(foreign_server, monkeypatch):
    monkeypatch.setenv("REDIS_URL", foreign_server.url)
    monkeypatch.delenv("SETLAB_ALLOW_BIG", raising=False)
    lab = setlab.connect("stall-guard", quiet=True, user="t")
    with pytest.raises(setlab.BigAllocationRefused, match="KEYS"):
        stalls.keys_vs_scan(lab, [10])
    with pytest.raises(setlab.BigAllocationRefused, match="BGSAVE"):
        stalls.fork_cost(lab)
    # nothing written but the run's heartbeat (it says the run is alive; see lab/expiry.py)
    assert foreign_server.client().keys() == [lab.heartbeat.key.encode()]


def test_a_blocking_experiment_falls_back_to_the_reference_on_a_foreign_server(
    foreign_server, monkeypatch
):
    from setlab.lab.reference import live_or_reference

    monkeypatch.setenv("REDIS_URL", foreign_server.url)
    monkeypatch.delenv("SETLAB_ALLOW_BIG", raising=False)
    lab = setlab.connect("stall-guard", quiet=True, user="t")
    ref = stalls.StallsReference.load()
    measured = live_or_reference(
        lab, lambda lab: stalls.keys_vs_scan(lab, [10]), lambda: list(ref.keys),
        needs=("real", "own_server"), run_info=ref.run,
    )  # fmt: skip
    assert not measured.live and measured.value == list(ref.keys)
    # nothing written but the run's heartbeat (it says the run is alive; see lab/expiry.py)
    assert foreign_server.client().keys() == [lab.heartbeat.key.encode()]


def test_experiments_refuse_fakeredis(fake_lab):
    with pytest.raises(ValueError, match="real server"):
        stalls.stall_sweep(fake_lab, [8])


def test_a_real_cluster_routes_the_like_workload_as_the_model_does(redis_server):
    from setlab.lab import cluster
    from setlab.models import like_workload

    user, content = like_workload.like_events(600, 200, 30, 1.1, np.random.default_rng(11))
    with cluster.LocalCluster.start(masters=3) as local:
        routing = stalls.cluster_routing(local, user, content, probes=40)
    assert routing.probe_keys == 80 and routing.slots_agree
    # INFO commandstats per node against the CRC16 routing model, design by design
    model = like_workload.per_node_commands(user, content)
    assert routing.per_node == {design: model[design] for design in ("bitmap", "set")}
