"""``setlab audit`` reads every database the server lists (issue 47, items 1–2), on a real
server with keys in db 0 and db 2: both read, each database's count as written, ``complete``
true; ``--db 0`` reads db 0 only, says so, names db 2's keys, and is not complete; nothing is
written (every key's DUMP digest, in both databases, and the server's own COMMAND INFO flags of
each command the audit sent). A snapshot of both databases, with keys whose TTL passed before
it was loaded, is audited in both, with the count the load dropped
(``rdb_last_load_keys_expired``, Redis 7.0+).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import pytest
import redis

from setlab.lab.server import RedisServer
from setlab.tools import audit
from tests.conftest import _need_redis_server

pytestmark = pytest.mark.live

#: keys written in each database (the expected counts are these, not a run's output)
KEYS = {0: 3, 2: 5}
#: keys written with a TTL that passes before the snapshot is loaded, per database
EXPIRING = {0: 2, 2: 4}
TTL_MS = 200


def _on(server: RedisServer, number: int) -> redis.Redis:
    kwargs = redis.Redis.from_url(server.url).connection_pool.connection_kwargs
    return redis.Redis(host=kwargs["host"], port=kwargs["port"], db=number)


def _seed(server: RedisServer) -> None:
    for number, count in KEYS.items():
        r = _on(server, number)
        r.mset({f"db{number}:item:{i}": "v" * (i + 1) for i in range(count)})
        r.close()


@pytest.fixture(scope="module")
def two():
    _need_redis_server()
    server = RedisServer.start(module=False, extra_args=["--enable-debug-command", "yes"])
    _seed(server)
    yield server
    server.stop()


def _digests(server: RedisServer) -> dict[tuple[int, bytes], str]:
    out = {}
    for number in KEYS:
        r = _on(server, number)
        out |= {(number, k): hashlib.sha256(r.dump(k)).hexdigest() for k in r.scan_iter()}
        r.close()
    return out


def _written(server: RedisServer, stats: dict[str, int]) -> list[str]:
    """Commands called since ``stats`` that the server flags ``write``."""
    r = _on(server, 0)
    sent = [k.removeprefix("cmdstat_") for k, v in r.info("commandstats").items()
            if v["calls"] > stats.get(k, 0)]  # fmt: skip
    flags = {n: r.execute_command("COMMAND", "INFO", n)[n]["flags"] for n in sent}
    r.close()
    return [n for n, f in flags.items() if "write" in f]


def _stats(server: RedisServer) -> dict[str, int]:
    r = _on(server, 0)
    stats = {k: v["calls"] for k, v in r.info("commandstats").items()}
    r.close()
    return stats


def test_every_database_is_read_with_its_own_count_and_nothing_is_written(two):
    before, stats = _digests(two), _stats(two)
    result = audit.audit(two.url, rate=0)
    assert _written(two, stats) == [] and _digests(two) == before
    data = result.as_json()
    dbs = data["databases"]
    assert {n: (d["keys"], d["read"]) for n, d in dbs.items()} == {
        str(n): (c, c) for n, c in KEYS.items()
    }
    assert all(d["bytes"] > 0 for d in dbs.values())
    assert data["scan"]["complete"] is True and data["scan"]["keys_read"] == sum(KEYS.values())
    assert {g["db"]: g["keys"] for g in data["groups"]} == KEYS
    assert f"read all {len(KEYS)} databases: db 0 (3 keys" in result.text()


def test_one_database_chosen_is_not_complete_and_names_the_others_keys(two):
    result = audit.audit(two.url, rate=0, db=0)
    data = result.as_json()
    assert data["scan"]["complete"] is False and data["scan"]["keys_read"] == KEYS[0]
    assert data["databases"]["2"] == {"keys": KEYS[2], "read": None, "bytes": None,
                                      "complete": False}  # fmt: skip
    text = result.text()
    assert f"read db 0 only (--db 0): db 0 ({KEYS[0]} keys" in text
    assert f"db 2 holds {KEYS[2]} more keys, not read" in text
    assert "a sample" not in text  # db 0 was read whole


def test_the_command_line_takes_db(two):
    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | {"REDIS_URL": two.url}
    done = subprocess.run(
        [sys.executable, "-m", "setlab", "audit", "--db", "2", "--rate", "0", "--json"],
        env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["databases"]["2"]["read"] == KEYS[2] and data["databases"]["0"]["read"] is None
    assert data["scan"]["complete"] is False


def test_a_url_naming_a_database_reads_that_one(two):
    url = two.url.rsplit("/", 1)[0] + "/2"
    result = audit.audit(url, rate=0)
    assert result.databases is not None and result.databases.chosen_by == "the URL names it"
    assert result.scan.read == KEYS[2] and not result.scan.complete


def test_a_snapshot_is_audited_in_every_database_with_the_keys_its_load_expired(two, tmp_path):
    for number, count in EXPIRING.items():
        r = _on(two, number)
        pipe = r.pipeline(transaction=False)
        for i in range(count):
            pipe.set(f"db{number}:gone:{i}", "x", px=TTL_MS)
        pipe.execute()
        r.close()
    r = _on(two, 0)
    r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", 0)  # so the expiring keys are saved
    try:
        r.save()
    finally:
        r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", 1)
        r.close()
    snapshot = tmp_path / "dump.rdb"
    shutil.copy(two.workdir / "dump.rdb", snapshot)
    time.sleep(2 * TTL_MS / 1000)  # past every TTL: the load drops them
    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "setlab", "audit", "--rdb", str(snapshot), "--rate", "0"],
        env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expired = sum(EXPIRING.values())
    assert "read all 2 databases: db 0 (3 keys" in done.stdout, done.stdout
    assert f"db 2 ({KEYS[2]} keys" in done.stdout
    assert f"expired on load: {expired} keys, their TTL passed before the load" in done.stdout
    assert f"({sum(KEYS.values()):,} loaded)" in done.stdout
