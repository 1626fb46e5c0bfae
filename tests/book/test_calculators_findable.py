"""Every calculator can be found (setlab.site.calculators): a heading with its anchor right
before its widget in the chapter, in that page's contents rail; a link under every chapter's
title; a row on the calculators page; a link on the front door's card. Read from the sources,
and from the book built on the embedded backend."""

from __future__ import annotations

import re

import pytest

from setlab.site import calculators
from setlab.site.calculators import CALCULATORS
from setlab.site.registry import CHAPTERS
from tests.book.test_book import ROOT


def test_each_chapter_heads_its_widget_with_the_calculators_anchor():
    assert len(CALCULATORS) == 6 and len({c.widget for c in CALCULATORS}) == 6
    for calc in CALCULATORS:
        text = (ROOT / "book" / f"{calc.chapter}.md").read_text()
        heading = f"({calc.label})=\n### Calculator: {calc.title}\n"
        assert text.count(heading) == 1, calc.chapter
        after = text[text.index(heading) :]
        cell = after.index("```{code-cell}")
        assert "### " not in after[len(heading) : cell], calc.chapter  # no other heading between
        # the first cell after the heading shows this calculator's widget
        body = after[cell : after.index("\n```", cell + 3)]
        assert re.search(r"^widget\.\w+\(\)$", body, re.M), calc.chapter


def test_the_front_doors_card_links_every_calculator():
    card = (ROOT / "book" / "_decision-card.md").read_text()
    assert set(re.findall(r"<(calc-[a-z-]+)>`", card)) == {c.label for c in CALCULATORS}
    assert "<calculators>`" in card


def test_the_calculators_page_lists_each_in_the_books_order():
    table = calculators.index_markdown()
    labels = re.findall(r"<(calc-[a-z-]+)>`", table)
    assert labels == [c.label for c in sorted(CALCULATORS, key=lambda c: CHAPTERS.index(c.chapter))]
    assert "book/calculators" in (ROOT / "_toc.yml").read_text()


@pytest.mark.parametrize("calc", CALCULATORS, ids=lambda c: c.widget)
def test_the_terminal_line_runs(calc):
    from tests.support.widget_driver import calc as run

    assert run(*calc.command.split()[2:])  # the CLI accepts it and prints JSON


@pytest.mark.book
def test_the_built_pages_find_each_calculator(fake_book_html):
    from bs4 import BeautifulSoup

    def page(slug: str) -> BeautifulSoup:
        return BeautifulSoup((fake_book_html / "book" / f"{slug}.html").read_text(), "html.parser")

    for slug in CHAPTERS:
        soup = page(slug)
        line = soup.select_one("p.setlab-calculators")
        assert line is not None and line.find("a", href="calculators.html"), slug
        own = calculators.in_chapter(slug)
        if own is None:
            continue
        assert line.find("a", href=f"#{own.label}"), slug
        section = soup.find(id=own.label).find_parent("section")  # the heading's section
        assert section.find(id=f"widget-{own.widget}") is not None, slug
        rail = soup.select_one(".bd-sidebar-secondary")
        assert rail.find("a", href=f"#{section['id']}"), f"{slug}: not in the contents rail"
    listing = page("calculators")
    for calc in CALCULATORS:
        assert listing.find("a", href=f"{calc.chapter}.html#{calc.label}"), calc.widget
    front = page("index")
    card = front.select_one(".setlab-card")
    assert all(card.find("a", href=f"{c.chapter}.html#{c.label}") for c in CALCULATORS)
