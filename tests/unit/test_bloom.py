"""setlab.models.bloom: the formulas against brute force (every hash outcome enumerated, exact
rational arithmetic) and against published figures; the binomial shard model against sampling."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.core.formats import format_rate
from setlab.models import bloom

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
        (lambda: bloom.worst_shard_load(100, 0), "shards"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_stirling_helper_matches_known_values():
    # guards the brute-force helper itself: S(5, 2) = 15, S(6, 3) = 90 (OEIS A008277)
    assert stirling2(5, 2) == 15 and stirling2(6, 3) == 90


def test_worst_shard_load_matches_multinomial_simulation():
    rng = np.random.default_rng(7)
    n, shards = 200_000, 512
    maxima = [rng.multinomial(n, [1 / shards] * shards).max() for _ in range(300)]
    assert abs(bloom.worst_shard_load(n, shards) - float(np.median(maxima))) <= 4


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.1571, "15.7%"), (5e-5, "0.005%"), (0.001, "0.1%"), (0.0, "0%"), (1.0, "100%")],
)
def test_format_rate_writes_percentages(p, text):
    assert format_rate(p) == text


@pytest.mark.parametrize("p", [-0.1, 1.5, "1%", True])
def test_format_rate_rejects_non_probabilities(p):
    with pytest.raises(ValueError, match="p must be"):
        format_rate(p)


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
