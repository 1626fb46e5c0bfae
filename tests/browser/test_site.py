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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from setlab.chapters.registry import CHAPTERS
from tests.support import site

pytestmark = [pytest.mark.book, pytest.mark.browser]

#: (width in CSS px, dark)
VIEWS = [(1280, False), (1280, True), (390, False), (390, True)]


@dataclass
class Visit:
    """What one page showed: its DOM at 1280 px light, a measurement per view, its errors."""

    dom: str
    measured: dict[tuple[int, bool], dict] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def visits(browser_session, fake_book_html):
    """Every page loaded once and seen in every view; and the requests that left the machine."""
    html = fake_book_html
    shots = html.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    browser_session.reset()
    seen: dict[Path, Visit] = {}
    with site.serve(html) as base:
        page = browser_session.page()
        for path in sorted((html / "book").glob("*.html")):
            before = len(browser_session.errors)
            site.load(page, base + path.relative_to(html).as_posix())
            visit = seen[path] = Visit(site.rendered_dom(page))
            for width, dark in VIEWS:
                site.view(page, width, dark)
                visit.measured[(width, dark)] = site.measure(page)
                suffix = ("" if width == 1280 else f"-{width}") + ("-dark" if dark else "")
                site.screenshot(page, shots / f"{path.stem}{suffix}.jpg")
            site.view(page)
            visit.errors = browser_session.errors[before:]
        # the root index.html only redirects to book/index.html, where the reader lands
        before = len(browser_session.errors)
        page.goto(base + "index.html", wait_until="load")
        page.wait_for_url("**/book/index.html")
        seen[html / "index.html"] = Visit(page.content(), errors=browser_session.errors[before:])
        outside = list(browser_session.outside)
    print(f"screenshots: {shots}")
    browser_session.reset()
    return html, seen, outside


def test_every_page_renders_without_errors_images_or_broken_links(visits):
    html, seen, _ = visits
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
    _, seen, _ = visits
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
    _, seen, outside = visits
    errors = {f"{p.parent.name}/{p.name}": v.errors for p, v in seen.items() if v.errors}
    assert errors == {}
    assert outside == []
