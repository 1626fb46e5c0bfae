"""setlab.site.calculators finds every chapter's calculator rather than listing it: the chapter's
widget.py, its one public function returning a Widget, and the setlab calc calculator the
widget's terminal line names. Compared here with an independent listing (the widget.py files on
disk, the registry of setlab calc), and refusing, on planted modules and widgets, what it cannot
find."""

from __future__ import annotations

import types
from pathlib import Path

import altair as alt
import pytest

import setlab.chapters
from setlab.render.widgets import Command, Control, Readout, Widget
from setlab.site import calculators
from setlab.site.registry import CHAPTERS
from setlab.tools import calc


@pytest.fixture(scope="module")
def pages():
    return calculators.calculators()


def test_every_chapter_with_a_widget_module_has_a_calculator_in_the_books_order(pages):
    on_disk = {p.parent.name for p in Path(setlab.chapters.__file__).parent.glob("*/widget.py")}
    assert {p.chapter.replace("-", "_") for p in pages} == on_disk
    assert [p.chapter for p in pages] == sorted((p.chapter for p in pages), key=CHAPTERS.index)
    assert len({p.widget.slug for p in pages}) == len(pages)


def test_every_widget_names_a_calculator_of_setlab_calc(pages):
    for page in pages:
        assert page.calculator in calc.CALCULATORS, page.widget.slug
        assert page.command.startswith(f"setlab calc {page.calculator.name} "), page.command


def test_the_calculators_table_shows_each_widgets_title_question_and_line(pages):
    rows = calculators.index_markdown().splitlines()[2:]
    assert len(rows) == len(pages)
    for row, page in zip(rows, pages, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells == [
            f"{{ref}}`{page.widget.title} <calc-{page.widget.slug}>`",
            page.calculator.help,
            f"{{doc}}`{page.chapter}`",
            f"`{page.command}`",
        ]


def _widget(*commands: str) -> Widget:
    return Widget(
        "planted", "Planted", alt.Chart(alt.Data(values=[{}])).mark_point(),
        [Control("n", "n", 5, 1, 10, integer=True)],
        [Readout("twice", "twice", "2 * n", lambda s: 2 * s["n"], kind="int")], "c", "formula",
        commands=[Command("line:", c) for c in commands],
    )  # fmt: skip


def _module(*functions) -> types.ModuleType:
    module = types.ModuleType("setlab.chapters.planted.widget")
    for f in functions:
        f.__module__ = module.__name__
        setattr(module, f.__name__, f)
    return module


def test_a_widget_module_must_have_exactly_one_public_builder():
    def figure() -> Widget:
        return _widget("setlab calc hll -n {n}")

    def another() -> Widget:
        return _widget("setlab calc hll -n {n}")

    def _private() -> Widget:
        return _widget()

    def helper(x: int) -> int:
        return x

    assert calculators.builder(_module(figure, _private, helper)) is figure
    with pytest.raises(ValueError, match=r"one public function returning a Widget .*got 2"):
        calculators.builder(_module(figure, another))
    with pytest.raises(ValueError, match="got 0"):
        calculators.builder(_module(_private, helper))


def test_a_widget_must_name_a_calculator_setlab_calc_has():
    found = calculators.page_calculator("choosing", lambda: _widget("setlab calc hll -n {n}"))
    assert found.calculator is calc.named("hll")
    assert found.command == calc.named("hll").example  # the declaration's, not the widget's line
    with pytest.raises(ValueError, match="has no setlab calc line"):
        calculators.page_calculator("choosing", lambda: _widget("PFADD k {n}"))
    with pytest.raises(ValueError, match=r"calculator must be one of .*got 'nope'"):
        calculators.page_calculator("choosing", lambda: _widget("setlab calc nope -n {n}"))
