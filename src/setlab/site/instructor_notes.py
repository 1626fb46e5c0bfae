"""Instructor notes per chapter: what to demo live, where learners stumble, and when to be where.

Each chapter keeps its own notes beside its content (``setlab/chapters/<chapter>/notes.py``, an
:class:`~setlab.chapters.InstructorNotes`); this module gathers them in the book's order and
renders them in the instructor guide (``book/instructors.md``), not on the chapter pages, so
they stay out of a reader's way. The timing checkpoints are not written here: they come from
:mod:`setlab.site.lessons`, which estimates each section's minutes from the chapter's own
words and cells, so they move when the chapter does.
"""

from __future__ import annotations

import importlib

from setlab.chapters import InstructorNotes
from setlab.site import lessons, registry

#: every chapter's notes (``setlab.chapters.<chapter>.notes``), by slug, in the book's order
NOTES: dict[str, InstructorNotes] = {
    slug: importlib.import_module(f"setlab.chapters.{slug.replace('-', '_')}.notes").NOTES
    for slug in registry.CHAPTERS
}


def notes_markdown() -> str:
    """One section per chapter: demo, stumbles, and the timing checkpoints of its teaching."""
    parts = []
    for slug in registry.CHAPTERS:
        c, n = lessons.chapter(slug), NOTES[slug]
        skip = {"Exercises", "Further reading"}
        stops = [(title, minute) for title, minute in c.checkpoints() if title not in skip]
        checkpoints = "; ".join(f"{title} by {minute} min" for title, minute in stops)
        parts += [
            f"(notes-{slug})=",
            f"### {{doc}}`{slug}`",
            "",
            f"- **Demo live:** {n.demo}",
            "- **Where learners stumble:**",
            *[f"  - {s}" for s in n.stumbles],
            f"- **Checkpoints** ({c.teaching_estimate} min of teaching, "
            f"then {c.exercises_estimate} min of exercises): {checkpoints}.",
            "",
        ]
    return "\n".join(parts)
