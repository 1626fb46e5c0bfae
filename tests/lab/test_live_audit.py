"""``setlab audit`` on real servers seeded with the field reports' mistakes: each is found with
the right kind and figures, nothing is written (every key's DUMP digest is unchanged, and no
command the audit sent is flagged ``write`` by the server's own COMMAND INFO), a snapshot audits
like the live server, and a refused login, a frozen server and a user without MEMORY or INFO each
end in what the reader needs: one line, or a report that says what it could not measure.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from setlab.lab.server import RedisServer
from setlab.tools import audit
from tests.conftest import _need_redis_server

pytestmark = pytest.mark.live

SECRET = "s3cret-Audit-pass"
SETTLE = "for i = 1, tonumber(ARGV[1]) do redis.call('SISMEMBER', KEYS[1], '') end"
FOREIGN_KEYS = 10_000
#: seconds the test's own client waits for a reply: the first SETBIT at 2^32 − 1 zero-fills
#: 512 MiB and DUMP compresses it, a second alone but more than redis-py's default 5 s on a
#: loaded CI machine (it timed out there once); the audit's own timeout is what is tested
PATIENCE_S = 120


def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=PATIENCE_S)


def _seed(r: redis.Redis) -> None:
    r.setbit("like:bit:42", 2**32 - 1, 1)  # seed 000: one like at the top offset
    r.execute_command("BF.RESERVE", "filter:openids", 0.01, 1000)  # seed 003: 5× its capacity
    for first in range(0, 5000, 500):
        r.execute_command(
            "BF.MADD", "filter:openids", *[f"o{i}" for i in range(first, first + 500)]
        )
    r.sadd("likes:user:7", *range(0, 140_000, 7))  # 20,000 integers: past the intset
    # finish the set's incremental rehash: any read moves it a step (DUMP's order with it)
    r.eval(SETTLE, 1, "likes:user:7", 1 << 15)
    r.set("blob:report", b"x" * (20 << 20))  # a big string
    pipe = r.pipeline(transaction=False)
    for i in range(FOREIGN_KEYS):  # somebody else's small keys, half with a TTL
        pipe.set(f"session:{i}", "v", ex=3600 if i % 2 else None)
    pipe.execute()


@pytest.fixture(scope="module")
def seeded():
    _need_redis_server()
    server = RedisServer.start()
    client = _client(server.url)
    _seed(client)
    client.close()
    yield server
    server.stop()


def _digests(r: redis.Redis) -> dict[bytes, str]:
    return {key: hashlib.sha256(r.dump(key)).hexdigest() for key in r.scan_iter(count=1000)}


def _by_kind(result: audit.Audit) -> dict[tuple[str, str], dict]:
    return {(f.key, f.kind): f.as_json() for f in result.findings}


def test_each_seeded_problem_is_reported_with_its_kind_and_figures(seeded):
    result = audit.audit(seeded.url, rate=0)
    found = _by_kind(result)
    bitmap = found[("like:bit:42", "sparse-bitmap")]
    assert bitmap["strlen"] == 2**29 and bitmap["bits_set"] == 1 <= bitmap["bits_set_upper"]
    from setlab.models.bitmap import first_setbit_memory_usage

    assert bitmap["bytes"] == first_setbit_memory_usage(2**32 - 1, "like:bit:42")
    assert 500 < bitmap["first_write_ms"] < 2000  # the reference run's stall at 2^32 − 1
    assert ("like:bit:42", "big-key") in found
    bloom = found[("filter:openids", "bloom-over-capacity")]
    assert bloom["capacity"] == 1000 and bloom["error_reserved"] == 0.01
    assert bloom["filters"] == 3 and 4900 < bloom["items"] <= 5000
    integers = found[("likes:user:7", "integer-set")]
    assert integers["members"] == 20_000 and integers["alternative_bytes"] < integers["bytes"]
    assert found[("blob:report", "big-key")]["del_ms"] > 0
    groups = {g.pattern: g for g in result.groups}
    sessions = groups["session:{n}"]
    assert sessions.keys == FOREIGN_KEYS and sessions.with_ttl == FOREIGN_KEYS // 2
    assert not any(f.key.startswith("session:") for f in result.findings)
    report = result.text()
    assert report.index("sparse-bitmap like:bit:42") < report.index("big-key blob:report")


def test_the_audit_writes_nothing(seeded):
    r = _client(seeded.url)
    before = _digests(r)
    stats = {k: v["calls"] for k, v in r.info("commandstats").items()}
    audit.audit(seeded.url, rate=0)
    after_stats = r.info("commandstats")
    sent = [k.removeprefix("cmdstat_") for k, v in after_stats.items()
            if v["calls"] > stats.get(k, 0)]  # fmt: skip
    flags = {}
    for name in sent:  # the server's own flags for each command (subcommands by full name)
        flags[name] = r.execute_command("COMMAND", "INFO", name)[name]["flags"]
    assert [name for name, f in flags.items() if "write" in f] == [], flags
    assert _digests(r) == before
    r.close()


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300):
    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | (env or {})
    return subprocess.run([sys.executable, "-m", "setlab", "audit", *args], env=environment,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def test_a_snapshot_is_audited_in_a_private_copy_and_left_as_it_was(seeded, tmp_path):
    r = _client(seeded.url)
    r.save()
    r.close()
    snapshot = tmp_path / "dump.rdb"
    shutil.copy(seeded.workdir / "dump.rdb", snapshot)
    digest = hashlib.sha256(snapshot.read_bytes()).hexdigest()
    done = _cli("--rdb", str(snapshot), "--json", "--rate", "0")
    assert done.returncode == 0, done.stderr
    import json

    data = json.loads(done.stdout)
    kinds = {(f["key"], f["kind"]) for g in data["groups"] for f in g["findings"]}
    assert {("like:bit:42", "sparse-bitmap"), ("filter:openids", "bloom-over-capacity"),
            ("likes:user:7", "integer-set"), ("blob:report", "big-key")} <= kinds  # fmt: skip
    assert hashlib.sha256(snapshot.read_bytes()).hexdigest() == digest
    assert list(tmp_path.iterdir()) == [snapshot]


def test_a_snapshot_no_installed_server_loads_is_refused_in_one_line(tmp_path):
    newer = tmp_path / "dump.rdb"
    newer.write_bytes(b"REDIS0013" + b"\0" * 64)  # a format no release here writes
    done = _cli("--rdb", str(newer))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "an RDB of format 13" in done.stderr
    assert "no server installed here loads it" in done.stderr


def _auditor(server: RedisServer) -> None:
    """An ACL user who may read keys but not run MEMORY or INFO."""
    r = _client(server.url)
    r.acl_setuser("auditor", enabled=True, passwords=[f"+{SECRET}"], keys=["*"],
                  commands=["+@read", "-memory", "-info", "+bf.info", "+ping"])  # fmt: skip
    r.close()


def test_a_user_without_memory_or_info_gets_a_report_that_says_what_it_could_not_measure(seeded):
    _auditor(seeded)
    url = seeded.url.replace("redis://", f"redis://auditor:{SECRET}@")
    done = _cli("--rate", "0", env={"REDIS_URL": url})
    assert done.returncode == 0, done.stderr
    assert "this user may not run MEMORY USAGE: bytes per key and group are left out" in done.stdout
    assert "this user may not run INFO" in done.stdout
    assert "sparse-bitmap like:bit:42" in done.stdout
    assert SECRET not in done.stdout + done.stderr


def test_a_wrong_password_is_one_line_without_the_password(seeded):
    _auditor(seeded)
    url = seeded.url.replace("redis://", f"redis://auditor:{SECRET[::-1]}@")
    done = _cli(env={"REDIS_URL": url})
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "refused the login" in done.stderr or "password" in done.stderr
    assert SECRET[::-1] not in done.stdout + done.stderr


def test_a_frozen_server_stops_the_audit_within_seconds():
    _need_redis_server()
    server = RedisServer.start(module=False)
    try:
        client = _client(server.url)
        client.mset({f"k:{i}": i for i in range(50)})
        client.close()
        os.kill(server.process.pid, signal.SIGSTOP)
        start = time.monotonic()
        done = _cli("--timeout", "1", env={"REDIS_URL": server.url}, timeout=60)
        took = time.monotonic() - start
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "did not answer within 1 s" in done.stderr or "cannot reach" in done.stderr
    assert took < 15


def test_a_sample_is_scaled_to_the_keyspace_with_an_interval(seeded):
    result = audit.audit(seeded.url, sample=2000, rate=0)
    assert not result.scan.complete and result.scan.read == 2000
    sessions = next(g for g in result.groups if g.pattern == "session:{n}")
    estimate, low, high = sessions.estimated(sessions.keys)
    # the interval's coverage (95%: one sample in twenty misses) is tested by simulation in
    # tests/unit/test_audit.py; here, on one random SCAN order, the estimate and its width
    assert abs(estimate - FOREIGN_KEYS) < 0.05 * FOREIGN_KEYS
    assert low <= estimate <= high and high - low < 0.02 * FOREIGN_KEYS


def test_nothing_outside_the_allow_list_reaches_the_socket():
    from setlab.tools.audit.reader import ReadOnly, WriteRefused

    refused = (
        ["SET", "k", "v"], ["CONFIG", "SET", "maxmemory", "1"], ["DEL", "k"], ["PFCOUNT", "k"],
        ["MEMORY", "PURGE"], ["OBJECT", "FREQ", "k"], ["FLUSHALL"],
    )  # fmt: skip
    for args in refused:
        with pytest.raises(WriteRefused):
            ReadOnly.check(args)
    assert Path(audit.__file__).is_file()
