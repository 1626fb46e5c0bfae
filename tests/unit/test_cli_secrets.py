"""What `setlab backend`, `setlab doctor` and connect() say about a REDIS_URL or SETLAB_USER they
cannot use: one setlab line, no password, whatever characters the password holds; and that
nothing said about a live run calls it embedded."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from urllib.parse import quote, unquote

import pytest

from setlab.lab import backend
from setlab.lab.errors import ConfigurationError, SetlabError

#: passwords of every kind of printable character a URL must not carry raw, and some not ASCII
PASSWORDS = ["kQ3/x9Zp+4Ab", "a?b#c/d e@f:g", "p@ss:w0rd!$&'()*,;=", "pässwörd/密码#🔑", "%2Fnot%2"]
URLS = [
    "redis://:{pw}@127.0.0.1:{port}/0",
    "redis://ana:{pw}@127.0.0.1:{port}/0",
    "rediss://default:{pw}@127.0.0.1:{port}/0",
    "redis://127.0.0.1:{port}/0?password={pw}",
]


def _closed_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _setlab(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SETLAB_", "REDIS_URL"))}
    return subprocess.run(
        [sys.executable, "-m", "setlab", *args],
        capture_output=True, text=True, timeout=120, env={**clean, **env},
    )  # fmt: skip


def _hidden(pw: str) -> list[str]:
    """The password as typed, encoded and decoded, and each run of three or more of its letters
    and digits (what a parser quotes when it cuts the password at a '/', '?' or '#')."""
    return [s for s in {pw, unquote(pw), quote(pw, safe="")} if len(s) >= 4] + re.findall(
        r"\w{3,}", pw
    )


@pytest.mark.parametrize("template", URLS)
@pytest.mark.parametrize("pw", PASSWORDS)
def test_backend_verbose_on_a_closed_port_prints_one_line_and_no_password(template, pw):
    result = _setlab("backend", "-v", REDIS_URL=template.format(pw=pw, port=_closed_port()))
    printed = result.stdout + result.stderr
    assert not [s for s in _hidden(pw) if s in printed], printed
    assert result.returncode == 2, printed
    assert result.stderr.startswith("setlab backend: ") and "Traceback" not in printed
    assert result.stdout == "" and result.stderr.count("\n") == 1, printed  # connected first


@pytest.mark.parametrize("pw", PASSWORDS[:3])
def test_doctor_on_a_closed_port_prints_no_password(pw):
    url = URLS[0].format(pw=pw, port=_closed_port())
    result = _setlab("doctor", REDIS_URL=url)
    printed = result.stdout + result.stderr
    assert not [s for s in _hidden(pw) if s in printed], printed
    assert result.returncode == 1, printed
    assert "FIX REDIS_URL: " in result.stdout and "redis://:***@127.0.0.1:" in result.stdout


def test_doctor_says_a_bad_redis_url_once():
    result = _setlab("doctor", REDIS_URL=URLS[0].format(pw=PASSWORDS[0], port=_closed_port()))
    assert result.stdout.count("is not a Redis URL") == 1, result.stdout


def test_a_password_with_a_slash_is_refused_before_any_connection():
    """`redis://:6379/x@…` parses as localhost:6379 without a password: refused, not tried."""
    result = _setlab("backend", "--check", REDIS_URL="redis://:6379/zz9-plural@127.0.0.1:1/0")
    assert result.returncode == 2
    assert "percent-encode it ('/' as %2F)" in result.stderr
    assert "zz9-plural" not in result.stderr


def test_backend_check_stops_on_an_unreachable_url_and_passes_on_the_embedded_backend():
    bad = _setlab("backend", "--check", REDIS_URL=f"redis://127.0.0.1:{_closed_port()}/0")
    assert bad.returncode == 2 and bad.stdout == "" and "cannot reach Redis" in bad.stderr
    good = _setlab("backend", "--check", SETLAB_BACKEND="fake")
    assert good.returncode == 0 and good.stdout == "fake\n" and good.stderr == ""


@pytest.mark.parametrize("user", ["a b", "ana:x", "*", "-ana", "x" * 65, "ana\n"])
def test_a_bad_setlab_user_is_one_line_naming_the_variable(user):
    result = _setlab("backend", "-v", SETLAB_BACKEND="fake", SETLAB_USER=user)
    assert result.returncode == 2
    assert result.stderr.startswith("setlab backend: SETLAB_USER must be 1-64 characters")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_bad_setlab_user_is_a_setlab_error_so_a_notebook_shows_one_line(monkeypatch):
    monkeypatch.setenv("SETLAB_USER", "a b")
    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    with pytest.raises(ConfigurationError, match="SETLAB_USER") as refused:
        backend.connect("user-check", quiet=True)
    assert isinstance(refused.value, SetlabError)


def test_doctor_never_says_embedded_when_redis_url_runs_the_chapters():
    """Without redis-server but with REDIS_URL, the chapters run on that server."""
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    result = _setlab("doctor", REDIS_URL=url, SETLAB_REDIS_SERVER="/nonexistent/redis-server")
    assert "--  redis-server: not found" in result.stdout
    assert "embedded fakeredis" not in result.stdout
    assert "your REDIS_URL server" in result.stdout


def test_a_live_server_whose_acl_hides_info_is_never_called_embedded():
    """A reader's server that answers INFO with nothing (ACL): no version, no allocator."""
    from setlab.site import status

    lab = backend.Lab(None, "live", "setlab:@ana:x:status:", "db.example:6379", facts={})
    said = [lab.banner, *status.versions(lab).values()]
    assert lab.banner.startswith("live Redis")
    assert [s for s in said if "embedded" in s] == []
