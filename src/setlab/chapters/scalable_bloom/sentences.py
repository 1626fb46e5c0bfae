"""Seed 003's sentence on the rebuild's losses, judged by scalable-bloom's figures beside the
claim it used to share (one registry entry per seed sentence, see
:mod:`setlab.site.seed_sentences`)."""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level claims on its ``FIGURES`` (called once, at the end
    of :mod:`setlab.chapters.scalable_bloom`)."""
    figures.claim(
        "003-rebuild-lost-2e7", "003", "intro",
        "During the 3-minute rebuild, all 20 million records were lost.",
        "3 min, 2 × 10^7 records",
        "window {sbf-window} at {sbf-rate} (reference run); {sbf-passed-seed} repeats let "
        "through at the seed's rate (model)",
        Verdict.DEPENDS,
        "Restates 003-rebuild-3-5min: an empty filter forgets every item until it is reloaded; "
        "how long that lasts is set by the load rate, and what is lost is deduplication "
        "inside the window.",
    )  # fmt: skip
