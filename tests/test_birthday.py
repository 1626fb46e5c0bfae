"""Tests for setlab.models.birthday: exact, approximate and simulated collision figures agree.

References come from outside the module: brute-force enumeration of every assignment, exact
rational arithmetic (fractions), 50-digit decimal products, published values (the 23-people
birthday figure, Newcombe's Wilson-interval example) and the mmh3 package for the hash port.
"""

from __future__ import annotations

import itertools
import math
import uuid
from collections import Counter
from decimal import Decimal, getcontext
from fractions import Fraction

import mmh3
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# -- the hash port -------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 40), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_numpy_murmur3_is_bit_identical_to_mmh3(length, seed, random):
    data = np.array(
        [[random.randrange(256) for _ in range(length)] for _ in range(7)], dtype=np.uint8
    ).reshape(7, length)
    h1, h2 = bd.murmur3_x64_128(data, seed)
    h32 = bd.murmur3_32(data, seed)
    for i, row in enumerate(data):
        key = row.tobytes()
        assert (int(h1.view(np.int64)[i]), int(h2.view(np.int64)[i])) == mmh3.hash64(key, seed)
        assert int(h32[i]) == mmh3.hash(key, seed, signed=False)


def test_uuid_text_and_strings_are_the_same_version_4_uuids():
    text = bd.uuid4_text(np.random.default_rng(7), 500)
    strings = bd.uuid4_strings(np.random.default_rng(7), 500)
    assert [row.tobytes().decode("ascii") for row in text] == strings
    for s in strings:
        parsed = uuid.UUID(s)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122 and str(parsed) == s


def test_snowflake_like_ids_are_distinct_per_row_and_decode_into_their_fields():
    ids = bd.snowflake_like_ids(np.random.default_rng(3), (50, 2000))
    assert ids.dtype == np.int64 and (ids > 0).all()
    assert all(len(set(row.tolist())) == 2000 for row in ids)
    ms = (ids >> 22) + bd.SNOWFLAKE_EPOCH_MS
    assert ms.min() >= 1_735_689_600_000 and ms.max() < 1_735_689_600_000 + 3 * 365 * 86_400_000
    assert ((ids >> 12) & 1023).max() <= 1023 and (ids & 4095).max() < 64


def test_abs_mod_is_javas_math_abs_then_remainder():
    hashes = np.array([0, 1, -1, 2**63 - 1, -(2**63) + 1, -(2**63), 123456789, -987654321])
    for m in (1, 7, 100_000, 2**32 - 1, 2**32):
        got = bd.abs_mod(hashes.astype(np.int64), m)
        assert got.tolist() == [abs(int(h)) % m for h in hashes]


def test_vectorised_offsets_equal_scalar_mmh3_offsets():
    ids = bd.snowflake_like_ids(np.random.default_rng(11), 300)
    for m in (2**20, 2**32 - 1):
        want = [abs(mmh3.hash64(int(i).to_bytes(8, "little", signed=True))[0]) % m for i in ids]
        assert bd.id_offsets(ids, m).tolist() == want


def test_seed_004_offsets_equal_the_vectorised_uuid_offsets():
    uuids = bd.uuid4_strings(np.random.default_rng(5), 2000)
    text = bd.uuid4_text(np.random.default_rng(5), 2000)
    raw, sized = bd.seed_004_offsets(uuids)
    assert raw.tolist() == bd.id_offsets(text, 2**32, "x86_32").tolist()
    assert sized.tolist() == bd.id_offsets(text, 100_000).tolist()
    assert raw.max() < 2**32 and sized.max() < 100_000


# -- simulation ----------------------------------------------------------------------------------


def test_collision_counts_by_hand():
    lost, colliding = bd.collision_counts(np.array([[5, 1, 5, 2, 5, 1], [0, 1, 2, 3, 4, 5]]))
    assert lost.tolist() == [3, 0]
    assert colliding.tolist() == [5, 0]


@pytest.mark.parametrize(
    ("n", "m", "id_kind"),
    [
        (1000, 2**20, "snowflake"),
        (300, 2**16, "uuid"),
        (100, 2**12, "snowflake"),
        (50, 100, "uuid"),
    ],
)
def test_simulation_agrees_with_exact_and_approximate_figures(n, m, id_kind):
    result = bd.simulate_collisions(
        n, m, 3000, np.random.default_rng(2026), id_kind, confidence=0.999
    )
    exact = bd.collision_probability(n, m)
    assert result.agrees_with(exact), (result.probability_ci, exact)
    low, high = result.lost_bits_ci
    assert low <= bd.expected_lost_bits(n, m) <= high
    low, high = result.colliding_users_ci
    assert low <= bd.expected_colliding_users(n, m) <= high
    # The approximation is inside the interval too wherever n is small against m.
    if n * n < m:
        assert result.agrees_with(bd.collision_probability_approx(n, m))


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(20, 600), st.integers(10, 22))
def test_simulated_probability_covers_the_exact_one(n, log2_m):
    m = 1 << log2_m
    result = bd.simulate_collisions(n, m, 800, np.random.default_rng(n * 100 + log2_m), "snowflake",
                                    confidence=0.9999)  # fmt: skip
    assert result.agrees_with(bd.collision_probability(n, m))


def test_seed_004_x86_32_hashes_behave_like_uniform_offsets():
    result = bd.simulate_collisions(
        20_000, 2**32, 200, np.random.default_rng(4), "uuid", "x86_32", confidence=0.999
    )
    low, high = result.lost_bits_ci
    assert low <= bd.expected_lost_bits(20_000, 2**32) <= high


def test_wilson_interval_matches_newcombes_example_and_solves_the_score_equation():
    # Newcombe (1998), Statistics in Medicine 17:857, example 81/263: 0.2553 to 0.3662.
    low, high = bd.wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    z = 1.959963984540054
    for hits, trials in [(0, 20), (3, 1000), (999, 1000), (50, 100)]:
        phat = hits / trials
        for bound in bd.wilson_interval(hits, trials):
            if 0 < bound < 1:
                assert (phat - bound) ** 2 == pytest.approx(
                    z * z * bound * (1 - bound) / trials, rel=1e-9
                )
    assert bd.wilson_interval(0, 20)[0] == 0


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
    cells = {(c.log2_m, c.n): c for c in bd.seed_000_cells()}
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


def test_format_probability_never_rounds_to_a_false_hundred_percent():
    assert bd.format_probability(1.15251e-6) == "0.000115%"
    assert bd.format_probability(0.169932) == "17.0%"
    assert bd.format_probability(0.99995) == "99.995%"
    assert bd.format_collision_probability(10_000, 2**20).startswith("100% − 1.7e-19")
    assert bd.format_probability(1.0) == "100%"


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
        (lambda: bd.simulate_collisions(10, 100, 0, np.random.default_rng()), "trials"),
        (lambda: bd.simulate_collisions(10, 100, 5, 42), "rng must be a numpy Generator"),
        (lambda: bd.simulate_collisions(10, 100, 5, np.random.default_rng(), "ints"), "id_kind"),
        (lambda: bd.simulate_collisions(0, 100, 5, np.random.default_rng()), "at least 1"),
        (lambda: bd.wilson_interval(5, 4), "hits"),
        (lambda: bd.murmur3_32(np.zeros(4, dtype=np.uint8)), "2-D uint8"),
        (lambda: bd.id_offsets(np.zeros(3), 10), "dtype"),
        (lambda: bd.id_offsets(np.zeros(3, dtype=np.int64), 10, "md5"), "hash_kind"),
        (lambda: bd.format_probability(1.5), "between 0 and 1"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()
