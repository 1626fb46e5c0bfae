"""On the built site, no exercise gives its answer away before its solution is opened.

Every exercise box of every page is scanned: the HTML must hold no cell output inside an
exercise, and each solution must be a dropdown. Then, in the browser, every page is opened and
no output inside an exercise or a closed solution may be visible; opening one solution must make
its output visible (so the check can tell hidden from shown). Exercise numbers restart in each
chapter ("Exercise 3.2").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from tests.support import site

pytestmark = [pytest.mark.book, pytest.mark.browser]

# An output counts as visible if it is rendered, not visibility:hidden (how sphinx-togglebutton
# hides a closed dropdown) and not transparent.
VISIBLE_OUTPUTS = """(selector) => [...document.querySelectorAll(selector)].filter((e) =>
    e.checkVisibility({visibilityProperty: true, opacityProperty: true})).length"""


def exercise_problems(html: Path) -> list[str]:
    """What a reader could see too early, from the HTML of every chapter page under ``html``."""
    problems = []
    for page in sorted((html / "book").glob("*.html")):
        dom = BeautifulSoup(page.read_text(), "html.parser")
        numbers = set()
        for box in dom.select("div.exercise"):
            if box.select(".cell_output"):
                problems.append(f"{page.name}: {box.get('id')} shows output before its solution")
            title = box.select_one(".admonition-title")
            numbers |= set(re.findall(r"Exercise (\d+)\.\d+", title.get_text() if title else ""))
        for solution in dom.select("div.solution"):
            if "dropdown" not in solution.get("class", []):
                problems.append(f"{page.name}: {solution.get('id')} is not a dropdown")
        if len(numbers) > 1:
            problems.append(f"{page.name}: exercises numbered in several chapters {numbers}")
    return problems


# (exercise label, a pattern for the numbers its solution's executed output prints): every
# number captured must also appear in the solution's prose on the built page.
PRINTED = [
    ("setbit-offset-ex-1", r"STRLEN ([\d,]+) bytes, MEMORY USAGE ([\d,]+) bytes"),
    ("hyperloglog-ex-1", r"STRLEN (\d+) bytes\s+MEMORY USAGE (\d+) bytes"),
    ("redis-set-memory-ex-1", r"(hashtable) (\d+)"),
]


def solutions_disagreeing(html: Path) -> list[str]:
    """Solutions whose prose does not state the numbers their own executed cells print."""
    wrong = []
    for label, pattern in PRINTED:
        page = html / "book" / f"{label.rsplit('-ex-', 1)[0]}.html"
        dom = BeautifulSoup(page.read_text(), "html.parser")
        link = dom.select_one(f'div.solution .admonition-title a[href="#{label}"]')
        solution = link.find_parent("div", class_="solution")
        printed = " ".join(o.get_text(" ") for o in solution.select(".cell_output"))
        match = re.search(pattern, printed)
        if match is None:
            wrong.append(f"{label}: output {printed[:120]!r} does not match {pattern!r}")
            continue
        for cell in solution.select(".cell"):
            cell.decompose()
        prose = " ".join(solution.get_text(" ").split())
        wrong += [
            f"{label}: prints {n}, prose lacks it" for n in match.groups() if not _states(prose, n)
        ]
    return wrong


def _states(prose: str, value: str) -> bool:
    """Whether ``prose`` says ``value``: a word, or a number with or without thousands commas
    (27496 = 27,496; 20 is not found inside 2,000 or 120)."""
    if not value.replace(",", "").isdigit():
        return value in prose
    number = int(value.replace(",", ""))
    forms = {str(number), f"{number:,}"}
    return any(re.search(rf"(?<![\d,]){re.escape(f)}(?!\d|,\d)", prose) for f in forms)


def visible_answers(html: Path, browser) -> tuple[list[str], int]:
    """Pages where an output shows in an exercise or a closed solution; and how many outputs one
    opened solution shows (it must be more than zero, or the check could not see anything)."""
    shown, opened = [], 0
    pages = sorted(p for p in (html / "book").glob("*.html") if "exercise" in p.read_text())
    with site.serve(html) as base:
        tab = browser.page()
        for page in pages:
            tab.goto(f"{base}book/{page.name}")
            tab.wait_for_load_state("load")
            for selector in ("div.exercise .cell_output", "div.solution .cell_output"):
                if count := tab.evaluate(VISIBLE_OUTPUTS, selector):
                    shown.append(f"{page.name}: {count} visible in {selector}")
            if not opened and tab.locator("div.solution .cell_output").count():
                with_output = tab.locator("div.solution", has=tab.locator(".cell_output")).first
                with_output.locator(".toggle-button, button").first.click()
                tab.wait_for_timeout(500)
                opened = tab.evaluate(VISIBLE_OUTPUTS, "div.solution .cell_output")
        assert browser.outside == []
    return shown, opened


def test_no_exercise_box_shows_its_answer_in_the_html(fake_book_html):
    assert exercise_problems(fake_book_html) == []


def test_no_answer_is_visible_until_its_solution_is_opened(fake_book_html, browser):
    shown, opened = visible_answers(fake_book_html, browser)
    assert shown == []
    assert opened > 0


def test_solutions_state_what_their_cells_printed(fake_book_html):
    assert solutions_disagreeing(fake_book_html) == []
