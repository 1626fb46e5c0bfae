"""Lesson plans for instructors, timed from what each chapter asks a learner to do.

A chapter's minutes are estimated from its own text, by one stated rule, so a chapter that grows
changes every plan that uses it instead of silently overrunning it:

- **teaching**: the prose a learner reads (everything outside code and exercises) at
  ``WORDS_PER_MIN`` words a minute, plus ``MIN_PER_CELL`` for every code cell the page shows
  (running it and looking at its output, figure or table); rounded to ``ROUND_TO`` minutes;
- **an exercise**: ``EXERCISE_BASE_MIN`` (read it, commit to a prediction, compare with the
  solution) plus its words and cells (exercise and solution) at the same rates, rounded up to
  a whole minute.

150 words a minute is a careful reading pace for technical prose (casual reading is ~250); a
minute a cell is what a live demo takes when the instructor comments on each output. Each
chapter's overview line (``**Teaching:** 20 min · **Exercises:** 15 min``) states the same
estimate; a test keeps the two within ``ROUND_TO`` minutes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

BOOK = Path(__file__).resolve().parents[3] / "book"
WORDS_PER_MIN = 150  #: words of technical prose a learner reads in a minute
MIN_PER_CELL = 1.0  #: minutes to run one shown cell and look at what it shows
EXERCISE_BASE_MIN = 4  #: minutes to read an exercise, predict, and check against the solution
ROUND_TO = 5  #: chapter estimates are rounded to this many minutes

_TIMING = re.compile(r"\*\*Teaching:\*\*\s*(\d+)\s*min\s*·\s*\*\*Exercises:\*\*\s*(\d+)\s*min")
_TITLE = re.compile(r"^# (.+)$", re.M)
_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
_BOX = re.compile(
    r"```\{exercise-start\}\n:label: (\S+)\n(.*?)```\{exercise-end\}\n```\s*"
    r"```\{solution-start\}[^\n]*\n(.*?)```\{solution-end\}\n```",
    re.S,
)
_CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)
_FENCE = re.compile(r"```.*?```", re.S)


def _words(text: str) -> int:
    """Words a reader reads: prose and literal code blocks, not executable cells or directive
    options (``:label:``, ``:class:``)."""
    text = _CELL.sub(" ", text).replace("```", " ")
    return sum(len(line.split()) for line in text.splitlines() if not line.startswith(":"))


def _shown_cells(text: str) -> int:
    """Code cells that appear on the page (a ``remove-cell`` is bookkeeping, never seen)."""
    return sum(1 for c in _CELL.findall(text) if "remove-cell" not in c.split("\n", 1)[0])


def _round(minutes: float, step: int = ROUND_TO) -> int:
    """Round half up to a multiple of ``step`` minutes, never below one step."""
    return max(step, math.floor(minutes / step + 0.5) * step)


@dataclass(frozen=True)
class Exercise:
    label: str
    words: int  #: words of the exercise and its solution
    cells: int  #: code cells in the exercise and its solution

    @property
    def minutes(self) -> int:
        """Estimated minutes in class (the module's rule), rounded up to a whole minute."""
        raw = EXERCISE_BASE_MIN + self.words / WORDS_PER_MIN + self.cells * MIN_PER_CELL
        return math.ceil(raw)


@dataclass(frozen=True)
class Chapter:
    slug: str
    title: str
    teaching_min: int  #: as the overview line states it
    exercises_min: int  #: as the overview line states it
    exercises: tuple[str, ...]  #: exercise labels, in order
    words: int = 0  #: teaching words (outside exercises)
    cells: int = 0  #: teaching cells shown (outside exercises)
    timed: tuple[Exercise, ...] = ()
    sections: tuple[tuple[str, float], ...] = field(default=(), repr=False)

    @property
    def total_min(self) -> int:
        return self.teaching_min + self.exercises_min

    @property
    def teaching_estimate(self) -> int:
        """Teaching minutes by the module's rule, rounded to ``ROUND_TO``."""
        return _round(self.words / WORDS_PER_MIN + self.cells * MIN_PER_CELL)

    @property
    def exercises_estimate(self) -> int:
        """All exercises' minutes by the module's rule, rounded to ``ROUND_TO``."""
        return _round(sum(e.minutes for e in self.timed))

    def teaching_without(self, skip: tuple[str, ...]) -> int:
        """Teaching minutes with the sections titled ``skip`` left out, rounded to ``ROUND_TO``."""
        ends = dict(self.sections)
        unknown = [title for title in skip if title not in ends]
        if unknown:
            raise ValueError(f"skip={unknown!r}: {self.slug} has sections {list(ends)}")
        starts = {
            t: self.sections[i - 1][1] if i else 0.0 for i, (t, _) in enumerate(self.sections)
        }
        skipped = sum(ends[title] - starts[title] for title in skip)
        raw = self.words / WORDS_PER_MIN + self.cells * MIN_PER_CELL
        return _round(raw - skipped)

    def exercise_minutes(self, labels: tuple[str, ...]) -> int:
        """Minutes for the exercises named (labels of this chapter)."""
        known = {e.label: e for e in self.timed}
        missing = [label for label in labels if label not in known]
        if missing:
            raise ValueError(f"exercises={missing!r}: {self.slug} has {sorted(known)}")
        return sum(known[label].minutes for label in labels)

    def checkpoints(self) -> list[tuple[str, int]]:
        """(section title, minute of the teaching time by which it should be done), in order."""
        scale = self.teaching_estimate / max(self.sections[-1][1], 1e-9) if self.sections else 0
        return [(title, round(end * scale)) for title, end in self.sections]


def _sections(teaching: str) -> tuple[tuple[str, float], ...]:
    """Each ``## `` section with the raw minute (the rule, unrounded) at which it ends."""
    out, elapsed = [], 0.0
    for part in re.split(r"^(?=## )", teaching, flags=re.M):
        elapsed += _words(part) / WORDS_PER_MIN + _shown_cells(part) * MIN_PER_CELL
        if part.startswith("## "):
            out.append((part.splitlines()[0][3:].strip(), elapsed))
    return tuple(out)


def chapter(slug: str, book: Path = BOOK) -> Chapter:
    """Read one chapter's title, stated timing, exercises, and what the estimate counts."""
    path = book / f"{slug}.md"
    if not path.is_file():
        raise ValueError(f"no chapter {slug!r}: {path} does not exist")
    text = _FRONT.sub("", path.read_text())
    timing = _TIMING.search(text)
    title = _TITLE.search(text)
    if timing is None or title is None:
        raise ValueError(f"{path} has no '# Title' or no '**Teaching:** N min' overview line")
    timed = tuple(
        Exercise(m.group(1), _words(m.group(2) + m.group(3)),
                 len(_CELL.findall(m.group(2) + m.group(3))))
        for m in _BOX.finditer(text)
    )  # fmt: skip
    teaching = _BOX.sub(" ", text)
    return Chapter(
        slug, title.group(1).strip(), int(timing.group(1)), int(timing.group(2)),
        tuple(e.label for e in timed), _words(teaching), _shown_cells(teaching), timed,
        _sections(teaching),
    )  # fmt: skip


@dataclass(frozen=True)
class Slot:
    """One chapter in a plan: its teaching (less any sections skipped), and the exercises done
    in class."""

    slug: str
    exercises: tuple[int, ...] | None = None  #: exercise numbers on the page; None = all
    skip: tuple[str, ...] = ()  #: section titles left for reading after the session

    def labels(self, c: Chapter) -> tuple[str, ...]:
        if self.exercises is None:
            return c.exercises
        return tuple(f"{self.slug}-ex-{n}" for n in self.exercises)


#: when a plan's clock starts (the guide's schedule reads as a day from 09:00)
START_MIN = 9 * 60


@dataclass(frozen=True)
class Plan:
    name: str
    budget_min: int  #: the session's length
    setup_min: int  #: checking every participant's machine, at the start
    breaks: tuple[tuple[int, int, str], ...]  #: (after how many slots, minutes, what) each
    slots: tuple[Slot, ...]
    focus: str

    @property
    def chapters(self) -> tuple[str, ...]:
        return tuple(s.slug for s in self.slots)

    @property
    def break_min(self) -> int:
        return sum(minutes for _, minutes, _ in self.breaks)

    def schedule(self, book: Path = BOOK) -> list[tuple[int, int, str]]:
        """(start, end, what) in minutes of the day from :data:`START_MIN`: the setup check,
        each chapter's teaching and in-class exercises, and the breaks where they fall."""
        clock, out = START_MIN, []

        def add(minutes: int, what: str) -> None:
            nonlocal clock
            out.append((clock, clock + minutes, what))
            clock += minutes

        add(self.setup_min, "setup")
        for n, (c, _, teaching, exercises) in enumerate(self.rows(book), 1):
            add(teaching + exercises, c.slug)
            for after, minutes, what in self.breaks:
                if after == n:
                    add(minutes, what)
        return out

    def rows(self, book: Path = BOOK) -> list[tuple[Chapter, tuple[str, ...], int, int]]:
        """(chapter, exercise labels done in class, teaching minutes, exercise minutes)."""
        out = []
        for slot in self.slots:
            c = chapter(slot.slug, book)
            labels = slot.labels(c)
            teaching = c.teaching_without(slot.skip)
            out.append((c, labels, teaching, c.exercise_minutes(labels)))
        return out

    def total_min(self, book: Path = BOOK) -> int:
        """Setup, breaks, and each chapter's estimated teaching and in-class exercises."""
        return self.setup_min + self.break_min + sum(t + e for _, _, t, e in self.rows(book))


def _clock(start: int, end: int) -> str:
    return f"{start // 60:02d}:{start % 60:02d}–{end // 60:02d}:{end % 60:02d}"


PLANS = [
    Plan("90 minutes", 90, 5, (),
         (Slot("setbit-offset", (1,), skip=("The hard limit",)),
          Slot("string-plus-set", (), skip=("A crash between the database and Redis",
                                            "Memory: one user's set and the counters")),
          Slot("choosing", (1,), skip=("Your numbers",))),
         "the incident, the fix, and the choice: why the first like stalled Redis, what replaced "
         "it, and how to pick a structure from a histogram of your IDs"),
    Plan("half a day", 240, 10, ((4, 15, "break"),),
         (Slot("setbit-offset", (1,)), Slot("birthday-collisions", (1,)),
          Slot("one-slow-command", (1,)),
          Slot("string-plus-set", (1,), skip=("A crash between the database and Redis",)),
          Slot("bloom-basics", (1,)), Slot("nk-vs-m-saturation", (1,)),
          Slot("choosing", (1,), skip=("Your numbers",))),
         "Part I's failure modes and its fix, how a Bloom filter works and saturates, then "
         "choosing"),
    Plan("a full day", 420, 15, ((3, 15, "break"), (5, 30, "lunch"), (7, 15, "break")),
         (Slot("setbit-offset", (1, 2)), Slot("birthday-collisions", (1, 2)),
          Slot("snowflake-ranges", (2,)), Slot("one-slow-command", (1,)),
          Slot("bloom-basics", (1, 2)), Slot("nk-vs-m-saturation", (1,)),
          Slot("redis-set-memory", (1,)), Slot("string-plus-set", (1, 2)),
          Slot("choosing", (1, 3))),
         "Part I, the Bloom filter and what a SET costs, then the fix and choosing; the other "
         "chapters as further reading"),
]  # fmt: skip


def plans_markdown(book: Path = BOOK) -> str:
    """One table per plan: the clock time of each slot from 09:00, chapters with their estimated
    minutes, breaks where they fall, and the total against the budget."""
    parts = [
        f"Minutes are estimated from each chapter's text: {WORDS_PER_MIN} words of prose a minute, "
        f"{MIN_PER_CELL:g} min per code cell shown, and {EXERCISE_BASE_MIN} min per exercise plus "
        "its own words and cells. Exercises not done in class are homework. The clock reads as a "
        f"session starting at {_clock(START_MIN, START_MIN)[:5]}: shift it to yours.",
        "",
    ]
    for plan in PLANS:
        parts += [
            f"### {plan.name[0].upper()}{plan.name[1:]}",
            "",
            f"{plan.focus[0].upper()}{plan.focus[1:]}.",
            "",
            "| time | slot | teaching | exercises in class |",
            "|:--|:--|--:|--:|",
        ]
        chapters = iter(zip(plan.rows(book), plan.slots, strict=True))
        for start, end, what in plan.schedule(book):
            when = _clock(start, end)
            if what == "setup":
                parts.append(
                    f"| {when} | setup check (`setlab doctor` on every machine) | "
                    f"{end - start} min | |"
                )
            elif what in plan.chapters:
                (c, labels, teaching, exercises), slot = next(chapters)
                refs = ", ".join(f"{{numref}}`{label}`" for label in labels)
                done = f"{exercises} min ({refs})" if labels else "all as homework"
                left = f" (for later: {'; '.join(slot.skip)})" if slot.skip else ""
                parts.append(f"| {when} | {{doc}}`{c.slug}`{left} | {teaching} min | {done} |")
            else:
                parts.append(f"| {when} | *{what}* | {end - start} min | |")
        parts += [
            "",
            f"Total: **{plan.total_min(book)} min** of a {plan.budget_min}-minute slot.",
            "",
        ]
    return "\n".join(parts)


def estimates_markdown(slugs: list[str], book: Path = BOOK) -> str:
    """Each chapter's words, cells and estimated minutes, with the overview's stated minutes."""
    lines = [
        "| chapter | words | cells | teaching | exercises | stated |",
        "|:--|--:|--:|--:|--:|--:|",
    ]
    for slug in slugs:
        c = chapter(slug, book)
        lines.append(
            f"| {{doc}}`{slug}` | {c.words:,} | {c.cells} | {c.teaching_estimate} min | "
            f"{c.exercises_estimate} min | {c.teaching_min} + {c.exercises_min} min |"
        )
    return "\n".join(lines)
