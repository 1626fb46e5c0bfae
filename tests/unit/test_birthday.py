"""Tests for setlab.models.birthday: the exact and approximate collision figures, and a printed
table judged against them.

References come from outside the module: brute-force enumeration of every assignment, exact
rational arithmetic (fractions), 50-digit decimal products and published values (the 23-people
birthday figure). The Monte Carlo check with real hashes is in tests/unit/test_hashed_offsets.py.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.chapters.birthday_collisions import SEED_000_TABLE
from setlab.core.formats import format_probability
from setlab.models import birthday as bd

# -- independent references ----------------------------------------------------------------------


def decimal_no_collision(n: int, m: int, digits: int = 50) -> Decimal:
    """prod_{i<n} (1 - i/m) with 50 significant digits."""
    getcontext().prec = digits
    product = Decimal(1)
    dm = Decimal(m)
    for i in range(1, n):
        product *= 1 - Decimal(i) / dm
    return product


def enumerate_assignments(n: int, m: int) -> dict[str, Fraction]:
    """Every one of the m^n equally likely offset assignments, counted exactly."""
    total = m**n
    any_collision = lost = colliding = variance_terms = 0
    lost_values = []
    for assignment in itertools.product(range(m), repeat=n):
        counts = Counter(assignment)
        lost_here = n - len(counts)
        any_collision += lost_here > 0
        lost += lost_here
        lost_values.append(lost_here)
        colliding += sum(c for c in counts.values() if c > 1)
    mean = Fraction(lost, total)
    variance_terms = sum((Fraction(v) - mean) ** 2 for v in lost_values)
    return {
        "p": Fraction(any_collision, total),
        "lost": mean,
        "colliding": Fraction(colliding, total),
        "lost_var": variance_terms / total,
    }


# -- exact probability ---------------------------------------------------------------------------


def test_collision_probability_matches_published_birthday_figures():
    # 23 people, 365 days: 50.7297%; 50 people: 97.0374% (the classic birthday problem).
    assert bd.collision_probability(23, 365) == pytest.approx(0.507297234, abs=1e-9)
    assert bd.collision_probability(50, 365) == pytest.approx(0.970373580, abs=1e-9)
    assert bd.max_users(365, 0.5) == 22


@pytest.mark.parametrize(("n", "m"), [(2, 2), (3, 4), (4, 5), (5, 3), (3, 7), (6, 4)])
def test_every_expectation_matches_brute_force_enumeration(n, m):
    truth = enumerate_assignments(n, m)
    assert bd.collision_probability(n, m) == pytest.approx(float(truth["p"]), rel=1e-12)
    assert bd.expected_lost_bits(n, m) == pytest.approx(float(truth["lost"]), rel=1e-12)
    assert bd.expected_colliding_users(n, m) == pytest.approx(float(truth["colliding"]), rel=1e-12)
    assert bd.lost_bits_sd(n, m) ** 2 == pytest.approx(float(truth["lost_var"]), rel=1e-9)


@pytest.mark.parametrize("log2_m", [32, 28, 24, 20])
@pytest.mark.parametrize("n", [100, 1000, 10_000])
def test_seed_table_cells_match_fifty_digit_products(log2_m, n):
    m = 1 << log2_m
    reference = 1 - decimal_no_collision(n, m)
    assert bd.collision_probability(n, m) == pytest.approx(float(reference), rel=1e-12)
    # The complement too, which is all that is left when P rounds to 1.
    assert math.exp(bd.log_no_collision(n, m)) == pytest.approx(
        float(decimal_no_collision(n, m)), rel=1e-11
    )


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 25), st.integers(1, 60))
def test_collision_probability_equals_exact_fraction(n, m):
    no_collision = Fraction(1)
    for i in range(n):
        no_collision *= Fraction(m - i, m)
    assert bd.collision_probability(n, m) == pytest.approx(float(1 - no_collision), abs=1e-15)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 50_000), st.integers(1, 2**62))
def test_approximation_and_bounds_bracket_the_exact_probability(n, m):
    exact = bd.collision_probability(n, m)
    approx = bd.collision_probability_approx(n, m)
    assert 0 <= exact <= 1
    # log(1-x) <= -x gives approx <= exact; the union bound caps it from above;
    # log(1-x) >= -x/(1-x) gives the other bound while n <= m.
    assert approx <= exact * (1 + 1e-12) + 1e-300
    assert exact <= bd.expected_colliding_pairs(n, m) * (1 + 1e-12) + 1e-300
    if 2 <= n <= m:
        upper = -math.expm1(-n * (n - 1) / (2 * (m - n + 1)))
        assert exact <= upper * (1 + 1e-12)


def test_pigeonhole_and_trivial_cases():
    assert bd.collision_probability(0, 10) == 0
    assert bd.collision_probability(1, 1) == 0
    assert bd.collision_probability(2, 1) == 1
    assert bd.collision_probability(11, 10) == 1
    assert bd.log_no_collision(11, 10) == -math.inf


def test_euler_maclaurin_branch_matches_direct_sum():
    for n, m in [(10**5, 2**32), (3 * 10**6, 2**40), (10**6, 10**6 + 2**16), (2**22, 2**23)]:
        direct = bd._log_no_collision_direct(n, m)
        assert bd._log_no_collision_em(n, m) == pytest.approx(direct, rel=1e-11)


def test_log_gamma_branch_matches_direct_sum_when_n_is_close_to_m():
    for n, m in [(10**6, 10**6), (10**6, 10**6 + 1000), (3 * 10**5, 3 * 10**5 + 7)]:
        direct = bd._log_no_collision_direct(n, m)
        assert bd._log_no_collision_gamma(n, m) == pytest.approx(direct, rel=1e-10)


def test_large_n_goes_through_the_other_branches_and_stays_exact():
    n = bd._DIRECT_MAX + 1000
    for m in (n + 10, 2**36, 2**60):
        assert bd.log_no_collision(n, m) == pytest.approx(
            bd._log_no_collision_direct(n, m), rel=1e-10
        )


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 30_000), min_size=1, max_size=20), st.integers(1, 2**40))
def test_vectorised_probabilities_equal_the_scalar_function(ns, m):
    got = bd.collision_probabilities(ns, m)
    want = [bd.collision_probability(n, m) for n in ns]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2**44), st.floats(1e-9, 1 - 1e-9))
def test_max_users_is_the_largest_n_within_the_target(m, p):
    n = bd.max_users(m, p)
    assert bd.collision_probability(n, m) <= p
    assert n > m or bd.collision_probability(n + 1, m) > p


def test_max_users_for_the_seed_moduli():
    # sqrt(2 M ln(1/(1-p))) is the textbook answer; exact differs by at most a couple of users.
    for log2_m in (20, 24, 28, 32):
        m = 1 << log2_m
        textbook = math.sqrt(2 * m * math.log(1 / 0.99)) + 0.5
        assert abs(bd.max_users(m, 0.01) - textbook) <= 2


# -- expected damage -----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), st.integers(1, 40))
def test_occupancy_expectations_equal_exact_fractions(n, m):
    q = Fraction(m - 1, m)
    distinct = m * (1 - q**n)
    lost = n - distinct
    var = m * q**n + m * (m - 1) * Fraction(m - 2, m) ** n - m * m * q ** (2 * n)
    colliding = n * (1 - q ** (n - 1)) if n else 0
    assert bd.expected_lost_bits(n, m) == pytest.approx(float(lost), rel=1e-12, abs=1e-15)
    assert bd.expected_distinct_offsets(n, m) == pytest.approx(float(distinct), rel=1e-12)
    assert bd.expected_colliding_users(n, m) == pytest.approx(float(colliding), rel=1e-12)
    assert bd.false_positive_rate(n, m) == pytest.approx(float(1 - q**n), rel=1e-12)
    assert bd.lost_bits_sd(n, m) ** 2 == pytest.approx(float(var), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("n", "m"), [(20_000, 2**32), (30_000, 30_000), (100, 2**32), (2, 2**62)])
def test_lost_bits_keep_their_digits_for_seed_004_sizes(n, m):
    # Exact integer arithmetic over the common denominator m^(2n); one correctly rounded division.
    a, b, den = (m - 1) ** n, (m - 2) ** n, m ** (2 * n)
    lost = Fraction(n * m**n - m * (m**n - a), m**n)
    var = m * a * m**n + m * (m - 1) * b * m**n - m * m * a * a
    assert bd.expected_lost_bits(n, m) == pytest.approx(float(lost), rel=1e-10)
    assert bd.lost_bits_sd(n, m) == pytest.approx(math.sqrt(var / den), rel=1e-10)


def test_one_hundred_thousand_into_one_hundred_thousand_leaves_a_fraction_one_over_e_empty():
    n = 100_000
    empty_fraction = 1 - bd.expected_distinct_offsets(n, n) / n
    assert empty_fraction == pytest.approx(math.exp(n * math.log1p(-1 / n)), rel=1e-12)
    assert empty_fraction == pytest.approx(math.exp(-1), rel=1e-5)


# -- the seed's table ------------------------------------------------------------------------------


def test_percent_parsing_keeps_the_printed_precision():
    assert bd.parse_percent("0.0001%") == (pytest.approx(1e-6), 1)
    assert bd.parse_percent("1.2%") == (pytest.approx(0.012), 2)
    assert bd.parse_percent("≈ 17%") == (pytest.approx(0.17), 2)
    assert bd.parse_percent("100%") == (pytest.approx(1.0), 1)
    assert bd.parse_percent("36.84%") == (pytest.approx(0.3684), 4)
    with pytest.raises(ValueError, match="percentage"):
        bd.parse_percent("lots")


def test_seed_table_verdicts_single_out_the_two_bad_cells():
    cells = {(c.log2_m, c.n): c for c in bd.judge_cells(SEED_000_TABLE)}
    assert len(cells) == 12
    wrong = [key for key, c in cells.items() if c.verdict == "wrong"]
    imprecise = [key for key, c in cells.items() if c.verdict == "imprecise"]
    assert wrong == [(20, 1000)]
    assert imprecise == [(20, 100)]
    # 2^20 x 1000: 100% is what n²/M gives (0.954 → "100%"); the truth is 37.9%.
    assert cells[20, 1000].reproduced_by == ("n²/M",)
    assert cells[20, 1000].exact == pytest.approx(0.37905, abs=1e-5)
    # 2^20 x 100: 0.48% counts n² ordered pairs instead of n(n-1)/2 pairs.
    assert "exact" not in cells[20, 100].reproduced_by
    assert "n²/2M" in cells[20, 100].reproduced_by


def test_a_cell_is_right_as_printed_imprecise_within_ten_percent_and_wrong_beyond():
    # 100 users: 0.47097…% in 2^20, 0.23576…% in 2^21, 0.11795…% in 2^22 (50-digit products)
    for log2_m, low, high in [(20, 0.4709, 0.4710), (21, 0.2357, 0.2358), (22, 0.1179, 0.1180)]:
        assert low < 100 * (1 - float(decimal_no_collision(100, 2**log2_m))) < high
    got = bd.judge_cells({(20, 100): "0.471%", (21, 100): "0.245%", (22, 100): "0.2%"})
    assert [c.verdict for c in got] == ["correct", "imprecise", "wrong"]  # 0%, 3.9%, 70% off
    assert "exact" in got[0].reproduced_by and got[1].reproduced_by == ()


def test_judged_cells_report_ratio_and_difference_against_the_exact_value():
    (cell,) = bd.judge_cells({(24, 1000): "3%"})
    exact = 1 - float(decimal_no_collision(1000, 2**24))
    assert cell.m == 2**24
    assert cell.ratio == pytest.approx(0.03 / exact, rel=1e-12)
    assert cell.difference_pp == pytest.approx((0.03 - exact) * 100, rel=1e-12)


def test_format_probability_never_rounds_to_a_false_hundred_percent():
    assert format_probability(1.15251e-6) == "0.000115%"
    assert format_probability(0.169932) == "17.0%"
    assert format_probability(0.99995) == "99.995%"
    assert bd.format_collision_probability(10_000, 2**20).startswith("100% − 1.7e-19")
    assert format_probability(1.0) == "100%"


# -- validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: bd.collision_probability(-1, 10), "n \\(users\\)"),
        (lambda: bd.collision_probability(10, 0), "m \\(offsets\\)"),
        (lambda: bd.collision_probability(10.0, 100), "must be an integer"),
        (lambda: bd.collision_probability(True, 100), "must be an integer"),
        (lambda: bd.collision_probability_approx(3, -2), "m \\(offsets\\)"),
        (lambda: bd.expected_lost_bits("10", 100), "n \\(users\\)"),
        (lambda: bd.expected_colliding_users(10, 0), "m \\(offsets\\)"),
        (lambda: bd.max_users(100, 1.0), "p must be a probability"),
        (lambda: bd.max_users(100, 0), "p must be a probability"),
        (lambda: bd.max_users(0, 0.5), "m \\(offsets\\)"),
        (lambda: format_probability(1.5), "between 0 and 1"),
        (lambda: bd.parse_percent("-3%"), "percentage"),
        (lambda: bd.round_significant(0.5, 0), "figures"),
        (lambda: bd.judge_cells({(63, 10): "1%"}), "log2 M"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()
