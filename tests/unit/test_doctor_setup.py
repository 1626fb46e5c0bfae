"""`setlab doctor` advises for the system it runs on: Debian/Ubuntu, WSL, macOS (Homebrew), and
native Windows (which needs WSL)."""

from __future__ import annotations

import pytest

from setlab.cli import doctor


@pytest.mark.parametrize(
    ("platform", "release", "expected"),
    [
        ("linux", "6.1.0-13-amd64", "debian"),
        ("linux", "5.15.153.1-microsoft-standard-WSL2", "wsl"),
        ("linux", "4.4.0-19041-Microsoft", "wsl"),  # WSL 1
        ("darwin", "", "macos"),
        ("win32", "", "windows"),
        ("cygwin", "", "windows"),
    ],
)
def test_the_system_is_recognised_from_the_platform_and_kernel_release(platform, release, expected):
    assert doctor.system(platform, release) == expected


@pytest.mark.parametrize(
    ("where", "redis_hint", "python_hint"),
    [
        ("debian", "sudo apt-get install redis-server", "python3-venv"),
        ("wsl", "inside WSL: sudo apt-get install redis-server", "inside WSL"),
        ("macos", "brew install redis", "brew install python@3.12"),
        ("windows", "wsl --install -d Ubuntu-24.04", "wsl --install -d Ubuntu-24.04"),
    ],
)
def test_a_missing_redis_or_old_python_gets_the_install_line_for_this_system(
    monkeypatch, where, redis_hint, python_hint
):
    monkeypatch.setattr(doctor, "system", lambda: where)
    monkeypatch.setenv("SETLAB_REDIS_SERVER", "/nonexistent/redis-server")
    check = doctor._redis_server()
    assert not check.ok and not check.required
    assert redis_hint in check.fix
    monkeypatch.setattr(doctor.sys, "version_info", (3, 10, 12))
    python = doctor._python()
    assert not python.ok and python_hint in python.fix
