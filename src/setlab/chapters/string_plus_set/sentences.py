"""Seed 000's sentences on the String + Set design that string-plus-set's figures judge beside a
claim they used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): the like flow's
code gets its own entry beside the atomicity row it used to share, and the counter's complexity
row an entry marked :attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level entries on its ``FIGURES`` (called once, at the
    end of :mod:`setlab.chapters.string_plus_set`)."""
    figures.claim(
        "000-like-check-then-act", "000", "§7.3",
        "The like flow: if SISMEMBER says the user liked already, throw; otherwise SADD and "
        "INCR the counter.",
        "isMember → add + increment",
        "{sps-double-count}",
        Verdict.WRONG,
        "Three commands, not one: two concurrent likes both pass the check and the counter "
        "counts twice; restates the race behind 000-sadd-atomic.",
    )  # fmt: skip
    figures.claim(
        "000-counter-complexity", "000", "§7.5",
        "Counting: HGET is O(1) for the bitmap design, INCR/GET O(1) for the Set design.",
        "O(1) / O(1)", NO_FIGURE, Verdict.NOT_JUDGED,
        "Textbook complexities of HGET, INCR and GET, not in dispute; the counter's real "
        "problem, the hot key, is 000-set-spreads.",
    )  # fmt: skip
