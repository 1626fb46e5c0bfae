"""The site test's reading checks can fail: each defect class, put on a small page of its own,
is reported by the check that guards it, and a page without the defect passes.

The pages here are plain HTML with the structure the theme gives a chapter (an
``article.bd-article`` column, a ``data-theme`` that follows ``prefers-color-scheme``);
tests/support/site_measure.js measures them in the tests' one browser just as it measures the
built book in tests/browser/test_site.py. Runs with the site test (``make test``), not in
``make check``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import site

pytestmark = [pytest.mark.browser, pytest.mark.book]

HEAD = """<!doctype html><html><head><meta charset="utf-8"><script>
const dark = matchMedia("(prefers-color-scheme: dark)");
const follow = () => { document.documentElement.dataset.theme = dark.matches ? "dark" : "light"; };
follow(); dark.onchange = follow;
</script><style>
body { margin: 0; font: 16px sans-serif; background: #fff; color: #222; }
html[data-theme="dark"] body { background: #121212; color: #ddd; }
article.bd-article { width: 720px; padding: 0 16px; }
.verdict-right { color: #116329; }
html[data-theme="dark"] .verdict-right { color: #56d364; }
{extra}
</style></head><body><article class="bd-article">"""
TAIL = "</article></body></html>"
WIDE_ROW = "<tr>" + "<td>unbreakable_cell_content_that_is_long</td>" * 8 + "</tr>"
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="378pt" height="108pt" '
    'viewBox="0 0 378 108"><title>Figure: latency against offset</title>'
    '<text style="font-size: {size}px; font-family: sans-serif" x="10" y="50">label</text></svg>'
)


def _page(root: Path, name: str, body: str, extra_css: str = "") -> None:
    (root / "book").mkdir(parents=True, exist_ok=True)
    html = HEAD.replace("{extra}", extra_css) + body + TAIL
    (root / "book" / f"{name}.html").write_text(html)


@pytest.fixture(scope="module")
def pages(tmp_path_factory, browser_session):
    root = tmp_path_factory.mktemp("site-checks")
    images = root / "_images"
    images.mkdir()
    (images / "good.svg").write_text(SVG.format(size=10))  # 504 px shown: 13.3 px text
    (images / "tiny.svg").write_text(SVG.format(size=6))  # 8 px text
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=100)
    fig.savefig(images / "blurry.png")
    plt.close(fig)
    good_fig = (
        '<img src="../_images/good.svg" alt="Figure: latency against the offset" width="504">'
    )
    _page(root, "clean", (
        "<p>Prose that wraps.</p><table><tr><td>a</td><td>b</td></tr></table>"
        "<pre>short code</pre>" + good_fig + '<span class="verdict-right">correct</span>'
    ))  # fmt: skip
    _page(root, "clipped-table", f"<table>{WIDE_ROW}</table>")
    _page(root, "unhinted-scroll", f'<div style="overflow-x:auto"><table>{WIDE_ROW}</table></div>')
    _page(root, "hinted-table", (
        '<div class="setlab-scroll-hint">wide table</div><div class="setlab-overflows" '
        f'style="overflow-x:auto"><table>{WIDE_ROW}</table></div>'
    ))  # fmt: skip
    _page(root, "wide-code", (
        '<div class="setlab-scroll-hint">wide lines</div>'
        '<pre class="setlab-overflows" style="overflow-x:auto">' + "x = 1  # " + "y" * 200
        + "</pre>"
    ))  # fmt: skip
    _page(root, "hashed-alt", (
        '<img src="../_images/good.svg" width="504" alt="../_images/'
        '87c2dd5583be7919299cf180ccbb32d50e213be461464dcc948c3edda16ab9c9.svg">'
    ))  # fmt: skip
    _page(root, "tiny-text", '<img src="../_images/tiny.svg" alt="Figure: tiny text" width="504">')
    _page(root, "blurry-png", '<img src="../_images/blurry.png" alt="Figure: a blurry PNG here">')
    _page(root, "dark-contrast", '<span class="verdict-right">correct</span>',
          'html[data-theme="dark"] .verdict-right { color: #1a7f37; }')  # fmt: skip
    _page(root, "light-contrast", '<span class="verdict-right">correct</span>',
          ".verdict-right { color: #7ee787; }")  # fmt: skip
    with site.serve(root) as base:
        browser_session.reset()
        yield root, base, browser_session.page()
        browser_session.reset()


def _problems(pages, name: str, width: int = 1280, dark: bool = False) -> list[str]:
    root, base, page = pages
    site.load(page, f"{base}book/{name}.html")
    site.view(page, width, dark)
    seen = site.measure(page)
    found = site.layout_problems(seen, wide=width >= 1000) + site.contrast_problems(seen)
    if width >= 1000:
        found += site.figure_problems(root / "book" / f"{name}.html", seen)
    return found


def test_a_clean_page_passes_every_check(pages):
    assert _problems(pages, "clean") == []
    assert _problems(pages, "clean", dark=True) == []
    assert _problems(pages, "clean", width=390) == []


def test_a_table_wider_than_the_column_without_a_scroll_container_is_clipped(pages):
    assert any("sticks out of the column" in p for p in _problems(pages, "clipped-table"))


def test_a_table_that_scrolls_without_a_hint_fails(pages):
    found = _problems(pages, "unhinted-scroll", width=390)
    assert any("scrolls sideways without a hint" in p for p in found)


def test_a_table_that_must_scroll_at_1280_fails_even_with_a_hint(pages):
    found = _problems(pages, "hinted-table")
    assert any("table wider than the column" in p for p in found)
    assert _problems(pages, "hinted-table", width=390) == []


def test_code_wider_than_the_column_fails_at_1280_even_with_a_hint(pages):
    assert any("code wider than the column" in p for p in _problems(pages, "wide-code"))
    assert _problems(pages, "wide-code", width=390) == []


def test_alt_text_that_is_a_file_name_fails(pages):
    assert any("does not say what the figure shows" in p for p in _problems(pages, "hashed-alt"))


def test_figure_text_under_11_px_on_screen_fails(pages):
    assert any("smallest text 8.0 px" in p for p in _problems(pages, "tiny-text"))


def test_a_png_at_less_than_2x_fails(pages):
    assert any("a PNG at 1.00x" in p for p in _problems(pages, "blurry-png"))


def test_verdict_colours_under_4_5_to_1_fail_in_the_mode_they_are_in(pages):
    assert _problems(pages, "dark-contrast") == []
    assert any("in dark mode" in p for p in _problems(pages, "dark-contrast", dark=True))
    assert any("in light mode" in p for p in _problems(pages, "light-contrast"))


def test_contrast_ratio_matches_wcag():
    black, white = {"r": 0, "g": 0, "b": 0}, {"r": 255, "g": 255, "b": 255}
    assert site.contrast(black, white) == pytest.approx(21.0)
    assert site.contrast({"r": 118, "g": 118, "b": 118}, white) == pytest.approx(4.54, abs=0.01)
