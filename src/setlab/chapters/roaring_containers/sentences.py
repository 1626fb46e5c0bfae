"""Seed sentences on Roaring bitmaps that roaring-containers' figures judge beside a claim they
used to share.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's bucket
count and its four-star recommendation, seed 003's high/low split and its container rule each
get their own wording, "their figure" and verdict, judged by the chapter's figures. A pure
restatement says "restates <claim id>".
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level claims on its ``FIGURES`` (called once, at the end
    of :mod:`setlab.chapters.roaring_containers`)."""
    figures.claim(
        "000-roaring-65536-buckets", "000", "§6.1",
        "Roaring splits the 32-bit integer space into 65,536 buckets.",
        "65536 buckets",
        "{rc-chunks} chunks",
        Verdict.CORRECT,
        "Restates 000-roaring-containers: one chunk per value of the high 16 bits.",
    )  # fmt: skip
    figures.claim(
        "000-redisbloom-recommended", "000", "§6.3",
        "The comparison table gives the RedisBloom module four stars: fast first write, atomic, "
        "memory-efficient.",
        "✅ ✅ ✅, ⭐⭐⭐⭐",
        "“{rc-rb-error}” with RedisBloom {rc-rb-module} loaded",
        Verdict.WRONG,
        "Restates 000-roaring-redisbloom-rb: the recommended option does not exist, RedisBloom "
        "has no Roaring type; the three ticks would hold for a Roaring module such as "
        "redis-roaring.",
    )  # fmt: skip
    figures.claim(
        "003-roaring-high-16", "003", "Roaring",
        "Roaring cuts a 32-bit integer into its high and low 16 bits; the high 16 bits pick "
        "the chunk.",
        "high 16 bits → chunk",
        "{rc-chunks} chunks, keyed by the high 16 bits",
        Verdict.CORRECT,
        "Restates 000-roaring-containers (seed 000 §6.1 says the same).",
    )  # fmt: skip
    figures.claim(
        "003-roaring-array-bitmap", "003", "Roaring",
        "An array container holds up to 4,096 values at 2 bytes each; above that a bitmap "
        "container takes a fixed 8 KB.",
        "≤ 4096 × 2 B; > 4096: 8 KB",
        "array ≤ {rc-array-max} values × 2 B, bitset {rc-bitset-bytes} (pyroaring)",
        Verdict.CORRECT,
        "Restates 003-roaring-4096: the two kinds meet where 2-byte values fill 8 KiB.",
    )  # fmt: skip
