"""What one participant, or one mistake, can do to a whole classroom Redis — and what stops it.

- ``setlab classroom start`` configures only the server it starts: a port that somebody's
  password-less Redis already listens on is refused, and that server is left exactly as it was
  (no password, no users, its keys, its clients); a server that answers on the port without
  being the process just started is never configured either.
- A participant cannot run the scripting the book does not need (functions, read-only script
  variants, the script debugger) nor reach a database other than 0; the book's own scripts
  still run.
- The server bounds one command's size and all connections' buffers (client eviction); the
  watchdog kills a participant's endless script and names them, and empties a flooded script
  cache; the monitor shows each participant's connection memory and who ran a slow command;
  ``kick`` ends one participant's connections and no one else's.
- ``add`` leaves no user whose password is in no file (an unwritable CSV, an interruption
  midway) and changes no login that is not a participant's; passwords reach a terminal only.
"""

from __future__ import annotations

import csv
import os
import pty
import socket
import subprocess
import sys
import threading
import time

import pytest
import redis

from setlab.lab import classroom
from setlab.lab import server as server_module
from setlab.lab.server import RedisServer

pytestmark = pytest.mark.live

DENIED = r"no permissions"


def _setlab(*args: str, env: dict[str, str] | None = None, cwd=None, **kw):
    return subprocess.run(
        [sys.executable, "-m", "setlab", "classroom", *args], capture_output=True, text=True,
        timeout=60, env=env or dict(os.environ), cwd=cwd, **kw,
    )  # fmt: skip


@pytest.fixture
def somebodys_redis():
    """A password-less redis-server that is not the class's: one key, one client connected."""
    from tests.conftest import _need_redis_server

    _need_redis_server()
    server = RedisServer.start(module=False)
    client = redis.Redis(port=server.port, single_connection_client=True, protocol=2)
    client.set("sentinel", "untouched")
    yield server, client
    client.close()
    server.stop()


def _untouched(server: RedisServer, client: redis.Redis) -> None:
    fresh = redis.Redis(port=server.port, protocol=2)  # a new client, with no password
    assert fresh.acl_users() == ["default"]
    assert "nopass" in fresh.acl_getuser("default")["flags"]
    assert fresh.get("sentinel") == b"untouched" and fresh.dbsize() == 1
    assert client.ping() and client.get("sentinel") == b"untouched"  # connected before: still in


def test_classroom_start_refuses_a_port_somebodys_redis_listens_on(somebodys_redis, tmp_path):
    server, client = somebodys_redis
    run = _setlab("start", "ana", "bo", "--port", str(server.port), "--csv",
                  str(tmp_path / "c.csv"), cwd=tmp_path)  # fmt: skip
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"setlab classroom start: port {server.port} on 127.0.0.1 is")
    assert "already in use" in run.stderr and run.stdout == ""
    assert not (tmp_path / "c.csv").exists()
    _untouched(server, client)


def test_a_server_answering_on_the_port_is_configured_only_if_it_is_the_one_started(
    somebodys_redis, monkeypatch
):
    """The port check can race (the port is taken between the check and the start); the pid
    the answering server reports must then still be the started process's."""
    server, client = somebodys_redis
    monkeypatch.setattr(server_module, "check_port_free", lambda *a, **k: None, raising=False)
    with pytest.raises(server_module.ServerError, match=r"not by the redis-server setlab started"):
        classroom.start_server(port=server.port)
    _untouched(server, client)


@pytest.fixture(scope="module")
def class_server():
    from tests.conftest import start_class_server

    server, password = start_class_server()
    admin = server.client(password=password)
    people = {p.name: p for p in classroom.configure(admin, ["ana", "bo"])}
    admin.set("course:config", "keep me")
    yield server, admin, people
    admin.close()
    server.stop()


def _as(server, people, name: str, **kw) -> redis.Redis:
    return redis.Redis.from_url(people[name].url(server.host, server.port), protocol=2, **kw)


def test_a_participant_has_the_books_scripting_and_database_0_only(class_server):
    server, admin, people = class_server
    ana = _as(server, people, "ana")
    key = "setlab:@ana:r:k"
    ana.set(key, "1")
    for command in [
        ("EVAL_RO", "return 1", 0), ("EVALSHA_RO", "0" * 40, 0), ("FCALL", "f", 0),
        ("FCALL_RO", "f", 0), ("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function("
        "'f', function() return 1 end)"), ("FUNCTION", "LIST"), ("FUNCTION", "STATS"),
        ("SCRIPT", "DEBUG", "SYNC"), ("SCRIPT", "FLUSH"), ("SCRIPT", "KILL"),
        ("SELECT", 1), ("MOVE", key, 1), ("COPY", key, "setlab:@ana:r:k2", "DB", 1),
        ("SWAPDB", 0, 1), ("CLIENT", "NO-EVICT", "on"),
    ]:  # fmt: skip
        with pytest.raises(redis.exceptions.NoPermissionError, match=DENIED):
            ana.execute_command(*command)
    with pytest.raises(redis.exceptions.NoPermissionError):  # a URL naming database 1 too
        redis.Redis.from_url(people["ana"].url(server.host, server.port)[:-1] + "1").ping()
    assert list(admin.execute_command("INFO", "keyspace")) == ["db0"]  # nothing left db 0
    # ... while what the book's code sends still works: EVAL, and EVALSHA with SCRIPT LOAD
    # and EXISTS (redis-py's register_script, alone and in a pipeline)
    assert ana.eval("return redis.call('INCR', KEYS[1])", 1, key) == 2
    script = ana.register_script("return redis.call('GET', KEYS[1])")
    admin.script_flush()
    assert script(keys=[key]) == b"2"  # NOSCRIPT, SCRIPT LOAD, EVALSHA
    pipe = ana.pipeline()
    script(keys=[key], client=pipe)
    assert pipe.execute() == [b"2"]
    ana.delete(key)


def test_one_command_bigger_than_the_limit_closes_only_its_own_connection(class_server):
    server, admin, people = class_server
    assert admin.config_get("client-query-buffer-limit")["client-query-buffer-limit"] == str(2**20)
    ana = _as(server, people, "ana")
    bo = _as(server, people, "bo", single_connection_client=True)
    bo.ping()
    with pytest.raises(redis.exceptions.ConnectionError):
        ana.set("setlab:@ana:r:big", b"x" * (2 * 2**20))  # 2 MiB in one command
    assert admin.exists("setlab:@ana:r:big") == 0 and bo.ping()


def _raw(server, people, name: str) -> socket.socket:
    """A participant's connection with nothing between the test and the wire."""
    sock = socket.create_connection((server.host, server.port), timeout=10)
    password = people[name].password
    sock.sendall(f"*3\r\n$4\r\nAUTH\r\n${len(name)}\r\n{name}\r\n${len(password)}\r\n"
                 f"{password}\r\n".encode())  # fmt: skip
    assert sock.recv(5) == b"+OK\r\n"
    return sock


def _wait(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_participant_whose_replies_pile_up_is_evicted_and_the_others_stay(class_server):
    """``maxmemory-clients`` (10% of 256 MiB): replies a client never reads count against it."""
    server, admin, people = class_server
    assert admin.config_get("maxmemory-clients")["maxmemory-clients"] == "10%"
    bo = _as(server, people, "bo", single_connection_client=True)
    bo.ping()
    admin.set("setlab:@ana:r:blob", b"x" * 900_000)
    evicted = int(admin.info("stats")["evicted_clients"])
    sock = _raw(server, people, "ana")
    sock.sendall(b"*2\r\n$3\r\nGET\r\n$18\r\nsetlab:@ana:r:blob\r\n" * 80)  # 72 MB of replies
    _wait(lambda: int(admin.info("stats")["evicted_clients"]) > evicted)
    sock.close()
    assert bo.ping() and admin.get("course:config") == b"keep me"
    admin.delete("setlab:@ana:r:blob")


def test_the_monitor_shows_a_participants_connection_memory(class_server):
    from setlab.cli import classroom as classroom_cli

    server, admin, people = class_server
    sock = _raw(server, people, "ana")
    partial = b"x" * 600_000  # a command that has not finished arriving sits in the query buffer
    sock.sendall(b"*3\r\n$3\r\nSET\r\n$14\r\nsetlab:@ana:qb\r\n$900000\r\n" + partial)
    _wait(lambda: any(int(c["qbuf"]) >= len(partial) for c in admin.client_list()
                      if c["user"] == "ana"))  # fmt: skip
    rows = {row.user: row for row in classroom.usage(admin)}
    assert rows["ana"].client_bytes >= len(partial)
    assert rows["bo"].client_bytes < len(partial) // 10
    words = next(ln for ln in classroom_cli.render(admin).splitlines() if " ana " in ln).split()
    shown = float(words[4]) * {"B": 1, "KiB": 2**10, "MiB": 2**20}[words[5]]  # 3 digits
    assert shown >= 0.99 * len(partial)
    sock.close()


def _endless(client: redis.Redis, outcome: list[str]) -> threading.Thread:
    def run() -> None:
        try:
            client.eval("while true do end", 0)
        except redis.exceptions.ResponseError as exc:
            outcome.append(str(exc))

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_the_watchdog_kills_a_participants_endless_script_and_names_them(class_server):
    from setlab.lab.classroom import watch as classroom_watch

    server, admin, people = class_server
    threshold_ms = int(admin.config_get("busy-reply-threshold")["busy-reply-threshold"])
    assert threshold_ms == 1000
    watchdog = classroom_watch.Watchdog(server.client(password=admin.connection_pool.
                                        connection_kwargs["password"]))  # fmt: skip
    bo = _as(server, people, "bo")
    outcome: list[str] = []
    started = time.monotonic()
    ana = _as(server, people, "ana")  # a participant's kernel: it stays connected
    thread = _endless(ana, outcome)
    time.sleep(0.2)
    said = watchdog.step()  # waits for the BUSY reply, then kills
    thread.join(10)
    stalled = time.monotonic() - started
    assert outcome and "killed" in outcome[0].lower()
    assert len(said) == 1 and said[0].startswith("stopped ana's script after "), said
    assert threshold_ms / 1000 <= stalled < threshold_ms / 1000 + 2
    assert bo.set("setlab:@bo:r:k", "1") and bo.delete("setlab:@bo:r:k") == 1
    assert watchdog.step() == []  # nothing more to do


def test_the_monitor_says_the_server_is_busy_then_who_ran_the_slow_command(class_server):
    from setlab.cli import classroom as classroom_cli
    from setlab.lab.classroom import watch as classroom_watch

    server, admin, people = class_server
    password = admin.connection_pool.connection_kwargs["password"]
    watchdog = classroom_watch.Watchdog(server.client(password=password))
    monitor = server.client(password=password, single_connection_client=True)
    monitor.ping()  # connected before: a new connection's first commands would get BUSY
    outcome: list[str] = []
    bo = _as(server, people, "bo")
    thread = _endless(bo, outcome)
    time.sleep(1.3)  # past busy-reply-threshold
    assert "server busy" in classroom_cli.render(monitor)
    watchdog.step()
    thread.join(10)
    slowest = next(ln for ln in classroom_cli.render(monitor).splitlines() if "slowest" in ln)
    assert "bo eval" in slowest


def test_the_watchdog_empties_a_flooded_script_cache_and_the_books_scripts_come_back(
    class_server,
):
    from setlab.lab.classroom import watch as classroom_watch

    server, admin, people = class_server
    password = admin.connection_pool.connection_kwargs["password"]
    watchdog = classroom_watch.Watchdog(server.client(password=password))
    admin.script_flush()  # what earlier tests left
    ana = _as(server, people, "ana")
    script = ana.register_script("return 7")
    assert script() == 7
    for i in range(3):  # 1.8 MB of scripts nobody needs, each under the 1 MiB command limit
        ana.script_load(f"return {i} --" + "x" * 600_000)
    assert int(admin.info("memory")["used_memory_scripts_eval"]) > 3 * 600_000
    (said,) = watchdog.step()
    assert said.startswith("flushed the script cache: 4 scripts")
    assert int(admin.info("memory")["used_memory_scripts_eval"]) < 10_000
    assert script() == 7  # reloaded by redis-py on NOSCRIPT


def test_kick_ends_one_participants_connections_and_not_anothers(class_server, tmp_path):
    server, admin, people = class_server
    ana1, ana2 = (_as(server, people, "ana", single_connection_client=True) for _ in range(2))
    bo = _as(server, people, "bo", single_connection_client=True)
    ids = {name: c.client_id() for name, c in (("a1", ana1), ("a2", ana2), ("bo", bo))}
    password = admin.connection_pool.connection_kwargs["password"]
    env = {**os.environ, "SETLAB_ADMIN_URL": f"redis://default:{password}@{server.host}:"
           f"{server.port}/0"}  # fmt: skip
    run = _setlab("kick", "ana", env=env, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.startswith("closed 2 connection(s) of ana"), run
    alive = {int(c["id"]) for c in admin.client_list()}
    assert ids["a1"] not in alive and ids["a2"] not in alive and ids["bo"] in alive
    assert bo.ping() and bo.client_id() == ids["bo"]  # bo's own connection, never dropped
    assert "ana" in admin.acl_users()  # the login stays
    refused = _setlab("kick", "course", env=env, cwd=tmp_path)
    assert refused.returncode == 2 and "not a classroom participant" in refused.stderr


def _script_steps(entry: list) -> int:
    """How many Redis commands one slow-log entry of the book's ``EVAL`` ran, read from its
    arguments (Redis keeps the first 32 and says how many more: ``... (N more arguments)``)."""
    from setlab.lab.runs import memory as memory_runs

    args = [a.decode("utf-8", "replace") for a in entry[3]]
    more = 0
    if args[-1].startswith("... (") and args[-1].endswith(" more arguments)"):
        more = int(args.pop().split()[1][1:])
    body, argv = args[1], args[4:]
    if "SISMEMBER" in body and body.startswith(memory_runs._SETTLE_SCRIPT[:100]):
        return int(argv[0])  # settle_set: ARGV[1] lookups
    if "SETBIT" in body and body.startswith(memory_runs._SETBIT_SCRIPT[:100]):
        return len(argv) + more  # setbit_all: one SETBIT per argument
    raise AssertionError(f"a script this test does not know: {body[:60]!r}")


def test_the_books_scripts_stay_far_inside_the_limits(class_server):
    """The chapter with the longest scripts (the sets' rehash settling) completes as a
    participant; each of its scripts runs at most ``SCRIPT_STEPS`` commands (measured at 70 ms
    quiet, 208 ms on a loaded CI machine: inside the 1,000 ms busy-reply-threshold), all of them
    in a hundredth of the script cache's limit, no connection evicted.

    The bound is on the work a script does, read from its arguments in the slow log, not on how
    long the server took: that depends on the machine and on what else runs beside the test."""
    from setlab.lab.classroom import watch as classroom_watch
    from setlab.lab.runs import memory as memory_runs
    from tests.support.notebooks import run_page

    server, admin, people = class_server
    admin.script_flush()
    admin.config_set("slowlog-log-slower-than", 1000)  # µs: every command over 1 ms
    admin.config_set("slowlog-max-len", 100_000)
    admin.slowlog_reset()
    evicted = int(admin.info("stats")["evicted_clients"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETLAB_")}
    env["REDIS_URL"] = people["bo"].url(server.host, server.port)
    try:
        run = run_page("redis-set-memory", env)
        raw = redis.Redis(host=server.host, port=server.port, protocol=2,
                          password=admin.connection_pool.connection_kwargs["password"])  # fmt: skip
        entries = raw.execute_command("SLOWLOG", "GET", 100_000, NEVER_DECODE=True)
    finally:
        admin.config_set("slowlog-log-slower-than", 10_000)
        admin.config_set("slowlog-max-len", 128)
    assert run.ok, f"{run.ename}: {run.evalue}"
    scripts = [e for e in entries if e[3][0].lower() in {b"eval", b"evalsha"}]
    steps = [_script_steps(e) for e in scripts]
    durations_ms = [e[2] / 1000 for e in scripts]
    assert steps, "the chapter ran no script long enough for the slow log"
    assert max(steps) <= memory_runs.SCRIPT_STEPS, (steps, durations_ms)
    cached = int(admin.info("memory")["used_memory_scripts_eval"])
    assert 0 < cached < classroom_watch.SCRIPT_CACHE_LIMIT / 100
    assert int(admin.info("stats")["evicted_clients"]) == evicted


# -- add: no user without a password in a file, no login but a participant's, no password
#    printed where it is kept ------------------------------------------------------------------


@pytest.fixture
def admin_env(class_server):
    server, admin, _ = class_server
    password = admin.connection_pool.connection_kwargs["password"]
    url = f"redis://default:{password}@{server.host}:{server.port}/0"
    return {**os.environ, "SETLAB_ADMIN_URL": url}, password


def test_an_add_that_cannot_write_its_csv_creates_no_user(class_server, admin_env, tmp_path):
    _, admin, _ = class_server
    env, password = admin_env
    run = _setlab("add", "zed", "--csv", str(tmp_path / "no-such-dir" / "c.csv"), env=env)
    assert "zed" not in admin.acl_users()
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "no user created" in run.stderr and password not in run.stderr


def test_an_interrupted_enroll_leaves_no_user_whose_password_is_in_no_file(
    class_server, monkeypatch, tmp_path
):
    server, admin, people = class_server
    before = admin.execute_command("ACL", "LIST")
    set_users: list[str] = []
    real = admin.execute_command

    def interrupted(*args, **kwargs):
        if args[:2] == ("ACL", "SETUSER"):
            set_users.append(args[2])
            if len(set_users) == 3:  # Ctrl-C with two users made: ana renewed, fay created
                raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(admin, "execute_command", interrupted)
    path = tmp_path / "class.csv"
    path.write_text("the last class's file\n")
    with pytest.raises(KeyboardInterrupt):
        classroom.enroll(admin, ["ana", "fay", "gus"], path, server.host, server.port)
    monkeypatch.undo()
    assert set_users[:3] == ["ana", "fay", "gus"]
    # ana's old rules and password hash are back (Redis may list the same rules in another order)
    assert sorted(sorted(line.split()) for line in admin.execute_command("ACL", "LIST")) == sorted(
        sorted(line.split()) for line in before
    )
    assert _as(server, people, "ana").ping()  # ... so her URL from before still works
    assert path.read_text() == "the last class's file\n"  # left as it was
    assert [p.name for p in tmp_path.iterdir()] == ["class.csv"]  # no staged file left


def test_add_changes_no_login_that_is_not_a_participants(class_server, admin_env, tmp_path):
    _, admin, _ = class_server
    env, _ = admin_env
    admin.acl_setuser("app", enabled=True, passwords=["+app-secret"], keys=["app:*"],
                      commands=["+@all"])  # fmt: skip
    rules = admin.execute_command("ACL", "GETUSER", "app")
    run = _setlab("add", "app", "--csv", str(tmp_path / "c.csv"), env=env)
    assert run.returncode == 2 and "is not a classroom participant" in run.stderr
    assert admin.execute_command("ACL", "GETUSER", "app") == rules
    assert not (tmp_path / "c.csv").exists()
    admin.acl_deluser("app")


def test_add_prints_passwords_to_a_terminal_and_never_into_a_redirect(
    class_server, admin_env, tmp_path
):
    _, admin, _ = class_server
    env, _ = admin_env
    piped = _setlab("add", "hal", "--csv", str(tmp_path / "piped.csv"), env=env)
    (row,) = csv.DictReader((tmp_path / "piped.csv").open())
    password = redis.connection.parse_url(row["redis_url"])["password"]
    assert piped.returncode == 0 and password not in piped.stdout + piped.stderr
    assert "passwords not printed: standard output is not a terminal" in piped.stdout
    assert f"written to {tmp_path / 'piped.csv'} (mode 600)" in piped.stdout

    primary, secondary = pty.openpty()  # a terminal: the instructor's own screen
    run = subprocess.Popen(
        [sys.executable, "-m", "setlab", "classroom", "add", "hal", "--csv",
         str(tmp_path / "tty.csv")], stdout=secondary, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    os.close(secondary)
    shown = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(primary)
    assert run.wait(60) == 0
    (row,) = csv.DictReader((tmp_path / "tty.csv").open())
    assert f"REDIS_URL={row['redis_url']}" in shown.decode()
    classroom.remove(admin, ["hal"])
