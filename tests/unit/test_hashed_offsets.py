"""Tests for setlab.models.hashed_offsets: realistic IDs, the seeds' hashed offsets, and the
Monte Carlo of their collisions against the exact formulas.

References come from outside the module: the mmh3 package (one key per call) for every offset,
Python's uuid module, Java's ``Math.abs``/``%`` semantics written out by hand, brute-force
counting, the exact formulas of setlab.models.birthday (themselves checked against enumeration
in tests/unit/test_birthday.py) and Newcombe's published Wilson-interval example.
"""

from __future__ import annotations

import uuid

import mmh3
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import birthday as bd
from setlab.models import hashed_offsets as ho

FIRST_USER = (1_778_025_600_000 - 1_288_834_974_657) << 22 | 1 << 12  # 2026-05-06, worker 1


def _mmh3_offset(user_id: int, m: int) -> int:
    """``|hash64(id)| mod m`` with mmh3 directly: the seed's toOffset, as meant."""
    return abs(mmh3.hash64(user_id.to_bytes(8, "little", signed=True))[0]) % m


# -- IDs and offsets -------------------------------------------------------------------------------


def test_uuid_text_and_strings_are_the_same_version_4_uuids():
    text = ho.uuid4_text(np.random.default_rng(7), 500)
    strings = ho.uuid4_strings(np.random.default_rng(7), 500)
    assert [row.tobytes().decode("ascii") for row in text] == strings
    for s in strings:
        parsed = uuid.UUID(s)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122 and str(parsed) == s


def test_snowflake_like_ids_are_distinct_per_row_and_decode_into_their_fields():
    ids = ho.snowflake_like_ids(np.random.default_rng(3), (50, 2000))
    assert ids.dtype == np.int64 and (ids > 0).all()
    assert all(len(set(row.tolist())) == 2000 for row in ids)
    ms = (ids >> 22) + 1_288_834_974_657  # Twitter's epoch
    assert ms.min() >= 1_735_689_600_000 and ms.max() < 1_735_689_600_000 + 3 * 365 * 86_400_000
    assert ((ids >> 12) & 1023).max() <= 1023 and (ids & 4095).max() < 64


def test_abs_mod_is_javas_math_abs_then_remainder():
    hashes = np.array([0, 1, -1, 2**63 - 1, -(2**63) + 1, -(2**63), 123456789, -987654321])
    for m in (1, 7, 100_000, 2**32 - 1, 2**32):
        got = ho.abs_mod(hashes.astype(np.int64), m)
        assert got.tolist() == [abs(int(h)) % m for h in hashes]


def test_vectorised_offsets_equal_scalar_mmh3_offsets():
    ids = ho.snowflake_like_ids(np.random.default_rng(11), 300)
    for m in (2**20, 2**32 - 1):
        want = [abs(mmh3.hash64(int(i).to_bytes(8, "little", signed=True))[0]) % m for i in ids]
        assert ho.id_offsets(ids, m).tolist() == want


def test_seed_004_offsets_equal_the_vectorised_uuid_offsets():
    uuids = ho.uuid4_strings(np.random.default_rng(5), 2000)
    text = ho.uuid4_text(np.random.default_rng(5), 2000)
    raw, sized = ho.seed_004_offsets(uuids)
    assert raw.tolist() == ho.id_offsets(text, 2**32, "x86_32").tolist()
    assert sized.tolist() == ho.id_offsets(text, 100_000).tolist()
    assert raw.max() < 2**32 and sized.max() < 100_000


def test_user_offset_is_abs_hash64_mod_m_from_mmh3():
    for user in range(FIRST_USER, FIRST_USER + 300):
        for m in (29, 2**20, 2**32 - 1):
            assert ho.user_offset(user, m) == _mmh3_offset(user, m)


def test_user_offset_equals_the_vectorised_offsets():
    ids = np.arange(FIRST_USER, FIRST_USER + 500, dtype=np.int64)
    for m in (2**20, 2**32 - 1, 29):
        assert [ho.user_offset(int(i), m) for i in ids] == ho.id_offsets(ids, m).tolist()


@pytest.mark.parametrize("m", [2**12, 2**16, 2**20])
def test_found_pair_is_the_first_collision_in_the_stream(m):
    pair = ho.find_colliding_users(range(FIRST_USER, FIRST_USER + 10**6), m)
    assert pair.first != pair.second
    assert _mmh3_offset(pair.first, m) == _mmh3_offset(pair.second, m) == pair.offset
    assert pair.second == FIRST_USER + pair.searched - 1
    # Brute force: no earlier pair shares an offset.
    offsets = [_mmh3_offset(u, m) for u in range(FIRST_USER, pair.second)]
    assert len(set(offsets)) == len(offsets)


def test_search_fails_clearly_when_the_ids_run_out():
    with pytest.raises(ValueError, match="no two of the 3 IDs"):
        ho.find_colliding_users([FIRST_USER, FIRST_USER + 1, FIRST_USER + 2], 2**32 - 1)


@given(st.lists(st.integers(0, 20), min_size=1, max_size=60))
def test_colliding_fraction_counts_entries_whose_value_repeats(values):
    repeated = sum(1 for v in values if values.count(v) > 1)
    assert ho.colliding_fraction(values) == pytest.approx(repeated / len(values))


def test_colliding_fraction_takes_any_64_bit_values():
    values = np.array([2**62, 5, 2**62, 7], dtype=np.int64)
    assert ho.colliding_fraction(values) == 0.5


# -- simulation ----------------------------------------------------------------------------------


def test_collision_counts_by_hand():
    lost, colliding = ho.collision_counts(np.array([[5, 1, 5, 2, 5, 1], [0, 1, 2, 3, 4, 5]]))
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
    result = ho.simulate_collisions(
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
    result = ho.simulate_collisions(n, m, 800, np.random.default_rng(n * 100 + log2_m), "snowflake",
                                    confidence=0.9999)  # fmt: skip
    assert result.agrees_with(bd.collision_probability(n, m))


def test_seed_004_x86_32_hashes_behave_like_uniform_offsets():
    result = ho.simulate_collisions(
        20_000, 2**32, 200, np.random.default_rng(4), "uuid", "x86_32", confidence=0.999
    )
    low, high = result.lost_bits_ci
    assert low <= bd.expected_lost_bits(20_000, 2**32) <= high


def test_wilson_interval_matches_newcombes_example_and_solves_the_score_equation():
    # Newcombe (1998), Statistics in Medicine 17:857, example 81/263: 0.2553 to 0.3662.
    low, high = ho.wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    z = 1.959963984540054
    for hits, trials in [(0, 20), (3, 1000), (999, 1000), (50, 100)]:
        phat = hits / trials
        for bound in ho.wilson_interval(hits, trials):
            if 0 < bound < 1:
                assert (phat - bound) ** 2 == pytest.approx(
                    z * z * bound * (1 - bound) / trials, rel=1e-9
                )
    assert ho.wilson_interval(0, 20)[0] == 0


def test_wilson_interval_reaches_exactly_one_when_every_trial_hits():
    # (1 + z²/2n + z²/2n) / (1 + z²/n) = 1 exactly: a certain collision must lie inside
    for trials in (1, 3, 800, 10**6):
        assert ho.wilson_interval(trials, trials)[1] == 1.0
        assert ho.wilson_interval(0, trials)[0] == 0.0
    result = ho.simulate_collisions(265, 1024, 50, np.random.default_rng(1))
    assert result.hits == 50 and result.agrees_with(1.0)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ho.simulate_collisions(10, 100, 0, np.random.default_rng()), "trials"),
        (lambda: ho.simulate_collisions(10, 100, 5, 42), "rng must be a numpy Generator"),
        (lambda: ho.simulate_collisions(10, 100, 5, np.random.default_rng(), "ints"), "id_kind"),
        (lambda: ho.simulate_collisions(10, 100, 5, np.random.default_rng(), hash_kind="md5"),
         "hash_kind"),
        (lambda: ho.simulate_collisions(0, 100, 5, np.random.default_rng()), "at least 1"),
        (lambda: ho.wilson_interval(5, 4), "hits"),
        (lambda: ho.id_offsets(np.zeros(3), 10), "dtype"),
        (lambda: ho.id_offsets(np.zeros(3, dtype=np.int64), 10, "md5"), "hash_kind"),
        (lambda: ho.abs_mod(np.zeros(3), 10), "uint64 or int64"),
        (lambda: ho.seed_004_offsets("not-a-list"), "UUID strings"),
        (lambda: ho.user_offset(2**63, 10), "user_id must be"),
        (lambda: ho.user_offset("42", 10), "user_id must be an integer"),
        (lambda: ho.user_offset(42, 0), "m \\(offsets\\)"),
        (lambda: ho.user_offset(42, 2**32), "m \\(offsets\\)"),
        (lambda: ho.find_colliding_users([1, 2], 1.5), "m \\(offsets\\)"),
        (lambda: ho.colliding_fraction([]), "at least one"),
    ],
)  # fmt: skip
def test_bad_arguments_raise_value_error_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()
