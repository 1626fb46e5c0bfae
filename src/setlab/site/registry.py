"""Every chapter's claims in one place: the errata appendix, the verdict tables and the tests.

Each chapter module defines its own claims on its :class:`~setlab.render.claims.Figures`
(``FIGURES``); nothing here computes a figure. This module only collects them in book order.
"""

from __future__ import annotations

import importlib
from functools import cache
from urllib.parse import quote

from setlab.render.claims import Claim, Figures, Verdict, table_markdown
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
    """The Markdown verdict table of one chapter."""
    return table_markdown(claims(chapter))


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
    ``data-chapter`` and ``data-verdict`` the page's filters read, and its last cell links to the
    claim's row in the verdict table of the chapter that computes it (``#claim-<id>``).
    """
    parts = [
        "| seed | claim | their figure | ours | verdict | chapter |",
        "|:--|:--|:--|:--|:--|:--|",
    ]
    for c in sorted(claims(), key=seed_order):
        tag = (
            f'<span class="errata-row" data-claim="{c.id}" data-seed="{c.seed}" '
            f'data-chapter="{c.chapter}" data-verdict="{c.verdict.value}"></span>'
        )
        link = f'<a class="errata-link" href="{c.chapter}.html#{quote(c.anchor())}">{c.chapter}</a>'
        parts.append(
            f"| {tag}{c.seed} {c.section} | {c.claim} | {c.seed_figure} | {c.our_figure()} "
            f"| {c.verdict.badge()} | {link} |"
        )
    return "\n".join(parts)
