"""Every claim of chapter bloom-basics, in the order the seeds make them.

Seed sentences on Bloom-filter basics that bloom-basics' figures judge beside a claim they
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
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.bloom_basics`)."""
    figures.claim(
        "002-10m-checks-a-day", "002", "intro",
        "The service takes about 10 million checks a day (from its own tracking).",
        "1000w a day", NO_FIGURE, Verdict.NOT_JUDGED,
        f"{_BUSINESS}; the 30% of them that are wasted is 002-30pct-misses.",
    )  # fmt: skip
    figures.claim(
        "002-30pct-misses", "002", "intro",
        "30% of the 10 million daily lookups ask for openids that do not exist: about 3 million "
        "wasted MySQL queries a day, which a Bloom filter can stop.",
        "3M wasted queries/day",
        "{bb-wasted}; a 1% filter for 8 × 10^8 openids costs {bb-mem-1} and lets {bb-left-1} a day "
        "through",
        Verdict.CORRECT,
        "The filter pays for itself when a MySQL miss costs more than a Redis lookup.",
    )  # fmt: skip
    figures.claim(
        "002-800m-openids", "002", "intro",
        "The set of openids to filter holds 800 million.",
        "8亿", NO_FIGURE, Verdict.NOT_JUDGED,
        f"{_BUSINESS}; every sizing of seed 002 (002-doubled-20yi) starts from it.",
    )  # fmt: skip
    figures.claim(
        "002-one-lookup", "002", "intro",
        "A membership check needs only one lookup in the bit array, not a walk over the set.",
        "one lookup",
        "k probes: {bb-k-probes} GETBITs for 8 × 10^8 openids at 0.1%",
        Verdict.IMPRECISE,
        "No walk over the set, right; but one probe per hash function, each a GETBIT unless they "
        "are "
        "pipelined or scripted.",
    )  # fmt: skip
    figures.claim(
        "002-error-k-m", "002", "intro",
        "The false-positive rate depends on the number of hash functions and the bit array's "
        "length.",
        "k and m",
        "on k, m and n: 2^17 bits, k = 10: {bb-fix-8e8} at 8 × 10^8 items over 2^17 keys, "
        "{bb-fix-2e9} at 2 × 10^9",
        Verdict.IMPRECISE,
        "It also depends on how many items are in (the fill k·n/m): the same k and m go from fine "
        "to "
        "useless as n grows.",
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
        "004-java-constructor", "004", "§3",
        "The test builds the filter with new BloomFilter(redisTemplate, \"bloomFilter\", 10000, "
        "3).",
        "4 arguments",
        "declared with {bb-java-declared} parameters, called with {bb-java-passed}",
        Verdict.WRONG,
        "The class does not compile as printed: the constructor takes no RedisTemplate.",
    )  # fmt: skip
    figures.claim(
        "004-java-bloom-works", "004", "§3",
        'The Java BloomFilter (size 10,000, 3 hash functions) answers contains("element4") = false '
        "after adding element1–3.",
        "element4 → false",
        "element4 → {bb-java-element4}; {bb-java-present} of {bb-java-strangers} never-added "
        "strings "
        "present; {bb-java-bits} bits set in all",
        Verdict.WRONG,
        "Its 'hash functions' are random numbers drawn once and never look at the element: every "
        "add "
        "sets the same bits.",
    )  # fmt: skip
    figures.claim(
        "004-1e6-bits-small", "004", "§3",
        "A compact bitmap of 1,000,000 bits needs very little memory.",
        "very little",
        "{bb-1e6-usage} MEMORY USAGE",
        Verdict.CORRECT,
        "10^6 bits are 125,000 bytes; the allocator class adds a few KiB.",
    )  # fmt: skip
    figures.claim(
        "004-maven-murmur", "004", "§4",
        "The Murmur hashes come from the Maven package com.sangupta:murmur:1.0.0.",
        "com.sangupta:murmur:1.0.0", NO_FIGURE, Verdict.NOT_JUDGED,
        "A client library's coordinates (Java); no Redis figure in it. The hashes themselves "
        "are judged in 004-murmur-variants.",
    )  # fmt: skip
    figures.claim(
        "004-murmur-variants", "004", "§4",
        "Murmur3 hash_x86_32 is the hash for 32-bit machines and hash_x64_128 for 64-bit ones.",
        "x86_32 on 32-bit, x64_128 on 64-bit",
        "both run anywhere, different values: {bb-murmur-both}",
        Verdict.IMPRECISE,
        "The names say which CPU each is fast on; they are two different hashes (32 and 128 bits), "
        "so a filter must keep one.",
    )  # fmt: skip
