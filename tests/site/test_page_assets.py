"""What each built page loads beyond its own text (issue 29's page weight): MathJax only on a
page that shows a formula (Sphinx loaded it wherever a page's toctree reached one: the front
page got 1.2 MB for none), and a favicon on every page, a file the site serves."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.book

MATH = re.compile(r'class="[^"]*\bmath\b')
MATHJAX = re.compile(r'<script[^>]*src="[^"]*mathjax[^"]*"')
ICON = re.compile(r'<link[^>]*rel="icon"[^>]*href="([^"]+)"')


def test_mathjax_loads_only_where_a_formula_is_shown(fake_book_html):
    pages = sorted((fake_book_html / "book").glob("*.html"))
    assert len(pages) > 15
    wrong = []
    for page in pages:
        html = page.read_text()
        if bool(MATHJAX.search(html)) != bool(MATH.search(html)):
            wrong.append(f"{page.name}: MathJax {bool(MATHJAX.search(html))}, math "
                         f"{bool(MATH.search(html))}")  # fmt: skip
    assert wrong == []
    with_math = [p.name for p in pages if MATH.search(p.read_text())]
    assert "index.html" not in with_math and "birthday-collisions.html" in with_math


def test_every_page_names_a_favicon_the_site_has(fake_book_html):
    for page in sorted((fake_book_html / "book").glob("*.html")):
        found = ICON.search(page.read_text())
        assert found, page.name
        assert (page.parent / found[1].split("?")[0]).resolve().is_file(), page.name
