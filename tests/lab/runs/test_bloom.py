"""setlab.lab.runs.bloom: the filter on Redis bitmaps on both backends (no false negatives, the
simulator's bits), seed 004's Java filter, and the two experiments the chapter bloom-basics runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.lab.runs.bloom import (
    RedisBloomFilter,
    Seed004BloomFilter,
    openid_lookups,
    seed004_check,
)
from setlab.models import bloom
from setlab.models.bloom_sim import BloomLayout, BloomSimulator

# -- the filter on Redis --------------------------------------------------------------------------


def _members_and_strangers(count: int, seed: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 2**62, size=2 * count, dtype=np.uint64)
    return [f"oid-{i:x}" for i in ids[:count]], [f"new-{i:x}" for i in ids[count:]]


@pytest.mark.parametrize("shard_bits", [0, 3])
def test_redis_filter_has_no_false_negatives_and_matches_the_simulator_on_fakeredis(
    fake_lab, shard_bits
):
    _check_against_simulator(fake_lab, shard_bits)


@pytest.mark.live
@pytest.mark.parametrize("shard_bits", [0, 3])
def test_redis_filter_has_no_false_negatives_and_matches_the_simulator_on_live_redis(
    live_lab, shard_bits
):
    _check_against_simulator(live_lab, shard_bits)


def _check_against_simulator(lab, shard_bits):
    layout = BloomLayout(4000, 5, shard_bits)
    members, strangers = _members_and_strangers(1500, seed=shard_bits)
    filt = RedisBloomFilter(lab, "f", layout)
    filt.add_many(members, batch=256)
    sim = BloomSimulator(layout)
    sim.add(members)
    assert filt.contains_many(members).all()
    assert np.array_equal(filt.contains_many(strangers), sim.contains(strangers))
    for shard in range(layout.shards):
        assert filt.shard_bytes(shard) == sim.shard_bytes(shard)
    assert filt.fill_ratio() == pytest.approx(sim.fill_ratio())


@settings(max_examples=15, deadline=None)
@given(items=st.lists(st.one_of(st.integers(0, 2**64 - 1), st.text(max_size=12)), max_size=60))
def test_redis_filter_never_forgets_an_item_property(items):
    import setlab

    lab = setlab.connect("test-bloom-property", backend="fake", quiet=True)
    try:
        filt = RedisBloomFilter(lab, "p", BloomLayout(200, 4, 2))
        filt.add_many(items, batch=7)
        assert filt.contains_many(items).all()
    finally:
        lab.cleanup()


def test_add_reports_whether_the_item_was_new(fake_lab):
    filt = RedisBloomFilter(fake_lab, "new", BloomLayout(10_000, 4))
    assert filt.add("alice") is True
    assert filt.add("alice") is False
    assert filt.contains("alice") is True


def test_filter_keys_live_in_the_lab_namespace_one_per_shard(fake_lab):
    filt = RedisBloomFilter(fake_lab, "ns", BloomLayout(800, 3, shard_bits=4))
    keys = sorted(k.decode() for k in fake_lab.keys())
    assert keys == sorted(fake_lab.key("ns", f"{s:x}") for s in range(16))
    assert filt.key_for(10) == fake_lab.key("ns", "a")
    assert BloomLayout(800, 3, shard_bits=9).key_suffix(10) == ("00a",)
    assert all(fake_lab.r.strlen(k) == 100 for k in keys)  # preallocated to 800 bits
    assert filt.delete() == 16 and fake_lab.keys() == []


def test_preallocation_keeps_bits_already_set(fake_lab):
    layout = BloomLayout(1000, 3)
    first = RedisBloomFilter(fake_lab, "keep", layout)
    first.add_many(["a", "b", "c"])
    before = first.shard_bytes(0)
    RedisBloomFilter(fake_lab, "keep", layout)  # reopening preallocates again
    assert first.shard_bytes(0) == before and first.contains_many(["a", "b", "c"]).all()


def test_filter_asks_the_lab_before_allocating(fake_lab, monkeypatch):
    asked = []
    monkeypatch.setattr(fake_lab, "check_allocation", lambda n, what="": asked.append(n))
    RedisBloomFilter(fake_lab, "ask", BloomLayout(2**13, 3, shard_bits=2), preallocate=False)
    # 4 shards of 1 KiB: 1024 + a 5-byte sds header + NUL → jemalloc's 1280-byte class, and
    # per key robj 16, a 128-byte name's sds in the 160-byte class, dictEntry 32, buckets 16
    assert asked == [4 * (1280 + 16 + 160 + 32 + 16)]


def test_a_refused_allocation_stops_the_filter_before_it_writes_anything(fake_lab, monkeypatch):
    from setlab.lab.backend import BigAllocationRefused

    def refuse(nbytes, what=""):
        raise BigAllocationRefused(f"{what}: {nbytes} bytes is too much here")

    monkeypatch.setattr(fake_lab, "check_allocation", refuse)
    with pytest.raises(BigAllocationRefused, match="Bloom filter 'big'"):
        RedisBloomFilter(fake_lab, "big", BloomLayout(2**24, 3))
    assert fake_lab.keys() == []


# -- seed 004's filter -----------------------------------------------


def test_seed_004_filter_says_present_for_anything_once_one_item_was_added(fake_lab):
    filt = Seed004BloomFilter(fake_lab, "s4", 10_000, 3, rng=np.random.default_rng(1))
    assert not filt.contains("element4")  # empty filter: bits all zero
    filt.add("element1")
    _, strangers = _members_and_strangers(50, seed=9)
    assert all(filt.contains(s) for s in strangers)


def test_seed_004_filter_sets_the_same_bits_whatever_it_is_given(fake_lab):
    one = Seed004BloomFilter(fake_lab, "one", 10_000, 3, rng=np.random.default_rng(2))
    many = Seed004BloomFilter(fake_lab, "many", 10_000, 3, rng=np.random.default_rng(2))
    one.add("a")
    for i in range(100):
        many.add(f"user-{i}")
    assert fake_lab.r.get(one.filter_key) == fake_lab.r.get(many.filter_key)


def test_seed_004_filter_with_the_fix_rejects_strangers(fake_lab):
    filt = Seed004BloomFilter(
        fake_lab, "fixed", 10_000, 3, rng=np.random.default_rng(3), fixed=True
    )
    for element in ("element1", "element2", "element3"):
        filt.add(element)
    _, strangers = _members_and_strangers(300, seed=4)
    assert all(filt.contains(e) for e in ("element1", "element2", "element3"))
    assert sum(filt.contains(s) for s in strangers) <= 1  # expected ≈ 300 × (9/10000)^3


def test_seed004_check_reports_the_posts_test_as_it_really_runs(fake_lab):
    check = seed004_check(fake_lab, strangers=50)
    assert check.element4 is True  # the post prints false
    assert (check.strangers, check.strangers_present) == (50, 50)
    # three "hash functions" drawn once: one bit each (or fewer if two collide), whatever is added
    rng = np.random.default_rng(4)
    expected = {int(rng.random() * (2**31 - 1)) % 10_000 for _ in range(3)}
    assert check.bits_set == len(expected)
    assert fake_lab.keys() == []  # it cleans up after itself


def test_openid_lookups_finds_every_member_and_passes_strangers_at_about_the_formulas_rate(
    fake_lab,
):
    run = openid_lookups(fake_lab, members=6_000, lookups=6_000, miss_share=0.5, p=0.02, seed=1)
    assert run.members_found == 1.0
    assert run.misses + (run.lookups - run.misses) == 6_000
    assert 2_700 < run.misses < 3_300  # Binomial(6000, 0.5)
    # Clopper–Pearson 99.99% interval of the measured rate contains the formula's rate
    low, high = bloom.fpr_confidence_interval(run.misses_through, run.misses, level=0.9999)
    assert low <= run.expected_rate <= high
    assert run.expected_rate == pytest.approx(0.02, rel=0.1)
    assert run.through_rate == run.misses_through / run.misses
    assert fake_lab.keys() == []


def test_openid_lookups_gives_the_same_answers_for_the_same_seed(fake_lab):
    assert openid_lookups(fake_lab, 500, 300, seed=9) == openid_lookups(fake_lab, 500, 300, seed=9)


@pytest.mark.live
def test_openid_lookups_gives_the_same_answers_on_live_redis_and_fakeredis(live_lab, fake_lab):
    assert openid_lookups(live_lab, 800, 400, seed=5) == openid_lookups(fake_lab, 800, 400, seed=5)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"members": 0}, "members"),
        ({"lookups": 20}, "lookups"),
        ({"miss_share": 1.5}, "miss_share"),
    ],
)
def test_openid_lookups_rejects_bad_sizes(fake_lab, kwargs, name):
    args = {"members": 10, "lookups": 5} | kwargs
    with pytest.raises(ValueError, match=name):
        openid_lookups(fake_lab, **args)
