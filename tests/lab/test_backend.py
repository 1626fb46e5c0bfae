"""setlab.lab.backend: choosing a backend, namespaces, cleanup and the allocation guard."""

from __future__ import annotations

import re

import pytest

import setlab
from setlab.lab import backend
from setlab.lab.server import ServerError


@pytest.fixture
def no_env(monkeypatch):
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_namespace_is_per_chapter_and_per_user():
    assert backend.namespace_for("setbit-offset") == "setlab:setbit-offset:"
    assert backend.namespace_for("setbit-offset", "alice") == "setlab:@alice:setbit-offset:"


@pytest.mark.parametrize("bad", ["", "a*", "a?b", "x[1]", "a:b", "with space", "-lead", "é", 7])
def test_names_that_could_escape_the_namespace_are_rejected(bad):
    with pytest.raises(ValueError, match="chapter"):
        backend.namespace_for(bad)
    with pytest.raises(ValueError, match="user"):
        backend.namespace_for("ok", bad)


def test_env_forces_fake_even_with_a_redis_url(no_env):
    no_env.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    no_env.setenv("SETLAB_BACKEND", "fake")
    assert backend.resolve_backend() == "fake"


def test_redis_url_comes_first(no_env):
    no_env.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    assert backend.resolve_backend() == "url"


def test_without_a_server_binary_auto_falls_back_to_fake_and_live_fails_clearly(no_env):
    no_env.setattr(backend, "find_redis_server", lambda *_: None)
    assert backend.resolve_backend("auto") == "fake"
    with pytest.raises(ServerError, match="no REDIS_URL and no redis-server"):
        backend.resolve_backend("live")


def test_with_a_server_binary_auto_chooses_live(no_env, tmp_path):
    binary = tmp_path / "redis-server"  # answers --version like Debian 12's redis-server
    binary.write_text("#!/bin/sh\necho 'Redis server v=7.0.15 sha=0 malloc=jemalloc-5.3.0'\n")
    binary.chmod(0o755)
    no_env.setattr(backend, "find_redis_server", lambda *_: str(binary))
    assert backend.resolve_backend() == "live"


def test_unknown_backend_names_are_rejected(no_env):
    with pytest.raises(ValueError, match="auto, live or fake"):
        backend.resolve_backend("mongo")


def test_fake_banner_says_timings_are_not_redis(no_env, capsys):
    lab = setlab.connect("banner-test", backend="fake")
    out = capsys.readouterr().out.strip()
    assert out == lab.banner
    assert out.startswith("embedded fakeredis") and "timings are Python's, not Redis's" in out
    assert not lab.is_real and lab.owns_server and lab.has_bloom and not lab.has_redisbloom


def test_cleanup_removes_only_its_own_namespace(no_env):
    lab = setlab.connect("mine", backend="fake", quiet=True)
    other = setlab.connect("mine-too", backend="fake", quiet=True)
    outsider = lab.new_client()
    outsider.set("setlab:mine", b"not in the namespace")
    outsider.set("unrelated", b"x")
    other.r.set(other.key("k"), b"y")
    for i in range(1200):
        lab.r.set(lab.key("k", i), i)
    assert len(lab.keys()) == 1200
    assert lab.cleanup() == 1200
    assert lab.keys() == []
    assert outsider.get("setlab:mine") == b"not in the namespace"
    assert outsider.get("unrelated") == b"x"
    assert other.r.get(other.key("k")) == b"y"
    other.cleanup()
    outsider.delete("setlab:mine", "unrelated")


def test_key_names_live_in_the_namespace(no_env):
    lab = setlab.connect("keys", backend="fake", quiet=True, user="bob")
    assert lab.key("bm", 7) == "setlab:@bob:keys:bm:7"
    with pytest.raises(ValueError):
        lab.key()


def test_check_allocation_rejects_nonsense(no_env):
    lab = setlab.connect("alloc", backend="fake", quiet=True)
    for bad in (-1, 1.5, "10"):
        with pytest.raises(ValueError, match="nbytes"):
            lab.check_allocation(bad)
    lab.check_allocation(10 * 2**30)  # the embedded server is the lab's own
    assert lab.may_allocate(10 * 2**30)


def test_a_shared_server_gets_the_login_name_as_namespace(no_env):
    no_env.setattr(backend, "_login_name", lambda: "carol")
    assert backend.default_user("url") == "carol"
    assert backend.default_user("live") is None
    assert backend.default_user("fake") is None
    no_env.setenv("SETLAB_USER", "dave")
    assert backend.default_user("url") == "dave"
    assert backend.default_user("live") == "dave"


def test_unreachable_redis_url_is_a_clear_error(no_env):
    no_env.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    with pytest.raises(ServerError, match=re.escape("cannot reach Redis at redis://127.0.0.1:1/0")):
        setlab.connect("ch", quiet=True)


def test_the_banner_says_big_allocations_are_allowed_when_setlab_allow_big_is_set():
    facts = {"version": (7, 0, 15), "flavour": "Redis", "valkey_version": (),
             "allocator": "jemalloc-5.3.0", "quantum": 16, "modules": {}}  # fmt: skip
    lab = backend.Lab(None, "live", "setlab:x:", "db:6379", facts=facts)
    assert lab.banner.endswith("allocations over 64 MiB need SETLAB_ALLOW_BIG=1")
    lab.allow_big = True
    assert lab.banner.endswith("allocations over 64 MiB allowed (SETLAB_ALLOW_BIG=1)")
    assert "need" not in lab.banner
    assert lab.banner.startswith("live Redis 7.0.15 (jemalloc-5.3.0, 16-byte quantum; ")
    assert "the book's models: exact" in lab.banner
    valkey = dict(facts, flavour="Valkey", valkey_version=(8, 1, 8), version=(7, 2, 4),
                  allocator="libc", quantum=None)  # fmt: skip
    lab = backend.Lab(None, "live", "setlab:x:", "db:6379", facts=valkey)
    assert lab.banner.startswith("live Valkey 8.1.8 (libc; the book's models: modelled) on db:")
