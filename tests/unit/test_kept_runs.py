"""A chapter run kept by tests/support/notebooks.kept_run is reused only while nothing it depends
on changed, and only when the test's checks passed: the warm ``make test`` skips a hostile-server
run only where running it again could not change its outcome."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support import notebooks

PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
# A page

Some prose.

```{code-cell} ipython3
print("a figure")
```
"""


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A book folder of one page, the real extension beside it, a kept-runs folder of its own,
    and a runner that counts its runs instead of starting a kernel."""
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "_ext").symlink_to(notebooks.BOOK / "_ext", target_is_directory=True)
    (folder / "page.md").write_text(PAGE)
    monkeypatch.setattr(notebooks, "BOOK", folder)
    monkeypatch.setattr(notebooks, "KEPT_RUNS", tmp_path / "runs")
    runs = []

    def run_page(slug, env, timeout=600):
        runs.append(slug)
        return notebooks.PageRun(slug=slug, ok=True, text="a figure", cells=[(0.1, "print")])

    monkeypatch.setattr(notebooks, "run_page", run_page)
    return folder, runs


def _use(env: dict[str, str], *salt: str, inputs: list[Path] | None = None) -> notebooks.PageRun:
    with notebooks.kept_run("page", env, inputs or [Path(__file__)], *salt) as result:
        assert result.ok
        return result


def test_a_passed_run_is_kept_and_a_prose_edit_reuses_it(book):
    folder, runs = book
    first = _use({})
    (folder / "page.md").write_text(PAGE.replace("Some prose.", "Other prose."))
    again = _use({})
    assert runs == ["page"]
    assert again == first and again.cells == [(0.1, "print")]


def test_a_code_cell_a_setting_a_salt_or_an_input_changes_the_key(book, tmp_path):
    folder, runs = book
    _use({})
    (folder / "page.md").write_text(PAGE.replace('"a figure"', '"another figure"'))
    _use({})
    _use({"SETLAB_SCALE": "2"})
    _use({}, "full-rights")
    other = tmp_path / "test_other.py"
    other.write_text("# another test file\n")
    _use({}, inputs=[other])
    _use({})  # every one of them was kept under a key of its own
    assert len(runs) == 5


def test_a_run_whose_checks_fail_is_not_kept(book):
    _, runs = book
    kept = notebooks.kept_run("page", {}, [Path(__file__)])
    with pytest.raises(AssertionError), kept as result:
        assert "a password" in result.text
    _use({})
    assert runs == ["page", "page"]


def test_a_kept_run_unused_for_a_week_is_removed_and_a_reused_one_is_not(book, tmp_path):
    _, runs = book
    _use({})
    _use({"SETLAB_SCALE": "2"})
    kept = sorted((tmp_path / "runs").glob("*.json"))
    assert len(kept) == 2
    week_ago = time.time() - notebooks.KEPT_RUNS_UNUSED - 60
    for path in kept:
        os.utime(path, (week_ago, week_ago))
    _use({})  # read again: still in use
    unused = [path for path in kept if path.stat().st_mtime == week_ago]
    assert len(unused) == 1
    assert notebooks.prune_kept_runs() == unused
    _use({"SETLAB_SCALE": "2"})  # the unused one was removed: it runs again
    assert len(runs) == 3
    assert len(list((tmp_path / "runs").glob("*.json"))) == 2
