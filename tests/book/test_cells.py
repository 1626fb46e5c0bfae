"""Pages stay thin: a chapter opens in at most three visible lines (``lab = chapter.start()``),
and no cell of any page runs more than ten lines of logic (imports are not logic: a page imports
where it first uses a name); longer code belongs in the package, with a test. Read from the MyST
sources, and shown failing on planted cells."""

from __future__ import annotations

import re

import pytest

from setlab.site.registry import CHAPTERS
from tests.book.test_book import ROOT

#: a MyST code cell: its option lines (``:tags: …``) and its source
_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.S | re.M)
#: a cell's options as a YAML block at its top (MyST-NB: ``---`` … ``---``)
_YAML_OPTIONS = re.compile(r"\A---\n.*?^---\n", re.S | re.M)
_IMPORT = re.compile(r"(import|from) [\w.]+( |$)")
FIRST_CELL_LINES = 3
CELL_LINES = 10


def visible_lines(cell: str) -> list[str]:
    """The lines of a cell's source a reader reads: not blank, not a comment, not a MyST option
    (a ``:key: value`` line, or the ``---`` YAML block of a figure's caption). A call split over
    several lines counts every line (a long call is long)."""
    cell = _YAML_OPTIONS.sub("", cell)
    return [
        line
        for line in cell.splitlines()
        if line.strip() and not line.lstrip().startswith("#") and not line.startswith(":")
    ]


def logic_lines(cell: str) -> list[str]:
    """:func:`visible_lines` but the imports."""
    return [line for line in visible_lines(cell) if not _IMPORT.match(line)]


def code_cells(text: str) -> list[str]:
    """Every code cell's source in a MyST page, in page order."""
    return _CELL.findall(text)


def _pages() -> list[str]:
    return sorted(p.stem for p in (ROOT / "book").glob("*.md") if code_cells(p.read_text()))


@pytest.mark.parametrize("slug", CHAPTERS)
def test_a_chapter_opens_in_at_most_three_lines(slug):
    first = code_cells((ROOT / "book" / f"{slug}.md").read_text())[0]
    lines = visible_lines(first)
    assert len(lines) <= FIRST_CELL_LINES, "\n".join(lines)
    assert any(re.fullmatch(r"lab = chapter\.start\(\)", line) for line in lines), lines


@pytest.mark.parametrize("slug", _pages())
def test_no_cell_runs_more_than_ten_lines_of_logic(slug):
    long = {
        n: len(lines)
        for n, cell in enumerate(code_cells((ROOT / "book" / f"{slug}.md").read_text()), 1)
        if len(lines := logic_lines(cell)) > CELL_LINES
    }
    assert long == {}, f"cells over {CELL_LINES} lines (cell number: lines): {long}"


def test_the_line_count_sees_what_a_cell_runs_and_nothing_else():
    page = (
        "Prose with `code` in it.\n\n"
        "```{code-cell} ipython3\n:tags: [remove-input]\n# a comment\n\n"
        "from a import b\nimport c\nx = f(\n    1,\n)\n```\n"
        "```python\nnot = a_cell\n```\n"
        "```{code-cell} ipython3\n" + "y = 1\n" * 11 + "```\n"
        "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: |\n      Words.\n---\n"
        "plot()\n```\n"
    )
    first, second, third = code_cells(page)
    assert visible_lines(third) == ["plot()"]
    assert visible_lines(first) == ["from a import b", "import c", "x = f(", "    1,", ")"]
    assert logic_lines(first) == ["x = f(", "    1,", ")"]
    assert len(logic_lines(second)) == 11 > CELL_LINES
