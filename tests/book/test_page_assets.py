"""What each built page loads beyond its own text (issue 29's page weight): MathJax only on a
page that shows a formula (Sphinx loaded it wherever a page's toctree reached one: the front
page got 1.2 MB for none), no ``fontawesome.js`` (1.49 MB on every page, for icons the theme's
stylesheet draws from its webfont anyway), and a favicon on every page, a file the site serves.
benchmarks/page_weight.py measures what a chapter page weighs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.support.notebooks import BOOK

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


def test_no_page_loads_fontawesome_js_and_the_override_is_the_themes_file_less_that_line():
    sys.path.insert(0, str(BOOK / "_ext"))
    import pydata_sphinx_theme
    import setlab_icons

    theme = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    ours = (setlab_icons.TEMPLATES / "static" / "webpack-macros.html").read_text().splitlines()
    theirs = (theme / "static" / "webpack-macros.html").read_text().splitlines()
    dropped = [line for line in theirs if line not in ours]
    added = [line for line in ours if line not in theirs]
    assert len(dropped) == 2 and setlab_icons.SCRIPT in dropped[1], dropped  # and its comment
    assert len(added) == 1 and added[0].strip().startswith("<!-- setlab:"), added


def test_no_built_page_asks_for_fontawesome_js(fake_book_html):
    pages = [p for p in sorted(fake_book_html.rglob("*.html"))
             if "_static" not in p.relative_to(fake_book_html).parts]  # fmt: skip
    assert len(pages) > 15
    assert [p.name for p in pages if "fontawesome.js" in p.read_text()] == []
    assert not (fake_book_html / "_static" / "scripts" / "fontawesome.js").exists()
