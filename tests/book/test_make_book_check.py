"""`make book` with a REDIS_URL it cannot use stops before building, in seconds, with one line.

Without the check every chapter's kernel fails at its first cell, one after the other, and the
build reports it minutes later. The stamp of the installed toolchain is taken as up to date
(`make -o`): this test never installs anything.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.notebooks import ROOT

#: well under one chapter's execution: connecting to a closed local port fails at once
STOPS_WITHIN_S = 20


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("redis://:kQ3/x9Zp+4Ab@127.0.0.1:{port}/0", "percent-encode it"),  # malformed
        ("redis://127.0.0.1:{port}/0", "cannot reach Redis at redis://127.0.0.1:"),  # unreachable
        ("http://127.0.0.1:{port}/0", "not a Redis URL"),  # not a Redis scheme
    ],
)
def test_make_book_stops_on_a_bad_redis_url_before_building(url, said):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SETLAB_", "MAKE"))}
    env["REDIS_URL"] = url.format(port=_closed_port())
    bin_dir = Path(sys.executable).parent
    start = time.monotonic()
    result = subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.setlab-installed", f"BIN={bin_dir}", "book"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    took = time.monotonic() - start
    assert result.returncode != 0
    assert took < STOPS_WITHIN_S, f"took {took:.1f} s"
    assert "Building the book" not in result.stdout  # jupyter-book never started
    setlab_lines = [line for line in result.stderr.splitlines() if line.startswith("setlab")]
    assert len(setlab_lines) == 1 and said in setlab_lines[0], result.stderr
    assert "kQ3" not in result.stdout + result.stderr and "Traceback" not in result.stderr
