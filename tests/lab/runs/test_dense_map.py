"""Tests for setlab.lab.runs.dense_map: the Lua dense map on Redis, its client-side twin, round
trips and memory.

References: the pure model (setlab.models.snowflake.first_seen_ranks, itself checked against a
dict), concurrent threads on live Redis and fakeredis, Redis's own MEMORY USAGE, and the error
text of Redis's bitops.c.
"""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from setlab.lab import reference
from setlab.lab.runs import dense_map as dm
from setlab.models import snowflake as sf

SEED_ID = 2051776854918803458  # seed 000 §4's "typical" snowflake ID


def test_dense_map_gives_consecutive_ints_in_first_seen_order(fake_lab):
    dense = dm.DenseMap.for_lab(fake_lab)
    ids = [SEED_ID, 7, SEED_ID + 1, 7, 12, SEED_ID]
    assert [dense.lookup(i) for i in ids] == [0, 1, 2, 1, 3, 0]
    assert dense.lookup_many([12, 99, 7, 99], batch=3) == [3, 4, 1, 4]
    assert dense.size() == dense.issued() == 5
    assert all(k.decode().startswith(fake_lab.namespace) for k in fake_lab.keys())
    with pytest.raises(ValueError, match="snowflake must be at least 0"):
        dense.lookup(-1)


def _hammer(lab, lookup, ids_per_thread):
    """Run ``lookup(client, id)`` for each thread's ids on its own connection; collect results."""
    results: list[list[tuple[int, int]]] = [[] for _ in ids_per_thread]
    barrier = threading.Barrier(len(ids_per_thread))
    errors = []

    def work(slot, ids):
        client = lab.new_client()
        try:
            barrier.wait()
            results[slot] = [(i, lookup(client, i)) for i in ids]
        except Exception as exc:  # surfaced by the assert below
            errors.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=work, args=a) for a in enumerate(ids_per_thread)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    return [pair for chunk in results for pair in chunk]


def _overlapping_work(threads=8, distinct=300, seed=1):
    rng = random.Random(seed)
    pool = [
        sf.TWITTER.id_at(sf.TWITTER_EPOCH_MS + 10**11 + i, worker=i % 32) for i in range(distinct)
    ]
    return [rng.sample(pool, len(pool)) for _ in range(threads)], pool


@pytest.mark.parametrize(
    "lab_fixture", [pytest.param("live_lab", marks=pytest.mark.live), "fake_lab"]
)
def test_dense_map_gives_distinct_consecutive_ints_under_concurrent_writers(lab_fixture, request):
    lab = request.getfixturevalue(lab_fixture)
    work, pool = _overlapping_work()
    keys = dm.DenseMap.for_lab(lab)

    def lookup(client, snowflake):
        return dm.DenseMap(client, keys.map_key, keys.counter_key).lookup(snowflake)

    pairs = _hammer(lab, lookup, work)
    mapping = {}
    for snowflake, dense in pairs:
        assert mapping.setdefault(snowflake, dense) == dense  # every thread saw the same int
    assert sorted(mapping.values()) == list(range(len(pool)))  # distinct and consecutive
    assert keys.issued() == keys.size() == len(pool)  # no number was wasted


@pytest.mark.parametrize(
    "lab_fixture", [pytest.param("live_lab", marks=pytest.mark.live), "fake_lab"]
)
def test_map_without_script_stays_consistent_under_concurrent_writers(lab_fixture, request):
    lab = request.getfixturevalue(lab_fixture)
    work, pool = _overlapping_work(seed=2)
    map_key, counter_key = lab.key("plain", "map"), lab.key("plain", "next")
    pairs = _hammer(lab, lambda c, i: dm.lookup_without_script(c, map_key, counter_key, i), work)
    mapping = {}
    for snowflake, dense in pairs:
        assert mapping.setdefault(snowflake, dense) == dense
    assert len(set(mapping.values())) == len(pool)  # distinct, but gaps are allowed
    assert int(lab.r.get(counter_key)) >= lab.r.hlen(map_key) == len(pool)


def test_map_without_script_leaves_a_gap_when_it_loses_the_race(fake_lab):
    map_key, counter_key = fake_lab.key("race", "map"), fake_lab.key("race", "next")
    loser, winner = fake_lab.new_client(), fake_lab.new_client()
    incr = loser.incr

    def incr_after_winner(key):  # the winner binds the ID between the loser's HGET and INCR
        dm.lookup_without_script(winner, map_key, counter_key, SEED_ID)
        return incr(key)

    loser.incr = incr_after_winner
    assert dm.lookup_without_script(loser, map_key, counter_key, SEED_ID) == 0
    assert int(fake_lab.r.get(counter_key)) == 2  # number 1 was taken and never bound
    assert fake_lab.r.hlen(map_key) == 1


def test_count_commands_counts_each_command_and_restores_the_client(fake_lab):
    r = fake_lab.r
    with dm.count_commands(r) as sent:
        r.set(fake_lab.key("a"), 1)
        r.get(fake_lab.key("a"))
        r.get(fake_lab.key("a"))
    assert sent == {"SET": 1, "GET": 2}
    assert "execute_command" not in vars(r)


def test_commands_sent_are_a_new_users_then_the_same_users_again_per_lookup(fake_lab):
    r = fake_lab.r
    plain = (fake_lab.key("plain", "map"), fake_lab.key("plain", "next"))
    lookups = {
        "in the client": sf.unsigned_offset,
        "without the script": lambda u: dm.lookup_without_script(r, *plain, u),
    }
    sent = dm.commands_sent(r, lookups, SEED_ID, calls=3)
    assert sent["in the client"] == [{}, {}, {}]
    # a miss: HGET, then INCR (redis-py sends INCRBY key 1) and HSETNX; then a hit: HGET alone
    assert sent["without the script"] == [
        {"HGET": 1, "INCRBY": 1, "HSETNX": 1}, {"HGET": 1}, {"HGET": 1},
    ]  # fmt: skip
    assert r.hget(plain[0], SEED_ID) == b"0"
    with pytest.raises(ValueError, match="calls must be at least 1; got 0"):
        dm.commands_sent(r, lookups, SEED_ID, calls=0)


@pytest.mark.parametrize(
    "lab_fixture", [pytest.param("live_lab", marks=pytest.mark.live), "fake_lab"]
)
def test_dense_map_hands_out_what_the_pure_model_computes(lab_fixture, request):
    lab = request.getfixturevalue(lab_fixture)
    rng = np.random.default_rng(5)
    ids = rng.choice(10_000, size=3_000).astype(np.int64) + SEED_ID  # with repeats
    dense = dm.DenseMap.for_lab(lab)
    assert dense.lookup_many(ids.tolist(), batch=700) == sf.first_seen_ranks(ids).tolist()


# -- memory ----------------------------------------------------------------------------------------


@pytest.mark.live
def test_map_memory_is_what_redis_reports_and_its_keys_are_gone_after(live_lab):
    ids = [SEED_ID + 4096 * k for k in range(300)]
    memory = dm.measure_map_memory(live_lab, ids)
    assert memory.users == 300 and memory.encoding in {"listpack", "hashtable"}
    check = dm.DenseMap.for_lab(live_lab, "check")
    check.lookup_many(ids)
    assert memory.bytes == live_lab.r.memory_usage(check.map_key, samples=0)
    assert memory.per_user == memory.bytes / 300
    assert not [k for k in live_lab.keys() if b"dense-memory" in k]


@pytest.mark.live
def test_the_stored_map_memory_matches_this_redis(live_lab):
    # Deterministic for one Redis version and allocator: the reference run must match exactly.
    stored = dm.DenseMapReference.load()
    if (live_lab.version_text, live_lab.allocator) != (
        stored.run.redis_version,
        stored.run.allocator,
    ):
        pytest.skip(f"reference measured on {stored.run.label}")
    for row in stored.rows[:2]:
        measured = dm.measure_map_memory(live_lab, _chapter_likers()[: row.users])
        assert (measured.users, measured.encoding) == (row.users, row.encoding)
        # MEMORY USAGE counts the key's name too, and this test's namespace is longer than the
        # reference script's: a few dozen bytes, one allocator size class at most
        assert 0 <= measured.bytes - row.bytes <= 64


def _chapter_likers() -> list[int]:
    from setlab.chapters import snowflake_ranges

    return snowflake_ranges.likers().tolist()


def test_measuring_memory_refuses_an_empty_map(fake_lab):
    with pytest.raises(ValueError, match="at least one ID"):
        dm.measure_map_memory(fake_lab, [])


def test_the_reference_rows_are_typed_and_grow_with_the_users():
    stored = dm.DenseMapReference.load()
    assert isinstance(stored.run, reference.RunInfo)
    assert stored.run.label.startswith("reference run: Redis ")
    users = [r.users for r in stored.rows]
    assert users == sorted(users) and len(set(users)) == len(users)
    assert all(isinstance(r, dm.MapMemory) and r.bytes > 0 for r in stored.rows)
    assert [r.bytes for r in stored.rows] == sorted(r.bytes for r in stored.rows)
    assert stored.rows[-1].encoding == "hashtable"  # thousands of fields: past the listpack limit
    assert stored.at(users[0]) == stored.rows[0]
    with pytest.raises(KeyError, match="no reference row for 7 users"):
        stored.at(7)
