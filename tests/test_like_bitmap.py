"""Tests for setlab.lab.like_bitmap: the seed's hashed like bitmap, and what a collision does to it."""

from __future__ import annotations

import numpy as np
import pytest

from setlab.lab import like_bitmap
from setlab.models import birthday

FIRST_USER = (1_778_025_600_000 - 1_288_834_974_657) << 22 | 1 << 12  # 2026-05-06, worker 1


def test_user_offset_equals_the_independent_numpy_murmur3_port():
    ids = np.arange(FIRST_USER, FIRST_USER + 500, dtype=np.int64)
    for m in (2**20, like_bitmap.SEED_MODULUS, 29):
        assert [like_bitmap.user_offset(int(i), m) for i in ids] == birthday.id_offsets(
            ids, m
        ).tolist()


def test_seed_modulus_is_what_the_seed_means_not_what_java_computes():
    assert like_bitmap.SEED_MODULUS == 4_294_967_295
    assert 2 ^ 32 - 1 == 29  # Python and Java agree: '^' is XOR and binds after '-'


@pytest.mark.parametrize("m", [2**12, 2**16, 2**20])
def test_found_pair_is_the_first_collision_in_the_stream(m):
    pair = like_bitmap.find_colliding_users(range(FIRST_USER, FIRST_USER + 10**6), m)
    assert pair.first != pair.second
    assert (
        like_bitmap.user_offset(pair.first, m)
        == like_bitmap.user_offset(pair.second, m)
        == pair.offset
    )
    assert pair.second == FIRST_USER + pair.searched - 1
    # Brute force: no earlier pair shares an offset.
    offsets = [like_bitmap.user_offset(u, m) for u in range(FIRST_USER, pair.second)]
    assert len(set(offsets)) == len(offsets)


def test_search_fails_clearly_when_the_ids_run_out():
    with pytest.raises(ValueError, match="no two of the 3 IDs"):
        like_bitmap.find_colliding_users([FIRST_USER, FIRST_USER + 1, FIRST_USER + 2], 2**32 - 1)


def test_a_collision_makes_a_like_read_as_the_other_users_and_an_unlike_erase_it(fake_lab):
    m = 2**16
    pair = like_bitmap.find_colliding_users(range(FIRST_USER, FIRST_USER + 10**5), m)
    bitmap = like_bitmap.LikeBitmap(fake_lab, 2051776854918803458, m)
    rows = like_bitmap.collision_story(bitmap, pair.first, pair.second)
    a_likes, b_likes, b_unlikes = rows
    assert (a_likes["A reads"], a_likes["B reads"], a_likes["BITCOUNT"]) == (True, True, 1)
    assert b_likes["reply"] == 1 and b_likes["BITCOUNT"] == 1 and b_likes["truth"] == "A, B"
    assert (b_unlikes["A reads"], b_unlikes["truth"]) == (False, "A")
    assert bitmap.key.startswith(fake_lab.namespace) and bitmap.key.endswith(
        "collect:bit:1:2051776854918803458"
    )


def test_users_on_different_bits_do_not_interfere(fake_lab):
    m = 2**16
    a, b = FIRST_USER, FIRST_USER + 1
    assert like_bitmap.user_offset(a, m) != like_bitmap.user_offset(b, m)
    rows = like_bitmap.collision_story(like_bitmap.LikeBitmap(fake_lab, 7, m), a, b)
    assert [(r["A reads"], r["B reads"], r["BITCOUNT"]) for r in rows] == [
        (True, False, 1),
        (True, True, 2),
        (True, False, 1),
    ]


def test_set_offsets_counts_distinct_offsets(fake_lab):
    offsets = np.random.default_rng(1).integers(0, 5000, 4000)
    assert like_bitmap.set_offsets(fake_lab, fake_lab.key("bits"), offsets) == len(
        set(offsets.tolist())
    )


@pytest.mark.live
def test_collision_story_is_the_same_on_a_real_redis(live_lab):
    m = 2**20
    pair = like_bitmap.find_colliding_users(range(FIRST_USER, FIRST_USER + 10**5), m)
    rows = like_bitmap.collision_story(
        like_bitmap.LikeBitmap(live_lab, 1, m), pair.first, pair.second
    )
    assert [(r["reply"], r["A reads"], r["B reads"], r["BITCOUNT"]) for r in rows] == [
        (0, True, True, 1),
        (1, True, True, 1),
        (1, False, False, 0),
    ]


def test_collision_diagram_draws_the_shared_bit():
    fig = like_bitmap.collision_diagram(16)
    texts = fig.axes[0].texts
    assert "offset = |hash64(user id)| mod M" in [t.get_text() for t in texts]
    bits = [t.get_text() for t in texts if t.get_position()[1] == 0.5]
    assert len(bits) == 16 and bits.count("1") == 2


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: like_bitmap.user_offset(2**63, 10), "signed 64-bit"),
        (lambda: like_bitmap.user_offset("42", 10), "integer ID"),
        (lambda: like_bitmap.user_offset(42, 0), "m \\(offsets\\)"),
        (lambda: like_bitmap.user_offset(42, 2**32), "m \\(offsets\\)"),
        (lambda: like_bitmap.find_colliding_users([1, 2], 1.5), "m \\(offsets\\)"),
        (lambda: like_bitmap.collision_diagram(100), "bits drawn"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_story_needs_two_different_users(fake_lab):
    with pytest.raises(ValueError, match="two different users"):
        like_bitmap.collision_story(like_bitmap.LikeBitmap(fake_lab, 1, 64), 5, 5)
