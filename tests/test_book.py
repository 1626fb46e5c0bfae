"""The whole book builds with every chapter executed and no Sphinx warning.

`jupyter-book build --all -W -n --keep-going` with execution forced (_config.yml), once on the
embedded backend and once on a private live Redis. --all matters: without it a rebuild after a
failure can report success, because Sphinx does not re-read the failed page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from setlab.server import find_redis_server
from tests.conftest import REQUIRE_LIVE

ROOT = Path(__file__).resolve().parents[1]
JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")

pytestmark = pytest.mark.book


def _build(tmp_path: Path, backend: str) -> Path:
    env = {**os.environ, "SETLAB_BACKEND": backend}
    env.pop("REDIS_URL", None)
    result = subprocess.run(
        [str(JUPYTER_BOOK), "build", str(ROOT), "--path-output", str(tmp_path),
         "--all", "-W", "-n", "--keep-going"],
        env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    report = (result.stdout + result.stderr)[-6000:]
    assert result.returncode == 0, f"book build failed on {backend}:\n{report}"
    assert not re.search(r": WARNING: ", result.stdout + result.stderr), report
    html = tmp_path / "_build" / "html"
    assert (html / "index.html").is_file()
    return html


def _chapters() -> list[str]:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [c["file"] for part in toc["parts"] for c in part["chapters"]]


def _check_pages(html: Path, banner: str) -> None:
    for chapter in _chapters():
        page = (html / f"{chapter}.html").read_text()
        assert "Traceback" not in page, f"{chapter} shows a traceback"
        if "setlab.connect(" in (ROOT / f"{chapter}.md").read_text():
            assert banner in page, f"{chapter} does not say which backend it ran on"


def test_book_builds_on_the_embedded_backend(tmp_path):
    html = _build(tmp_path, "fake")
    _check_pages(html, "embedded fakeredis")


def test_book_builds_on_live_redis(tmp_path):
    if not find_redis_server():
        if REQUIRE_LIVE:
            pytest.fail("SETLAB_REQUIRE_LIVE=1 but no redis-server binary is installed")
        pytest.skip("no redis-server binary installed")
    html = _build(tmp_path, "live")
    _check_pages(html, "live Redis")
