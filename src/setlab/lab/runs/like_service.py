"""Seed 000 §7's like service: a String counter per content item and a Set per user.

Keys (inside the lab's namespace)::

    like:count:<type>:<target>   String  INCR / DECR      how many users like the target
    like:user:<user>:<type>      Set     SADD / SREM      which targets the user likes

The durable side is a real database (SQLite from the standard library) holding one row per like;
Redis is a cache of it, reloaded on a miss under a short Redis lock.

Two versions of every operation live here, because the chapter's point is the difference:

* :meth:`LikeService.like_as_seed` / :meth:`unlike_as_seed` do what the seed's Java does: check with
  SISMEMBER, then SADD, then INCR; SREM then DECR unconditionally. Check-then-act races
  double-count, and a repeated unlike drives the counter negative.
* :meth:`LikeService.like` / :meth:`unlike` gate the counter on the reply of SADD / SREM (1 means
  this call changed the set), so concurrent clients can never count one like twice. In a cluster
  the user's set and the target's counter live in different slots, so this works there too;
  :meth:`LikeService.like_atomic` does both in one Lua script for a single node.

:meth:`LikeService.ensure_loaded` is the cold-start path done right: the seed tests
``isMember == null``, but SISMEMBER on a missing key replies 0, so its reload never runs.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from setlab.core.validate import check_int
from setlab.lab.backend import Lab
from setlab.models import redis_memory
from setlab.models.snowflake import SEED_000_ID

#: A member every loaded user set contains, so "loaded and empty" differs from "not loaded".
LOADED = b"__loaded__"
DEFAULT_TTL_S = 7 * 24 * 3600

_LIKE_LUA = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then
  return redis.call('INCR', KEYS[2])
end
return -1
"""
_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class LockNotAcquired(RuntimeError):
    """Another client is reloading this user's set; try again shortly."""


class LikeStore:
    """The durable side: a SQLite table of (user, type, target) likes, primary-keyed."""

    def __init__(self, path: str = ":memory:") -> None:
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS likes (user_id INTEGER, target_type INTEGER, "
            "target_id INTEGER, PRIMARY KEY (user_id, target_type, target_id))"
        )
        self.reads = 0  #: how many times the cache went to the database
        self._lock = threading.Lock()  # one connection shared by the chapter's threads

    def add(self, user: int, target_type: int, target: int) -> bool:
        """Record a like; False if it was already there."""
        with self._lock:
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO likes VALUES (?, ?, ?)", (user, target_type, target)
            )
            return cursor.rowcount == 1

    def remove(self, user: int, target_type: int, target: int) -> bool:
        """Delete a like; False if there was none."""
        with self._lock:
            cursor = self.db.execute(
                "DELETE FROM likes WHERE user_id = ? AND target_type = ? AND target_id = ?",
                (user, target_type, target),
            )
            return cursor.rowcount == 1

    def liked_by(self, user: int, target_type: int) -> list[int]:
        with self._lock:
            self.reads += 1
            rows = self.db.execute(
                "SELECT target_id FROM likes WHERE user_id = ? AND target_type = ?",
                (user, target_type),
            )
            return [r[0] for r in rows]

    def count(self, target_type: int, target: int) -> int:
        with self._lock:
            (n,) = self.db.execute(
                "SELECT COUNT(*) FROM likes WHERE target_type = ? AND target_id = ?",
                (target_type, target),
            ).fetchone()
            return n


@dataclass
class LikeService:
    """The like/unlike/is-liked API over Redis (cache) and a :class:`LikeStore` (truth)."""

    lab: Lab
    store: LikeStore
    target_type: int = 1
    ttl_s: int = DEFAULT_TTL_S
    lock_ms: int = 5_000

    # -- keys ------------------------------------------------------------------------------
    def user_key(self, user: int) -> str:
        return self.lab.key("like", "user", user, self.target_type)

    def count_key(self, target: int) -> str:
        return self.lab.key("like", "count", self.target_type, target)

    def count(self, target: int) -> int:
        """The cached counter (0 when missing)."""
        return int(self.lab.r.get(self.count_key(target)) or 0)

    # -- the seed's version ----------------------------------------------------------------
    def like_as_seed_steps(self, user: int, target: int) -> Iterator[str]:
        """The seed's like, one step per ``next()``: check, then add, then count.

        A generator so a test (or the chapter) can interleave two clients deterministically.
        Yields the name of the step just done; returns early if the check finds a like.
        """
        r, member = self.lab.r, str(target)
        if r.sismember(self.user_key(user), member):
            yield "already liked"
            return
        yield "checked: not liked"
        r.sadd(self.user_key(user), member)
        yield "added to set"
        r.incr(self.count_key(target))
        yield "counted"

    def like_as_seed(self, user: int, target: int) -> bool:
        """The seed's like in one go; True if it counted a like."""
        return list(self.like_as_seed_steps(user, target))[-1] == "counted"

    def unlike_as_seed(self, user: int, target: int) -> None:
        """The seed's unlike: SREM, then DECR — whether or not the SREM removed anything."""
        self.lab.r.srem(self.user_key(user), str(target))
        self.lab.r.decr(self.count_key(target))

    # -- the fixed version -----------------------------------------------------------------
    def like(self, user: int, target: int) -> bool:
        """Like: the DB row, then SADD; INCR only if SADD added. True if this call liked."""
        self.ensure_loaded(user)
        self.store.add(user, self.target_type, target)
        if self.lab.r.sadd(self.user_key(user), str(target)) == 1:
            self.lab.r.incr(self.count_key(target))
            return True
        return False

    def unlike(self, user: int, target: int) -> bool:
        """Unlike: the DB row, then SREM; DECR only if SREM removed. True if this call unliked."""
        self.ensure_loaded(user)
        self.store.remove(user, self.target_type, target)
        if self.lab.r.srem(self.user_key(user), str(target)) == 1:
            self.lab.r.decr(self.count_key(target))
            return True
        return False

    def like_atomic(self, user: int, target: int) -> bool:
        """SADD and the gated INCR in one Lua script (single node: both keys must share a node)."""
        result = self.lab.r.eval(
            _LIKE_LUA, 2, self.user_key(user), self.count_key(target), str(target)
        )
        return int(result) != -1

    def is_liked(self, user: int, target: int) -> bool:
        self.ensure_loaded(user)
        return bool(self.lab.r.sismember(self.user_key(user), str(target)))

    # -- cold start ------------------------------------------------------------------------
    def ensure_loaded(self, user: int) -> bool:
        """Reload the user's set from the database if it is not in Redis. True if it reloaded.

        EXISTS (not SISMEMBER) tells a missing set from a non-member; the LOADED sentinel keeps
        the key alive for users with no likes, so they are not reloaded on every request. The
        reload runs under ``SET lock NX PX`` with a random token, released only by its owner.
        """
        key = self.user_key(user)
        r = self.lab.r
        if r.exists(key):
            return False
        lock_key = self.lab.key("lock", "like-load", user)
        token = secrets.token_hex(8)
        deadline = time.monotonic() + self.lock_ms / 1e3
        while not r.set(lock_key, token, nx=True, px=self.lock_ms):
            if r.exists(key):  # the lock holder finished the reload
                return False
            if time.monotonic() > deadline:
                raise LockNotAcquired(f"user {user}'s set is being reloaded by another client")
            time.sleep(0.002)
        try:
            if r.exists(key):  # someone reloaded it while we waited for the lock
                return False
            liked = self.store.liked_by(user, self.target_type)
            pipe = r.pipeline(transaction=True)
            pipe.sadd(key, LOADED, *(str(t) for t in liked))
            pipe.expire(key, self.ttl_s)
            pipe.execute()
            return True
        finally:
            r.eval(_RELEASE_LUA, 1, lock_key, token)

    def reconcile(self, target: int) -> int:
        """Reset the cached counter from the database (the source of truth); returns it."""
        truth = self.store.count(self.target_type, target)
        self.lab.r.set(self.count_key(target), truth)
        return truth

    def cached_members(self, user: int) -> set[int]:
        """The targets in the user's cached set (without the sentinel)."""
        return {int(m) for m in self.lab.r.smembers(self.user_key(user)) if m != LOADED}


def hammer(
    service: LikeService,
    *,
    threads: int,
    operations: int,
    users: int,
    targets: int,
    seed_version: bool,
    like_share: float = 0.6,
    seed: int = 0,
) -> None:
    """``threads`` clients each doing ``operations`` random likes/unlikes on a small space of
    (user, target) pairs, so that clients collide — as double clicks and retries do.

    ``seed_version`` picks the seed's check-then-act code or the gated one; ``like_share`` is the
    fraction of operations that are likes. Each thread has its own connection; the database is
    shared.
    """
    if not 0 <= like_share <= 1:
        raise ValueError(f"like_share must be in [0, 1], got {like_share!r}")
    for name, value in (
        ("threads", threads),
        ("operations", operations),
        ("users", users),
        ("targets", targets),
    ):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        own_lab = dataclasses.replace(service.lab, r=service.lab.new_client())
        mine = LikeService(own_lab, service.store, service.target_type, service.ttl_s)
        for _ in range(operations):
            user, target = rng.randrange(users), rng.randrange(targets)
            liking = rng.random() < like_share
            if seed_version:
                mine.like_as_seed(user, target) if liking else mine.unlike_as_seed(user, target)
            else:
                mine.like(user, target) if liking else mine.unlike(user, target)

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def database_reads(service: LikeService, user: int, target: int, requests: int) -> int:
    """How many of ``requests`` is-liked checks of ``target`` by ``user`` went to the database
    (:attr:`LikeStore.reads`). A user with no likes costs one read, then none: the reload leaves
    the :data:`LOADED` sentinel, so the empty set stays cached."""
    requests = check_int("requests", requests, 1)
    before = service.store.reads
    for _ in range(requests):
        service.is_liked(user, target)
    return service.store.reads - before


def counter_errors(service: LikeService, users: int, targets: int) -> dict[int, int]:
    """For each target whose cached counter is wrong: counter minus the users whose cached set
    holds it (the truth the counter is supposed to summarise)."""
    r = service.lab.r
    errors = {}
    for target in range(targets):
        holders = sum(bool(r.sismember(service.user_key(u), str(target))) for u in range(users))
        diff = service.count(target) - holders
        if diff:
            errors[target] = diff
    return errors


#: The seed's example snowflake id (seed 000 §4), used as a realistic post id.
EXAMPLE_POST_ID = SEED_000_ID  # seed 000 §4's example snowflake ID
#: Bytes one more member adds to an intset of 64-bit ids.
INTSET_MEMBER_BYTES = 8


def likers_memory(users: int, *, new_keys: bool, post_id: int = EXAMPLE_POST_ID) -> int:
    """Bytes the Set design adds when ``users`` users like one post (Redis 7.0, jemalloc 5.3).

    ``new_keys=False``: each user's set already exists as an intset, so the post's id adds 8
    bytes to it (rounding of the intset's allocation averages out). ``new_keys=True``: each like
    creates the user's set: key name, robj, dictEntry and a one-member intset, priced by
    :func:`setlab.models.redis_memory.set_cost` with the seed's key format.
    """
    if not isinstance(users, int) or users < 1:
        raise ValueError(f"users must be a positive int, got {users!r}")
    if not new_keys:
        return users * INTSET_MEMBER_BYTES
    one = redis_memory.set_cost([post_id], f"like:user:{EXAMPLE_POST_ID}:1").memory_usage
    return users * one


def forced_double_count(service: LikeService, user: int = 7, target: int = 42) -> tuple[int, int]:
    """Interleave two of the seed's likes (both check before either adds).

    Returns (members in the user's set, the post's counter) — (1, 2) shows the double count.
    """
    first = service.like_as_seed_steps(user, target)
    second = service.like_as_seed_steps(user, target)
    next(first)
    next(second)
    for _ in first:
        pass
    for _ in second:
        pass
    return int(service.lab.r.scard(service.user_key(user))), service.count(target)


@dataclass(frozen=True)
class RaceStep:
    """One command in an interleaving of two clients' likes, and what Redis held after it."""

    client: str  #: "A" or "B"
    command: str  #: e.g. ``"SISMEMBER"``
    reply: int
    members: int  #: SCARD of the user's set after the command
    counter: int  #: the post's counter after the command


def race_trace(
    service: LikeService, *, fixed: bool, user: int = 7, target: int = 42
) -> list[RaceStep]:
    """Two clients like the same post for the same user, each one step ahead of the other.

    ``fixed=False`` runs the seed's check-then-act (both SISMEMBER before either SADD, so both
    INCR); ``fixed=True`` runs the gate (INCR only after a SADD that replied 1). The commands
    really run on ``service``'s server; each step records the reply and the state after it.
    """
    r = service.lab.r
    user_key, count_key, member = service.user_key(user), service.count_key(target), str(target)
    steps: list[RaceStep] = []

    def run(client: str, command: str, call: Callable[[], object]) -> int:
        reply = int(call())
        members = int(r.scard(user_key))
        steps.append(RaceStep(client, command, reply, members, service.count(target)))
        return reply

    if fixed:
        added = {c: run(c, "SADD", lambda: r.sadd(user_key, member)) for c in "AB"}
        for client in "AB":
            if added[client]:
                run(client, "INCR", lambda: r.incr(count_key))
    else:
        liked = {c: run(c, "SISMEMBER", lambda: r.sismember(user_key, member)) for c in "AB"}
        for client in "AB":
            if not liked[client]:
                run(client, "SADD", lambda: r.sadd(user_key, member))
                run(client, "INCR", lambda: r.incr(count_key))
    return steps
