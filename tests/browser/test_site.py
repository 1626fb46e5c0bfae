"""The built site as a reader sees it, in the tests' one headless Chromium.

Every page of the embedded-backend build is served on localhost and loaded once; its viewport and
colour scheme are then switched in place: 1280 px light, 1280 px dark, 390 px light, 390 px dark.
A page fails on a Python traceback or error output, a missing image, or a broken internal link.
Math must be typeset offline. A screenshot of every page in each of the four views is saved (path
printed) for a look by eye.

Each page is measured in the browser (tests/support/site_measure.js) at 1280 px light, 1280 px
dark and 390 px light, and fails on what makes it hard to read (tests/support/site.py says how
each is measured): a table or code line that sticks out of the column, or scrolls without a
visible hint, or (at 1280) code wider than the column; a figure whose smallest text is under
11 px on screen, a blurry PNG, or alt text that is a file name; a verdict colour under 4.5:1
contrast in either mode. tests/browser/test_site_checks.py shows each check failing on a page
made with that defect. No page may log a console error or ask for anything off the machine.

What a page showed is kept until the page, what it loads, the browser or these checks change
(the ``visits`` fixture): a warm ``make test`` after a prose edit loads the edited page only.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pytest

from setlab.site.registry import CHAPTERS
from tests.support import site
from tests.support.notebooks import CACHE

pytestmark = [pytest.mark.book, pytest.mark.browser]

#: (width in CSS px, dark)
VIEWS = [(1280, False), (1280, True), (390, False), (390, True)]


@dataclass
class Visit:
    """What one page showed: its DOM at 1280 px light, a measurement per view, its errors and
    the requests it made off the machine."""

    dom: str
    measured: dict[tuple[int, bool], dict] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)


#: the visits of pages whose bytes, loaded files, browser and checks were seen before
KEPT_VISITS = CACHE / "visits"


def _shot(shots: Path, path: Path, width: int, dark: bool) -> Path:
    suffix = ("" if width == 1280 else f"-{width}") + ("-dark" if dark else "")
    return shots / f"{path.stem}{suffix}.jpg"


def _visit(browser_session, page, url: str, path: Path, shots: Path) -> Visit:
    errors, outside = len(browser_session.errors), len(browser_session.outside)
    site.load(page, url)
    visit = Visit(site.rendered_dom(page))
    for width, dark in VIEWS:
        site.view(page, width, dark)
        visit.measured[(width, dark)] = site.measure(page)
        site.screenshot(page, _shot(shots, path, width, dark))
    site.view(page)
    visit.errors = browser_session.errors[errors:]
    visit.outside = browser_session.outside[outside:]
    return visit


def _keep(folder: Path, visit: Visit, path: Path, shots: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for width, dark in VIEWS:
        shutil.copy(_shot(shots, path, width, dark), folder)
    saved = {**asdict(visit), "measured": [[list(v), m] for v, m in visit.measured.items()]}
    partial = folder / f"visit.{os.getpid()}.tmp"  # another worker may be reading it
    partial.write_text(json.dumps(saved))
    partial.replace(folder / "visit.json")


def _kept(folder: Path, path: Path, shots: Path) -> Visit | None:
    if not (folder / "visit.json").is_file():
        return None
    saved = json.loads((folder / "visit.json").read_text())
    saved["measured"] = {tuple(view): seen for view, seen in saved["measured"]}
    for width, dark in VIEWS:
        shutil.copy(folder / _shot(shots, path, width, dark).name, shots)
    return Visit(**saved)


@pytest.fixture(scope="module")
def visits(browser_session, fake_book_html):
    """Every page loaded once and seen in every view; and the requests that left the machine.

    A page's visit is kept under :func:`tests.support.site.page_key` (its bytes, what it loads,
    the browser and these checks): after a prose edit only the edited page is loaded again; the
    checks below read every page's visit, kept or new. ``make test-fresh`` loads every one."""
    html = fake_book_html
    shots = html.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    inputs = [Path(__file__), Path(site.__file__).with_name("browser.py")]
    browser_session.reset()
    seen: dict[Path, Visit] = {}
    used = set()
    with site.serve(html) as base:
        page = browser_session.page()
        for path in sorted((html / "book").glob("*.html")):
            folder = KEPT_VISITS / site.page_key(path, html, inputs)[:24]
            used.add(folder.name)
            if (visit := _kept(folder, path, shots)) is None:
                url = base + path.relative_to(html).as_posix()
                visit = _visit(browser_session, page, url, path, shots)
                _keep(folder, visit, path, shots)
            seen[path] = visit
        # the root index.html only redirects to book/index.html, where the reader lands
        errors, outside = len(browser_session.errors), len(browser_session.outside)
        page.goto(base + "index.html", wait_until="load")
        page.wait_for_url("**/book/index.html")
        seen[html / "index.html"] = Visit(
            page.content(),
            errors=browser_session.errors[errors:],
            outside=browser_session.outside[outside:],
        )
    print(f"screenshots: {shots}")
    browser_session.reset()
    for old in KEPT_VISITS.iterdir():  # visits of pages this book no longer has (2.7 MB each)
        if old.name not in used:
            shutil.rmtree(old, ignore_errors=True)
    return html, seen


def test_every_page_renders_without_errors_images_or_broken_links(visits):
    html, seen = visits
    pages = {path: visit for path, visit in seen.items() if path.parent.name == "book"}
    assert len(pages) >= 5
    report = {}
    for page, visit in pages.items():
        dom = visit.dom
        assert "<main" in dom, f"{page.name} did not render"
        found = site.problems(page, html, dom)
        link = dom.find('class="setlab-download"')
        if page.stem in CHAPTERS and link < 0:
            found.append("no link to the downloadable notebook")
        elif page.stem in CHAPTERS and link < dom.find("<h1"):
            found.append("the download link sits above the chapter's title")
        elif page.stem not in CHAPTERS and link >= 0:
            found.append("a download link on a page that is not a chapter")
        if "math notranslate" in page.read_text() and "mjx-container" not in dom:
            found.append("math was not typeset (MathJax did not load)")
        if found:
            report[page.name] = found
    assert report == {}


def test_every_page_fits_its_column_with_legible_figures_and_contrast(visits):
    _, seen = visits
    report = {}
    for page, visit in seen.items():
        if page.parent.name != "book":
            continue
        light, dark, phone = (visit.measured[v] for v in VIEWS[:3])
        found = site.layout_problems(light, wide=True)
        found += site.figure_problems(page, light)
        found += site.contrast_problems(light)
        found += site.contrast_problems(dark)
        found += [f"at 390 px: {p}" for p in site.layout_problems(phone, wide=False)]
        assert light["theme"] == "light" and dark["theme"] == "dark", page.name
        if found:
            report[page.name] = found
    assert report == {}


def test_no_page_logs_a_console_error_or_asks_for_anything_off_the_machine(visits):
    """Every page, in every view, and the root index.html: zero console errors (the theme once
    logged two on every page: a doubled ``const THEBE_JS_URL`` and an empty default mode) and
    zero requests to anything but 127.0.0.1 (the site works offline)."""
    _, seen = visits
    errors = {f"{p.parent.name}/{p.name}": v.errors for p, v in seen.items() if v.errors}
    assert errors == {}
    assert [url for visit in seen.values() for url in visit.outside] == []
