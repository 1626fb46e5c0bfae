"""Nothing left behind on a server setlab did not start, even by a run that is killed (issue 25).

A kernel killed with SIGKILL runs no exit handler. On a real redis-server reached through
``REDIS_URL`` and pre-filled with keys that are not the book's (other apps', another user's
stopped run, this user's keys outside any run): a chapter whose kernel is killed mid-cell leaves
only keys with an expiry no longer than ``SETLAB_KEY_TTL_S``, and the same user's next
``connect()`` removes them at once; a killed process's keys are gone by themselves after the
expiry, while a live one's never expire under it; ``setlab cleanup`` removes this user's stopped
runs (``--all-mine``: every run) and nothing else. The foreign keys' values and expiries are
unchanged throughout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

import setlab
from setlab.lab.server import RedisServer
from tests.support.notebooks import ROOT, page_env, prime_figures

pytestmark = pytest.mark.live

USER = "ana"
HEARTBEAT = b"~heartbeat"
STOPPED_BO = "setlab:@bo:6b000000-dead:hll:k"  # another user's stopped run: not ana's to remove


@pytest.fixture
def url_env(monkeypatch):
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG", "SETLAB_SCALE",
                 "SETLAB_KEY_TTL_S"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def server():
    from tests.conftest import _need_redis_server

    _need_redis_server()
    s = RedisServer.start()
    yield s
    s.stop()


def _fill_foreign(admin: redis.Redis) -> dict[bytes, tuple]:
    """Keys that are not the book's run keys, of several types, some with an expiry of their
    own; returns each key's DUMP and expiry, to compare afterwards."""
    admin.set("app:config", "keep me")
    admin.sadd("app:likes:1", *range(100))
    admin.set("app:session", "s", ex=86400)
    admin.setbit("setlabx:@ana:6b000000-dead:hll:k", 7, 1)  # looks alike, another prefix
    admin.set("setlab:@ana:not-a-run:k", 1)  # ana's, but no run's
    admin.set(STOPPED_BO, 1)
    return _snapshot(admin)


def _snapshot(admin: redis.Redis) -> dict[bytes, tuple]:
    keys = [k for k in admin.scan_iter(count=1000) if not k.startswith(b"setlab:@ana:6")]
    return {k: (admin.dump(k), admin.pttl(k) > 3_600_000 or admin.pttl(k)) for k in keys}


def _run_keys(admin: redis.Redis) -> list[bytes]:
    """Every key under one of ana's runs (run ids start with a hex timestamp: 6…)."""
    return list(admin.scan_iter(match=f"setlab:@{USER}:6*", count=1000))


def _env(admin_url: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "REDIS_URL": admin_url, "SETLAB_USER": USER, **extra}
    for name in ("SETLAB_BACKEND", "SETLAB_ALLOW_BIG", "SETLAB_SCALE"):
        env.pop(name, None)
    return env


def _kernel_of(pid: int) -> int:
    """The ipykernel process the chapter runner ``pid`` started."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if b"ipykernel" in Path(f"/proc/{child}/cmdline").read_bytes():
                return int(child)
    raise AssertionError(f"runner {pid} has no kernel")


def _until(condition, timeout: float, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(step)
    return condition()


def test_a_kernel_killed_mid_chapter_leaves_keys_that_expire_and_the_next_connect_removes_them(
    server, url_env, capsys
):
    admin = server.client()
    foreign = _fill_foreign(admin)
    env = page_env(_env(server.url, SETLAB_KEY_TTL_S="60"))  # heartbeat: 15 s
    prime_figures()
    runner = subprocess.Popen(
        [sys.executable, "-m", "tests.support.notebooks", "string-plus-set"], env=env, cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        # the like-service cell: dozens of counters, per-user sets and locks being written
        written = _until(lambda: len(_run_keys(admin)) >= 20, timeout=300)
        assert written, "the chapter wrote no keys on the server"
        os.kill(_kernel_of(runner.pid), signal.SIGKILL)
    finally:
        try:
            runner.wait(timeout=60)
        except subprocess.TimeoutExpired:
            runner.kill()
            runner.wait()
    left = {k: admin.pttl(k) for k in _run_keys(admin)}
    assert len(left) >= 20
    # (a) every key the killed run left expires, within the expiry
    assert all(0 < ttl <= 60_000 for ttl in left.values()), left
    beats = [k for k in left if k.endswith(HEARTBEAT)]
    assert len(beats) == 1 and left[beats[0]] <= 15_000
    # (c) once its heartbeat is gone, the next connect of the same user removes it at once
    assert _until(lambda: not admin.exists(beats[0]), timeout=20, step=0.2)
    remaining = _run_keys(admin)
    assert len(remaining) >= 10  # well within their 60 s: the connect removes them, not Redis
    url_env.setenv("REDIS_URL", server.url)
    url_env.setenv("SETLAB_USER", USER)
    lab = setlab.connect("string-plus-set")
    assert f"removed {len(remaining)} keys that stopped runs of ana left there" in (
        capsys.readouterr().out
    )
    assert [k for k in _run_keys(admin) if not k.startswith(lab.namespace.encode())] == [
        lab.heartbeat.key.encode()
    ]  # only the new run's heartbeat
    assert _snapshot(admin) == foreign
    lab.close()


CHILD = """
import time, setlab
lab = setlab.connect("leftovers", quiet=True)
r = lab.r
r.set(lab.key("s"), "v")
r.setbit(lab.key("bits"), 4095, 1)
r.sadd(lab.key("set"), *range(10))
r.pfadd(lab.key("hll"), "a", "b")
pipe = r.pipeline(transaction=False)
for i in range(50):
    pipe.hset(lab.key("h", i), "f", i)
pipe.execute()
tx = r.pipeline()
tx.rpush(lab.key("list"), 1, 2)
tx.zadd(lab.key("z"), {"m": 1})
tx.execute()
r.mset({lab.key("m1"): 1, lab.key("m2"): 2})
r.set(lab.key("lock"), "t", nx=True, px=600_000)  # an expiry of the book's own, 10 minutes
r.bf().reserve(lab.key("bf"), 0.01, 1000)
print("ready", flush=True)
time.sleep(600)
"""


def test_a_killed_runs_keys_expire_by_themselves_and_a_live_runs_never_do(server):
    admin = server.client()
    foreign = _fill_foreign(admin)
    ttl_s = 2
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], env=_env(server.url, SETLAB_KEY_TTL_S=str(ttl_s)),
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout.readline().strip() == "ready"
        keys = _run_keys(admin)
        assert len(keys) == 50 + 11  # the hashes, 10 other keys, the heartbeat
        assert all(0 < admin.pttl(k) <= ttl_s * 1000 for k in keys)  # the lock cut to 2 s too
        time.sleep(3 * ttl_s)  # written once, then only refreshed by the live run's heartbeat
        assert sorted(_run_keys(admin)) == sorted(keys)
        child.send_signal(signal.SIGKILL)
        child.wait()
        # (b) gone after the expiry, with nobody connecting
        assert _until(lambda: _run_keys(admin) == [], timeout=ttl_s + 2)
        assert _snapshot(admin) == foreign
    finally:
        child.kill()
        child.wait()


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "setlab", *args], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)  # fmt: skip


def test_setlab_cleanup_removes_this_users_stopped_runs_and_nothing_else(server, url_env):
    admin = server.client()
    foreign = _fill_foreign(admin)
    url_env.setenv("REDIS_URL", server.url)
    url_env.setenv("SETLAB_USER", USER)
    live = setlab.connect("hll", quiet=True)  # a run still going: its heartbeat beats
    live.r.set(live.key("mine"), 1)
    stopped = f"setlab:@{USER}:{int(time.time()):x}-dead:hll:"  # an hour-young killed run
    for i in range(3):
        admin.set(f"{stopped}k{i}", i)
    env = _env(server.url)
    result = _cli("cleanup", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"removed 3 keys of the stopped runs of user ana on Redis at 127.0.0.1:{server.port}"
    ]
    assert not list(admin.scan_iter(match=stopped + "*"))
    assert live.r.get(live.key("mine")) == b"1"  # a live run is not stopped
    result = _cli("cleanup", "--all-mine", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("removed 2 keys of every other run of user ana")  # + beat
    assert live.r.exists(live.key("mine")) == 0
    assert _snapshot(admin) == foreign  # bo's stopped run, ana's non-run key, the apps' keys
    env.pop("REDIS_URL")
    result = _cli("cleanup", env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("setlab cleanup: REDIS_URL is not set")
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    live.close()
