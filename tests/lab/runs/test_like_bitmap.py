"""Tests for setlab.lab.runs.like_bitmap: the seed's hashed like bitmap on Redis, and what a
collision does to it.

References: the offsets come from the mmh3 package directly (|hash64(id)| mod M), the expected
replies from Redis's SETBIT/GETBIT/BITCOUNT semantics, checked on fakeredis and a real server.
"""

from __future__ import annotations

import mmh3
import numpy as np
import pytest

from setlab.lab.runs import like_bitmap
from setlab.models import hashed_offsets

FIRST_USER = (1_778_025_600_000 - 1_288_834_974_657) << 22 | 1 << 12  # 2026-05-06, worker 1
ITEM = 2051776854918803458


def _offset(user: int, m: int) -> int:
    return abs(mmh3.hash64(user.to_bytes(8, "little", signed=True))[0]) % m


def _pair(m: int) -> tuple[int, int]:
    pair = hashed_offsets.find_colliding_users(range(FIRST_USER, FIRST_USER + 10**5), m)
    assert _offset(pair.first, m) == _offset(pair.second, m)  # a real collision, by mmh3
    return pair.first, pair.second


def test_the_bitmap_key_and_offsets_follow_the_seed(fake_lab):
    bitmap = like_bitmap.LikeBitmap(fake_lab, ITEM, 2**20)
    assert bitmap.key.startswith(fake_lab.namespace)
    assert bitmap.key.endswith("collect:bit:1:2051776854918803458")
    assert [bitmap.offset(u) for u in range(FIRST_USER, FIRST_USER + 50)] == [
        _offset(u, 2**20) for u in range(FIRST_USER, FIRST_USER + 50)
    ]
    assert like_bitmap.LikeBitmap(fake_lab, ITEM).m == 4_294_967_295  # the seed's 2^32 - 1


def test_like_unlike_and_reads_are_setbit_getbit_and_bitcount(fake_lab):
    bitmap = like_bitmap.LikeBitmap(fake_lab, 7, 2**16)
    user = FIRST_USER
    assert bitmap.like(user) is False  # the bit was 0
    assert fake_lab.r.getbit(bitmap.key, _offset(user, 2**16)) == 1
    assert bitmap.has_liked(user) and bitmap.count() == 1
    assert bitmap.like(user) is True  # "already liked"
    assert bitmap.unlike(user) is True and bitmap.count() == 0
    bitmap.clear()
    assert fake_lab.r.exists(bitmap.key) == 0


def test_a_collision_makes_a_like_read_as_the_other_users_and_an_unlike_erase_it(fake_lab):
    m = 2**16
    first, second = _pair(m)
    bitmap = like_bitmap.LikeBitmap(fake_lab, ITEM, m)
    rows = like_bitmap.collision_story(bitmap, first, second)
    a_likes, b_likes, b_unlikes = rows
    assert (a_likes["A reads"], a_likes["B reads"], a_likes["BITCOUNT"]) == (True, True, 1)
    assert b_likes["reply"] == 1 and b_likes["BITCOUNT"] == 1 and b_likes["truth"] == "A, B"
    assert (b_unlikes["A reads"], b_unlikes["truth"]) == (False, "A")
    assert a_likes["command"] == f"SETBIT … {_offset(first, m):,} 1"


def test_users_on_different_bits_do_not_interfere(fake_lab):
    m = 2**16
    a, b = FIRST_USER, FIRST_USER + 1
    assert _offset(a, m) != _offset(b, m)
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
    first, second = _pair(m)
    rows = like_bitmap.collision_story(like_bitmap.LikeBitmap(live_lab, 1, m), first, second)
    assert [(r["reply"], r["A reads"], r["B reads"], r["BITCOUNT"]) for r in rows] == [
        (0, True, True, 1),
        (1, True, True, 1),
        (1, False, False, 0),
    ]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda lab: like_bitmap.LikeBitmap(lab, 2**63), "content_id must be"),
        (lambda lab: like_bitmap.LikeBitmap(lab, 1, 0), "m \\(offsets\\)"),
        (lambda lab: like_bitmap.LikeBitmap(lab, 1, 2**32), "m \\(offsets\\)"),
        (lambda lab: like_bitmap.LikeBitmap(lab, 1, 64).like("42"), "user_id must be an integer"),
        (lambda lab: like_bitmap.collision_story(like_bitmap.LikeBitmap(lab, 1, 64), 5, 5),
         "two different users"),
        (lambda lab: like_bitmap.collision_story(like_bitmap.LikeBitmap(lab, 1, 64), 5, 2**63),
         "b must be"),
    ],
)  # fmt: skip
def test_bad_arguments_raise_value_error_naming_the_parameter(call, match, fake_lab):
    with pytest.raises(ValueError, match=match):
        call(fake_lab)
