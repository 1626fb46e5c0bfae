"""Seed sentences on Bloom-filter basics that bloom-basics' figures judge beside a claim they
used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 004's Java
filter, line by line (the modulo is right; the "hash functions" are not), and seed 002's remark
on hash widths get their own wording, "their figure" and verdict, judged by the chapter's
figures. Seed 002's traffic figures and seed 004's Maven dependency are marked
:attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict

_BUSINESS = "The author's own traffic figure: context for the story, nothing to check"


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level entries on its ``FIGURES`` (called once, at the
    end of :mod:`setlab.chapters.bloom_basics`)."""
    figures.claim(
        "002-10m-checks-a-day", "002", "intro",
        "The service takes about 10 million checks a day (from its own tracking).",
        "1000w a day", NO_FIGURE, Verdict.NOT_JUDGED,
        f"{_BUSINESS}; the 30% of them that are wasted is 002-30pct-misses.",
    )  # fmt: skip
    figures.claim(
        "002-800m-openids", "002", "intro",
        "The set of openids to filter holds 800 million.",
        "8亿", NO_FIGURE, Verdict.NOT_JUDGED,
        f"{_BUSINESS}; every sizing of seed 002 (002-doubled-20yi) starts from it.",
    )  # fmt: skip
    figures.claim(
        "002-hash-32-64-bits", "002", "§3",
        "A Bloom filter's hash functions are basically 32-bit, or 64-bit hash values.",
        "32 or 64 bits",
        "{bb-murmur-both}",
        Verdict.CORRECT,
        "Both widths are in use (RedisBloom hashes with 64-bit MurmurHash64A); a 32-bit hash "
        "can index at most 2^32 bits, the limit seed 002 then works within. "
        "004-murmur-variants judges a different point: which variant suits which CPU.",
    )  # fmt: skip
    figures.claim(
        "004-hash-mod-size", "004", "§3",
        "offset = hash % size keeps every offset below the filter's size.",
        "hash % size < size",
        "every offset below the size; {bb-java-bits} distinct bits set in all",
        Verdict.CORRECT,
        "The modulo does what the seed says (the code takes Math.abs after %, so no offset is "
        "negative); what breaks the filter is that its 'hash' ignores the element "
        "(004-java-bloom-works).",
    )  # fmt: skip
    figures.claim(
        "004-random-hash-functions", "004", "§3",
        "hashFunctions[i] = (int) (Math.random() * Integer.MAX_VALUE) makes several hash "
        "functions.",
        "k hash functions",
        "{bb-java-bits} bits set in all; element4 → {bb-java-element4}",
        Verdict.WRONG,
        "Restates 004-java-bloom-works: numbers drawn once are not hash functions, they never "
        "look at the element, so every add sets the same bits.",
    )  # fmt: skip
    figures.claim(
        "004-maven-murmur", "004", "§4",
        "The Murmur hashes come from the Maven package com.sangupta:murmur:1.0.0.",
        "com.sangupta:murmur:1.0.0", NO_FIGURE, Verdict.NOT_JUDGED,
        "A client library's coordinates (Java); no Redis figure in it. The hashes themselves "
        "are judged in 004-murmur-variants.",
    )  # fmt: skip
