"""Seed sentences that setbit-offset's figures judge beside a claim they used to share.

The registry's unit is the seed sentence (:mod:`setlab.site.seed_sentences`): where several
sentences of seeds 000, 002 and 004 make the same or a nearby assertion — the incident's log
line and the summary table, a code line and the prose around it — each gets an entry of its own
here, with its own wording, "their figure" and verdict, judged by the chapter's figures (never a
second computation). A pure restatement says "restates <claim id>"; where the verdict differs
from the claim it used to share, the reason says why.
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level claims on its ``FIGURES`` (called once, at the end
    of :mod:`setlab.chapters.setbit_offset`, when every figure they use is defined)."""
    figures.claim(
        "000-click-1-5s", "000", "§1",
        "The user's first click on the favourite button took 1.5 s to answer.",
        "1.5 s (the API's response)",
        "{sb-first-ms} of it inside Redis ({sb-source})",
        Verdict.DEPENDS,
        "Restates 000-first-setbit-1500ms at the API: the SETBIT itself takes {sb-first-ms} "
        "here and {sb-seq-1-time} in the replay of the seed's sequence (two reference "
        "machines); the rest of 1.5 s is the host, page faults and the application.",
    )  # fmt: skip
    figures.claim(
        "000-second-click-20ms", "000", "§1",
        "Clicking again took only 20 ms.",
        "20 ms",
        "{sb-seq-2-time} inside Redis: the second offset grows the string by {sb-seq-2-added}",
        Verdict.WRONG,
        "Restates 000-later-setbit-20ms: the seed's second offset lies beyond its first, so the "
        "second click reallocates and zeroes a longer string — no faster than the first "
        "({sb-seq-1-time}).",
    )  # fmt: skip
    figures.claim(
        "000-third-setbit-18ms", "000", "§1",
        "The third favourite (offset 987,654,321, inside the string) took 18 ms: normal speed.",
        "18 ms, normal speed",
        "{sb-seq-3-time} inside Redis; MEMORY USAGE stays {sb-seq-3-mem}",
        Verdict.IMPRECISE,
        "This is the one write of the seed's sequence that is fast, as the seed says, because "
        "its offset is inside the string; but Redis spends microseconds on it, so 18 ms is the "
        "application's path, not the SETBIT (000-later-setbit-20ms judged the 2nd and 3rd "
        "together as wrong).",
    )  # fmt: skip
    figures.claim(
        "000-summary-75x", "000", "§1",
        "Summary table: response time 1500 ms at the first click, 20 ms afterwards: 75 times.",
        "1500 ms / 20 ms, 75×",
        "in the seed's order: {sb-seq-1-time}, {sb-seq-2-time}, {sb-seq-3-time} inside Redis",
        Verdict.WRONG,
        "The 75× compares the first click with a fast second one, but replayed in the seed's "
        "order the second write grows the key and is as slow as the first; only the third is "
        "fast (000-later-setbit-20ms).",
    )  # fmt: skip
    figures.claim(
        "000-key-256kb", "000", "§1",
        "Redis now holds a new key of 256 KB.",
        "256 KB",
        "{sb-incident-mem} MEMORY USAGE ({sb-incident-len} string)",
        Verdict.WRONG,
        "Restates 000-memory-256kb: offset 1,823,456,789 needs a string of hundreds of MiB.",
    )  # fmt: skip
    figures.claim(
        "000-memory-table-row", "000", "§1",
        "Summary table: Redis memory +256 KB at the first click, unchanged afterwards.",
        "+256 KB / unchanged",
        "MEMORY USAGE {sb-seq-1-mem} after the 1st, {sb-seq-2-mem} after the 2nd, "
        "{sb-seq-3-mem} after the 3rd",
        Verdict.WRONG,
        "Both cells are wrong for the seed's own sequence: the first click adds hundreds of MiB "
        "(000-memory-256kb), the second grows the key by {sb-seq-2-added}; only the third leaves "
        "memory unchanged.",
    )  # fmt: skip
    figures.claim(
        "000-symptom-first-slow", "000", "§2",
        "The symptom: the first write to a key is very slow (seconds, even timeouts), later "
        "operations are normal.",
        "seconds or a timeout, then normal",
        "new key {sb-seq-1-time}; a later write past the end {sb-seq-2-time}; one inside "
        "{sb-seq-3-time} ({sb-seq-source})",
        Verdict.WRONG,
        "The first write is slow (hundreds of ms here, seconds on a slower host: "
        "000-alloc-time-column), but 'later operations are normal' holds only inside the "
        "string: a later write at a larger offset is as slow as the first.",
    )  # fmt: skip
    figures.claim(
        "000-first-zeroes-all", "000", "§3.1",
        "A first SETBIT must allocate and zero every byte from 0 to the offset.",
        "allocate and zero offset / 8 bytes",
        "a new key at offset 1,823,456,789: a {sb-incident-len} string in {sb-seq-1-time}",
        Verdict.CORRECT,
        "The mechanism is right: SETBIT grows the string to offset / 8 + 1 bytes and zero-fills "
        "it, and that is what the first write pays (000-setbit-complexity judges the "
        "complexity the seed attributes to the docs, which is wrong).",
    )  # fmt: skip
    figures.claim(
        "000-existing-key-o1", "000", "§3.3",
        "Once the key exists its memory is allocated, and every later SETBIT/GETBIT is O(1).",
        "O(1) after the first write",
        "past the end {sb-seq-2-time} (+{sb-seq-2-added}); inside {sb-seq-3-time}",
        Verdict.WRONG,
        "Restates the seed's split judged in 000-setbit-complexity: true only for offsets inside "
        "the string; a later SETBIT past its end allocates and zeroes the new tail. GETBIT is "
        "O(1) always (002-getbit-o1).",
    )  # fmt: skip
    figures.claim(
        "000-compare-first-write", "000", "§7.5",
        "Comparison table: a bitmap's first write is O(offset), up to 512 MB; a Set's is O(1), "
        "always milliseconds.",
        "O(offset), ≤ 512 MB vs O(1), ms",
        "bitmap: up to {sb-worst-len} string, {sb-worst-mem} MEMORY USAGE, {sb-max-ms} "
        "({sb-source})",
        Verdict.IMPRECISE,
        "Restates 000-alloc-4e9 for the bitmap side: the cost grows with the bytes a write adds, "
        "but the worst key is {sb-worst-mem} by MEMORY USAGE, not 512 MB; a SADD is O(1) "
        "(000-sadd-ms).",
    )  # fmt: skip
    figures.claim(
        "000-offset-range-2-32", "000", "§4.1",
        "A bitmap offset runs from 0 to 2^32 − 1 (about 4.29 billion).",
        "0 ~ 2^32 − 1",
        "offsets 0…{sb-max-offset}",
        Verdict.CORRECT,
        "Restates 002-max-2-32 (with the default proto-max-bulk-len of 512 MiB).",
    )  # fmt: skip
    figures.claim(
        "000-offset-essence", "000", "§4.6",
        "In essence a bitmap offset is a compact integer in 0 ~ 2^32, one bit each.",
        "compact integers, 0 ~ 2^32",
        "offsets 0…{sb-max-offset}, one bit each up to the largest",
        Verdict.IMPRECISE,
        "The range is right (002-max-2-32); 'compact' is half the rule: a bitmap costs a bit "
        "for every offset up to the largest, so it pays when the offsets in use are dense, "
        "not merely small (000-compact-rule).",
    )  # fmt: skip
    figures.claim(
        "000-getbit-sismember-o1", "000", "§7.5",
        "Checking whether a user already acted: GETBIT is O(1), SISMEMBER is O(1).",
        "O(1) / O(1)",
        "GETBIT: one byte read at offset / 8, nothing allocated",
        Verdict.CORRECT,
        "Restates 002-getbit-o1 for GETBIT; SISMEMBER is a hash lookup in a hashtable set (a "
        "binary search of at most 512 members in an intset).",
    )  # fmt: skip
    figures.claim(
        "002-memory-usage-bytes", "002", "§1",
        "MEMORY USAGE key returns the key's size in bytes.",
        "bytes",
        "{sb-1e9-mem} for a string of {sb-1e9-strlen}",
        Verdict.CORRECT,
        "It reports bytes, the allocator's size class and the key's overhead included — "
        "which is why it differs from STRLEN.",
    )  # fmt: skip
    figures.claim(
        "002-1e9-whole-array", "002", "§2",
        "Writing a 1 at bit 10^9 makes Redis allocate a whole array 10^9 (bits) long.",
        "a full 10^9-bit array",
        "STRLEN {sb-1e9-strlen} ({sb-1e9-len})",
        Verdict.CORRECT,
        "SETBIT grows the string to offset / 8 + 1 bytes: every bit below the offset is "
        "allocated and zeroed (its cost in memory is 002-1e9-bits-128m).",
    )  # fmt: skip
    figures.claim(
        "004-setbit-1e9", "004", "§2.1",
        "Seed 004's example of a large offset: SETBIT bitMap_1_bitHash 1000000000 1.",
        "SETBIT … 1000000000 1",
        "{sb-1e9-mem} MEMORY USAGE, a {sb-1e9-len} string",
        Verdict.CORRECT,
        "The command is valid and makes the long string seed 004 warns about; seed 002 runs the "
        "same command, and its figure, 128 MB, is judged in 002-1e9-bits-128m (right, but for "
        "another reason).",
    )  # fmt: skip
    figures.claim(
        "004-bitpos-range", "004", "§1",
        "BITPOS bitmap001 1 0 100 finds the first 1 among bits 0 to 100.",
        "bits 0 – 100",
        "start and end are bytes: {sb-range-bits}",
        Verdict.IMPRECISE,
        "Restates 004-range-in-bytes: without BIT (Redis 7.0+) 0 100 are bytes, so the search "
        "covers eight times the bits it seems to.",
    )  # fmt: skip
