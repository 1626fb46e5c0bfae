"""The one Claim/Verdict type, and a chapter's figures: every number has exactly one source.

A chapter module (``setlab.chapters.<slug>``) creates one :class:`Figures` and registers on it

- **figures**: named, computed strings (``"640 MiB"``, ``"765 ms inside Redis"``), each from a
  model in ``setlab.models`` or from a stored reference run, computed once and cached;
- **claims**: one :class:`Claim` per quantitative sentence of a field report, whose "ours" is a
  template over those figure names (``"{sb-first-ms} inside Redis"``).

The chapter's prose glues the same figures (``figures.glue()`` in its first cell, then
``{glue:text}`sb-first-ms``` in the text), its verdict table renders the claims, and the errata
collects every chapter's claims. Prose and table cannot drift apart: they read one value.

Figures are pure (models and stored data), so a page reads the same on every backend. What a
live server measures on this run is shown beside them, labelled "this run", never instead. Being
pure, a figure computed once is kept (:mod:`setlab.core.figure_cache`, keyed by the package's
fingerprint) and read back by every later process of the same package.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum

from setlab.core.figure_cache import FigureCache

#: "ours" of an entry marked :attr:`Verdict.NOT_JUDGED`: the book shows no figure of its own
NO_FIGURE = "—"

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_SLOT = re.compile(r"\{([a-z0-9]+(?:-[a-z0-9]+)*)\}")
#: a registry id as a reason names it: ``<seed>-<short-name>`` (``000-alloc-1e9``, ``002-2^16``)
CLAIM_ID = re.compile(r"\b\d{3}-[A-Za-z0-9^._-]*[A-Za-z0-9]")


class Verdict(Enum):
    """What we conclude about a seed's claim."""

    CORRECT = "correct"
    WRONG = "wrong"
    IMPRECISE = "imprecise"
    DEPENDS = "depends"
    OTHER_REASON = "right for another reason"
    #: not a verdict: a seed sentence the book deliberately leaves unjudged (its registry entry
    #: says why); counted apart, never as correct or wrong
    NOT_JUDGED = "not judged"

    @property
    def judged(self) -> bool:
        """Whether this is a verdict at all (every member but :attr:`NOT_JUDGED`)."""
        return self is not Verdict.NOT_JUDGED

    @property
    def css(self) -> str:
        """The CSS class that colours this verdict on the site."""
        return {
            "correct": "verdict-right",
            "wrong": "verdict-wrong",
            "not judged": "verdict-none",
        }.get(self.value, "verdict-other")

    @property
    def meaning(self) -> str:
        """One sentence defining the verdict word (the errata's legend)."""
        return _MEANINGS[self]

    def badge(self) -> str:
        """The verdict as coloured inline HTML, for Markdown tables."""
        return f'<span class="{self.css}">{self.value}</span>'


#: The rubric's tolerances, as ratios of the larger to the smaller figure (ours against the
#: seed's, like with like): within CLOSE a figure is right (a seed rounds, "~12 MB" for 11.9
#: MiB); from FAR on it is wrong (an order of magnitude or more). Between, it is imprecise.
CLOSE = 1.2
FAR = 10.0

_MEANINGS = {
    Verdict.CORRECT: f"the figure is within a factor of {CLOSE:g} of ours and its reason holds, "
    "at the seed's scale and in its context",
    Verdict.WRONG: f"the figure is a factor of {FAR:g} or more off, points the wrong way, or the "
    "statement does not hold (a command the module refuses, a type that does not exist); ours "
    "shows what does",
    Verdict.IMPRECISE: "the right direction and order of magnitude, but off by more than a factor "
    f"of {CLOSE:g}: enough to change a sizing or a timeout",
    Verdict.DEPENDS: "true on some machines, versions or workloads and not others; we say which, "
    "and the range we give holds our own best figure",
    Verdict.OTHER_REASON: f"the figure is within a factor of {CLOSE:g} of ours, but not for the "
    "reason the seed gives",
    Verdict.NOT_JUDGED: "not a verdict: no measurement or computation on this machine can decide "
    "the sentence (an author's business figure, a remark, a client the lab cannot run); the entry "
    "says which",
}


@dataclass(frozen=True)
class Claim:
    """One sentence of a seed (its registry entry): its figure, ours beside it, and what we
    conclude — or, with :attr:`Verdict.NOT_JUDGED`, why the book does not judge it.

    Attributes:
        id: stable identifier, ``<seed>-<short-name>``.
        seed: seed file number ("000", "002", "003", "004").
        section: where in the seed, e.g. "§1".
        chapter: slug of the chapter that checks it.
        claim: the claim in our words.
        seed_figure: the seed's figure, as printed.
        ours: our figure as a template over the chapter's figure names, e.g.
            ``"{sb-first-ms} inside Redis"``; :meth:`our_figure` fills it in.
        verdict: the verdict.
        why: one sentence: why the verdict (may use ``{figure-name}`` slots too;
            :meth:`reason` fills them in).
        also: slugs of other chapters whose verdict tables show this claim too.
        group: claims of one chapter sharing a group (one table or paragraph of a seed, say
            its five offsets) share one row of the chapter's verdict table, a line each.
    """

    id: str
    seed: str
    section: str
    chapter: str
    claim: str
    seed_figure: str
    ours: str
    verdict: Verdict
    why: str
    also: tuple[str, ...] = ()
    figures: Figures | None = field(default=None, compare=False, repr=False)
    group: str = ""

    @property
    def restates(self) -> tuple[str, ...]:
        """The ids of the entries this one restates: those its reason names before its first
        colon when it begins "Restates" (another sentence saying what a judged one says)."""
        if not self.why.startswith("Restates "):
            return ()
        return tuple(CLAIM_ID.findall(_SLOT.sub("", self.why.split(":", 1)[0])))

    @property
    def in_chapter_table(self) -> bool:
        """Whether a chapter's verdict table lists it: a verdict of its own, not a restatement
        and not :attr:`Verdict.NOT_JUDGED` (those are counted there and listed in the errata)."""
        return self.verdict.judged and not self.restates

    def figure_names(self) -> list[str]:
        """The figure names :attr:`ours` and :attr:`why` use, in order."""
        return _SLOT.findall(self.ours) + _SLOT.findall(self.why)

    def our_figure(self) -> str:
        """:attr:`ours` with every figure filled in."""
        if self.figures is None:
            raise ValueError(f"claim {self.id} is not registered on a chapter's Figures")
        return self.figures.fill(self.ours)

    def anchor(self) -> str:
        """The HTML id of this claim's row in a chapter's verdict table (the errata links it):
        ``claim-`` and the id with anything but letters, digits, ``.``, ``_`` and ``-`` made a
        ``-``, so the link needs no percent-encoding (``2^20`` would be ``2%5E20``)."""
        return "claim-" + re.sub(r"[^A-Za-z0-9._-]", "-", self.id)

    def reason(self) -> str:
        """:attr:`why` with every figure filled in."""
        if self.figures is None:
            raise ValueError(f"claim {self.id} is not registered on a chapter's Figures")
        return self.figures.fill(self.why)


def _caller() -> str:
    """``setlab/<path>.py:<line>`` of the first frame outside this module."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    path = frame.f_code.co_filename
    at = path.rfind("/setlab/")
    return f"{path[at + 1 :] if at >= 0 else path}:{frame.f_lineno}"


class Figures:
    """The named figures and the claims of one chapter (see the module docstring).

    Names are lower-case words joined by dashes, conventionally prefixed with the chapter's
    short name (``sb-…`` for setbit-offset), because glue names are global to the book.
    """

    def __init__(self, chapter: str) -> None:
        self.chapter = chapter
        self._compute: dict[str, Callable[[], str]] = {}
        self._where: dict[str, str] = {}
        self._values: dict[str, str] = {}
        self._quantity: dict[str, str] = {}
        self._cache: FigureCache | bool | None = False  # False: not opened yet
        self.claims: list[Claim] = []

    # -- figures ------------------------------------------------------------------------------
    def figure(
        self, name: str, *, quantity: str = ""
    ) -> Callable[[Callable[[], str]], Callable[[], str]]:
        """Decorator: register a function computing the figure ``name`` (returns its text)."""

        def register(compute: Callable[[], str]) -> Callable[[], str]:
            self.add(name, compute, quantity=quantity)
            return compute

        return register

    def add(self, name: str, compute: Callable[[], str], *, quantity: str = "") -> None:
        """Register ``compute`` as the one source of the figure ``name``.

        ``quantity`` names what a measured figure measures, how and in which run (``"first
        SETBIT at offset 4,294,967,295 | inside Redis | <the run's label>"``): every figure of
        the book naming one quantity must show one value (:func:`quantity_conflicts`)."""
        if not _NAME.match(name):
            raise ValueError(f"figure name must be lower-case words joined by '-'; got {name!r}")
        if name in self._compute:
            raise ValueError(f"figure {name!r} is already defined at {self._where[name]}")
        self._compute[name] = compute
        self._where[name] = _caller()
        if quantity:
            self._quantity[name] = quantity

    def where(self, name: str) -> str:
        """Where the figure ``name`` was defined, ``setlab/<path>.py:<line>``: the line that
        registered it, which a grep for a name built by an f-string would not find."""
        if name not in self._where:
            raise KeyError(f"{self.chapter} has no figure {name!r}")
        return self._where[name]

    def __getitem__(self, name: str) -> str:
        if name not in self._compute:
            raise KeyError(f"{self.chapter} has no figure {name!r}")
        if name not in self._values:
            if self._cache is False:
                self._cache = FigureCache.open(self.chapter)
            text = self._cache.get(name) if self._cache else None
            if text is None:
                text = self._compute[name]()
                if not isinstance(text, str):
                    kind = type(text).__name__
                    raise TypeError(
                        f"figure {name!r} ({self._where[name]}) must compute a str, got {kind}"
                    )
                if self._cache:
                    self._cache.put(name, text)
            self._values[name] = text
        return self._values[name]

    def __contains__(self, name: object) -> bool:
        return name in self._compute

    def names(self) -> list[str]:
        """Every figure name, in the order defined."""
        return list(self._compute)

    def quantities(self) -> dict[str, str]:
        """Figure name → the quantity it measures, for the figures that declare one."""
        return dict(self._quantity)

    def fill(self, template: str) -> str:
        """``template`` with each ``{name}`` replaced by that figure's text."""
        return _SLOT.sub(lambda m: self[m.group(1)], template)

    def glue(self, names: Iterable[str] | None = None) -> None:
        """Glue every figure (or ``names``) into the executing notebook, for ``{glue:text}``."""
        from setlab.render.glue import glue

        for name in self.names() if names is None else names:
            glue(name, self[name], display=False)

    # -- claims -------------------------------------------------------------------------------
    def claim(
        self,
        id: str,
        seed: str,
        section: str,
        claim: str,
        seed_figure: str,
        ours: str,
        verdict: Verdict,
        why: str,
        *,
        also: tuple[str, ...] = (),
        group: str = "",
    ) -> Claim:
        """Register a claim of this chapter; ``ours`` may only use this chapter's figures."""
        unknown = [n for n in _SLOT.findall(ours + why) if n not in self._compute]
        if unknown:
            raise ValueError(f"claim {id}: ours or why uses undefined figures {unknown}")
        if any(c.id == id for c in self.claims):
            raise ValueError(f"claim {id} is defined twice in {self.chapter}")
        made = Claim(
            id,
            seed,
            section,
            self.chapter,
            claim,
            seed_figure,
            ours,
            verdict,
            why,
            also,
            self,
            group,
        )
        self.claims.append(made)
        return made


def table_markdown(selected: Iterable[Claim], reason: Callable[[Claim], str] = Claim.reason) -> str:
    """A chapter's verdict table: seed and section, claim, their figure, ours, verdict, why.

    Claims of one :attr:`Claim.group` share a row (at the first one's place), a numbered line
    each in every cell; a reason they all share is written once. ``reason`` renders a claim's
    reason (the registry links the entries a reason names)."""
    rows: list[list[Claim]] = []
    where: dict[str, list[Claim]] = {}
    for c in selected:
        if c.group and c.group in where:
            where[c.group].append(c)
            continue
        rows.append([c])
        if c.group:
            where[c.group] = rows[-1]
    lines = [
        "| seed | claim | their figure | ours | verdict | why |",
        "|:--|:--|:--|:--|:--|:--|",
    ]
    for row in rows:
        anchors = "".join(f'<span id="{c.anchor()}"></span>' for c in row)
        sections = " ".join(dict.fromkeys(c.section for c in row))
        # a group's lines are numbered in every cell: cells wrap differently, so the numbers
        # are what pairs a claim with its figures and verdict
        mark = [f"({i}) " if len(row) > 1 else "" for i in range(1, len(row) + 1)]

        def cell(texts: list[str], mark: list[str] = mark) -> str:
            return "<br>".join(m + t for m, t in zip(mark, texts, strict=True))

        reasons = [reason(c) for c in row]
        why = reasons[0] if len(set(reasons)) == 1 else cell(reasons)
        lines.append(
            f"| {anchors}{row[0].seed} {sections} | {cell([c.claim for c in row])} "
            f"| {cell([c.seed_figure for c in row])} | {cell([c.our_figure() for c in row])} "
            f"| {cell([c.verdict.badge() for c in row])} | {why} |"
        )
    return "\n".join(lines)


def quantity_conflicts(figures: Iterable[Figures]) -> list[str]:
    """Each quantity that two figures show with two values, naming the figures and values: the
    book must show one measured quantity with one value under one label."""
    seen: dict[str, dict[str, list[str]]] = {}
    for f in figures:
        for name, quantity in f.quantities().items():
            seen.setdefault(quantity, {}).setdefault(f[name], []).append(f"{f.chapter}:{name}")
    return [
        f"{quantity}: "
        + "; ".join(f"{value} ({', '.join(names)})" for value, names in values.items())
        for quantity, values in seen.items()
        if len(values) > 1
    ]
