"""On someone else's server: runs apart, ACL users welcome, memory budgets, no password printed,
no endless wait. Each test starts its own real redis-server, set up like a hostile reader's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import redis

import setlab
from setlab.lab import backend
from setlab.lab.errors import ServerTimeout
from setlab.lab.server import RedisServer, ServerError

pytestmark = pytest.mark.live

PASSWORD = "Tr0ub4dor-and-3"


@pytest.fixture
def url_env(monkeypatch):
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG", "SETLAB_SCALE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def server():
    from tests.conftest import _need_redis_server

    _need_redis_server()
    s = RedisServer.start(module=False)
    yield s
    if s.alive:
        os.kill(s.process.pid, signal.SIGCONT)
    s.stop()


def _fill(client: redis.Redis, fraction: float) -> int:
    """Fill the server with foreign keys of every type up to ``fraction`` of maxmemory."""
    limit = int(client.config_get("maxmemory")["maxmemory"])
    i = 0
    while int(client.info("memory")["used_memory"]) < fraction * limit:
        pipe = client.pipeline(transaction=False)
        for j in range(i, i + 200):
            kind = j % 4
            key = f"other:{j}"
            if kind == 0:
                pipe.set(key, b"x" * 200)
            elif kind == 1:
                pipe.sadd(key, *range(20))
            elif kind == 2:
                pipe.hset(key, mapping={f"f{n}": "v" * 20 for n in range(8)})
            else:
                pipe.rpush(key, *(b"y" * 30 for _ in range(8)))
        pipe.execute()
        i += 200
    return i


def test_two_runs_under_one_user_never_share_a_key(server, url_env):
    url_env.setenv("REDIS_URL", server.url)
    url_env.setenv("SETLAB_USER", "ana")
    first = setlab.connect("string-plus-set", quiet=True)
    url_env.setattr(backend, "RUN_ID", "00000000-beef")
    second = setlab.connect("string-plus-set", quiet=True)
    assert {first.namespace[:12], second.namespace[:12]} == {"setlab:@ana:"}
    assert first.namespace != second.namespace
    first.r.set(first.key("counter"), 1)
    second.r.set(second.key("counter"), 2)
    assert second.cleanup() == 1
    assert first.r.get(first.key("counter")) == b"1"


def test_stale_runs_are_removed_only_on_request_and_only_the_users_own(server, url_env):
    url_env.setenv("REDIS_URL", server.url)
    url_env.setenv("SETLAB_USER", "ana")
    lab = setlab.connect("hll", quiet=True)
    other = server.client()
    day_old = f"{int(time.time()) - 2 * 86400:x}-abcd"
    other.set(f"setlab:@ana:{day_old}:hll:k", 1)
    other.set(f"setlab:@bo:{day_old}:hll:k", 1)
    other.set("setlab:@ana:not-a-run:k", 1)
    lab.r.set(lab.key("mine"), 1)
    assert lab.cleanup_stale() == 1
    assert other.exists(f"setlab:@bo:{day_old}:hll:k", "setlab:@ana:not-a-run:k") == 2
    assert lab.r.exists(lab.key("mine")) == 1


def test_an_acl_confined_user_connects_and_the_guard_stays_shut(server, url_env):
    admin = server.client()
    admin.acl_setuser(
        "ana", enabled=True, passwords=[f"+{PASSWORD}"], keys=["setlab:@ana:*"],
        commands=["+@all", "-@dangerous"],
    )  # fmt: skip
    url_env.setenv("REDIS_URL", f"redis://ana:{PASSWORD}@127.0.0.1:{server.port}/0")
    url_env.setenv("SETLAB_USER", "ana")
    lab = setlab.connect("setbit-offset", quiet=True)
    assert lab.is_real and lab.version  # HELLO told the version though INFO is denied
    assert PASSWORD not in lab.banner and PASSWORD not in repr(lab)
    lab.r.set(lab.key("x"), 1)  # small writes pass
    with pytest.raises(setlab.BigAllocationRefused, match="INFO memory"):
        lab.check_allocation(16 * 2**20, "a 16 MiB bitmap")
    with pytest.raises(redis.exceptions.NoPermissionError, match="denies KEYS"):
        lab.r.keys("*")
    assert lab.cleanup() == 1


def test_the_guard_never_lets_the_book_evict_someone_elses_keys(server, url_env):
    admin = server.client()
    admin.config_set("maxmemory", 16 * 2**20)
    admin.config_set("maxmemory-policy", "allkeys-lru")
    foreign = _fill(admin, 0.85)
    url_env.setenv("REDIS_URL", server.url)
    lab = setlab.connect("setbit-offset", quiet=True, allow_big=True)
    with pytest.raises(setlab.BigAllocationRefused, match=r"headroom.*allkeys-lru.*SETLAB_SCALE"):
        lab.check_allocation(8 * 2**20, "an 8 MiB bitmap", scales=True)
    with pytest.raises(setlab.BigAllocationRefused, match="headroom"):
        lab.r.setbit(lab.key("big"), 8 * 2**23, 1)  # the net under each write, undeclared
    with pytest.raises(setlab.BigAllocationRefused):
        for i in range(100_000):  # many small writes creep up: the net stops them in time
            lab.r.set(lab.key("s", i), b"z" * 1000)
    assert int(admin.info("stats")["evicted_keys"]) == 0
    assert len(list(admin.scan_iter(match="other:*", count=1000))) == foreign
    lab.cleanup()
    assert lab.keys() == [] and len(list(admin.scan_iter(match="other:*", count=1000))) == foreign


def test_no_password_in_any_message_when_the_password_is_wrong(server, url_env):
    server.client().config_set("requirepass", PASSWORD)
    url_env.setenv("REDIS_URL", f"redis://default:{PASSWORD}x@127.0.0.1:{server.port}/0")
    with pytest.raises(ServerError) as err:
        setlab.connect("setbit-offset", quiet=True)
    assert PASSWORD not in str(err.value) and "default:***@" in str(err.value)
    url_env.setenv("REDIS_URL", f"redis://127.0.0.1:{server.port}/0?password={PASSWORD}")
    lab = setlab.connect("setbit-offset", quiet=True)
    assert PASSWORD not in lab.banner


def test_a_frozen_server_fails_within_seconds_not_minutes(server, url_env):
    url_env.setenv("REDIS_URL", server.url)
    lab = setlab.connect("setbit-offset", quiet=True)
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        with pytest.raises(ServerTimeout, match="did not answer GET in time"):
            lab.r.get(lab.key("x"))
        assert time.monotonic() - start < backend.SOCKET_TIMEOUT_S + 3
        start = time.monotonic()
        with pytest.raises(ServerError, match="cannot reach Redis"):
            setlab.connect("setbit-offset", quiet=True)
        assert time.monotonic() - start < backend.CONNECT_TIMEOUT_S + backend.SOCKET_TIMEOUT_S + 3
    finally:
        os.kill(server.process.pid, signal.SIGCONT)


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("SETLAB_")}
    return subprocess.run(
        [sys.executable, "-m", "setlab", *args], capture_output=True, text=True, timeout=90,
        env={**full, **env},
    )  # fmt: skip


@pytest.mark.parametrize(
    "url",
    [
        "rediss://default:{pw}@127.0.0.1:{port}/0",  # TLS to a plain server
        "redis://default:{pw}x@127.0.0.1:{port}/0",  # a wrong password
        "redis://default:{pw}@127.0.0.1:1/0",  # nobody listening
        "redis//default:{pw}@127.0.0.1:{port}",  # not a URL
    ],
)
@pytest.mark.parametrize("command", [("backend", "-v"), ("doctor",)])
def test_the_cli_says_one_line_and_never_the_password(server, url, command):
    server.client().config_set("requirepass", PASSWORD)
    result = _cli(*command, REDIS_URL=url.format(pw=PASSWORD, port=server.port))
    assert result.returncode in (1, 2)
    assert "Traceback" not in result.stdout + result.stderr
    assert PASSWORD not in result.stdout + result.stderr
    if command == ("backend", "-v"):
        assert result.returncode == 2 and result.stderr.strip().count("\n") == 0


def test_the_cli_gives_up_on_a_frozen_server_within_seconds(server):
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        result = _cli("backend", "-v", REDIS_URL=server.url)
        took = time.monotonic() - start
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    assert result.returncode == 2 and "cannot reach Redis" in result.stderr
    assert took < backend.CONNECT_TIMEOUT_S + backend.SOCKET_TIMEOUT_S + 5


def test_the_raw_socket_loader_fails_in_seconds_on_a_frozen_server(server, url_env):
    from setlab.lab.wire import loading

    url_env.setenv("REDIS_URL", server.url)
    lab = setlab.connect("sharded-bloom", quiet=True)
    wire = loading.Wire(lab)
    assert wire.raw  # a plain server: the raw socket path
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        wire.send(b"*1\r\n$4\r\nPING\r\n")
        with pytest.raises(ServerTimeout, match=r"did not answer BULK LOAD \(REPLY\) in time"):
            wire.expect(7, 1)
        assert time.monotonic() - start < backend.SOCKET_TIMEOUT_S + 3
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        wire.close()


def test_the_raw_socket_loader_reports_a_dead_server_as_a_setlab_error(server, url_env):
    from setlab.lab.errors import ServerUnavailable
    from setlab.lab.wire import loading

    url_env.setenv("REDIS_URL", server.url)
    lab = setlab.connect("sharded-bloom", quiet=True)
    wire = loading.Wire(lab)
    server.stop()
    with pytest.raises(ServerUnavailable, match=r"lost Redis at 127\.0\.0\.1"):
        for _ in range(100):
            wire.send(b"*1\r\n$4\r\nPING\r\n")
            wire.expect(7, 1)
