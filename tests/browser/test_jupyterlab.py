"""A chapter opened in a real JupyterLab, as ``make lab`` opens it, reads like the book's page.

JupyterLab is started on the embedded build with ``make lab``'s settings (``binder/jupyter``,
the notebooks ``make book`` writes to ``_build/lab``) and a chapter is opened in the tests' one
Chromium. Its prose must show numbers, not MyST roles; no exercise cell may show an output, and
no solution may be visible before it is opened — opening one must show it, so the check can tell
hidden from shown. Screenshots (1280 px, light, the top of the chapter and its first opened
solution) go beside the build, in ``screenshots/jupyterlab-*.png``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import nbformat
import pytest

from setlab.lab.server import free_port
from tests.support.notebooks import ROOT

pytestmark = [pytest.mark.book, pytest.mark.browser]

#: the chapter opened: glued prose, a calculator, four exercises with code and four solutions
CHAPTER = "bloom-basics"
#: what only the book's build renders, as JupyterLab would show it in the prose
MYST_LEFT = re.compile(r"\{(glue|doc|ref|numref|cite:[tp]|eval)(:text)?\}|^\s*(:::+|```+)\{", re.M)

#: every cell of the open notebook, in order: its kind, its text, how many outputs it shows, and
#: the visible text of each solution (a <details> "Solution to …") and whether it is open
CELLS = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map((cell) => ({
  kind: cell.classList.contains('jp-MarkdownCell') ? 'markdown' : 'code',
  text: cell.textContent,
  outputs: cell.querySelectorAll('.jp-OutputArea-output').length,
  solutions: [...cell.querySelectorAll('details')].filter((d) =>
    (d.querySelector('summary')?.textContent || '').startsWith('Solution to')).map((d) => ({
    open: d.open,
    shown: [...d.children].filter((e) => e.tagName !== 'SUMMARY')
      .filter((e) => e.checkVisibility({visibilityProperty: true, opacityProperty: true}))
      .map((e) => e.textContent).join(' ').trim(),
  })),
}))"""


@pytest.fixture(scope="module")
def jupyterlab(fake_book_html):
    """JupyterLab on the embedded build, with the settings ``make lab`` gives it; yields its
    URL and the folder it serves (the build's root, which holds ``_build/lab``)."""
    root = fake_book_html.parent.parent  # <site>/_build/html -> <site>
    assert (root / "_build" / "lab" / f"{CHAPTER}.ipynb").is_file()
    make = (ROOT / "Makefile").read_text()
    assert 'JUPYTER_CONFIG_PATH="$(CURDIR)/binder/jupyter' in make, "make lab's settings moved"
    port = free_port()
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(ROOT / "binder" / "jupyter")}
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--ServerApp.port={port}",
        "--ServerApp.ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password=",
        f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0",
        *(["--allow-root"] if os.geteuid() == 0 else []),
    ]  # fmt: skip
    # its log goes to a file: a pipe nobody reads fills, and the server then blocks writing
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_until_up(f"http://127.0.0.1:{port}", server, log)
            yield f"http://127.0.0.1:{port}", root
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _wait_until_up(url: str, server: subprocess.Popen, log, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=5):
                return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(f"JupyterLab did not start:\n{log.read().decode()[-3000:]}")
            time.sleep(0.5)


def _open_chapter(browser, url: str, width: int = 1280):
    page = browser.page(width=width, height=900)
    # ?reset: an empty workspace, not the tabs an earlier test left open
    page.goto(f"{url}/lab/tree/_build/lab/{CHAPTER}.ipynb?reset", wait_until="load")
    page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown", timeout=90_000)
    return page


ABBRS = "() => document.querySelectorAll('.jp-Notebook .jp-RenderedMarkdown abbr').length"


def _rendered_cells(page, expected: int, abbrs: int = 0) -> list[dict]:
    """Every cell, once JupyterLab has rendered them all (it renders a long notebook lazily:
    scrolling to the end makes it render the rest), and with them ``abbrs`` glued values (a
    Markdown cell can be in the page before its rendering is: on a loaded machine CI saw 9 of
    11)."""
    cells: list[dict] = []
    for _ in range(60):
        page.evaluate(
            "() => { const n = document.querySelector('.jp-WindowedPanel-outer')"
            " || document.querySelector('.jp-Notebook'); n.scrollTop = n.scrollHeight; }"
        )
        page.wait_for_timeout(250)
        cells = page.evaluate(CELLS)
        markdown = [c for c in cells if c["kind"] == "markdown"]
        rendered = all(c["text"].strip() for c in markdown)
        if len(cells) == expected and rendered and page.evaluate(ABBRS) >= abbrs:
            return cells
    found = page.evaluate(ABBRS)
    pytest.fail(f"JupyterLab rendered {len(cells)} of {expected} cells, {found} of {abbrs} values")


def test_a_chapter_in_jupyterlab_shows_numbers_and_hides_answers_until_asked(jupyterlab, browser):
    url, root = jupyterlab
    notebook = nbformat.read(root / "_build" / "lab" / f"{CHAPTER}.ipynb", as_version=4)
    tagged = [
        i for i, c in enumerate(notebook.cells) if "setlab-exercise" in c.metadata.get("tags", [])
    ]
    glued = "".join(c.source for c in notebook.cells if c.cell_type == "markdown").count("<abbr")
    assert tagged and glued > 5, "the chapter no longer has exercises with code and glued prose"

    page = _open_chapter(browser, url)
    shots = root / "screenshots"
    shots.mkdir(exist_ok=True)
    page.evaluate("() => document.querySelector('.jp-WindowedPanel-outer').scrollTop = 0")
    page.wait_for_timeout(500)
    page.screenshot(path=str(shots / "jupyterlab-1280.png"))
    cells = _rendered_cells(page, len(notebook.cells), glued)

    prose = "\n".join(c["text"] for c in cells if c["kind"] == "markdown")
    assert not MYST_LEFT.findall(prose), MYST_LEFT.findall(prose)[:5]
    # each glued value is an <abbr> JupyterLab kept, and shows its number
    values = page.evaluate(
        "() => [...document.querySelectorAll('.jp-Notebook .jp-RenderedMarkdown abbr')]"
        ".map((a) => [a.textContent, a.title])"
    )
    assert len(values) == glued
    assert all(text.strip() and "recomputes it" in title for text, title in values), values
    assert sum(bool(re.search(r"\d", text)) for text, _ in values) >= 0.9 * glued, values

    # no exercise cell shows output, and every solution is closed and hidden
    assert [i for i in tagged if cells[i]["outputs"]] == []
    solutions = [d for c in cells for d in c["solutions"]]
    assert len(solutions) == (ROOT / "book" / f"{CHAPTER}.md").read_text().count("{solution-start}")
    assert all(not d["open"] and not d["shown"] for d in solutions), solutions

    # opening one shows it: the check above can tell hidden from shown
    summary = page.locator(".jp-Notebook details > summary", has_text="Solution to").first
    summary.scroll_into_view_if_needed()
    summary.click()
    page.wait_for_timeout(300)
    opened = [d for c in page.evaluate(CELLS) for d in c["solutions"] if d["open"]]
    assert len(opened) == 1 and len(opened[0]["shown"]) > 40, opened
    summary.evaluate("(e) => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    page.screenshot(path=str(shots / "jupyterlab-1280-solution.png"))
    assert browser.outside == [], f"JupyterLab asked the network for {browser.outside[:3]}"


def test_the_lab_index_links_every_chapter_in_the_books_order(jupyterlab, browser):
    url, root = jupyterlab
    page = browser.page(width=1280, height=900)
    page.goto(f"{url}/lab/tree/_build/lab/index.ipynb?reset", wait_until="load")
    page.wait_for_selector(".jp-Notebook .jp-RenderedMarkdown li a", timeout=90_000)
    links = page.evaluate(
        "() => [...document.querySelectorAll('.jp-Notebook .jp-RenderedMarkdown li a')]"
        ".map((a) => a.getAttribute('href'))"
    )
    from setlab.site import registry

    # JupyterLab rewrites a relative link to the file it names: /files/<path>?_xsrf=...
    paths = [re.sub(r"^.*?/files/|\?.*$", "", link) for link in links]
    assert paths == [f"_build/lab/{slug}.ipynb" for slug in registry.CHAPTERS]
    assert all((root / path).is_file() for path in paths)
