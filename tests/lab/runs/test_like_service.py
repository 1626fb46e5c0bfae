"""setlab.lab.runs.like_service: the seed's String + Set design, its bugs, and the fixes."""

from __future__ import annotations

import pytest

from setlab.lab.runs import like_service
from setlab.lab.runs.like_service import LOADED, LikeService, LikeStore, LockNotAcquired


@pytest.fixture
def service(fake_lab):
    return LikeService(fake_lab, LikeStore())


def test_interleaved_seed_likes_count_one_like_twice(service):
    first = service.like_as_seed_steps(7, 42)
    second = service.like_as_seed_steps(7, 42)  # a double click: the same user and post
    assert next(first) == "checked: not liked"
    assert next(second) == "checked: not liked"  # both checks run before either adds
    assert list(first) == ["added to set", "counted"]
    assert list(second) == ["added to set", "counted"]
    assert service.count(42) == 2
    assert service.lab.r.scard(service.user_key(7)) == 1


def test_race_trace_shows_the_double_count_and_the_gate_prevents_it(service):
    seed = like_service.race_trace(service, fixed=False)
    # both checks reply 0 before either SADD: the interleaving the chapter's figure draws
    assert [(s.client, s.command, s.reply) for s in seed[:2]] == [
        ("A", "SISMEMBER", 0), ("B", "SISMEMBER", 0)
    ]  # fmt: skip
    assert (seed[-1].members, seed[-1].counter) == (1, 2)
    service.lab.cleanup()
    fixed = like_service.race_trace(service, fixed=True)
    assert [(s.client, s.command, s.reply) for s in fixed] == [
        ("A", "SADD", 1), ("B", "SADD", 0), ("A", "INCR", 1)
    ]  # fmt: skip
    assert (fixed[-1].members, fixed[-1].counter) == (1, 1)


def test_race_timeline_says_what_it_shows(service):
    from setlab.render import diagrams, plots

    seed = like_service.race_trace(service, fixed=False)
    service.lab.cleanup()
    fixed = like_service.race_trace(service, fixed=True)
    alt = plots.alt_text(diagrams.race_timeline(seed, fixed))
    assert "counted 2 times while the set holds 1" in alt
    assert "counter ends at 1" in alt


def test_sequential_seed_likes_are_fine(service):
    assert service.like_as_seed(7, 42)
    assert not service.like_as_seed(7, 42)
    assert service.count(42) == 1


def test_seed_unlike_decrements_even_when_nothing_was_liked(service):
    service.unlike_as_seed(7, 42)
    service.unlike_as_seed(7, 42)
    assert service.count(42) == -2


def test_gated_like_and_unlike_count_each_change_once(service):
    assert service.like(7, 42) and not service.like(7, 42)
    assert service.count(42) == 1 and service.is_liked(7, 42)
    assert service.unlike(7, 42) and not service.unlike(7, 42)
    assert service.count(42) == 0 and not service.is_liked(7, 42)
    assert service.store.count(1, 42) == 0


def test_lua_like_is_gated_too(service):
    assert service.like_atomic(7, 42)
    assert not service.like_atomic(7, 42)
    assert service.count(42) == 1


def test_sismember_on_a_missing_key_is_zero_not_null(service):
    # The seed reloads from the database when isMember == null; Redis never replies null here.
    assert service.lab.r.exists(service.user_key(99)) == 0
    assert service.lab.r.sismember(service.user_key(99), "1") == 0


def test_cold_start_reloads_from_the_database(service):
    service.like(7, 1)
    service.like(7, 2)
    service.lab.r.unlink(service.user_key(7))  # evicted, expired or lost in a restart
    assert service.is_liked(7, 2)  # reloaded, not "not liked"
    assert service.cached_members(7) == {1, 2}
    assert 0 < service.lab.r.ttl(service.user_key(7)) <= like_service.DEFAULT_TTL_S


def test_users_without_likes_are_loaded_once(service):
    for _ in range(5):
        assert not service.is_liked(8, 1)
    assert service.store.reads == 1
    assert service.lab.r.smembers(service.user_key(8)) == {LOADED}


def test_a_held_lock_blocks_the_reload_and_is_not_stolen(service):
    lock_key = service.lab.key("lock", "like-load", 9)
    service.lab.r.set(lock_key, "someone-else")
    service.lock_ms = 50
    with pytest.raises(LockNotAcquired, match="user 9"):
        service.ensure_loaded(9)
    assert service.lab.r.get(lock_key) == b"someone-else"


def test_reconcile_repairs_a_counter_after_a_crash(service):
    service.like(7, 42)
    service.store.add(8, 1, 42)  # crashed after the database write, before Redis
    assert service.count(42) == 1
    assert service.reconcile(42) == 2
    assert service.count(42) == 2


def test_counter_errors_sees_a_drifted_counter(service):
    service.like(1, 0)
    service.lab.r.incr(service.count_key(0))
    assert like_service.counter_errors(service, users=2, targets=1) == {0: 1}


def test_a_user_with_no_likes_costs_one_database_read_however_often_it_asks(service):
    assert like_service.database_reads(service, user=8, target=1, requests=100) == 1
    assert like_service.database_reads(service, user=8, target=1, requests=100) == 0
    # the cached empty set lost (evicted, expired): one more read reloads it
    service.lab.r.unlink(service.user_key(8))
    assert like_service.database_reads(service, user=8, target=1, requests=3) == 1
    with pytest.raises(ValueError, match="requests must be at least 1; got 0"):
        like_service.database_reads(service, user=8, target=1, requests=0)


@pytest.mark.parametrize(
    ("kwargs", "name"), [({"threads": 0}, "threads"), ({"like_share": 1.5}, "like_share")]
)
def test_hammer_rejects_bad_parameters(service, kwargs, name):
    args = {"threads": 1, "operations": 1, "users": 1, "targets": 1, "seed_version": False}
    with pytest.raises(ValueError, match=name):
        like_service.hammer(service, **(args | kwargs))


def test_gated_counters_stay_exact_with_threads_on_fakeredis(service):
    like_service.hammer(service, threads=8, operations=300, users=4, targets=4, seed_version=False)
    assert like_service.counter_errors(service, 4, 4) == {}


#: 16 clients on 8 x 8 (user, target) pairs: the load under which the seed's check-then-act code
#: miscounts (the test below), and so the load the gated code must count exactly under
LOAD = {"threads": 16, "operations": 2_000, "users": 8, "targets": 8}


@pytest.mark.live
def test_gated_counters_are_exact_under_the_load_that_breaks_the_seed_version(live_lab):
    service = LikeService(live_lab, LikeStore())
    like_service.hammer(service, **LOAD, seed_version=False)
    assert like_service.counter_errors(service, LOAD["users"], LOAD["targets"]) == {}


@pytest.mark.live
def test_the_seed_version_miscounts_under_the_same_load(live_lab):
    service = LikeService(live_lab, LikeStore())
    like_service.hammer(service, **LOAD, seed_version=True)
    assert like_service.counter_errors(service, LOAD["users"], LOAD["targets"]) != {}
