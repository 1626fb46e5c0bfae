"""A failed figure test names where its figures are defined (tests/support/figure_names.py),
also for a name an f-string builds, which no grep for the name finds."""

from __future__ import annotations

import re
from pathlib import Path

from setlab.site import registry
from tests.support.figure_names import figure_locations

SRC = Path(__file__).resolve().parents[2] / "src"


def _line(location: str) -> str:
    path, line = location.rsplit(":", 1)
    return (SRC / path).read_text().splitlines()[int(line) - 1]


def test_a_literal_name_is_located_at_the_line_that_adds_it():
    (found,) = figure_locations('assert FIGURES["bb-mem-1"] == "915 MiB"')
    name, location = found.split(": ")
    assert name == "bb-mem-1" and location.startswith("setlab/chapters/bloom_basics/__init__.py:")
    assert 'FIGURES.add("bb-mem-1"' in _line(location)


def test_every_name_an_f_string_builds_is_located_at_a_line_that_registers_figures():
    src = "\n".join(p.read_text() for p in (SRC / "setlab").rglob("*.py"))
    built = [
        name
        for chapter in registry.CHAPTERS
        for name in registry.figures(chapter).names()
        if f'"{name}"' not in src
    ]
    assert len(built) > 50  # names no grep finds: the reason for this
    for name in built:
        (found,) = figure_locations(f"AssertionError: {name} drifted")
        assert re.search(r"FIGURES\.(add|figure)\(|\.add\(", _line(found.split(": ")[1])), found


def test_names_that_are_no_figure_are_left_out_and_each_figure_is_named_once():
    text = "bloom-basics says bb-mem-1 and bb-mem-01, then bb-mem-1 again; not-a-figure"
    assert [f.split(":")[0] for f in figure_locations(text)] == ["bb-mem-1", "bb-mem-01"]
