"""The `setlab` command, end to end in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys


def _run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "setlab", *args],
        capture_output=True, text=True, timeout=60, env={**os.environ, **env},
    )  # fmt: skip


def test_backend_prints_the_forced_choice():
    result = _run("backend", SETLAB_BACKEND="fake")
    assert result.returncode == 0
    assert result.stdout.strip() == "fake"


def test_bad_backend_is_exit_2_with_one_line_and_no_traceback():
    result = _run("backend", SETLAB_BACKEND="mongo")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "SETLAB_BACKEND must be auto, live or fake" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_subcommand_is_exit_2():
    result = _run("frobnicate")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_doctor_reports_every_check_as_json():
    import json

    result = _run("doctor", "--json")
    report = json.loads(result.stdout)
    names = [c["name"] for c in report["checks"]]
    assert names[:3] == ["Python", "packages", "book toolchain"]
    assert "backend" in names
    assert result.returncode == (0 if report["ready"] else 1)
    for check in report["checks"]:
        assert check["ok"] or check["fix"], check


def test_doctor_without_redis_server_says_what_to_do_and_still_passes():
    result = _run("doctor", SETLAB_REDIS_SERVER="/nonexistent/redis-server", SETLAB_BACKEND="auto")
    assert "--  redis-server: not found" in result.stdout
    assert "apt-get install redis-server" in result.stdout
    assert "embedded fakeredis" in result.stdout  # the backend falls back and works
    assert result.returncode == 0 and "This machine is ready." in result.stdout


def test_doctor_with_an_unreachable_redis_url_is_not_ready():
    result = _run("doctor", REDIS_URL="redis://127.0.0.1:1/0")
    assert result.returncode == 1
    assert "FIX REDIS_URL: cannot reach Redis" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
