"""The whole book builds with every chapter executed and no Sphinx warning.

Once on the embedded backend and once on a private live Redis (CI has redis-server).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from setlab.lab.server import find_redis_server
from tests.conftest import REQUIRE_LIVE
from tests.support.notebooks import ROOT, build_book

pytestmark = pytest.mark.book


def _chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [c["file"] for part in toc["parts"] for c in part["chapters"]]


def _check_pages(html, banner: str) -> None:
    for chapter in _chapters():
        page = (html / f"{chapter}.html").read_text()
        assert "Traceback" not in page, f"{chapter} shows a traceback"
        if "setlab.connect(" in (ROOT / f"{chapter}.md").read_text():
            assert banner in page, f"{chapter} does not say which backend it ran on"


def _redis_servers() -> set[int]:
    out = subprocess.run(["pgrep", "-x", "redis-server"], capture_output=True, text=True).stdout
    return {int(pid) for pid in out.split()}


def test_book_builds_on_the_embedded_backend(fake_book_html):
    _check_pages(fake_book_html, "embedded fakeredis")


def test_book_builds_on_live_redis(tmp_path):
    if not find_redis_server():
        if REQUIRE_LIVE:
            pytest.fail("SETLAB_REQUIRE_LIVE=1 but no redis-server binary is installed")
        pytest.skip("no redis-server binary installed")
    before = _redis_servers()
    code, report, html = build_book(tmp_path, "live")
    assert code == 0, f"book build failed on live Redis:\n{report}"
    assert not re.search(r": WARNING: ", report), report
    _check_pages(html, "live Redis")
    # Every chapter's kernel started a private server; none may outlive the build.
    assert _redis_servers() - before == set()


def test_a_failed_build_with_a_wrong_password_publishes_no_password(tmp_path):
    """A reader's REDIS_URL with a wrong password fails the build; nothing built may quote it."""
    import os

    from setlab.lab.server import RedisServer

    if not find_redis_server():
        if REQUIRE_LIVE:
            pytest.fail("SETLAB_REQUIRE_LIVE=1 but no redis-server binary is installed")
        pytest.skip("no redis-server binary installed")
    password = "Wr0ng-horse-battery-9"
    with RedisServer.start(module=False) as server:
        server.client().config_set("requirepass", "the-real-one-0")
        url = f"redis://default:{password}@127.0.0.1:{server.port}/0"
        env = {**os.environ, "REDIS_URL": url}
        env.pop("SETLAB_BACKEND", None)
        jupyter_book = Path(sys.executable).with_name("jupyter-book")
        result = subprocess.run(
            [str(jupyter_book), "build", str(ROOT), "--path-output", str(tmp_path), "--all",
             "--keep-going"],
            env=env, capture_output=True, text=True, timeout=1800,
        )  # fmt: skip
    assert "cannot use Redis" in result.stdout + result.stderr  # it did fail, and said why
    assert password not in result.stdout + result.stderr
    leaks = [
        str(path.relative_to(tmp_path))
        for path in tmp_path.rglob("*")
        if path.is_file() and password.encode() in path.read_bytes()
    ]
    assert leaks == []
