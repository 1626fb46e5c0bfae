"""The book's in-page calculators, found rather than listed: every chapter whose package has a
``widget.py`` shows one, built by that module's one public function returning a
:class:`~setlab.render.widgets.Widget`, and the widget names its ``setlab calc`` calculator in
its line for the terminal (:attr:`Widget.calculator`), declared in :mod:`setlab.tools.calc`.

Nothing is restated here: the calculators page (``book/calculators.md``, :func:`index_markdown`)
shows each widget's own title, the question its calculator's declaration answers (the line
``setlab calc --help`` lists) and the line to try in a terminal (its declaration's example).
The line under each chapter's title (``book/_ext/setlab_slides.py``) reads the page's own
``(calc-<widget>)=`` heading, which each chapter puts just before the widget's cell.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from setlab.render.widgets import Widget
from setlab.site.registry import CHAPTERS
from setlab.tools import calc
from setlab.tools.calc.calculator import Calculator


@dataclass(frozen=True)
class PageCalculator:
    """One chapter's widget, with the ``setlab calc`` calculator it shows."""

    chapter: str  #: the chapter that holds it
    build: Callable[[], Widget]  #: the function of the chapter's ``widget.py`` that builds it
    widget: Widget
    calculator: Calculator

    @property
    def label(self) -> str:
        """The anchor of the widget's heading in the chapter: ``calc-<widget slug>``."""
        return f"calc-{self.widget.slug}"

    @property
    def command(self) -> str:
        """A line to try in a terminal: the calculator's example (its declaration's)."""
        return self.calculator.example


def widget_module(chapter: str) -> ModuleType | None:
    """The ``widget`` module of ``chapter``'s package, or None when the chapter has none."""
    package = "setlab.chapters." + chapter.replace("-", "_")
    if importlib.util.find_spec(f"{package}.widget") is None:
        return None
    return importlib.import_module(f"{package}.widget")


def builder(module: ModuleType) -> Callable[[], Widget]:
    """The one public function of a chapter's ``widget`` module annotated to return a
    :class:`Widget`: the cell under the calculator's heading calls it. A ``ValueError`` when
    there is none, or more than one."""
    found = [
        f for name, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module.__name__ and not name.startswith("_")
        and f.__annotations__.get("return") in (Widget, "Widget")
    ]  # fmt: skip
    if len(found) != 1:
        names = [f.__name__ for f in found]
        raise ValueError(f"{module.__name__} must have one public function returning a Widget "
                         f"(its calculator); got {len(found)}: {names}")  # fmt: skip
    return found[0]


def page_calculator(chapter: str, build: Callable[[], Widget]) -> PageCalculator:
    """``chapter``'s widget built by ``build``, with the calculator it names; a ``ValueError``
    when it names none, or one ``setlab calc`` does not have."""
    widget = build()
    if widget.calculator is None:
        raise ValueError(f"widget {widget.slug!r} of chapter {chapter} has no setlab calc line "
                         "(commands=[Command(…, 'setlab calc <name> …')])")  # fmt: skip
    return PageCalculator(chapter, build, widget, calc.named(widget.calculator))


@cache
def calculators() -> tuple[PageCalculator, ...]:
    """Every chapter's calculator, in the book's order (each widget built once)."""
    found = []
    for chapter in CHAPTERS:
        module = widget_module(chapter)
        if module is not None:
            found.append(page_calculator(chapter, builder(module)))
    return tuple(found)


def index_markdown() -> str:
    """The calculators page's table: one row per calculator, in the book's order."""
    rows = [
        "| calculator | what it answers | chapter | the same in a terminal |",
        "|:--|:--|:--|:--|",
    ]
    for page in calculators():
        rows.append(
            f"| {{ref}}`{page.widget.title} <{page.label}>` | {page.calculator.help} "
            f"| {{doc}}`{page.chapter}` | `{page.command}` |"
        )
    return "\n".join(rows)
