"""setlab.models.cluster_slots and setlab.models.like_workload: CRC16 key slots, slot ranges, the
routing simulation and the skewed like workload."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.crc import key_slot as redis_py_key_slot

from setlab.models import cluster_slots, like_workload


def test_crc16_matches_the_xmodem_check_value():
    # The standard CRC catalogue's check value for CRC-16/XMODEM over "123456789".
    assert cluster_slots.crc16(b"123456789") == 0x31C3


@given(st.binary(max_size=40) | st.text(alphabet="ab{}:", max_size=12))
def test_key_slot_equals_redis_pys_implementation(key):
    raw = key.encode() if isinstance(key, str) else key
    assert cluster_slots.key_slot(key) == redis_py_key_slot(raw)


@pytest.mark.parametrize(
    ("key", "hashed"),
    [("{user1000}.following", b"user1000"), ("foo{}{bar}", b"foo{}{bar}"),
     ("foo{{bar}}zap", b"{bar"), ("foo{bar}{zap}", b"bar"), ("plain", b"plain")],
)  # fmt: skip
def test_hash_tags_follow_the_cluster_spec_examples(key, hashed):
    assert cluster_slots.hash_tag(key) == hashed


def test_key_slot_rejects_non_keys():
    with pytest.raises(ValueError, match="key"):
        cluster_slots.key_slot(42)


@pytest.mark.parametrize("masters", [1, 2, 3, 5, 7])
def test_slot_ranges_cover_every_slot_once(masters):
    ranges = cluster_slots.slot_ranges(masters)
    covered = [s for first, last in ranges for s in range(first, last + 1)]
    assert covered == list(range(cluster_slots.SLOTS))
    sizes = [last - first + 1 for first, last in ranges]
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("bad", [0, 65, 2.5, "3"])
def test_slot_ranges_reject_bad_node_counts(bad):
    with pytest.raises(ValueError, match="masters"):
        cluster_slots.slot_ranges(bad)


def test_routing_simulation_counts_every_command_once():
    keys = [f"k{i}" for i in range(5000)]
    counts = cluster_slots.commands_per_node(keys, 3)
    assert sum(counts) == 5000
    ranges = cluster_slots.slot_ranges(3)
    brute = [0, 0, 0]
    for k in keys:
        slot = redis_py_key_slot(k.encode())
        brute[next(i for i, (a, b) in enumerate(ranges) if a <= slot <= b)] += 1
    assert counts == brute


def test_like_events_are_zipf_skewed_and_reproducible():
    user, content = like_workload.like_events(50_000, 1_000, 100, 1.1, np.random.default_rng(1))
    again = like_workload.like_events(50_000, 1_000, 100, 1.1, np.random.default_rng(1))
    assert np.array_equal(content, again[1])
    counts = np.bincount(content, minlength=100)
    weights = 1 / np.arange(1, 101) ** 1.1
    expected_top = weights[0] / weights.sum()
    assert abs(counts[0] / 50_000 - expected_top) < 0.01
    assert counts[0] > counts[50]
    assert user.min() >= 0 and user.max() < 1_000


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"events": 0}, "events"), ({"users": -1}, "users"), ({"zipf_s": 0}, "zipf_s")],
)
def test_like_events_reject_bad_parameters(kwargs, name):
    args = {"events": 10, "users": 10, "contents": 10, "zipf_s": 1.0} | kwargs
    with pytest.raises(ValueError, match=name):
        like_workload.like_events(rng=np.random.default_rng(0), **args)


def test_design_keys_follow_the_seed_designs():
    user, content = np.array([7, 8]), np.array([42, 42])
    assert like_workload.design_keys(user, content, "bitmap") == ["like:bit:42", "like:bit:42"]
    assert like_workload.design_keys(user, content, "set") == [
        "like:user:7", "like:count:42", "like:user:8", "like:count:42",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="design"):
        like_workload.design_keys(user, content, "hash")


def test_the_content_keyed_counter_keeps_the_hot_key():
    shares = like_workload.skew_shares()
    assert shares["bitmap"] > 0.45
    assert abs(shares["set: SADD only"] - 1 / 3) < 0.02
    assert shares["set: INCR only"] > shares["set: SADD only"] + 0.03


def test_the_book_workload_is_seeded_and_its_top_post_share_is_a_bincount():
    user, content = like_workload.skew_workload()
    again = like_workload.like_events(
        20_000, 100_000, 1_000, 1.1, np.random.default_rng(like_workload.SKEW_SEED)
    )
    assert np.array_equal(user, again[0]) and np.array_equal(content, again[1])
    top = max(np.sum(content == c) for c in range(1_000))  # brute force
    assert like_workload.top_content_share(content) == top / 20_000
    assert 0.15 < top / 20_000 < 0.25  # "the top post is about a fifth of all likes"
