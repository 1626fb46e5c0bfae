"""The whole book builds with every chapter executed and no Sphinx warning.

Once on the embedded backend and once on a private live Redis (CI has redis-server). Each build
is an artefact (tests/support/notebooks.built_site): built once per fingerprint of the book and
the package, reused by later tests and runs; its executed pages come from the execution cache.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from setlab.lab.server import find_redis_server
from tests.conftest import REQUIRE_LIVE
from tests.support.notebooks import BOOK, ROOT, build, built_site, tiny_book

pytestmark = pytest.mark.book


def _chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [c["file"] for part in toc["parts"] for c in part["chapters"]]


def _check_pages(html, banner: str) -> None:
    for chapter in _chapters():
        page = (html / f"{chapter}.html").read_text()
        assert "Traceback" not in page, f"{chapter} shows a traceback"
        source = (ROOT / f"{chapter}.md").read_text()
        if "setlab.connect(" in source or "lab = chapter.start()" in source:
            assert banner in page, f"{chapter} does not say which backend it ran on"


def _orphaned_redis_servers() -> set[int]:
    """redis-server processes whose parent is gone (adopted by init): a kernel that died and
    left its private server behind. Servers of tests running beside this one have parents."""
    out = subprocess.run(["pgrep", "-x", "redis-server"], capture_output=True, text=True).stdout
    orphans = set()
    for pid in map(int, out.split()):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == 1:
            orphans.add(pid)
    return orphans


def test_book_builds_on_the_embedded_backend(fake_book_html):
    _check_pages(fake_book_html, "embedded fakeredis")


def test_book_builds_on_live_redis():
    if not find_redis_server():
        if REQUIRE_LIVE:
            pytest.fail("SETLAB_REQUIRE_LIVE=1 but no redis-server binary is installed")
        pytest.skip("no redis-server binary installed")
    before = _orphaned_redis_servers()
    code, report, html = built_site("live")
    assert code == 0, f"book build failed on live Redis:\n{report}"
    assert not re.search(r": WARNING: ", report), report
    _check_pages(html, "live Redis")
    # Every chapter's kernel that ran started a private server; none may outlive the build.
    assert _orphaned_redis_servers() - before == set()


def test_a_failed_build_with_a_wrong_password_publishes_no_password(tmp_path):
    """A reader's REDIS_URL with a wrong password fails the build; nothing built may quote it.

    On a book of one chapter (setbit-offset, which connects in its first cell) with the book's
    own configuration and extensions: every chapter fails at that same first cell."""
    from setlab.lab.server import RedisServer

    if not find_redis_server():
        if REQUIRE_LIVE:
            pytest.fail("SETLAB_REQUIRE_LIVE=1 but no redis-server binary is installed")
        pytest.skip("no redis-server binary installed")
    password = "Wr0ng-horse-battery-9"
    book = tiny_book(
        tmp_path / "book", {"book/setbit-offset": (BOOK / "setbit-offset.md").read_text()}
    )
    with RedisServer.start(module=False) as server:
        server.client().config_set("requirepass", "the-real-one-0")
        url = f"redis://default:{password}@127.0.0.1:{server.port}/0"
        env = {**os.environ, "REDIS_URL": url}
        env.pop("SETLAB_BACKEND", None)
        result = build(book, env, strict=False)
    assert "cannot use Redis" in result.stdout + result.stderr  # it did fail, and said why
    assert password not in result.stdout + result.stderr
    leaks = [
        str(path.relative_to(tmp_path))
        for path in tmp_path.rglob("*")
        if path.is_file() and password.encode() in path.read_bytes()
    ]
    assert leaks == []
