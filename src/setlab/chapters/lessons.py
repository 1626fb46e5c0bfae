"""Lesson plans for instructors, computed from the chapters themselves.

Every chapter's overview states its teaching and exercise time (``**Teaching:** 20 min ·
**Exercises:** 15 min``); the plans below are lists of chapters, and their durations are summed
from those lines, so a chapter that grows changes the plan's total instead of silently
overrunning it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

BOOK = Path(__file__).resolve().parents[3] / "book"
_TIMING = re.compile(r"\*\*Teaching:\*\*\s*(\d+)\s*min\s*·\s*\*\*Exercises:\*\*\s*(\d+)\s*min")
_TITLE = re.compile(r"^# (.+)$", re.M)
_EXERCISE = re.compile(r":label: (\S+-ex-\d+)")


@dataclass(frozen=True)
class Chapter:
    slug: str
    title: str
    teaching_min: int
    exercises_min: int
    exercises: tuple[str, ...]  #: exercise labels, in order

    @property
    def total_min(self) -> int:
        return self.teaching_min + self.exercises_min


def chapter(slug: str, book: Path = BOOK) -> Chapter:
    """Read one chapter's title, timing line and exercise labels."""
    path = book / f"{slug}.md"
    if not path.is_file():
        raise ValueError(f"no chapter {slug!r}: {path} does not exist")
    text = path.read_text()
    timing = _TIMING.search(text)
    title = _TITLE.search(text)
    if timing is None or title is None:
        raise ValueError(f"{path} has no '# Title' or no '**Teaching:** N min' overview line")
    return Chapter(
        slug, title.group(1).strip(), int(timing.group(1)), int(timing.group(2)),
        tuple(_EXERCISE.findall(text)),
    )  # fmt: skip


@dataclass(frozen=True)
class Plan:
    name: str
    budget_min: int  #: the session's length
    setup_min: int  #: checking every participant's machine, at the start
    break_min: int
    chapters: tuple[str, ...]
    focus: str

    def load(self, book: Path = BOOK) -> list[Chapter]:
        return [chapter(s, book) for s in self.chapters]

    def total_min(self, book: Path = BOOK) -> int:
        """Setup, breaks and every chapter's teaching and exercises, in minutes."""
        return self.setup_min + self.break_min + sum(c.total_min for c in self.load(book))


PLANS = [
    Plan("90 minutes", 90, 10, 0, ("setbit-offset", "string-plus-set"),
         "the incident and the fix: why the first like stalled Redis, and what replaced it"),
    Plan("half a day", 240, 15, 20,
         ("setbit-offset", "birthday-collisions", "one-slow-command", "bloom-basics",
          "nk-vs-m-saturation"),
         "Part I's failure modes, then how a Bloom filter works and how it saturates"),
    Plan("a full day", 420, 15, 75,
         ("setbit-offset", "birthday-collisions", "snowflake-ranges", "one-slow-command",
          "string-plus-set", "bloom-basics", "nk-vs-m-saturation", "choosing"),
         "Part I, the Bloom filter, and choosing; the other chapters as further reading"),
]  # fmt: skip


def plans_markdown(book: Path = BOOK) -> str:
    """One table per plan: chapters, minutes each, and the total against the budget."""
    parts = []
    for plan in PLANS:
        rows = plan.load(book)
        parts += [
            f"### {plan.name}: {plan.focus}",
            "",
            "| slot | teaching | exercises |",
            "|:--|--:|--:|",
            f"| setup check (`setlab doctor` on every machine) | {plan.setup_min} min | |",
        ]
        for c in rows:
            labels = ", ".join(f"{{ref}}`{label}`" for label in c.exercises)
            parts.append(
                f"| {{doc}}`{c.slug}` | {c.teaching_min} min | {c.exercises_min} min ({labels}) |"
            )
        if plan.break_min:
            parts.append(f"| breaks | {plan.break_min} min | |")
        parts += [
            "",
            f"Total: **{plan.total_min(book)} min** of a {plan.budget_min}-minute slot.",
            "",
        ]
    return "\n".join(parts)
