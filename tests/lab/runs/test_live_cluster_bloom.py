"""The sharded Bloom filter, unchanged, on a real 3-master Redis Cluster (issue 16 item 4).

References: the same filter on one real redis-server (its answers and its bytes), the
BloomSimulator's bits, and the slot routing of setlab.models.cluster_slots (itself checked against
CLUSTER KEYSLOT in tests/lab/test_live_cluster.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from setlab.lab import cluster
from setlab.lab.runs import cluster_bloom
from setlab.lab.runs.bloom import RedisBloomFilter
from setlab.models import cluster_slots
from setlab.models.bloom_sim import BloomLayout, BloomSimulator

pytestmark = pytest.mark.live

ITEMS = 100_000


@pytest.fixture(scope="module")
def local_cluster(redis_server):  # redis_server: skips/fails cleanly without a binary
    with cluster.LocalCluster.start(masters=3) as started:
        yield started


@pytest.fixture
def cluster_lab(local_cluster):
    lab = cluster_bloom.cluster_lab(local_cluster, "test-cluster-bloom")
    yield lab
    lab.cleanup()
    lab.close()


def _layout(n: int) -> BloomLayout:
    return BloomLayout.for_items(n, 0.01, shard_bits=6, seed=16)


def test_cluster_filter_answers_and_stores_what_one_server_does(live_lab, cluster_lab):
    layout = _layout(ITEMS)
    rng = np.random.default_rng(16)
    items = rng.integers(0, 2**63, ITEMS, dtype=np.uint64)
    strangers = rng.integers(2**63, 2**64 - 1, 20_000, dtype=np.uint64)
    single = RedisBloomFilter(live_lab, "f", layout)
    spread = RedisBloomFilter(cluster_lab, "f", layout)
    assert spread.add_many(items) == single.add_many(items)
    assert spread.contains_many(items).all()  # no false negatives
    assert np.array_equal(spread.contains_many(strangers), single.contains_many(strangers))
    for shard in range(layout.shards):
        assert spread.shard_bytes(shard) == single.shard_bytes(shard)
    assert spread.bits_set() == single.bits_set() > 0


def test_shards_spread_over_every_master_and_batches_go_where_the_slots_say(
    local_cluster, cluster_lab
):
    layout = _layout(5000)
    bloom = RedisBloomFilter(cluster_lab, "routed", layout)
    nodes = cluster_bloom.shard_nodes(bloom, local_cluster.ranges)
    assert set(nodes.tolist()) == {0, 1, 2}
    assert all(cluster_slots.hash_tag(key) == key.encode() for key in bloom.keys())  # no tags
    items = np.arange(5000, dtype=np.uint64)
    shard, _ = layout.locate(items)
    local_cluster.reset_stats()
    bloom.add_many(items, batch=500)
    expected = np.bincount(nodes[shard.astype(np.int64)], minlength=3)
    assert local_cluster.commands_per_node("bitfield") == expected.tolist()
    local_cluster.reset_stats()
    assert bloom.contains_many(items, batch=500).all()
    assert local_cluster.commands_per_node("bitfield") == expected.tolist()


def test_shards_written_whole_hold_the_bits_bitfield_sets(cluster_lab):
    layout = _layout(20_000)
    items = np.arange(20_000, dtype=np.uint64) * np.uint64(7919)
    by_command = RedisBloomFilter(cluster_lab, "bitfield", layout)
    by_command.add_many(items)
    whole = RedisBloomFilter(cluster_lab, "whole", layout, preallocate=False)
    assert cluster_bloom.write_shards(whole, items) == layout.shards
    simulator = BloomSimulator(layout)
    simulator.add(items)
    for shard in range(layout.shards):
        assert whole.shard_bytes(shard) == by_command.shard_bytes(shard)
        assert whole.shard_bytes(shard) == simulator.shard_bytes(shard)
    assert whole.contains_many(items).all()


def test_cleanup_on_the_cluster_removes_the_namespace_from_every_master(local_cluster, cluster_lab):
    bloom = RedisBloomFilter(cluster_lab, "gone", _layout(1000))
    assert len(bloom.keys()) == 64
    assert cluster_lab.cleanup() == 64
    left = sum(node.client().dbsize() for node in local_cluster.nodes)
    assert left == 0
