"""Every chapter on the most hostile server a reader could point REDIS_URL at.

One real redis-server that is all of these at once: a password, a confined ACL user for the
reader with exactly a classroom participant's rules (:func:`setlab.lab.classroom.acl_rules`:
``~setlab:@student:*``, ``+@all -@dangerous`` and more: no INFO, CONFIG, KEYS, MODULE), who is
given only a ``REDIS_URL``, as `setlab classroom add` hands it out, 64 MB of
maxmemory with ``allkeys-lru`` (a full server evicts someone's keys), about 85% full with
10,000 foreign keys of every type, and no RedisBloom. Each chapter runs as that user, in its own
kernel. Afterwards:

- no key was evicted (``evicted_keys`` unchanged) and every foreign key's DUMP is unchanged;
- nothing of the book is left on the server;
- the password appears in no output;
- the chapter either completed, or stopped with a setlab message (never a raw traceback).

The acl-user pass is also the classroom's "every chapter as an ACL-confined participant" check:
the participant's rules on a server that is nearly full is the harder case of the two. The
full-rights reader (who may read ``INFO``, so the guard knows the headroom, about 6 MiB here)
runs the chapters that write the most on this server and the one the guard exists for
(``FULL_RIGHTS``): the others write under 0.6 MiB, well inside both the headroom and the
participant's blind budget, so the two passes send them the same commands
(``benchmarks/hostile_peaks.py`` measured each chapter's peak; stop 43). That pass ran all
15 chapters before, 275 s of a worker and 162 s of CPU in a cold run.

Plus: two simultaneous runs of string-plus-set under one user give the solo results, and a frozen
server stops each chapter within 20 s.

A chapter's run whose checks passed is kept (tests/support/notebooks.kept_run) until the package,
the lock, the server binary, the chapter's code cells or this file change: after a prose edit a
warm ``make test`` checks the kept outputs again and runs no chapter here; ``make test-fresh``
and CI's fresh clone run them all (every chapter as the participant, ``FULL_RIGHTS`` with every
right, 2 together, every chapter on the frozen server).
"""

from __future__ import annotations

import hashlib
import os
import signal
from pathlib import Path

import pytest
import redis

from setlab.lab import classroom
from setlab.lab.server import RedisServer
from setlab.site.registry import CHAPTERS
from tests.support.notebooks import kept_run, kept_runs

pytestmark = [pytest.mark.live, pytest.mark.book]

ADMIN_PASSWORD = "admin-Zq7-correct-horse"
PASSWORD = "student-Kx9-battery-staple"
USER = "student"
FOREIGN_KEYS = 10_000
SETLAB_ERRORS = {
    "SetlabError", "ServerUnavailable", "ServerTimeout", "ServerOutOfMemory", "PermissionDenied",
    "ReadOnlyServer", "BigAllocationRefused", "ServerError",
}  # fmt: skip


def _fill(admin: redis.Redis) -> None:
    """10,000 foreign keys of every type, then blobs up to ~85% of maxmemory."""
    pipe = admin.pipeline(transaction=False)
    for i in range(FOREIGN_KEYS):
        kind, key = i % 8, f"app:{i}"
        if kind == 0:
            pipe.set(key, os.urandom(300))
        elif kind == 1:
            pipe.sadd(key, *range(i, i + 40))
        elif kind == 2:
            pipe.hset(key, mapping={f"f{n}": f"value-{i}-{n}" for n in range(10)})
        elif kind == 3:
            pipe.rpush(key, *(f"item-{i}-{n}" for n in range(12)))
        elif kind == 4:
            pipe.zadd(key, {f"m{n}": n * i for n in range(12)})
        elif kind == 5:
            pipe.xadd(key, {"event": str(i)})
        elif kind == 6:
            pipe.pfadd(key, *(f"reader-{i}-{n}" for n in range(50)))
        else:
            pipe.setbit(key, (i * 37) % 40_000, 1)
    pipe.execute()
    limit = int(admin.config_get("maxmemory")["maxmemory"])
    i = 0
    while (used := int(admin.info("memory")["used_memory"])) < 0.85 * limit:
        size = min(32 * 2**10, int(0.85 * limit - used) + 1)
        admin.set(f"app:blob:{i}", os.urandom(size))
        i += 1
    assert int(admin.info("stats")["evicted_keys"]) == 0


def _digests(admin: redis.Redis) -> dict[bytes, str]:
    """SHA-256 of every foreign key's DUMP, read in small batches: a reply buffer counts
    against maxmemory too, and a big one would make this very server evict."""
    keys = sorted(k for k in admin.scan_iter(match="app:*", count=1000))
    digests = {}
    for start in range(0, len(keys), 20):
        pipe = admin.pipeline(transaction=False)
        batch = keys[start : start + 20]
        for key in batch:
            pipe.dump(key)
        digests.update(
            {k: hashlib.sha256(d).hexdigest() for k, d in zip(batch, pipe.execute(), strict=True)}
        )
    assert int(admin.info("stats")["evicted_keys"]) == 0
    return digests


@pytest.fixture(scope="module")
def hostile():
    from tests.conftest import _need_redis_server

    _need_redis_server()
    server = RedisServer.start(
        module=False, extra_args=["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"]
    )
    server.client().config_set("requirepass", ADMIN_PASSWORD)
    admin = redis.Redis(host=server.host, port=server.port, password=ADMIN_PASSWORD, protocol=2)
    admin.execute_command("ACL", "SETUSER", USER, *classroom.acl_rules(USER), f">{PASSWORD}")
    _fill(admin)
    yield server, admin, _digests(admin)
    server.stop()


def _env(server: RedisServer, user: str = USER, password: str = PASSWORD) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETLAB_")}
    env["REDIS_URL"] = f"redis://{user}:{password}@127.0.0.1:{server.port}/0"
    if user != USER:  # a participant has only the URL; its user name is its namespace
        env["SETLAB_USER"] = USER
    return env


READERS = {
    # the classroom account: confined to its keys, no INFO/CONFIG/KEYS (setlab cannot see the
    # server's headroom, so it keeps its own keys small)
    "acl-user": (USER, PASSWORD),
    # a reader with every right on the same full server (setlab reads the headroom from INFO)
    "full-rights": ("default", ADMIN_PASSWORD),
}
#: The chapters the full-rights reader runs: the four that write 1 MiB or more on this server
#: (peaks above the start, benchmarks/hostile_peaks.py, stop 43: snowflake-ranges 3.53 MiB,
#: redis-set-memory 2.46, choosing 1.50, string-plus-set 1.17; every other chapter 0.53 or
#: less), and setbit-offset, whose first write at a far offset is what the guard must refuse.
FULL_RIGHTS = ("setbit-offset", "snowflake-ranges", "string-plus-set", "redis-set-memory",
               "choosing")  # fmt: skip
RUNS = [(slug, "acl-user") for slug in CHAPTERS] + [(slug, "full-rights") for slug in FULL_RIGHTS]


@pytest.mark.parametrize(("slug", "reader"), RUNS, ids=[f"{s}-{r}" for s, r in RUNS])
def test_a_chapter_on_a_hostile_server_touches_nothing_but_its_own(hostile, slug, reader):
    server, admin, digests = hostile
    evicted = int(admin.info("stats")["evicted_keys"])
    env = _env(server, *READERS[reader])
    with kept_run(slug, env, [Path(__file__)], reader, timeout=300) as result:
        if not result.ok:  # stopped: with one setlab message, not a raw redis-py traceback
            assert result.ename in SETLAB_ERRORS, f"{slug}: {result.ename}: {result.evalue}"
        # a classroom participant keeps its keys small, so every chapter completes, denied
        # commands falling back to the reference runs
        assert result.ok or reader != "acl-user", f"{slug}: {result.ename}: {result.evalue}"
        assert int(admin.info("stats")["evicted_keys"]) == evicted, f"{slug} caused an eviction"
        assert list(admin.scan_iter(match="setlab:*")) == [], f"{slug} left keys behind"
        assert PASSWORD not in result.all and ADMIN_PASSWORD not in result.all
        assert _digests(admin) == digests, f"{slug} changed a foreign key"


def test_two_runs_of_string_plus_set_under_one_user_give_the_solo_results(hostile):
    server, admin, _ = hostile
    runs = {run: ("string-plus-set", _env(server)) for run in ("first", "second")}
    with kept_runs(runs, [Path(__file__)], "together") as results:
        for result in results.values():
            assert result.ok, result.evalue
            assert "gated on SADD's reply: counters off by +0 in total" in result.text
        assert list(admin.scan_iter(match="setlab:*")) == []


def test_a_frozen_server_stops_every_chapter_within_20_seconds(tmp_path):
    from tests.conftest import _need_redis_server

    _need_redis_server()
    server = RedisServer.start(module=False)
    os.kill(server.process.pid, signal.SIGSTOP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETLAB_")}
    env["REDIS_URL"] = server.url
    runs = {slug: (slug, env) for slug in CHAPTERS}
    try:
        with kept_runs(runs, [Path(__file__)], "frozen", jobs=7, timeout=120) as results:
            for slug, result in results.items():
                assert not result.ok, f"{slug} completed against a frozen server"
                assert result.ename == "ServerError" and "cannot reach Redis" in result.evalue
                assert "setlab: cannot reach Redis" in result.text  # one line, not a traceback
                assert result.slowest_cell_s < 20, f"{slug} waited {result.slowest_cell_s:.0f} s"
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()
