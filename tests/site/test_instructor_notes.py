"""Instructor notes: every chapter has them, and their checkpoints come from the timing rule."""

import pytest

from setlab.site import instructor_notes, lessons, registry


def test_every_chapter_has_notes_with_a_demo_and_stumbles():
    assert sorted(instructor_notes.NOTES) == sorted(registry.CHAPTERS)
    for slug, notes in instructor_notes.NOTES.items():
        assert notes.demo and len(notes.stumbles) >= 2, slug


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_checkpoints_follow_the_chapter_and_end_at_its_teaching_time(slug):
    c = lessons.chapter(slug)
    minutes = [m for _, m in c.checkpoints()]
    assert minutes == sorted(minutes)
    assert minutes[-1] == c.teaching_estimate
    headings = [line[3:].strip() for line in c_text(slug).splitlines() if line.startswith("## ")]
    assert [t for t, _ in c.checkpoints()] == headings


def c_text(slug: str) -> str:
    return (lessons.BOOK / f"{slug}.md").read_text()


def test_the_notes_render_every_chapter_with_its_checkpoints():
    text = instructor_notes.notes_markdown()
    for slug in registry.CHAPTERS:
        c = lessons.chapter(slug)
        assert f"### {{doc}}`{slug}`" in text
        assert f"({c.teaching_estimate} min of teaching, then {c.exercises_estimate} min" in text


def test_the_guide_says_who_the_sessions_are_for_and_what_to_know_first():
    """An instructor deciding whether the book suits a room reads the audience and the
    prerequisites before the plans."""
    text = (lessons.BOOK / "instructors.md").read_text()
    head = text.index("## Who it is for, and what to know first")
    assert head < text.index("## Lesson plans")
    section = text[head : text.index("## Lesson plans")]
    assert "**Audience.**" in section and "**Prerequisites.**" in section
    assert "(participant-setup)" in section  # the prerequisites link the setup steps
