"""The built site as a reader sees it, in headless Chromium.

Every page of the embedded-backend build is served on localhost and opened in Debian's chromium.
A page fails on a Python traceback or error output, a missing image, or a broken internal link.
Math must be typeset offline. Light and dark screenshots of every page, at 1280 and 390 px, are
saved (path printed) for a look by eye.

Then each page is measured in the browser (tests/support/site_measure.js) at 1280 px light, 1280 px
dark
and 390 px, and fails on what makes it hard to read (tests/support/site.py says how each is
measured):
a table or code line that sticks out of the column, or scrolls without a visible hint, or (at
1280) code wider than the column; a figure whose smallest text is under 11 px on screen, a blurry
PNG, or alt text that is a file name; a verdict colour under 4.5:1 contrast in either mode.
tests/browser/test_site_checks.py shows each check failing on a page made with that defect.
"""

from __future__ import annotations

import os

import pytest

from setlab.chapters.registry import CHAPTERS
from tests.support import site

pytestmark = pytest.mark.book

REQUIRE_BROWSER = os.environ.get("SETLAB_REQUIRE_BROWSER", "").lower() in {"1", "true", "yes"}


@pytest.fixture(scope="module")
def browser():
    if site.chromium() is None:
        if REQUIRE_BROWSER:
            pytest.fail("SETLAB_REQUIRE_BROWSER=1 but chromium is not installed")
        pytest.skip("chromium is not installed (apt-get install chromium)")


def test_every_page_renders_without_errors_images_or_broken_links(browser, fake_book_html):
    pages = sorted((fake_book_html / "book").glob("*.html"))
    assert len(pages) >= 5
    shots = fake_book_html.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    report = {}
    with site.serve(fake_book_html) as base:
        for page in pages:
            url = f"{base}book/{page.name}"
            dom = site.rendered_dom(url)
            assert "<main" in dom, f"{page.name} did not render"
            found = site.problems(page, fake_book_html, dom)
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
            for width, suffix in ((1280, ""), (390, "-390")):
                name = f"{page.stem}{suffix}"
                site.screenshot(url, shots / f"{name}.png", width=width)
                site.screenshot(url, shots / f"{name}-dark.png", dark=True, width=width)
    print(f"screenshots: {shots}")
    assert report == {}


def test_every_page_fits_its_column_with_legible_figures_and_contrast(browser, fake_book_html):
    pages = sorted((fake_book_html / "book").glob("*.html"))
    report = {}
    with site.serve(fake_book_html) as base:
        for page in pages:
            url = f"{base}book/{page.name}"
            found = []
            light = site.measure(url, width=1280)
            found += site.layout_problems(light, wide=True)
            found += site.figure_problems(page, light)
            found += site.contrast_problems(light)
            dark = site.measure(url, width=1280, dark=True)
            found += site.contrast_problems(dark)
            phone = site.measure(url, width=390)
            found += [f"at 390 px: {p}" for p in site.layout_problems(phone, wide=False)]
            if found:
                report[page.name] = found
    assert report == {}


def test_no_page_logs_a_console_error_or_asks_for_anything_off_the_machine(browser, fake_book_html):
    """Every page, light and dark, in Chromium under Playwright: zero console errors (the theme
    once logged two on every page: a doubled ``const THEBE_JS_URL`` and an empty default mode)
    and zero requests to anything but 127.0.0.1 (the site works offline)."""
    from tests.support.browser import open_browser

    pages = [*sorted((fake_book_html / "book").glob("*.html")), fake_book_html / "index.html"]
    errors: dict[str, list[str]] = {}
    with site.serve(fake_book_html) as base, open_browser() as session:
        for path in pages:
            url = base + path.relative_to(fake_book_html).as_posix()
            for dark in (False, True):
                before = len(session.errors)
                page = session.page(dark=dark)
                page.goto(url, wait_until="load")
                page.wait_for_timeout(300)
                page.close()
                if len(session.errors) > before:
                    errors[f"{path.name} ({'dark' if dark else 'light'})"] = session.errors[before:]
        outside = list(session.outside)
    assert errors == {}
    assert outside == []
