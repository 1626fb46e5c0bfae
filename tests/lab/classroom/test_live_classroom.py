"""Classroom mode: many students share one Redis through REDIS_URL without touching each other.

First by convention: each student gets a namespace from SETLAB_USER; the big-allocation guard
protects the shared server; cleanup removes only the student's own keys (several students' chapter
1 run concurrently, each in its own kernel, against one live server that also holds other data).

Then enforced by the server, on a class server made by ``setlab classroom``
(:mod:`setlab.lab.classroom`): one ACL user per participant confined to ``~setlab:@<name>:*`` with
``+@all -@dangerous``. A participant cannot read, write or delete another's keys or run what
reaches across the class; ``setlab.connect()`` needs nothing but the participant's URL; three
participants run a chapter at once and draw every figure the embedded run draws; the guard
holds; the monitor reports who is connected and what each namespace holds; no password reaches
a log. Every chapter executing as a participant is tests/chapters/test_live_hostile.py's acl-user
pass:
the participant's rules (:func:`setlab.lab.classroom.acl_rules`, URL only) on a server that is
also nearly full and evicting, the harder case.

The chapter runs of a test whose checks passed are kept together
(tests/support/notebooks.kept_runs) until the package, the lock, the server binary, the
chapter's code cells or this file change; the checks of the server's state still run.
"""

from __future__ import annotations

import csv
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import redis

import setlab
from setlab.cli import classroom as classroom_cli
from setlab.lab import classroom
from setlab.lab.errors import BigAllocationRefused
from setlab.lab.server import free_port
from tests.support.notebooks import kept_run, kept_runs

pytestmark = pytest.mark.live

STUDENTS = ["ana", "bo", "chen"]


def _student_env(user: str, url: str) -> dict[str, str]:
    env = {**os.environ, "REDIS_URL": url, "SETLAB_USER": user}
    env.pop("SETLAB_BACKEND", None)
    env.pop("SETLAB_ALLOW_BIG", None)
    return env


def test_students_sharing_one_server_never_touch_each_others_keys(foreign_server, monkeypatch):
    monkeypatch.setenv("REDIS_URL", foreign_server.url)
    monkeypatch.delenv("SETLAB_ALLOW_BIG", raising=False)
    labs = {u: setlab.connect("notes", user=u, quiet=True) for u in STUDENTS}
    for user, lab in labs.items():  # each student's own work from another chapter
        for i in range(200):
            lab.r.set(lab.key("notes", i), user)
    shared = foreign_server.client()
    shared.set("course:config", "keep me")

    students = {u: ("setbit-offset", _student_env(u, foreign_server.url)) for u in STUDENTS}
    with kept_runs(students, [Path(__file__)], "sharing") as runs:
        for user, run in runs.items():
            assert run.ok, f"{user}'s chapter failed: {run.ename}: {run.evalue}"
        _check_each_student_kept_to_their_own(labs, shared)


def _check_each_student_kept_to_their_own(labs: dict, shared: redis.Redis) -> None:
    # Each chapter's cleanup removed only its own namespace: every student's notes survive.
    for user, lab in labs.items():
        keys = lab.keys()
        assert len(keys) == 200
        assert {lab.r.get(k) for k in keys} == {user.encode()}
        assert all(k.decode().startswith(lab.namespace + "notes:") for k in keys)
        assert lab.namespace.startswith(f"setlab:@{user}:")  # the user's prefix, then the run
        # the student's chapter run (its own run id) left nothing under the student's prefix
        left = set(shared.scan_iter(match=f"setlab:@{user}:*")) - set(keys)
        left.discard(lab.heartbeat.key.encode())  # this process's run is still alive
        assert left == set()
    assert shared.get("course:config") == b"keep me"
    # A student's view of the namespace never includes another student's keys.
    assert labs["ana"].keys() and not set(labs["ana"].keys()) & set(labs["bo"].keys())
    # No student could allocate a big bitmap on the shared server.
    assert shared.info("memory")["used_memory_peak"] < 100 * 2**20
    # Cleanup by one student leaves the others alone.
    assert labs["ana"].cleanup() == 200
    assert len(labs["bo"].keys()) == 200 and len(labs["chen"].keys()) == 200


# -- a class server made by `setlab classroom`: isolation enforced by Redis ACLs -------------------

PARTICIPANTS = ["ana", "bo", "chen", "dee"]
#: what Redis says when an ACL refuses (a command, a key, or a key inside a script)
DENIED = r"no permissions|can't access"


def _participant_env(url: str) -> dict[str, str]:
    """A participant's environment: only the REDIS_URL the instructor handed out."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETLAB_")}
    env["REDIS_URL"] = url
    return env


@pytest.fixture(scope="module")
def class_server():
    """A server started and configured the way `setlab classroom start` does it, holding one
    key of somebody else's (``course:config``)."""
    from tests.conftest import start_class_server

    server, password = start_class_server()
    admin = server.client(password=password)
    people = {p.name: p for p in classroom.configure(admin, PARTICIPANTS)}
    admin.set("course:config", "keep me")
    urls = {name: p.url(server.host, server.port) for name, p in people.items()}
    yield server, admin, people, urls
    admin.close()
    server.stop()


def _as(urls: dict[str, str], name: str) -> redis.Redis:
    return redis.Redis.from_url(urls[name], protocol=2)


def test_a_participant_cannot_read_write_or_delete_anothers_keys(class_server):
    _, admin, _, urls = class_server
    bo, ana = _as(urls, "bo"), _as(urls, "ana")
    theirs, mine = "setlab:@bo:run:notes:secret", "setlab:@ana:run:notes:mine"
    bo.set(theirs, "bo's")
    denied = [
        ("GET", theirs), ("SET", theirs, "ana's"), ("DEL", theirs), ("UNLINK", theirs),
        ("EXISTS", theirs), ("TYPE", theirs), ("DUMP", theirs), ("EXPIRE", theirs, 1),
        ("APPEND", theirs, "x"), ("GETDEL", theirs), ("MEMORY", "USAGE", theirs),
        ("OBJECT", "ENCODING", theirs), ("COPY", theirs, mine), ("RENAME", theirs, mine),
        ("EVAL", "return redis.call('GET', KEYS[1])", 1, theirs),
        ("EVAL", f"return redis.call('DEL', '{theirs}')", 0),  # a key the script did not declare
    ]  # fmt: skip
    for command in denied:  # a script's refusal is an error raised from the script
        with pytest.raises(redis.exceptions.ResponseError, match=DENIED):
            ana.execute_command(*command)
    assert admin.get(theirs) == b"bo's" and admin.ttl(theirs) == -1  # untouched
    # ... while the participant's own namespace works, MEMORY USAGE included
    assert ana.set(mine, "ana's") and ana.get(mine) == b"ana's"
    assert ana.memory_usage(mine) == admin.memory_usage(mine) > 0
    assert ana.delete(mine) == 1
    bo.delete(theirs)


def test_a_participant_cannot_run_commands_that_reach_across_the_class(class_server):
    _, admin, _, urls = class_server
    ana = _as(urls, "ana")
    before = admin.dbsize()
    for command in [
        ("FLUSHALL",), ("FLUSHDB",), ("KEYS", "*"), ("CONFIG", "GET", "maxmemory"),
        ("CONFIG", "SET", "maxmemory", "0"), ("INFO",), ("SWAPDB", 0, 1), ("SHUTDOWN", "NOSAVE"),
        ("LATENCY", "RESET"), ("MODULE", "LIST"), ("ACL", "SETUSER", "ana", "~*"),
        ("ACL", "LIST"), ("CLIENT", "LIST"), ("CLIENT", "KILL", "USER", "bo"), ("SAVE",),
        ("SLOWLOG", "GET"), ("RANDOMKEY",), ("SCRIPT", "FLUSH"), ("FUNCTION", "FLUSH"),
        ("MIGRATE", "127.0.0.1", 1, "", 0, 100, "KEYS", "course:config"),
        ("REPLICAOF", "NO", "ONE"),
    ]:  # fmt: skip
        with pytest.raises(redis.exceptions.NoPermissionError, match=DENIED):
            ana.execute_command(*command)
    assert admin.dbsize() == before and admin.get("course:config") == b"keep me"
    assert admin.acl_getuser("ana")["keys"] == ["~setlab:@ana:*"]


def test_connect_needs_only_the_participants_url(class_server, monkeypatch, capsys):
    server, _, people, urls = class_server
    for name in ("SETLAB_USER", "SETLAB_BACKEND", "SETLAB_ALLOW_BIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REDIS_URL", urls["chen"])
    lab = setlab.connect("notes")
    banner = capsys.readouterr().out
    assert lab.namespace.startswith("setlab:@chen:")  # the ACL user is the namespace
    assert people["chen"].password not in banner + repr(lab)
    assert lab.has_memory_usage
    assert lab.has_redisbloom == (server.module is not None)  # found without MODULE LIST
    lab.r.set(lab.key("n"), "1")
    assert lab.r.memory_usage(lab.key("n")) > 0
    assert lab.cleanup() == 1
    lab.close()


def test_the_memory_guard_still_holds_for_a_participant(class_server, monkeypatch):
    _, admin, _, urls = class_server
    monkeypatch.delenv("SETLAB_USER", raising=False)
    monkeypatch.setenv("REDIS_URL", urls["ana"])
    for allow_big in (False, True):  # without INFO even the opt-in cannot see the headroom
        lab = setlab.connect("guard", quiet=True, allow_big=allow_big)
        with pytest.raises(BigAllocationRefused):
            lab.check_allocation(2**29, "a 512 MiB bitmap")
        with pytest.raises(BigAllocationRefused):
            lab.r.setbit(lab.key("bm"), 2**32 - 1, 1)
        assert lab.cleanup() == 0
        lab.close()
    assert admin.info("memory")["used_memory_peak"] < 64 * 2**20


def test_three_participants_run_a_chapter_at_once_and_every_figure_is_produced(class_server):
    _, admin, people, urls = class_server
    here = [Path(__file__)]
    embedded_env = {**os.environ, "SETLAB_BACKEND": "fake"}
    trio = {n: ("setbit-offset", _participant_env(urls[n])) for n in ["ana", "bo", "chen"]}
    with kept_run("setbit-offset", embedded_env, here) as embedded, kept_runs(trio, here) as runs:
        _check_the_trio(embedded, runs, people, admin)


def _check_the_trio(embedded, runs: dict, people: dict, admin: redis.Redis) -> None:
    assert embedded.ok and embedded.figures > 0 and embedded.glued
    for name, run in runs.items():
        assert run.ok, f"{name}: {run.ename}: {run.evalue}"
        assert run.figures == embedded.figures, name  # every figure, as on the embedded
        assert run.glued == embedded.glued, name  # every glued number too
        # the measurement INFO would feed: the page names the permission and shows the
        # stored run instead
        assert "denies INFO to this user" in run.text and "reference run:" in run.text
        assert "Traceback" not in run.text
        assert f"setlab:@{name}:" in run.text or "live Redis" in run.text
        for other in people.values():
            assert other.password not in run.all
    assert list(admin.scan_iter(match="setlab:*")) == []  # every run cleaned up after itself
    assert admin.get("course:config") == b"keep me"


def test_the_monitor_shows_who_is_connected_and_what_each_namespace_holds(class_server):
    _, admin, _, urls = class_server
    admin.acl_setuser("app", enabled=True, nopass=True, keys=["app:*"], commands=["+@all"])
    ana, bo = _as(urls, "ana"), _as(urls, "bo")
    for i in range(50):
        ana.sadd(f"setlab:@ana:r:ch:set:{i}", *range(i * 10, i * 10 + 100))
    bo.ping()  # connected, holding nothing
    rows = {row.user: row for row in classroom.usage(admin)}
    assert "app" not in rows and "default" not in rows  # only participants
    assert set(PARTICIPANTS) <= set(rows)
    assert rows["ana"].connections >= 1 and rows["ana"].keys == 50
    expected = sum(admin.memory_usage(k, samples=0) for k in admin.scan_iter("setlab:@ana:*"))
    assert rows["ana"].memory_bytes == expected  # integer sets: sampling is exact
    assert rows["bo"].connections >= 1 and rows["bo"].keys == 0 and rows["bo"].memory_bytes == 0
    assert rows["dee"].connections == 0 and rows["dee"].idle_s is None
    text = classroom_cli.render(admin)
    assert "ana" in text and "connected" in text
    assert classroom.participant_users(admin) == sorted(PARTICIPANTS)
    # removing a participant deletes its keys and user, nothing else
    assert classroom.remove(admin, ["ana"]) == (50, 1)
    assert "ana" not in admin.acl_users() and admin.get("course:config") == b"keep me"
    classroom.configure(admin, ["ana"])  # back for the other tests (with a new password)
    admin.acl_deluser("app")


def test_passwords_reach_no_server_log_and_only_the_urls_the_instructor_asked_for(
    class_server,
):
    server, admin, people, _ = class_server
    admin.config_set("slowlog-log-slower-than", 0)
    admin.slowlog_reset()
    renewed = classroom.configure(admin, ["dee"])[0]
    _as({"dee": renewed.url(server.host, server.port)}, "dee").ping()
    logged = repr(admin.slowlog_get(128)) + (server.workdir / "redis.log").read_text()
    admin.config_set("slowlog-log-slower-than", 10000)
    assert renewed.password not in logged and "ACL" in logged  # the command was logged, redacted
    for p in people.values():
        assert p.password not in logged


def _start_classroom(tmp_path, attempts=3):
    """``setlab classroom start ana bo`` on a free port, up to its "serving" line: (port, process,
    output). A port picked free can be taken by another test's server before the classroom binds
    it; ``classroom start`` then refuses it ("already in use") and another port is picked."""
    for _ in range(attempts):
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "setlab", "classroom", "start", "ana", "bo", "--port", str(port),
             "--csv", str(tmp_path / "class.csv")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        )  # fmt: skip
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("serving until Ctrl-C"):
                return port, proc, "".join(lines)
        rest, err = proc.communicate(timeout=30)
        if "already in use" not in err:
            pytest.fail(f"classroom start exited {proc.returncode}: {''.join(lines)}{rest}{err}")
    pytest.fail(f"classroom start found no free port in {attempts} attempts: {err}")


def test_setlab_classroom_start_saves_the_urls_keeps_every_login_secret_and_stops_cleanly(
    tmp_path,
):
    """Its output goes to a pipe here, as to a log: the URLs are in the CSV and nowhere else
    (tests/lab/classroom/test_live_classroom_limits.py shows them printed to a terminal)."""
    from tests.conftest import _need_redis_server

    _need_redis_server()
    port, proc, out = _start_classroom(tmp_path)
    try:
        rows = list(csv.DictReader((tmp_path / "class.csv").open()))
        admin_file = tmp_path / classroom_cli.ADMIN_FILE
        admin_url = admin_file.read_text().strip()
        for path in (tmp_path / "class.csv", admin_file):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert [r["name"] for r in rows] == ["ana", "bo"]
        assert "passwords not printed: standard output is not a terminal" in out
        assert f"2 participant URL(s) written to {tmp_path / 'class.csv'} (mode 600)" in out
        for row in rows:  # the URLs the instructor asked for: in the CSV, not in the output
            assert redis.connection.parse_url(row["redis_url"])["password"] not in out
            assert redis.Redis.from_url(row["redis_url"]).ping()
        admin_password = redis.connection.parse_url(admin_url)["password"]
        assert admin_password not in out
        admin = redis.Redis.from_url(admin_url)
        assert admin.acl_getuser("ana")["keys"] == ["~setlab:@ana:*"]
        with pytest.raises(redis.exceptions.AuthenticationError):
            redis.Redis(port=port).ping()  # no login, no server
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert admin_password not in rest + err
    with pytest.raises(redis.exceptions.ConnectionError):
        redis.Redis(port=port, password=admin_password, socket_connect_timeout=2).ping()


def test_add_monitor_and_remove_work_on_a_server_the_instructor_already_runs(
    class_server, tmp_path
):
    server, admin, _, _ = class_server
    password = admin.connection_pool.connection_kwargs["password"]
    env = {**os.environ, "SETLAB_ADMIN_URL": f"redis://default:{password}@{server.host}:"
           f"{server.port}/0"}  # fmt: skip

    def setlab_cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "setlab", "classroom", *args], env=env, cwd=tmp_path,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    added = setlab_cli("add", "eve", "--csv", str(tmp_path / "eve.csv"))
    assert added.returncode == 0, added.stderr
    (row,) = csv.DictReader((tmp_path / "eve.csv").open())
    eve_password = redis.connection.parse_url(row["redis_url"])["password"]
    assert row["name"] == "eve" and eve_password not in added.stdout  # a pipe: not printed
    eve = redis.Redis.from_url(row["redis_url"])
    eve.set("setlab:@eve:r:ch:k", "x")
    watched = setlab_cli("monitor")
    assert watched.returncode == 0, watched.stderr
    row = next(ln.split() for ln in watched.stdout.splitlines() if ln.split()[:1] == ["eve"])
    assert row[1] == "1" and row[-3] == "1"  # eve: one connection, one key, then its memory
    removed = setlab_cli("remove", "eve")
    assert removed.returncode == 0 and "removed 1 key(s) and 1 user(s)" in removed.stdout
    assert "eve" not in admin.acl_users() and admin.get("course:config") == b"keep me"
    for run in (added, watched, removed):
        assert password not in run.stdout + run.stderr
    quiet = setlab_cli("add", "eve", "--quiet", "--csv", str(tmp_path / "quiet.csv"))
    (row,) = csv.DictReader((tmp_path / "quiet.csv").open())
    assert quiet.returncode == 0 and row["redis_url"].split("@")[0] not in quiet.stdout
    assert "passwords not printed" not in quiet.stdout  # --quiet: not even the notice
    assert classroom.remove(admin, ["eve"]) == (0, 1)
