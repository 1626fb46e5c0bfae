"""The instructor guide's plans fit their slots and name real chapters and exercises."""

import pytest

from setlab.chapters import lessons
from tests.test_book import ROOT


@pytest.mark.parametrize("plan", lessons.PLANS, ids=lambda p: p.name)
def test_every_plan_fits_its_slot(plan):
    assert plan.total_min() <= plan.budget_min
    toc = (ROOT / "_toc.yml").read_text()
    assert all(f"book/{slug}" in toc for slug in plan.chapters)


def test_every_chapter_states_its_timing_and_has_two_exercises():
    toc = (ROOT / "_toc.yml").read_text()
    slugs = [line.split("book/")[1].strip() for line in toc.splitlines() if "file: book/" in line]
    appendices = {"index", "errata", "status", "glossary", "instructors", "references"}
    for slug in slugs:
        if slug in appendices:
            continue
        c = lessons.chapter(slug)
        assert c.teaching_min > 0 and c.exercises_min > 0, slug
        assert len(c.exercises) >= 2, slug


def test_timing_is_read_from_the_overview_line(tmp_path):
    (tmp_path / "x.md").write_text(
        "# A title\n**Teaching:** 12 min · **Exercises:** 8 min\n:label: x-ex-1\n:label: x-ex-2\n"
    )
    c = lessons.chapter("x", tmp_path)
    assert (c.title, c.total_min, c.exercises) == ("A title", 20, ("x-ex-1", "x-ex-2"))


def test_a_chapter_without_timing_is_a_clear_error(tmp_path):
    (tmp_path / "y.md").write_text("# No timing\n")
    with pytest.raises(ValueError, match="Teaching"):
        lessons.chapter("y", tmp_path)
    with pytest.raises(ValueError, match="no chapter"):
        lessons.chapter("missing", tmp_path)
