"""A real local Redis Cluster: slots agree with CLUSTER KEYSLOT; routing equals the simulation;
a frozen or killed master ends a load in seconds with one setlab line."""

from __future__ import annotations

import os
import random
import signal
import time

import numpy as np
import pytest

from setlab.lab import cluster
from setlab.lab.errors import ServerTimeout, ServerUnavailable
from setlab.lab.runs import cluster_bloom, stalls
from setlab.lab.runs.bloom import RedisBloomFilter
from setlab.models import cluster_slots, like_workload
from setlab.models.bloom_sim import BloomLayout

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def local_cluster(redis_server):  # redis_server: skips/fails cleanly without a binary
    with cluster.LocalCluster.start(masters=3) as started:
        yield started


def test_key_slot_equals_cluster_keyslot_for_random_and_tagged_keys(local_cluster):
    rng = random.Random(7)
    keys = ["".join(rng.choice("abc{}:xyz0123") for _ in range(rng.randrange(1, 16)))
            for _ in range(3000)]  # fmt: skip
    keys += [f"{{user{i}}}:likes" for i in range(1000)]
    assert local_cluster.keyslots(keys) == [cluster_slots.key_slot(k) for k in keys]


def test_live_per_node_load_equals_the_routing_simulation(local_cluster):
    user, content = like_workload.like_events(3000, 1000, 50, 1.1, np.random.default_rng(3))
    client = local_cluster.client()
    local_cluster.reset_stats()
    pipe = client.pipeline()
    for u, c in zip(user, content, strict=True):
        pipe.sadd(f"like:user:{u}", int(c))
        pipe.incr(f"like:count:{c}")
    pipe.execute()
    assert (
        local_cluster.commands_per_node() == like_workload.per_node_commands(user, content)["set"]
    )
    # redis-py sends incr() as INCRBY key 1.
    assert (
        local_cluster.commands_per_node("incrby")
        == like_workload.per_node_commands(user, content)["set: INCR only"]
    )


def test_both_designs_run_live_exactly_as_simulated(local_cluster):
    user, content = like_workload.like_events(2000, 500, 40, 1.1, np.random.default_rng(5))
    live = stalls.per_node_commands_live(local_cluster, user, content)
    simulated = like_workload.per_node_commands(user, content)
    assert live == {d: simulated[d] for d in ("bitmap", "set")}


def test_cluster_stops_without_leaving_processes(redis_server):
    started = cluster.LocalCluster.start(masters=3)
    pids = [node.process.pid for node in started.nodes]
    assert started.alive
    started.stop()
    started.stop()  # idempotent
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.fixture
def fresh_cluster(redis_server):
    """A cluster of its own, for a test that freezes or kills one of its masters."""
    started = cluster.LocalCluster.start(masters=3)
    yield started
    for node in started.nodes:
        if node.alive:
            os.kill(node.process.pid, signal.SIGCONT)
    started.stop()


@pytest.mark.timeout(60)  # without a socket timeout the load waits forever: fail, do not hang
@pytest.mark.parametrize(
    ("sig", "error"),
    [(signal.SIGSTOP, ServerTimeout), (signal.SIGKILL, ServerUnavailable)],
    ids=["SIGSTOP", "SIGKILL"],
)
def test_a_frozen_or_killed_master_ends_the_load_in_seconds_with_one_line(
    fresh_cluster, sig, error
):
    lab = cluster_bloom.cluster_lab(fresh_cluster, "test-cluster-fault")
    bloom = RedisBloomFilter(lab, "f", BloomLayout.for_items(20_000, 0.01, shard_bits=6))
    items = np.arange(20_000, dtype=np.uint64)
    bloom.add_many(items[:5000])  # under way, on every master
    victim = fresh_cluster.nodes[1]
    os.kill(victim.process.pid, sig)
    start = time.monotonic()
    with pytest.raises(error) as exc:
        bloom.add_many(items[5000:])
    # the batch's timeout, then redis-py's retry of its first command, then a PING per master
    # a bound against hanging (the old client waited >= 150 s), generous for a loaded machine
    assert time.monotonic() - start < 4 * cluster.SOCKET_TIMEOUT_S + 10
    message = str(exc.value)
    assert "\n" not in message and f"{victim.host}:{victim.port} (a master" in message
