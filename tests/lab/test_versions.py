"""setlab.lab.versions: a redis-server older than the models is refused as private, warned about
as the reader's own. These tests use stand-in binaries that only answer ``--version``;
tests/lab/test_live_versions.py runs a real Redis 6.2."""

from __future__ import annotations

import pytest

import setlab
from setlab.lab import backend, versions
from setlab.lab.server import ServerError


def _binary(tmp_path, version: str) -> str:
    """A stand-in redis-server that answers ``--version`` like the real one."""
    script = tmp_path / f"redis-server-{version or 'silent'}"
    line = (
        f"Redis server v={version} sha=00000000:0 malloc=jemalloc-5.1.0 bits=64" if version else ""
    )
    script.write_text(f"#!/bin/sh\necho '{line}'\n")
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def no_env(monkeypatch):
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER", "SETLAB_REDIS_SERVER"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize(
    ("version", "supported"),
    [((6, 0, 16), False), ((6, 2, 5), False), ((7, 0, 0), True), ((7, 0, 15), True),
     ((7, 2), True), ((8, 0, 1), True), ((), True)],
)  # fmt: skip
def test_versions_from_7_0_on_are_supported_and_an_unknown_one_is_not_refused(version, supported):
    assert versions.is_supported(version) is supported


@pytest.mark.parametrize("bad", ["7.0", [7, 0], (7, "0"), None])
def test_a_version_that_is_not_a_tuple_of_ints_is_rejected(bad):
    with pytest.raises(ValueError, match="version"):
        versions.is_supported(bad)


def test_a_7_0_binary_is_accepted_as_the_private_server(tmp_path):
    assert versions.private_refusal(_binary(tmp_path, "7.0.15")) is None


def test_a_6_2_binary_is_refused_naming_its_version_path_and_what_differs(tmp_path):
    binary = _binary(tmp_path, "6.2.5")
    reason = versions.private_refusal(binary)
    assert reason.startswith(f"redis-server 6.2.5 ({binary}) is not used")
    for differs in ("encodings", "ziplist", "commands added in 7.0"):
        assert differs in reason
    assert "MEMORY USAGE" not in reason, "the models price 6.2's memory"
    assert "reference runs" in reason and "\n" not in reason


def test_a_6_0_binary_is_refused_naming_memory_usage_too(tmp_path):
    reason = versions.private_refusal(_binary(tmp_path, "6.0.16"))
    assert "MEMORY USAGE (the models price 6.2 and 7.0 on)" in reason


def test_a_binary_that_does_not_say_its_version_is_refused(tmp_path):
    binary = _binary(tmp_path, "")
    assert "does not say its Redis version" in versions.private_refusal(binary)


def test_a_replaced_binary_is_judged_again(tmp_path):
    binary = _binary(tmp_path, "6.2.5")
    assert versions.private_refusal(binary) is not None
    (tmp_path / "redis-server-6.2.5").write_text(
        "#!/bin/sh\necho 'Redis server v=7.0.15 sha=0 malloc=jemalloc-5.3.0 bits=64'\n"
    )
    assert versions.private_refusal(binary) is None


@pytest.mark.parametrize("bad", ["", None, 7])
def test_a_missing_binary_path_is_rejected(bad):
    with pytest.raises(ValueError, match="binary"):
        versions.private_refusal(bad)


def test_no_warning_for_a_7_0_server_or_one_whose_version_is_hidden():
    assert versions.foreign_warning((7, 0, 15), "db:6379") is None
    assert versions.foreign_warning((), "db:6379") is None


def test_an_old_foreign_server_gets_one_line_naming_it_and_what_differs():
    warning = versions.foreign_warning((6, 0, 16), "db.example:6379")
    assert warning.startswith("warning: Redis 6.0.16 at db.example:6379 is older than 7.0")
    for differs in ("encodings", "MEMORY USAGE", "commands"):
        assert differs in warning
    assert "\n" not in warning


def test_auto_falls_back_to_embedded_when_the_installed_server_is_too_old(no_env, tmp_path):
    no_env.setenv("SETLAB_REDIS_SERVER", _binary(tmp_path, "6.0.16"))
    assert backend.resolve_backend() == "fake"


def test_the_embedded_banner_says_why_the_installed_server_was_not_used(no_env, tmp_path, capsys):
    no_env.setenv("SETLAB_REDIS_SERVER", _binary(tmp_path, "6.0.16"))
    lab = setlab.connect("old-private")
    printed = capsys.readouterr().out.strip()
    assert lab.kind == "fake" and not lab.is_real
    assert printed == lab.banner and "\n" not in printed
    assert printed.startswith("embedded fakeredis")
    assert "redis-server 6.0.16" in printed and "is not used" in printed


def test_a_forced_embedded_backend_does_not_mention_the_installed_server(no_env, tmp_path):
    no_env.setenv("SETLAB_REDIS_SERVER", _binary(tmp_path, "6.0.16"))
    lab = setlab.connect("old-private", backend="fake", quiet=True)
    assert "redis-server" not in lab.banner


def test_forcing_live_with_a_too_old_server_fails_saying_why(no_env, tmp_path):
    no_env.setenv("SETLAB_REDIS_SERVER", _binary(tmp_path, "6.2.5"))
    with pytest.raises(
        ServerError, match=r"SETLAB_BACKEND=live, but redis-server 6\.2\.5 .* is not"
    ):
        backend.resolve_backend("live")


def test_doctor_says_the_installed_server_is_too_old_and_does_not_start_it(no_env, tmp_path):
    from setlab.cli import doctor

    no_env.setenv("SETLAB_REDIS_SERVER", _binary(tmp_path, "6.0.16"))
    check = doctor._redis_server()
    assert not check.ok and not check.required
    assert "redis-server 6.0.16" in check.detail and "Redis 7 or later" in check.fix
    assert doctor._private_server().detail == "skipped: no usable redis-server"
