"""A chapter that cannot use the reader's REDIS_URL says so in one setlab line, never with the
password: neither a password typed with '/', '?' or '#' (no URL parser reads it as meant) nor a
wrong one, percent-encoded as it should be, that the server refuses.

Each test runs the first chapter in a fresh kernel of its own (tests/support/notebooks.run_page)
and searches everything the run wrote — the page's outputs, the runner's and the kernel's
stdout and stderr — for the password. The chapter stops at its first cell, which connects.
"""

from __future__ import annotations

import os
import re
import socket
from urllib.parse import quote

import pytest

from tests.support.notebooks import PageRun, run_page

pytestmark = pytest.mark.live

PASSWORD = "kQ3/x9?Zp#4Ab"


def _run(url: str) -> PageRun:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETLAB_")}
    return run_page("setbit-offset", {**env, "REDIS_URL": url}, timeout=120, prime=False)


def _leaks(run: PageRun) -> list[str]:
    """The password, encoded or not, or a run of three of its letters and digits, where the run
    wrote anything."""
    hidden = [PASSWORD, quote(PASSWORD, safe=""), *re.findall(r"\w{3,}", PASSWORD)]
    return [s for s in hidden if s in run.all]


def _one_setlab_line(run: PageRun) -> str:
    lines = [line for line in run.text.splitlines() if line.startswith("setlab: ")]
    assert len(lines) == 1, run.text
    assert "Traceback" not in run.text
    assert run.ename in {"ConfigurationError", "ServerError"}  # setlab's, shown as one line
    return lines[0]


def test_a_password_typed_with_slash_query_and_hash_is_refused_in_one_line():
    with socket.socket() as s:  # a closed port: a connection, if one were tried, would fail
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = _run(f"redis://:{PASSWORD}@127.0.0.1:{port}/0")
    assert not run.ok
    assert _leaks(run) == [], run.all[-3000:]
    line = _one_setlab_line(run)
    assert f"redis://:***@127.0.0.1:{port}/0" in line and "percent-encode them" in line


def test_a_wrong_encoded_password_is_refused_by_the_server_in_one_line(foreign_server):
    foreign_server.client().config_set("requirepass", "the-real-one-0")
    run = _run(f"redis://default:{quote(PASSWORD, safe='')}@127.0.0.1:{foreign_server.port}/0")
    assert not run.ok
    assert _leaks(run) == [], run.all[-3000:]
    line = _one_setlab_line(run)
    assert "refused the login" in line
    assert f"redis://default:***@127.0.0.1:{foreign_server.port}/0" in line
