"""Chapter audit: the stored audit of the demo keyspace agrees with what the demo wrote, derived
independently (the offsets the likes hashed to, the filter's reservation, the members sent), its
claims are the four other chapters measure, and a live run finds what the stored one did.

References: the demo's own inputs, the bitmap, SET and RedisBloom layout models (each checked
against a real server elsewhere), and the stored stall run.
"""

from __future__ import annotations

import pytest

from setlab.chapters import audit as chapter
from setlab.models import bitmap, redisbloom
from setlab.models import redis_memory as rm
from setlab.models.hashed_offsets import user_offset
from setlab.site import registry
from setlab.tools.audit import findings

REPORT = chapter.stored_report()
NAMESPACE = "setlab:audit:"


def _finding(kind: str, key: str) -> dict:
    return next(f for f in chapter.findings_of(REPORT) if f["kind"] == kind and f["key"] == key)


def test_the_audit_shows_four_claims_other_chapters_measure_and_judges_none_of_its_own():
    assert chapter.FIGURES.claims == []
    shown = {c.id: c.chapter for c in registry.claims("audit")}
    assert shown == {
        "000-first-setbit-1500ms": "setbit-offset", "000-del-256mb-stall": "one-slow-command",
        "003-overfill-15.7pct": "nk-vs-m-saturation", "003-intset-512": "redis-set-memory",
    }  # fmt: skip


def test_the_like_bitmap_is_as_long_as_its_highest_hashed_offset_and_its_five_bits_are_bounded():
    offsets = [user_offset(user) for user in chapter.LIKERS]
    found = _finding("sparse-bitmap", "like:bit:42")
    assert found["strlen"] == bitmap.bytes_for_offset(max(offsets))
    # grown by five SETBITs in the likes' order: a smaller first one, then greedy growth
    built = rm.bitmap_cost(offsets, NAMESPACE + "like:bit:42")
    assert found["bytes"] == built.memory_usage
    # five likes: the sample counts the top one for sure, and bounds the rest
    assert 1 <= found["bits_set"] <= len(chapter.LIKERS) <= found["bits_set_upper"]
    assert found["alternative_bytes"] < found["bytes"] / 100


def test_the_campaign_filter_is_read_back_as_it_was_reserved():
    found = _finding("bloom-over-capacity", "filter:campaign:7")
    assert found["capacity"] == chapter.BLOOM_CAPACITY
    assert found["error_reserved"] == chapter.BLOOM_ERROR
    # adds that find an item already present (a false positive) are not counted
    assert 0.98 * chapter.BLOOM_ITEMS < found["items"] <= chapter.BLOOM_ITEMS
    layout = redisbloom.ChainLayout(chapter.BLOOM_ERROR, chapter.BLOOM_CAPACITY)
    assert found["filters"] == layout.filters_for(found["items"]) == 3
    assert found["fpr_now"] == pytest.approx(layout.expected_fpr(found["items"]))
    # MEMORY USAGE: BF.INFO's Size and the key's own parts (its name, its dictEntry)
    assert layout.memory(found["items"]) < found["bytes"] < layout.memory(found["items"]) + 128


def test_the_readers_set_is_priced_by_the_set_model_of_what_was_sent():
    found = _finding("integer-set", "readers:post:9")
    sent = list(range(1, 3 * chapter.SET_MEMBERS, 3))
    assert found["members"] == len(sent) == chapter.SET_MEMBERS
    model = rm.set_cost(sent, NAMESPACE + "readers:post:9").memory_usage
    # just built, the set may still be rehashing: MEMORY USAGE then counts the old bucket array
    assert model <= found["bytes"] <= model + 8 * rm.dict_buckets(len(sent)) // 2
    assert found["range_top"] >= max(sent) * 0.95
    assert found["bitmap_bytes"] == bitmap.first_setbit_memory_usage(found["range_top"])


def test_the_follower_sets_delete_time_is_the_stall_runs():
    found = _finding("big-key", "followers:user:1")
    assert found["del_ms"] == findings.del_ms("set", chapter.BIG_SET_MEMBERS)[0]


def test_the_final_design_raises_nothing_and_is_counted_whole():
    groups = {g["pattern"]: g for g in REPORT["groups"]}
    assert groups["like:user:{n}"]["keys"] == chapter.USERS
    assert groups["like:count:{n}"]["keys"] == chapter.POSTS
    flagged = {f["key"].split(":")[0] + ":" + f["key"].split(":")[1]
               for f in chapter.findings_of(REPORT)}  # fmt: skip
    assert not flagged & {"like:user", "like:count", "uv:week", "uv:day"}


@pytest.mark.live
def test_a_live_audit_of_the_demo_finds_what_the_stored_one_did(live_lab):
    live = chapter.audit_demo(live_lab)
    kinds = {(f["key"], f["kind"]) for f in chapter.findings_of(live)}
    assert kinds == {(f["key"], f["kind"]) for f in chapter.findings_of(REPORT)}
