"""One Redis's memory read off the reader's server (setlab.tools.capacity): its maxmemory, read
with CONFIG GET and nothing written."""

from __future__ import annotations

import pytest
import redis

from setlab.tools import capacity

pytestmark = pytest.mark.live


def test_redis_url_maxmemory_is_one_redis_and_an_unset_one_is_the_default(
    monkeypatch, foreign_server
):
    client = redis.Redis.from_url(foreign_server.url)
    monkeypatch.setenv("REDIS_URL", foreign_server.url)
    client.config_set("maxmemory", "0")
    assert capacity.server_budget() == (capacity.DEFAULT_SERVER_BYTES, capacity.DEFAULT_SOURCE)
    client.config_set("maxmemory", str(3 << 30))
    assert capacity.server_budget() == (3 << 30, "REDIS_URL's maxmemory (3 GiB)")
    client.close()
