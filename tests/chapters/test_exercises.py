"""Exercises that do not give the answer away, read from the chapter sources.

An exercise box (``{exercise-start}`` … ``{exercise-end}``) may hold a runnable cell, but the
built page must not show what it prints: the reader predicts first and finds the result in the
solution dropdown. A fill-in-the-blank placeholder must never execute into something that looks
like a result (``bits[...] = False`` clears every bit, and the page printed ``[False False
False]``). Prose points at exercises by label, so a number in the text cannot dangle.
The built site is checked too, in tests/browser/test_site_exercises.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from setlab.chapters import bloom_basics
from setlab.core.formats import format_bytes
from setlab.models import bitmap
from setlab.models import hyperloglog as hll
from setlab.models import redis_memory as rm
from setlab.models.bloom_sim import BloomSimulator
from tests.support.notebooks import BOOK

BOX = re.compile(r"```\{exercise-start\}\n:label: (\S+)\n(.*?)```\{exercise-end\}", re.S)
SOLUTION = r"```\{{solution-start\}} {label}\n(.*?)```\{{solution-end\}}"
CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)
HIDDEN = {"remove-output", "remove-cell", "skip-execution"}


def _pages() -> list[Path]:
    return sorted(p for p in BOOK.glob("*.md") if "{exercise-start}" in p.read_text())


def _tags(cell: str) -> set[str]:
    first = cell.splitlines()[0] if cell else ""
    match = re.match(r":tags:\s*\[(.*)\]", first)
    return {t.strip() for t in match.group(1).split(",")} if match else set()


def _code(cell: str) -> str:
    return "\n".join(line for line in cell.splitlines() if not line.startswith(":tags:"))


def _boxes() -> list[tuple[str, str, str]]:
    """(page, label, box text) for every exercise in the book."""
    return [(p.stem, m.group(1), m.group(2)) for p in _pages() for m in BOX.finditer(p.read_text())]


def _solution(label: str) -> str:
    page = BOOK / f"{label.rsplit('-ex-', 1)[0]}.md"
    match = re.search(SOLUTION.format(label=re.escape(label)), page.read_text(), re.S)
    assert match, f"{label} has no solution on {page.name}"
    return match.group(1)


def _is_placeholder(code: str) -> bool:
    """A cell with a blank for the reader to fill: a bare ``...`` or the name ``___``."""
    return any(
        (isinstance(n, ast.Constant) and n.value is Ellipsis)
        or (isinstance(n, ast.Name) and n.id == "___")
        for n in ast.walk(ast.parse(code))
    )


def test_every_chapter_has_exercises():
    assert len(_pages()) >= 14 and len(_boxes()) >= 40


def test_no_exercise_cell_shows_its_output_before_the_solution():
    shown = [
        label for _, label, box in _boxes() for c in CELL.findall(box) if not _tags(c) & HIDDEN
    ]
    assert shown == []


def test_placeholders_never_execute_into_a_result():
    """A cell with a blank either is not executed, or displays and prints nothing."""
    bad = []
    for _, label, box in _boxes():
        for cell in CELL.findall(box):
            code = _code(cell)
            if not _is_placeholder(code) or "skip-execution" in _tags(cell):
                continue
            tree = ast.parse(code)
            if any(isinstance(s, ast.Expr) for s in tree.body) or "print(" in code:
                bad.append(label)
    assert bad == []


def test_a_blank_that_would_raise_is_never_executed():
    """``___`` stops a reader's run with a NameError, as it should; the build must skip it."""
    for _, label, box in _boxes():
        for cell in CELL.findall(box):
            if "___" in _code(cell):
                assert "skip-execution" in _tags(cell), label


def test_a_hidden_result_is_revealed_in_the_solution():
    """Where the box runs something that displays, its solution shows a result (a cell or a
    glued figure): the reader who opens it can check the prediction."""
    silent = []
    for _, label, box in _boxes():
        for cell in CELL.findall(box):
            code = _code(cell)
            tree = ast.parse(code)
            displays = any(isinstance(s, ast.Expr) for s in tree.body) or "print(" in code
            if displays and "skip-execution" not in _tags(cell):
                solution = _solution(label)
                if "{code-cell}" not in solution and "{glue" not in solution:
                    silent.append(label)
    assert silent == []


def test_every_exercise_has_one_solution():
    for _, label, _ in _boxes():
        assert _solution(label)


def test_prose_points_at_exercises_by_label_and_every_label_exists():
    labels = {label for _, label, _ in _boxes()}
    dangling, by_number = [], []
    for page in sorted(BOOK.glob("*.md")):
        text = page.read_text()
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        bare = re.findall(r"\b[Ee]xercises? \d+\b(?!\.\d)", prose)  # "Exercise 3.2" is fine
        by_number += [f"{page.name}: {m}" for m in bare]
        targets = re.findall(r"\{(?:numref|ref)\}`(?:[^`<]*<)?([a-z0-9-]+-ex-\d+)>?`", text)
        dangling += [f"{page.name}: {t}" for t in targets if t not in labels]
    assert by_number == [] and dangling == []


def test_exercise_labels_follow_their_page_and_count_from_one():
    """``<page>-ex-<n>``, n = 1, 2, … in page order: what the site numbers "Exercise 3.n"."""
    by_page: dict[str, list[str]] = {}
    for page, label, _ in _boxes():
        by_page.setdefault(page, []).append(label)
    for page, labels in by_page.items():
        assert labels == [f"{page}-ex-{i}" for i in range(1, len(labels) + 1)], page


# Numbers a solution states in prose, against the model call its own cell prints. Each entry:
# label, the text the solution must contain, computed from the model the exercise's cell runs.
_STEPS = [0, 8_000, 800_000, 8_000_000]
_SIX_HUNDRED = list(range(600))
STATED = [
    ("setbit-offset-ex-1", lambda: f"{bitmap.bytes_for_offset(2**23 - 1):,} bytes"),
    ("setbit-offset-ex-1", lambda: f"{bitmap.first_setbit_memory_usage(2**23 - 1, 'k'):,} bytes"),
    ("setbit-offset-ex-2",
     lambda: f"{format_bytes(bitmap.bitmap_memory_usage(_STEPS))} of allocation"),
    ("setbit-offset-ex-2",
     lambda: f"takes {format_bytes(bitmap.first_setbit_memory_usage(8_000_000))}"),
    ("hyperloglog-ex-1", lambda: f"= {_one_hll().string_length} bytes long"),
    ("hyperloglog-ex-1", lambda: f"= {_one_hll().cost('k').memory_usage} bytes"),
    ("redis-set-memory-ex-1", lambda: f"so a {rm.set_encoding(_SIX_HUNDRED)}"),
    ("redis-set-memory-ex-1", lambda: f"= {rm.set_cost(_SIX_HUNDRED, 'k').memory_usage:,} bytes"),
]  # fmt: skip


def _one_hll() -> hll.HyperLogLog:
    one = hll.HyperLogLog()
    one.add("x")
    return one


@pytest.mark.parametrize(("label", "expected"), STATED, ids=[s[0] for s in STATED])
def test_a_solution_states_what_its_cell_prints(label, expected):
    text = " ".join(_solution(label).split())
    assert expected() in text


def test_the_no_delete_solution_names_who_shares_alices_bits():
    """bloom-basics ex 3 says carol shares a bit with alice and bob shares none: true of the
    page's demo filter, and clearing alice's bits then loses carol but keeps bob."""
    demo = bloom_basics.demo()
    alice = set(demo.positions["alice"])
    assert alice & set(demo.positions["carol"]) and not alice & set(demo.positions["bob"])
    sim = BloomSimulator(demo.layout)
    sim.add(list(bloom_basics.DEMO_NAMES))
    sim.bits[demo.positions["alice"]] = False
    assert sim.contains(["bob", "carol"]).tolist() == [True, False]
    text = _solution("bloom-basics-ex-3")
    assert "Carol shares a bit with alice" in text and "Bob, who shares nothing" in text
