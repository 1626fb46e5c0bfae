"""The per-release cases of setlab.lab.runs.releases on real servers of each release installed.

On Redis 7.0 (Debian's jemalloc) the bytes a key holds are known independently: the models of
setlab.models.redis_memory are exact there (tests/lab/runs/test_live_memory.py), so the
transaction that reads them must give the model's figure to the byte, a slow DEL included. On
every release the settings the reading changes come back, and Valkey 8 frees a big set in the
background where Redis does not.
"""

from __future__ import annotations

import pytest

from setlab.lab import servers
from setlab.lab.runs import releases
from setlab.lab.server import RedisServer
from setlab.models import redis_memory as rm

pytestmark = pytest.mark.live

INSTALLED = {release.name: (release, path) for release, path in servers.available()}


def _start(name: str) -> RedisServer:
    if name not in INSTALLED:
        pytest.skip(f"{name} is not installed here: {servers.release(name).package}")
    return RedisServer.start(binary=INSTALLED[name][1], module=False)


@pytest.mark.parametrize("kind, n", [("16-hex device ids", 129), ("integer ids", 100_000)])
def test_the_bytes_read_on_7_0_are_the_models_allocated_bytes(kind, n):
    with _start("7.0") as server:
        r = server.client()
        releases.prepare(r)
        row = releases.set_row(r, kind, n)
        cost = rm.set_cost(rm.growth_summary(kind, n), releases.KEY)
        assert (row["encoding"], row["memory_usage"]) == (cost.encoding, cost.memory_usage)
        assert row["allocated"] == cost.allocated  # a DEL of 100,000 members: slower than 10 ms


@pytest.mark.parametrize("name", servers.NAMES)
def test_reading_a_keys_bytes_puts_the_servers_settings_back(name):
    with _start(name) as server:
        r = server.client()
        before = {k: r.config_get(k)[k] for k in releases.READING_CONFIG}
        releases.prepare(r)
        row = {**releases.identity(r, INSTALLED[name][0]), **releases.key_row(r)}
        assert row["server"] == name and row["mem_allocator"]
        assert 0 < row["allocated"] < 200 and not r.exists(releases.KEY)
        assert {k: r.config_get(k)[k] for k in releases.READING_CONFIG} == before


@pytest.mark.parametrize("name, lazy", [("7.0", False), ("valkey-8.1", True)])
def test_valkey_frees_a_big_set_in_the_background_and_redis_does_not(name, lazy):
    with _start(name) as server:
        r = server.client()
        releases.prepare(r)
        row = releases.del_row(r, count=20_000, repeat=1)
        assert row["lazyfree_lazy_user_del"] == ("yes" if lazy else "no")
        assert (row["lazyfreed"] == 1) is lazy and row["n"] == 20_000
