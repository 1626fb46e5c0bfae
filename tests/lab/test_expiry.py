"""setlab.lab.expiry without a server: which PEXPIREs follow which writes, and that sending them
changes no reply the book sees (on fakeredis, which speaks the same protocol)."""

from __future__ import annotations

import threading
import time

import fakeredis
import pytest
import redis

import setlab
from setlab.lab import expiry

NS = "setlab:@ana:6b0f0000-beef:hll:"
TTL_MS = 3_600_000


def _expiry(lt: bool = True) -> expiry.Expiry:
    return expiry.Expiry(NS, 3600, lt=lt)


def _keys(follow_ups) -> dict[bytes, tuple]:
    return {cmd[1]: tuple(cmd[2:]) for cmd in follow_ups}


def test_every_kind_of_write_gets_the_expiry_on_exactly_the_keys_it_writes():
    e = _expiry()
    batch = [
        ("SETBIT", NS + "bits", 7, 1),
        ("SADD", NS + "set", 1, 2),
        ("PFADD", NS + "hll", "a"),
        ("BF.RESERVE", NS + "bf", 0.01, 1000),
        ("MSET", NS + "m1", 1, NS + "m2", 2),
        ("SMOVE", NS + "set", NS + "other", 1),
        ("BITOP", "OR", NS + "dest", NS + "bits"),
        ("EVAL", "return 1", 2, NS + "e1", NS + "e2", "not-a-key"),
        ("GET", NS + "bits"),  # a read: nothing
    ]
    written = _keys(e.follow_ups(batch))
    names = ["bits", "set", "hll", "bf", "m1", "m2", "other", "dest", "e1", "e2"]
    assert written == {(NS + n).encode(): (TTL_MS,) for n in names}


def test_keys_outside_the_namespace_never_get_an_expiry():
    e = _expiry()
    batch = [("SET", "app:user:1", "x"), ("SADD", "setlab:@bo:6b0f0000-beef:hll:s", 1),
             ("MSET", "other", 1, NS + "mine", 2)]  # fmt: skip
    assert list(_keys(e.follow_ups(batch))) == [(NS + "mine").encode()]


def test_a_key_that_has_the_expiry_gets_no_second_until_something_may_have_dropped_it():
    e = _expiry()
    key = NS + "bits"
    assert e.follow_ups([("SETBIT", key, 1, 1)])
    assert e.follow_ups([("SETBIT", key, 2, 1)]) == []  # still fresh: no extra command
    assert e.follow_ups([("SET", key, "v")]) != []  # SET drops any expiry: always re-armed
    assert e.follow_ups([("SETBIT", key, 3, 1)]) == []
    e.follow_ups([("DEL", key)])  # deleted: the next write creates a key without an expiry
    assert e.follow_ups([("SETBIT", key, 3, 1)]) != []
    e.follow_ups([("SREM", key, "x")])  # may have emptied (and so deleted) it
    assert e.follow_ups([("SADD", key, "y")]) != []


def test_an_expiry_the_book_sets_never_ends_later_and_at_most_an_hour_from_now():
    e = _expiry()
    lock, sets = NS + "lock", NS + "likes"
    # SET … PX 5000 (the like service's lock): only ever shortened (LT), to its own 5 s at most
    ((_, key, ms, flag),) = e.follow_ups([("SET", lock, "t", "NX", "PX", 5000)])
    assert key == lock.encode() and flag == "LT" and 4_900 < ms <= 5_000
    # SADD + EXPIRE 7 days in one transaction: cut to the lab's hour, re-armed like the lab's keys
    assert _keys(e.follow_ups([("SADD", sets, 1), ("EXPIRE", sets, 7 * 86400)])) == {
        sets.encode(): (TTL_MS,)
    }
    assert e.follow_ups([("SADD", sets, 2)]) == []  # armed a moment ago
    assert _keys(e.follow_ups([("EXPIRE", sets, 7 * 86400)])) == {sets.encode(): (TTL_MS,)}
    # an expiry the lab cannot read (absolute): LT, never longer than it
    assert _keys(e.follow_ups([("EXPIREAT", sets, 2_000_000_000)])) == {
        sets.encode(): (TTL_MS, "LT")
    }
    # SET without an expiry option replaces the key: the book's expiry is gone, the lab's is set
    assert _keys(e.follow_ups([("SET", lock, "u")])) == {lock.encode(): (TTL_MS,)}
    old = _expiry(lt=False)  # before Redis 7.0 (no LT): a short expiry of the book's stays
    assert old.follow_ups([("SETEX", lock, 5, "t")]) == []
    assert _keys(old.follow_ups([("SETEX", sets, 86400, "t")])) == {sets.encode(): (TTL_MS,)}


def test_persist_is_followed_by_the_lab_expiry():
    assert _keys(_expiry().follow_ups([("PERSIST", NS + "k")])) == {(NS + "k").encode(): (TTL_MS,)}


@pytest.mark.parametrize("value", ["0", "0.5", "-3", "abc", "nan", "inf", "604801"])
def test_a_bad_key_ttl_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(expiry.KEY_TTL_ENV, value)
    with pytest.raises(ValueError, match="SETLAB_KEY_TTL_S must be seconds from 1 to 604800"):
        expiry.key_ttl_s()
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(setlab.lab.errors.ConfigurationError, match="SETLAB_KEY_TTL_S"):
        setlab.connect("x", backend="fake", quiet=True)


def test_the_default_expiry_is_an_hour_and_the_heartbeat_at_most_thirty_seconds(monkeypatch):
    monkeypatch.delenv(expiry.KEY_TTL_ENV, raising=False)
    assert expiry.key_ttl_s() == 3600
    monkeypatch.setenv(expiry.KEY_TTL_ENV, "8")
    assert expiry.key_ttl_s() == 8
    assert expiry.heartbeat_ttl_s(3600) == 30 and expiry.heartbeat_ttl_s(8) == 2


@pytest.fixture
def fake():
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer(version=(7, 0)), protocol=2)
    yield client
    client.close()


def test_sending_the_expiry_changes_no_reply_and_no_error(fake):
    e = _expiry()
    assert e.execute(fake, ("SADD", NS + "s", 1, 2), {}) == 2
    assert 0 < fake.pttl(NS + "s") <= TTL_MS
    with pytest.raises(redis.exceptions.ResponseError, match="WRONGTYPE"):
        e.execute(fake, ("INCR", NS + "s"), {})
    pipe = redis.Redis.pipeline(fake, transaction=False)
    pipe.set(NS + "a", 1)
    pipe.get(NS + "a")
    assert e.execute_pipeline(fake, pipe, pipe.execute, True) == [True, b"1"]  # no PEXPIRE reply
    assert 0 < fake.pttl(NS + "a") <= TTL_MS
    pipe.set(NS + "b", 1)
    pipe.incr(NS + "s")
    with pytest.raises(redis.exceptions.ResponseError, match=r"Command # 2 \(INCRBY"):
        e.execute_pipeline(fake, pipe, pipe.execute, True)
    assert 0 < fake.pttl(NS + "b") <= TTL_MS
    tx = redis.Redis.pipeline(fake, transaction=True)
    tx.sadd(NS + "t", 1)
    tx.expire(NS + "t", 7 * 86400)
    assert e.execute_pipeline(fake, tx, tx.execute, True) == [1, True]
    assert 0 < fake.pttl(NS + "t") <= TTL_MS  # cut to the lab's hour, right after EXEC


def test_a_transactions_expiry_is_inside_its_exec_so_a_watcher_is_aborted_once(fake, monkeypatch):
    # A PEXPIRE sent after EXEC modifies the key a second time: every client WATCH-ing it is
    # aborted twice per write (roaring-containers' optimistic locking ran ~4x slower so)
    def no_second_round_trip(client, commands):
        raise AssertionError(f"sent after EXEC: {commands}")

    monkeypatch.setattr(expiry.Expiry, "send", staticmethod(no_second_round_trip))
    e = _expiry()
    tx = redis.Redis.pipeline(fake, transaction=True)
    tx.watch(NS + "w")
    tx.multi()
    tx.set(NS + "w", "v")
    tx.get(NS + "w")
    assert e.execute_pipeline(fake, tx, tx.execute, True) == [True, b"v"]
    assert 0 < fake.pttl(NS + "w") <= TTL_MS


def test_the_sweep_rearms_every_key_in_the_namespace_and_no_other(fake):
    e = _expiry()
    fake.set(NS + "loaded", 1)  # written past the client (a raw-socket bulk load)
    fake.set(NS + "old", 1, px=1_000)  # armed earlier, close to its end
    fake.set(NS + "lock", "t", px=5_000)
    e.follow_ups([("SET", NS + "lock", "t", "PX", 5_000)])  # the book's own 5 s
    fake.set("app:other", 1)
    e.sweep(fake)
    assert 3_590_000 < fake.pttl(NS + "loaded") <= TTL_MS
    assert 3_590_000 < fake.pttl(NS + "old") <= TTL_MS
    assert 0 < fake.pttl(NS + "lock") <= 5_000
    assert fake.pttl("app:other") == -1


def test_a_beat_in_flight_when_the_run_ends_does_not_bring_its_heartbeat_back(fake):
    """A beat the server answers late (a loaded machine) and a run that ends meanwhile: the
    heartbeat is deleted after that beat, not before it (a classroom run left one behind)."""
    heartbeat = expiry.Heartbeat(fake, "setlab:@ana:6b0f0000-beef:", _expiry())
    in_flight, answer = threading.Event(), threading.Event()

    class LateServer:
        def set(self, *args, **kwargs):
            in_flight.set()
            assert answer.wait(5)
            return fake.set(*args, **kwargs)

        def delete(self, *keys):
            return fake.delete(*keys)

    heartbeat.client = LateServer()
    beat = threading.Thread(target=heartbeat._beat)
    beat.start()
    assert in_flight.wait(5)
    end = threading.Thread(target=heartbeat.stop, kwargs={"remove": True})
    end.start()
    time.sleep(0.3)  # the run's end has begun while the beat is still on its way
    answer.set()
    beat.join(5)
    end.join(expiry.STOP_WAIT_S + 5)
    assert not end.is_alive() and fake.exists(heartbeat.key) == 0


def test_the_last_lab_of_a_run_to_close_removes_its_heartbeat(fake):
    """Labs of one process on one server share their run's heartbeat: closing one leaves it
    beating for the others, closing the last leaves nothing (a classroom test found a closed
    lab's heartbeat on the server for the rest of its 30 s)."""
    first, second = (
        expiry.Heartbeat(fake, "setlab:@ana:6b0f0000-beef:", _expiry()) for _ in range(2)
    )
    first.start()
    second.start()
    first.stop()
    first.stop()  # twice is once: the other lab still beats
    assert fake.exists(first.key) == 1
    second.stop()
    assert fake.exists(first.key) == 0
