"""setlab.models.bloom: formulas against brute force, the simulator against the formulas, and the
Redis-backed filter on both backends (no false negatives, same bits as the simulator)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mmh3
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import bloom
from setlab.models.bloom import BloomLayout, BloomSimulator, RedisBloomFilter

# -- formulas against brute force -----------------------------------------------------------------


def brute_force_fpr(n: int, m: int, k: int) -> Fraction:
    """Enumerate every outcome of the k·n insert hashes and the k query hashes (uniform, indep.)."""
    hits = 0
    total = 0
    for inserted in itertools.product(range(m), repeat=k * n):
        bits = set(inserted)
        for query in itertools.product(range(m), repeat=k):
            total += 1
            hits += all(q in bits for q in query)
    return Fraction(hits, total)


def brute_force_fill(n: int, m: int, k: int) -> Fraction:
    outcomes = list(itertools.product(range(m), repeat=k * n))
    return Fraction(sum(len(set(o)) for o in outcomes), len(outcomes) * m)


def stirling2(n: int, k: int) -> int:
    """Stirling numbers of the second kind by the textbook recurrence (exact integers)."""
    table = [[0] * (k + 1) for _ in range(n + 1)]
    table[0][0] = 1
    for i in range(1, n + 1):
        for j in range(1, min(i, k) + 1):
            table[i][j] = j * table[i - 1][j] + table[i - 1][j - 1]
    return table[n][k]


def crj_formula(n: int, m: int, k: int) -> Fraction:
    """Christensen–Roginsky–Jimeno (2010), eq. (4), in exact rational arithmetic."""
    total = sum(
        Fraction(i**k * math.factorial(i) * math.comb(m, i) * stirling2(k * n, i))
        for i in range(1, m + 1)
    )
    return total / m ** (k * (n + 1))


@pytest.mark.parametrize(
    ("n", "m", "k"), [(1, 2, 1), (1, 3, 2), (2, 3, 2), (2, 4, 1), (3, 3, 1), (1, 4, 3), (2, 2, 2)]
)
def test_exact_fpr_matches_enumeration_of_every_hash_outcome(n, m, k):
    assert bloom.fpr_exact(n, m, k) == pytest.approx(float(brute_force_fpr(n, m, k)), rel=1e-12)


@pytest.mark.parametrize(("n", "m", "k"), [(1, 3, 2), (2, 4, 2), (3, 2, 2)])
def test_finite_fill_ratio_matches_enumeration(n, m, k):
    expected = float(brute_force_fill(n, m, k))
    assert bloom.fill_ratio(n, m, k) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("n", "m", "k"), [(5, 20, 3), (10, 32, 4), (8, 50, 7), (30, 40, 2)])
def test_exact_fpr_matches_the_stirling_number_formula(n, m, k):
    assert bloom.fpr_exact(n, m, k) == pytest.approx(float(crj_formula(n, m, k)), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 60), m=st.integers(1, 200), k=st.integers(1, 12))
def test_classic_le_finite_le_exact(n, m, k):
    # (1-1/m)^kn <= e^(-kn/m) gives the first; Jensen on x^k (E[X]/m = finite fill) the second.
    classic, finite, exact = bloom.fpr(n, m, k), bloom.fpr_finite(n, m, k), bloom.fpr_exact(n, m, k)
    assert classic <= finite * (1 + 1e-12) + 1e-300
    assert finite <= exact * (1 + 1e-9) + 1e-300


def test_exact_and_classic_agree_for_a_large_filter():
    assert bloom.fpr_exact(1000, 10_000, 7) == pytest.approx(bloom.fpr(1000, 10_000, 7), rel=0.02)


def test_exact_fpr_refuses_work_over_its_budget():
    with pytest.raises(ValueError, match="fpr_finite"):
        bloom.fpr_exact(30_000, 2**17, 15)


def test_sizing_matches_the_published_one_percent_and_one_per_mille_figures():
    # -ln(p)/ln(2)^2 by hand: 4.605170/0.480453 = 9.5851 bits, k = 6.64 → 7 (p = 1%);
    # 6.907755/0.480453 = 14.3776 bits, k = 9.97 → 10 (p = 0.1%).
    one_percent = bloom.size_for(1_000_000, 0.01)
    assert one_percent.m == 9_585_059 and one_percent.k == 7
    assert bloom.size_for(1_000_000, 0.001).k == 10
    assert bloom.bits_per_item(0.001) == pytest.approx(14.3776, abs=1e-4)


def test_optimal_k_is_the_argmin_over_all_whole_k():
    for m, n in [(1000, 100), (9585, 1000), (2**17, 30_000), (2**17, 7_600), (50, 49)]:
        best = min(range(1, 60), key=lambda k: bloom.fpr(n, m, k))
        assert bloom.optimal_k(m, n) == best


def test_optimum_leaves_the_filter_half_full():
    m, n = 2**20, 50_000
    k_real = m / n * math.log(2)
    assert 1 - math.exp(-k_real * n / m) == pytest.approx(0.5)
    assert bloom.fill_ratio(n, m, bloom.optimal_k(m, n), finite=False) == pytest.approx(
        0.5, abs=0.03
    )


@settings(max_examples=50, deadline=None)
@given(m=st.integers(100, 10**9), p=st.floats(1e-6, 0.5), k=st.integers(1, 30))
def test_capacity_with_fixed_k_inverts_the_fpr(m, p, k):
    n = bloom.capacity(m, p, k)
    assert bloom.fpr(n, m, k) == pytest.approx(p, rel=1e-9)


def test_capacity_with_best_k_is_the_load_that_optimal_m_was_sized_for():
    n = 123_456.0
    m = bloom.optimal_m(n, 0.02)
    assert bloom.capacity(m, 0.02) == pytest.approx(n, rel=1e-6)


def test_lower_bound_is_log2_of_one_over_p_and_bloom_pays_1_44x():
    assert bloom.bits_per_item_lower_bound(1 / 1024) == pytest.approx(10.0)
    ratio = bloom.bits_per_item(0.01) / bloom.bits_per_item_lower_bound(0.01)
    assert ratio == pytest.approx(1 / math.log(2))


def test_formulas_broadcast_over_arrays():
    n = np.array([0, 1000, 2000])
    out = bloom.fpr(n, 10_000, 7)
    assert out.shape == (3,) and out[0] == 0.0 and out[1] < out[2]


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: bloom.size_for(1000, 0.0), "p"),
        (lambda: bloom.size_for(1000, 1.0), "p"),
        (lambda: bloom.size_for(1000, -0.5), "p"),
        (lambda: bloom.size_for(1000, float("nan")), "p"),
        (lambda: bloom.size_for(0, 0.01), "n"),
        (lambda: bloom.optimal_m(-5, 0.01), "n"),
        (lambda: bloom.fpr(10, 100, 0), "k"),
        (lambda: bloom.fpr(10, 100, 1.5), "k"),
        (lambda: bloom.fpr(-1, 100, 3), "n"),
        (lambda: bloom.fpr(10, 0, 3), "m"),
        (lambda: bloom.fpr("many", 100, 3), "n"),
        (lambda: bloom.fpr_exact(10, 100, 0), "k"),
        (lambda: bloom.capacity(1000, 2.0), "p"),
        (lambda: bloom.capacity(1000, 0.01, 0), "k"),
        (lambda: bloom.bits_per_item(0), "p"),
        (lambda: BloomLayout(1, 3), "bits_per_shard"),
        (lambda: BloomLayout(2**32 + 1, 3), "bits_per_shard"),
        (lambda: BloomLayout(1000, 0), "k"),
        (lambda: BloomLayout(1000, 3, shard_bits=-1), "shard_bits"),
        (lambda: BloomLayout.for_items(1e10, 0.01), "shard_bits"),
        (lambda: bloom.base_hashes([1, -2]), "items"),
        (lambda: bloom.base_hashes([1.5]), "items"),
        (lambda: bloom.base_hashes(np.array([-1, 2])), "items"),
        (lambda: bloom.worst_shard_load(100, 0), "shards"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# -- hashing and layout ---------------------------------------------------------------------------


def test_string_items_hash_with_murmur3_x64_128():
    h1, h2 = bloom.base_hashes(["openid-1", b"openid-2"], seed=3)
    assert (int(h1[0]), int(h2[0])) == mmh3.hash64(b"openid-1", 3, signed=False)
    assert (int(h1[1]), int(h2[1])) == mmh3.hash64(b"openid-2", 3, signed=False)


def test_python_ints_and_numpy_arrays_hash_the_same():
    ints = [0, 1, 2**40, 2**64 - 1]
    a = bloom.base_hashes(ints)
    b = bloom.base_hashes(np.array(ints, dtype=np.uint64))
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
    h1, _ = bloom.base_hashes(items)
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
    h1, h2 = bloom.base_hashes(["x"])
    a, b = int(h1[0]) % 1009, 1 + int(h2[0]) % 1008
    assert offsets[0].tolist() == [(a + i * b) % 1009 for i in range(6)]


# -- the simulator against the formulas -----------------------------------------------------------


@pytest.mark.parametrize(("n", "k"), [(300_000, 7), (600_000, 4), (1_200_000, 3)])
def test_simulated_fpr_lies_in_the_confidence_interval_of_the_formula(n, k):
    m, queries = 2**22, 200_000
    rate = bloom.simulate_fpr(m, k, n, queries=queries, seed=n)
    low, high = bloom.fpr_confidence_interval(round(rate * queries), queries, level=0.9999)
    assert low <= bloom.fpr(n, m, k) <= high


def test_sharded_simulation_matches_the_binomial_shard_load_model():
    # 2^10 shards of 2^12 bits: shard loads vary, and the mean rate exceeds fpr at the mean load.
    shards, m, k, n, queries = 2**10, 2**12, 5, 600_000, 400_000
    rate = bloom.simulate_fpr(m, k, n, queries=queries, seed=5, shard_bits=10)
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
    assert asked == [4 * 2**10]


def test_filter_refuses_a_big_allocation_on_a_server_it_does_not_own(fake_lab, monkeypatch):
    from setlab.lab.backend import BigAllocationRefused

    monkeypatch.setattr(type(fake_lab), "owns_server", property(lambda self: False))
    fake_lab.big_bytes = 2**20
    with pytest.raises(BigAllocationRefused):
        RedisBloomFilter(fake_lab, "big", BloomLayout(2**24, 3))
    assert fake_lab.keys() == []


def test_stirling_helper_matches_known_values():
    # guards the brute-force helper itself: S(5, 2) = 15, S(6, 3) = 90 (OEIS A008277)
    assert stirling2(5, 2) == 15 and stirling2(6, 3) == 90


# -- seed 004's filter and the presentation helpers -----------------------------------------------


def test_seed_004_filter_says_present_for_anything_once_one_item_was_added(fake_lab):
    filt = bloom.Seed004BloomFilter(fake_lab, "s4", 10_000, 3, rng=np.random.default_rng(1))
    assert not filt.contains("element4")  # empty filter: bits all zero
    filt.add("element1")
    _, strangers = _members_and_strangers(50, seed=9)
    assert all(filt.contains(s) for s in strangers)


def test_seed_004_filter_sets_the_same_bits_whatever_it_is_given(fake_lab):
    one = bloom.Seed004BloomFilter(fake_lab, "one", 10_000, 3, rng=np.random.default_rng(2))
    many = bloom.Seed004BloomFilter(fake_lab, "many", 10_000, 3, rng=np.random.default_rng(2))
    one.add("a")
    for i in range(100):
        many.add(f"user-{i}")
    assert fake_lab.r.get(one.filter_key) == fake_lab.r.get(many.filter_key)


def test_seed_004_filter_with_the_fix_rejects_strangers(fake_lab):
    filt = bloom.Seed004BloomFilter(
        fake_lab, "fixed", 10_000, 3, rng=np.random.default_rng(3), fixed=True
    )
    for element in ("element1", "element2", "element3"):
        filt.add(element)
    _, strangers = _members_and_strangers(300, seed=4)
    assert all(filt.contains(e) for e in ("element1", "element2", "element3"))
    assert sum(filt.contains(s) for s in strangers) <= 1  # expected ≈ 300 × (9/10000)^3


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.1571, "15.7%"), (5e-5, "0.005%"), (0.001, "0.1%"), (0.0, "0%"), (1.0, "100%")],
)
def test_format_rate_writes_percentages(p, text):
    assert bloom.format_rate(p) == text


@pytest.mark.parametrize("p", [-0.1, 1.5, "1%", True])
def test_format_rate_rejects_non_probabilities(p):
    with pytest.raises(ValueError, match="p must be"):
        bloom.format_rate(p)


def test_draw_filter_draws_one_box_per_bit_and_one_arrow_per_position():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    bloom.draw_filter(ax, 16, {"x": [1, 5, 9], "y": [2, 5]}, query=("q", [1, 3]))
    assert len(ax.patches) == 16
    assert sum(1 for t in ax.texts if getattr(t, "arrow_patch", None) is not None) == 7
    plt.close(fig)


def test_fpr_curve_rises_with_load_and_ends_inside_the_formulas_interval():
    layout = BloomLayout(2**20, 6)
    rows = bloom.simulate_fpr_curve(layout, [0, 50_000, 150_000], queries=100_000, seed=3)
    assert [r[0] for r in rows] == [0, 50_000, 150_000]
    assert rows[0][2] == 0 and rows[1][1] < rows[2][1]
    low, high = bloom.fpr_confidence_interval(rows[2][2], 100_000, level=0.9999)
    assert low <= bloom.fpr(150_000, 2**20, 6) <= high


def test_fpr_curve_rejects_falling_loads():
    with pytest.raises(ValueError, match="loads"):
        bloom.simulate_fpr_curve(BloomLayout(1000, 3), [10, 5])


def test_filters_bytes_is_the_sum_of_each_filters_own_sizing():
    caps = [1_000, 25_000, 3_000_000]
    expected = sum(bloom.size_for(c, 0.01).bytes for c in caps)
    assert bloom.filters_bytes(caps, 0.01) == expected
    with pytest.raises(ValueError, match="capacities"):
        bloom.filters_bytes([10, 0], 0.01)


def test_skewed_daily_loads_have_the_asked_total_and_shape():
    loads = bloom.skewed_daily_loads(np.random.default_rng(1), 8000, 200, 1.2e8, 1.5, 0.5)
    assert loads.shape == (200, 8000) and (loads > 0).all()
    assert loads.sum(axis=1).mean() == pytest.approx(1.2e8, rel=0.02)
    with pytest.raises(ValueError, match="keys"):
        bloom.skewed_daily_loads(np.random.default_rng(1), 0, 10, 1e6)
