"""Every chapter's claims in one place: the errata appendix, the verdict tables and the tests.

Each chapter module defines its own claims on its :class:`~setlab.render.claims.Figures`
(``FIGURES``); nothing here computes a figure. This module only collects them in book order.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from urllib.parse import quote

from setlab.render.claims import CLAIM_ID, Claim, Figures, Verdict, table_markdown
from setlab.site.seed_sentences import SENTENCES

#: chapter slugs in book order (the file names under book/)
CHAPTERS = (
    "setbit-offset",
    "birthday-collisions",
    "snowflake-ranges",
    "one-slow-command",
    "string-plus-set",
    "bloom-basics",
    "nk-vs-m-saturation",
    "sharded-bloom",
    "scalable-bloom",
    "cuckoo-kick-chains",
    "roaring-containers",
    "redis-set-memory",
    "hyperloglog",
    "choosing",
    "audit",
)

SEED_TITLES = {
    "000": "Seed 000: the 1.5-second favourite button (bitmap, snowflake ids, distribution)",
    "002": "Seed 002: a Bloom filter for 800 million openids",
    "003": "Seed 003: frequency capping from Redis SETs to Bloom filters",
    "004": "Seed 004: how many people read a post?",
}


#: Pages that are not chapters but show figures of their own module (file under book/ → module
#: of setlab.site): the front door and its printable handout share the decision card.
PAGES = {"index": "front_door", "handout": "front_door"}


def page_figures(page: str) -> Figures:
    """The :class:`Figures` a page of :data:`PAGES` glues (its module's ``FIGURES``)."""
    if page not in PAGES:
        raise ValueError(f"page must be one of {', '.join(PAGES)}; got {page!r}")
    return importlib.import_module("setlab.site." + PAGES[page]).FIGURES


def figures(chapter: str) -> Figures:
    """The :class:`Figures` of one chapter (its module's ``FIGURES``)."""
    if chapter not in CHAPTERS:
        raise ValueError(f"chapter must be one of {', '.join(CHAPTERS)}; got {chapter!r}")
    module = importlib.import_module("setlab.chapters." + chapter.replace("-", "_"))
    return module.FIGURES


@cache
def _all() -> tuple[Claim, ...]:
    found = [c for chapter in CHAPTERS for c in figures(chapter).claims]
    seen: set[str] = set()
    for c in found:
        if c.id in seen:
            raise ValueError(f"claim {c.id} is registered twice")
        seen.add(c.id)
    return tuple(found)


@cache
def _first_said() -> dict[tuple[str, str], int]:
    """(seed, claim id) → the index in :data:`SENTENCES` of the first sentence of that seed that
    the claim answers (as its own entry or under ``also``)."""
    first: dict[tuple[str, str], int] = {}
    for i, sentence in enumerate(SENTENCES):
        for claim_id in (*sentence.claims, *sentence.also):
            first.setdefault((sentence.seed, claim_id), i)
    return first


def seed_order(claim: Claim) -> tuple[str, int, str]:
    """Sort key of the order the seeds make their claims: by seed, then where its seed first
    says it (its sentence in :data:`SENTENCES`), then section. The errata, the verdict tables
    and each chapter's ``claims.py`` follow it."""
    return claim.seed, _first_said().get((claim.seed, claim.id), len(SENTENCES)), claim.section


def claims(chapter: str | None = None) -> list[Claim]:
    """Every registered claim in book order, or, in seed order (:func:`seed_order`), those a
    chapter's verdict table shows (its own, and those of other chapters that name it in
    ``also``)."""
    if chapter is None:
        return list(_all())
    if chapter not in CHAPTERS:
        raise ValueError(f"chapter must be one of {', '.join(CHAPTERS)}; got {chapter!r}")
    return sorted((c for c in _all() if chapter in (c.chapter, *c.also)), key=seed_order)


def verdict_table(chapter: str) -> str:
    """The Markdown verdict table of one chapter: the entries with a verdict of their own
    (:attr:`Claim.in_chapter_table`), then a line counting the restatements and unjudged
    sentences, which the errata lists with their reasons (linked, filtered to the chapter)."""
    selected = claims(chapter)
    table = table_markdown([c for c in selected if c.in_chapter_table], linked_reason)
    restating = sum(bool(c.restates) for c in selected)
    unjudged = sum(not c.verdict.judged and not c.restates for c in selected)
    if not restating and not unjudged:
        return table
    parts = [
        f"{restating} more {'sentence restates' if restating == 1 else 'sentences restate'} "
        "a row above"
        if restating
        else "",
        f"{unjudged} {'is' if unjudged == 1 else 'are'} not judged, each with its reason"
        if unjudged
        else "",
    ]
    said = "; ".join(p for p in parts if p)
    return (
        f"{table}\n\n{said[0].upper()}{said[1:]}: the "
        f'<a href="errata.html?chapter={chapter}">errata</a> list them.'
    )


@cache
def _by_id() -> dict[str, Claim]:
    return {c.id: c for c in _all()}


def claim_href(c: Claim) -> str:
    """Where a reader finds an entry: its row in its chapter's verdict table, the row of the
    first entry it restates, or else its row in the errata (``errata.html#<anchor>``)."""
    if c.in_chapter_table:
        return f"{c.chapter}.html#{quote(c.anchor())}"
    by_id = _by_id()
    for restated in c.restates:
        if restated in by_id and by_id[restated].in_chapter_table:
            return claim_href(by_id[restated])
    return f"errata.html#{quote(c.anchor())}"


def linked_reason(c: Claim) -> str:
    """:meth:`Claim.reason` with every registry id it names made a link to where that entry
    is shown, its text the seed's section and figure (no raw id reaches the reader)."""
    by_id = _by_id()

    def link(match: re.Match[str]) -> str:
        found = by_id.get(match.group(0))
        if found is None:
            return match.group(0)
        text = f"seed {found.seed} {found.section}, “{found.seed_figure}”"
        return f'<a href="{claim_href(found)}">{text}</a>'

    return CLAIM_ID.sub(link, c.reason())


def verdict_counts(selected: list[Claim]) -> dict[str, int]:
    """How many entries got each verdict, and how many are not judged (its own key, "not
    judged": it is no verdict, so never count it as one)."""
    counts = {v.value: 0 for v in Verdict}
    for c in selected:
        counts[c.verdict.value] += 1
    return counts


def sentence_counts() -> dict[str, dict[str, int]]:
    """Per seed: quantitative sentences found (:mod:`~setlab.site.seed_sentences`), those
    with a registry entry of their own, those whose entry is judged, those whose entry says why
    it is not, and the seed's registry entries (at least one per sentence)."""
    by_id = {c.id: c for c in _all()}
    out: dict[str, dict[str, int]] = {}
    for seed in SEED_TITLES:
        found = [s for s in SENTENCES if s.seed == seed]
        own = [[by_id[i] for i in s.claims if i in by_id] for s in found]
        out[seed] = {
            "found": len(found),
            "registered": sum(bool(entries) for entries in own),
            "judged": sum(any(c.verdict.judged for c in entries) for entries in own),
            "not judged": sum(
                bool(entries) and not any(c.verdict.judged for c in entries) for entries in own
            ),
            "entries": sum(c.seed == seed for c in _all()),
        }
    return out


def errata_markdown() -> str:
    """Every registry entry in one table, by seed and in the order the seed makes them.

    Each row's first cell carries an empty ``<span class="errata-row">`` whose ``data-seed``,
    ``data-chapter`` and ``data-verdict`` the page's filters read, and the entry's anchor (a
    restatement or an unjudged sentence is listed here only, with its reason); its last cell
    links to where the chapter shows it (:func:`claim_href`).
    """
    parts = [
        "| seed | claim | their figure | ours | verdict | why | chapter |",
        "|:--|:--|:--|:--|:--|:--|:--|",
    ]
    for c in sorted(claims(), key=seed_order):
        tag = (
            f'<span class="errata-row" data-claim="{c.id}" data-seed="{c.seed}" '
            f'data-chapter="{c.chapter}" data-verdict="{c.verdict.value}"></span>'
        )
        anchor = "" if c.in_chapter_table else f'<span id="{c.anchor()}"></span>'
        link = f'<a class="errata-link" href="{claim_href(c)}">{c.chapter}</a>'
        parts.append(
            f"| {tag}{anchor}{c.seed} {c.section} | {c.claim} | {c.seed_figure} "
            f"| {c.our_figure()} | {c.verdict.badge()} | {linked_reason(c)} | {link} |"
        )
    return "\n".join(parts)
