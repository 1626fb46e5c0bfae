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
