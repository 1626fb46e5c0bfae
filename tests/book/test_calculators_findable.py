"""Every calculator can be found (setlab.site.calculators: each chapter's widget and the
setlab calc calculator it names): a heading with its anchor right before its widget in the
chapter, in that page's contents rail; a link under every chapter's title; a row on the
calculators page; a link on the front door's card. Read from the sources, and from the book
built on the embedded backend."""

from __future__ import annotations

import re

import pytest

from setlab.site import calculators
from setlab.site.registry import CHAPTERS
from tests.book.test_book import ROOT

#: how the heading a chapter puts right before its calculator's cell starts (then its words)
WORDS = "Calculator: "


@pytest.fixture(scope="module")
def pages():
    return calculators.calculators()


def test_each_chapter_heads_its_widget_with_the_calculators_anchor(pages):
    for calc in pages:
        text = (ROOT / "book" / f"{calc.chapter}.md").read_text()
        headings = list(re.finditer(rf"^\({calc.label}\)=\n### {WORDS}\S.*\n", text, re.M))
        assert len(headings) == 1, calc.chapter
        after = text[headings[0].end() :]
        cell = after.index("```{code-cell}")
        assert not re.search("^#", after[:cell], re.M), calc.chapter  # no heading in between
        # the first cell after the heading shows this chapter's widget, built by its builder
        body = after[cell : after.index("\n```", cell + 3)]
        assert re.search(rf"^widget\.{calc.build.__name__}\(\)$", body, re.M), calc.chapter


def test_only_calculators_have_calculator_anchors(pages):
    """The line under each chapter's title counts the book's ``calc-`` anchors: every one is a
    calculator's, and every calculator has one."""
    anchors = {m for slug in CHAPTERS
               for m in re.findall(r"^\((calc-[a-z0-9-]+)\)=$",
                                   (ROOT / "book" / f"{slug}.md").read_text(), re.M)}  # fmt: skip
    assert anchors == {c.label for c in pages}


def test_the_front_doors_card_links_every_calculator(pages):
    card = (ROOT / "book" / "_decision-card.md").read_text()
    assert set(re.findall(r"<(calc-[a-z-]+)>`", card)) == {c.label for c in pages}
    assert "<calculators>`" in card


def test_the_calculators_page_lists_each_in_the_books_order(pages):
    table = calculators.index_markdown()
    labels = re.findall(r"<(calc-[a-z-]+)>`", table)
    assert labels == [c.label for c in sorted(pages, key=lambda c: CHAPTERS.index(c.chapter))]
    assert "book/calculators" in (ROOT / "_toc.yml").read_text()
    assert "calculators.index_markdown()" in (ROOT / "book" / "calculators.md").read_text()


def test_every_calculator_has_its_case_in_the_browser_tests(pages):
    """The browser tests drive each widget from a table of settings: every calculator of the
    book is in exactly one of them (the widget tables against the widgets found)."""
    from tests.browser.test_widgets_browser import WIDGETS
    from tests.browser.test_widgets_filters_density_browser import FIGURES

    assert not set(WIDGETS) & set(FIGURES)
    assert set(WIDGETS) | set(FIGURES) == {c.widget.slug for c in pages}


def test_the_terminal_line_runs(pages):
    from tests.support.widget_driver import calc as run

    for calc in pages:
        assert run(*calc.command.split()[2:]), calc.command  # the CLI accepts it, prints JSON


@pytest.mark.book
def test_the_built_pages_find_each_calculator(fake_book_html, pages):
    from bs4 import BeautifulSoup

    def page(slug: str) -> BeautifulSoup:
        return BeautifulSoup((fake_book_html / "book" / f"{slug}.html").read_text(), "html.parser")

    own = {c.chapter: c for c in pages}
    for slug in CHAPTERS:
        soup = page(slug)
        line = soup.select_one("p.setlab-calculators")
        every = line.find("a", href="calculators.html") if line is not None else None
        assert every is not None and every.get_text() == f"all {len(pages)} calculators", slug
        if slug not in own:
            assert line.find("a", href=re.compile("^#")) is None, slug
            continue
        calc = own[slug]
        assert line.find("a", href=f"#{calc.label}"), slug
        section = soup.find(id=calc.label).find_parent("section")  # the heading's section
        heading = section.find(["h2", "h3"]).get_text().strip().rstrip("#").strip()
        assert heading.removeprefix(WORDS) in line.get_text(), slug  # its words, under the title
        assert section.find(id=f"widget-{calc.widget.slug}") is not None, slug
        rail = soup.select_one(".bd-sidebar-secondary")
        assert rail.find("a", href=f"#{section['id']}"), f"{slug}: not in the contents rail"
    listing = page("calculators")
    for calc in pages:
        link = listing.find("a", href=f"{calc.chapter}.html#{calc.label}")
        shown = link.get_text().replace("\u2019", "'") if link else None  # Sphinx's smart quotes
        assert shown == calc.widget.title, calc.widget.slug
    front = page("index")
    card = front.select_one(".setlab-card")
    assert all(card.find("a", href=f"{c.chapter}.html#{c.label}") for c in pages)
