"""The built site as a reader sees it, in headless Chromium.

Every page of the embedded-backend build is served on localhost and opened in Debian's chromium.
A page fails on a Python traceback or error output, a missing image, or a broken internal link.
Math must be typeset offline. Light and dark screenshots of every page are saved (path printed)
for a look by eye.
"""

from __future__ import annotations

import os

import pytest

from tests import site
from tests.notebooks import ROOT

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
            source = ROOT / "book" / f"{page.stem}.md"
            is_notebook = "kernelspec:" in source.read_text()
            if is_notebook and 'class="setlab-download"' not in dom:
                found.append("no link to the downloadable notebook")
            if "math notranslate" in page.read_text() and "mjx-container" not in dom:
                found.append("math was not typeset (MathJax did not load)")
            if found:
                report[page.name] = found
            site.screenshot(url, shots / f"{page.stem}.png")
            site.screenshot(url, shots / f"{page.stem}-dark.png", dark=True)
    print(f"screenshots: {shots}")
    assert report == {}
