"""setlab.models.bloom_sim: hashing and layout (MurmurHash3, routing by the top hash bits, the k
offsets), and the simulator against the formulas of setlab.models.bloom."""

from __future__ import annotations

import math

import mmh3
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import bloom, bloom_sim
from setlab.models.bloom_sim import BloomLayout, BloomSimulator


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: BloomLayout(1, 3), "bits_per_shard"),
        (lambda: BloomLayout(2**32 + 1, 3), "bits_per_shard"),
        (lambda: BloomLayout(1000, 0), "k"),
        (lambda: BloomLayout(1000, 3, shard_bits=-1), "shard_bits"),
        (lambda: BloomLayout.for_items(1e10, 0.01), "shard_bits"),
        (lambda: bloom_sim.base_hashes([1, -2]), "items"),
        (lambda: bloom_sim.base_hashes([1.5]), "items"),
        (lambda: bloom_sim.base_hashes(np.array([-1, 2])), "items"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# -- hashing and layout ---------------------------------------------------------------------------


def test_string_items_hash_with_murmur3_x64_128():
    h1, h2 = bloom_sim.base_hashes(["openid-1", b"openid-2"], seed=3)
    assert (int(h1[0]), int(h2[0])) == mmh3.hash64(b"openid-1", 3, signed=False)
    assert (int(h1[1]), int(h2[1])) == mmh3.hash64(b"openid-2", 3, signed=False)


def test_python_ints_and_numpy_arrays_hash_the_same():
    ints = [0, 1, 2**40, 2**64 - 1]
    a = bloom_sim.base_hashes(ints)
    b = bloom_sim.base_hashes(np.array(ints, dtype=np.uint64))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@settings(max_examples=40, deadline=None)
@given(
    items=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=200),
    shard_bits=st.integers(0, 12),
    m=st.integers(2, 5000),
    k=st.integers(1, 15),
)
def test_sharding_routes_every_item_to_exactly_one_key_by_its_top_hash_bits(
    items, shard_bits, m, k
):
    layout = BloomLayout(m, k, shard_bits)
    shard, offsets = layout.locate(items)
    h1, _ = bloom_sim.base_hashes(items)
    top = [int(h) >> (64 - shard_bits) if shard_bits else 0 for h in h1]
    assert shard.shape == (len(items),) and shard.tolist() == top
    assert offsets.shape == (len(items), k)
    assert int(offsets.max()) < m
    again_shard, again_offsets = layout.locate(items)  # deterministic
    assert np.array_equal(shard, again_shard) and np.array_equal(offsets, again_offsets)


def test_shards_receive_items_uniformly():
    layout = BloomLayout(1024, 3, shard_bits=6)
    shard, _ = layout.locate(np.arange(640_000, dtype=np.uint64))
    counts = np.bincount(shard.astype(np.int64), minlength=64)
    expected = 640_000 / 64
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 120  # 63 degrees of freedom: p ≈ 3e-5 at 120


@settings(max_examples=50, deadline=None)
@given(item=st.integers(0, 2**64 - 1), power=st.integers(1, 20), k=st.integers(1, 30))
def test_power_of_two_filters_give_an_item_k_distinct_bits(item, power, k):
    m = 2**power
    _, offsets = BloomLayout(m, k).locate([item])
    assert len(set(offsets[0].tolist())) == min(k, m)


def test_k_offsets_of_an_item_are_an_arithmetic_progression_mod_m():
    layout = BloomLayout(1009, 6)
    _, offsets = layout.locate(["x"])
    h1, h2 = bloom_sim.base_hashes(["x"])
    a, b = int(h1[0]) % 1009, 1 + int(h2[0]) % 1008
    assert offsets[0].tolist() == [(a + i * b) % 1009 for i in range(6)]


# -- the simulator against the formulas -----------------------------------------------------------


@pytest.mark.parametrize(("n", "k"), [(300_000, 7), (600_000, 4), (1_200_000, 3)])
def test_simulated_fpr_lies_in_the_confidence_interval_of_the_formula(n, k):
    m, queries = 2**22, 200_000
    rate = bloom_sim.simulate_fpr(m, k, n, queries=queries, seed=n)
    low, high = bloom.fpr_confidence_interval(round(rate * queries), queries, level=0.9999)
    assert low <= bloom.fpr(n, m, k) <= high


def test_sharded_simulation_matches_the_binomial_shard_load_model():
    # 2^10 shards of 2^12 bits: shard loads vary, and the mean rate exceeds fpr at the mean load.
    shards, m, k, n, queries = 2**10, 2**12, 5, 600_000, 400_000
    rate = bloom_sim.simulate_fpr(m, k, n, queries=queries, seed=5, shard_bits=10)
    low, high = bloom.fpr_confidence_interval(round(rate * queries), queries, level=0.9999)
    assert low <= bloom.sharded_fpr(n, shards, m, k) <= high
    assert bloom.sharded_fpr(n, shards, m, k) > bloom.fpr(n / shards, m, k)


def test_simulated_fill_ratio_matches_the_formula():
    sim = BloomSimulator.sized(2**20, 5)
    sim.add(np.arange(100_000, dtype=np.uint64))
    expected = bloom.fill_ratio(100_000, 2**20, 5)
    sd = math.sqrt(expected * (1 - expected) / 2**20)
    assert abs(sim.fill_ratio() - expected) < 6 * sd


def test_worst_shard_load_matches_multinomial_simulation():
    rng = np.random.default_rng(7)
    n, shards = 200_000, 512
    maxima = [rng.multinomial(n, [1 / shards] * shards).max() for _ in range(300)]
    assert abs(bloom.worst_shard_load(n, shards) - float(np.median(maxima))) <= 4


@settings(max_examples=30, deadline=None)
@given(
    items=st.lists(
        st.one_of(st.integers(0, 2**64 - 1), st.text(max_size=20), st.binary(max_size=20)),
        min_size=1,
        max_size=300,
    ),
    k=st.integers(1, 12),
    shard_bits=st.integers(0, 4),
)
def test_simulator_has_no_false_negatives(items, k, shard_bits):
    sim = BloomSimulator(BloomLayout(257, k, shard_bits))
    sim.add(items)
    assert sim.contains(items).all()


def test_simulator_shard_bytes_put_bit_zero_in_the_most_significant_bit():
    sim = BloomSimulator.sized(16, 1)
    sim.bits[[0, 9]] = True
    assert sim.shard_bytes(0) == bytes([0b1000_0000, 0b0100_0000])


def test_fpr_curve_rises_with_load_and_ends_inside_the_formulas_interval():
    layout = BloomLayout(2**20, 6)
    rows = bloom_sim.simulate_fpr_curve(layout, [0, 50_000, 150_000], queries=100_000, seed=3)
    assert [r[0] for r in rows] == [0, 50_000, 150_000]
    assert rows[0][2] == 0 and rows[1][1] < rows[2][1]
    low, high = bloom.fpr_confidence_interval(rows[2][2], 100_000, level=0.9999)
    assert low <= bloom.fpr(150_000, 2**20, 6) <= high


def test_fpr_curve_rejects_falling_loads():
    with pytest.raises(ValueError, match="loads"):
        bloom_sim.simulate_fpr_curve(BloomLayout(1000, 3), [10, 5])


@pytest.mark.parametrize(
    ("items", "size", "expected"),
    [
        (np.arange(5), 2, [[0, 1], [2, 3], [4]]),
        (["a", "b", "c"], 2, [["a", "b"], ["c"]]),
        ("one string", 4, [["one string"]]),
        (b"bytes", 4, [[b"bytes"]]),
        (iter(range(3)), 5, [[0, 1, 2]]),
        ([], 3, []),
    ],
)
def test_iter_chunks_cuts_arrays_and_iterables_into_pieces_in_order(items, size, expected):
    pieces = [list(np.asarray(p).tolist()) if isinstance(p, np.ndarray) else p
              for p in bloom_sim.iter_chunks(items, size)]  # fmt: skip
    assert pieces == expected
