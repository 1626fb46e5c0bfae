"""Executed pages are artefacts (book/_ext/setlab_execution.py): a page runs once per
fingerprint of what its cells call, and every later build reuses it.

On a tiny book whose pages read a value from ``pkg/`` (named in ``setlab_execution_sources``,
as ``src/setlab`` and the lock are for the real book) and log each execution: a prose edit
re-renders without running a cell; a change in ``pkg/`` re-executes every page and the stale
value is gone from the site; a code edit re-executes only its page; two pages run at once with
``SETLAB_BUILD_JOBS=2`` and one after the other with 1; a failing page is not kept, so the next
build tries it again; with ``REDIS_URL`` set every build executes afresh and leaves no cache.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.support.notebooks import build, tiny_book

pytestmark = pytest.mark.book

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""

PAGE = (
    HEADER
    + """
# {title}

{prose} The value is {{glue:text}}`{name}-value`.

```{{code-cell}} ipython3
:tags: [remove-cell]
import json, pathlib, time
from setlab.render.glue import glue
start = time.time()
value = (pathlib.Path("..") / "pkg" / "value.txt").read_text().strip()
glue("{name}-value", value, display=False)
time.sleep({sleep})
with open(pathlib.Path("..") / "runs.log", "a") as log:
    log.write(json.dumps({{"page": "{name}", "start": start, "end": time.time()}}) + "\\n")
{extra}
```
"""
)


def _page(name: str, prose: str = "Prose.", sleep: float = 0.0, extra: str = "") -> str:
    return PAGE.format(title=name.title(), prose=prose, name=name, sleep=sleep, extra=extra)


def _book(root: Path) -> Path:
    book = tiny_book(
        root,
        {"book/one": _page("one", sleep=1.5), "book/two": _page("two", sleep=1.5)},
        {"setlab_execution_sources": ["pkg"]},
    )
    (book / "pkg").mkdir()
    (book / "pkg" / "value.txt").write_text("42 MiB\n")
    return book


def _env(**extra: str) -> dict[str, str]:
    """This environment on the embedded backend, or (given ``REDIS_URL``) on that server."""
    drop = {"REDIS_URL", "SETLAB_BUILD_JOBS", "SETLAB_BACKEND"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, **({} if "REDIS_URL" in extra else {"SETLAB_BACKEND": "fake"}), **extra}


def _runs(book: Path) -> list[dict]:
    log = book / "runs.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _built(book: Path, **env: str) -> None:
    result = build(book, _env(**env))
    report = (result.stdout + result.stderr)[-4000:]
    assert result.returncode == 0 and ": WARNING: " not in report, report


def _html(book: Path, name: str) -> str:
    """The page's text without tags."""
    page = (book / "_build" / "html" / "book" / f"{name}.html").read_text()
    return " ".join(re.sub(r"<[^>]+>", "", page).split())


def test_a_page_runs_once_per_fingerprint_and_prose_edits_run_nothing(tmp_path):
    book = _book(tmp_path / "book")
    _built(book, SETLAB_BUILD_JOBS="2")
    first = _runs(book)
    assert sorted(r["page"] for r in first) == ["one", "two"]
    one, two = first
    assert one["start"] < two["end"] and two["start"] < one["end"], "two jobs ran one at a time"
    assert "The value is 42 MiB." in _html(book, "one")

    page = book / "book" / "one.md"
    page.write_text(page.read_text().replace("Prose.", "Edited prose."))
    _built(book)
    assert _runs(book) == first  # nothing executed
    assert "Edited prose. The value is 42 MiB." in _html(book, "one")

    (book / "pkg" / "value.txt").write_text("43 MiB\n")  # what the cells call changed
    _built(book, SETLAB_BUILD_JOBS="1")
    again = _runs(book)[2:]
    assert sorted(r["page"] for r in again) == ["one", "two"]
    early, late = sorted(again, key=lambda r: r["start"])
    assert late["start"] >= early["end"], "one job ran two pages at once"
    for name in ("one", "two"):
        html = _html(book, name)
        assert "The value is 43 MiB." in html and "42 MiB" not in html  # nothing stale

    page = book / "book" / "two.md"
    page.write_text(page.read_text().replace("time.sleep(1.5)", "time.sleep(0)"))
    _built(book)
    assert [r["page"] for r in _runs(book)[4:]] == ["two"]  # only the page whose code changed


def test_a_failing_page_fails_the_build_and_is_not_kept(tmp_path):
    book = tiny_book(
        tmp_path / "book", {"book/bad": _page("bad", extra="raise RuntimeError('broken cell')")}
    )
    (book / "pkg").mkdir()
    (book / "pkg" / "value.txt").write_text("1\n")
    for attempt in (1, 2):
        result = build(book, _env())
        assert result.returncode != 0, "a failing cell must fail the build"
        assert "broken cell" in result.stdout + result.stderr
        # the extension's run and MyST-NB's report of it, on every build: nothing was kept
        assert len(_runs(book)) == 2 * attempt


def test_a_readers_own_server_runs_every_page_afresh_and_keeps_nothing(tmp_path):
    book = _book(tmp_path / "book")
    url = "redis://127.0.0.1:1/0"  # never connected to: the pages here do not use Redis
    for attempt in (1, 2):
        _built(book, REDIS_URL=url)
        assert len(_runs(book)) == 2 * attempt
    execution = book / "_build" / ".cache" / "execution"
    assert not execution.exists() or not any(execution.glob("url-*"))
