"""``setlab calc set --redis R`` against a real server of release R: a SET of 50,000 distinct
8-byte strings, built by SADD on a private server, its rehash settled, costs what ``used_memory``
grows by within 2 % (3 % on Valkey, whose glibc malloc the model prices from glibc's rules).

The client's query buffer keeps the size of the biggest command it has read, so a SADD of the
same size on a throwaway key comes first (its DEL freed before the first reading: Valkey frees
it in a background thread, ``lazyfree-lazy-user-del``), and the settling script is loaded
before the first reading: ``used_memory`` then grows by the key alone. A second per release.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import redis

from setlab.lab import servers
from setlab.lab.server import RedisServer
from tests.conftest import REQUIRE_LIVE

pytestmark = pytest.mark.live

MEMBERS, LENGTH, BATCH = 50_000, 8, 1000
#: how close the model must come to used_memory's growth, as a share of it
TOLERANCE = {"valkey-8.1": 0.03}
SETTLE = "for i = 1, tonumber(ARGV[1]) do redis.call('SISMEMBER', KEYS[1], '') end"


def _grown(binary: str) -> tuple[int, int]:
    """(used_memory's growth, MEMORY USAGE) for ``SADD k`` of the members on ``binary``."""
    server = RedisServer.start(binary=binary, module=False)
    try:
        r = redis.Redis.from_url(server.url)
        members = [f"m{i:07d}" for i in range(MEMBERS)]  # 8 bytes, none an integer
        r.sadd("warm", *[f"w{i:07d}" for i in range(BATCH)])
        r.delete("warm")
        r.eval(SETTLE, 1, "warm", 1)
        while int(r.info("memory").get("lazyfree_pending_objects", 0)):
            time.sleep(0.01)
        before = r.info("memory")["used_memory"]
        for start in range(0, MEMBERS, BATCH):
            r.sadd("k", *members[start : start + BATCH])
        r.eval(SETTLE, 1, "k", 1 << 17)  # more lookups than buckets: the rehash is done
        grown = r.info("memory")["used_memory"] - before
        usage = r.memory_usage("k", samples=0)
        r.close()
        return grown, usage
    finally:
        server.stop()


@pytest.mark.parametrize("name", servers.NAMES)
def test_calc_set_allocates_what_the_server_does(name):
    binary = servers.release(name).binary()
    if binary is None:
        if REQUIRE_LIVE:
            pytest.fail(f"SETLAB_REQUIRE_LIVE=1 but server {name} is not installed")
        pytest.skip(f"server {name} is not installed")
    done = subprocess.run(
        [sys.executable, "-m", "setlab", "calc", "set", "-n", str(MEMBERS), "--type", "string",
         "--length", str(LENGTH), "--redis", name, "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    model = json.loads(done.stdout)
    grown, usage = _grown(binary)
    tolerance = TOLERANCE.get(name, 0.02)
    assert abs(model["allocated"] - grown) <= tolerance * grown, (model["allocated"], grown)
    assert model["encoding"] == "hashtable" and model["memory_usage"] > 0
    print(f"{name}: allocated {model['allocated']:,} vs used_memory +{grown:,}; MEMORY USAGE "
          f"{model['memory_usage']:,} vs {usage:,}")  # fmt: skip
