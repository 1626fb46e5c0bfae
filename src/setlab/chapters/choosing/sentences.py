"""Seed sentences on when to use a bitmap that choosing's figures judge beside the rule they
used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's §8.4
examples (online status, daily actives, check-ins) each get their own entry beside its rule
"compact small integers" (000-compact-rule): the examples are good uses even though the rule is
wrong, so their verdicts differ. Seed 003's remark on its script's length is marked
:attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level entries on its ``FIGURES`` (called once, at the
    end of :mod:`setlab.chapters.choosing`)."""
    figures.claim(
        "000-online-bitmap", "000", "§8.4",
        "Online status: auto-increment user IDs as offsets of one bitmap (SETBIT online 42 1).",
        "a good use",
        "dense IDs: {ch-dense-count} users in {ch-dense-1e8-bitmap}",
        Verdict.CORRECT,
        "Auto-increment IDs are dense, so every offset is a user and a bit is the cheapest "
        "exact record; it is density that makes it work, not smallness (000-compact-rule).",
    )  # fmt: skip
    figures.claim(
        "000-dau-bitmaps", "000", "§8.4",
        "Daily actives: auto-increment IDs, one bitmap a day, BITCOUNT and BITOP for DAU.",
        "a good use",
        "{ch-dense-1e8-bitmap} a day for {ch-dense-count} dense IDs",
        Verdict.CORRECT,
        "Dense offsets again; BITCOUNT and BITOP scan the bytes of each day's key, so the cost "
        "follows the largest ID, which auto-increment keeps equal to the user count.",
    )  # fmt: skip
    figures.claim(
        "000-sign-in-bitmap", "000", "§8.4",
        "Check-ins: the day of the month (1–31) as the offset of a per-user, per-month key.",
        "a good use",
        "one bit a day: a month fits in a few bytes",
        Verdict.CORRECT,
        "Every offset of the month is a possible check-in, so the key is fully dense and tiny; "
        "the book's density rule ({ch-bitmap-breakeven} offsets set) is met many times over.",
    )  # fmt: skip
    figures.claim(
        "003-script-20-lines", "003", "closing",
        "The statistics script takes about twenty lines of code.",
        "~20 lines", NO_FIGURE, Verdict.NOT_JUDGED,
        "A remark about effort, not about Redis; the book's histogram is one call "
        "(003-histogram-first).",
    )  # fmt: skip
