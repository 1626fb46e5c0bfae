"""Seed sentences on SET and bitmap memory that redis-set-memory's figures judge beside a claim
they used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 003's
headline, its per-member breakdown and its data format, seed 000's per-user sizes and seed 004's
code and query remarks each get their own wording, "their figure" and verdict (or
:attr:`~setlab.render.claims.Verdict.NOT_JUDGED` with the reason), judged by the chapter's
figures. A pure restatement says "restates <claim id>"; where the verdict differs from the claim
the sentence used to share, the reason says why.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level entries on its ``FIGURES`` (called once, at the
    end of :mod:`setlab.chapters.redis_set_memory`)."""
    figures.claim(
        "000-user-likes-hundreds", "000", "§7.2",
        "Per-user keys stay under control: a user acts hundreds to a few thousand times.",
        "hundreds to a few thousand members",
        "300 / 3,000 likes: {rsm-user-sets}",
        Verdict.DEPENDS,
        "Restates 000-user-key-few-kb: a few hundred IDs stay an intset of a few KiB; a few "
        "thousand make a hashtable of hundreds of KiB — bounded, but not 'a few KB'.",
    )  # fmt: skip
    figures.claim(
        "003-12gb-to-380mb", "003", "intro",
        "Moving from SETs to Bloom filters took memory from 12 GB down to 380 MB.",
        "12 GB → 380 MB",
        "the SETs: {rsm-total-alloc} allocated, {rsm-total-usage} by MEMORY USAGE "
        "({rsm-plans} sets)",
        Verdict.IMPRECISE,
        "The 380 MB of filters checks out (003-8000-filters-380mb); 12 GB is about 1.4× what "
        "the SETs allocate (003-set-12gb), so the drop is real but smaller than the headline.",
        also=("sharded-bloom",),
    )  # fmt: skip
    figures.claim(
        "003-device-id-16-hex", "003", "intro",
        "Each SET member is a device ID written as a 16-digit hexadecimal string.",
        "16 hex digits", NO_FIGURE, Verdict.NOT_JUDGED,
        "The data's format, taken as given: the book's SET measurements store 16-hex-digit "
        "IDs ({rsm-plan-members} per set, 003-set-member-70-100).",
    )  # fmt: skip
    figures.claim(
        "003-member-breakdown", "003", "SET memory",
        "Per member: sds 16 bytes + sdshdr8 3 bytes rounded by jemalloc to 24 or 32, robj 16, "
        "dictEntry 24, bucket 8.",
        "24/32 + 16 + 24 + 8 B",
        "sds {rsm-sds}, no robj, bucket {rsm-bucket} (Debian's jemalloc)",
        Verdict.WRONG,
        "The breakdown is wrong even where the total lands in range (003-set-member-70-100 is "
        "'depends'): no robj is stored per member, a 16-byte string gets the 1-byte sdshdr5 "
        "header, and Debian's jemalloc has no 24-byte class.",
    )  # fmt: skip
    figures.claim(
        "004-bitcount-fast", "004", "§1",
        "BITCOUNT counts the 1s of a bitmap quickly, over all of it or over a range.",
        "fast",
        "{rsm-004-query-ms} ms (reference run; the last is BITCOUNT of the hashed "
        "{rsm-004-hash} bitmap)",
        Verdict.DEPENDS,
        "BITCOUNT scans every byte it covers: fast on a dense bitmap, slow on the one hashed "
        "offsets make huge (004-query-times); a range is in bytes unless BIT is given "
        "(004-range-in-bytes).",
        also=("setbit-offset",),
    )  # fmt: skip
    figures.claim(
        "004-hashed-setbit-code", "004", "§2.1",
        "Seed 004 stores 100,000 UUIDs as bits at their murmur3 x86_32 hashes.",
        "offset = hash_x86_32(uuid)",
        "{rsm-004-hash} bitmap vs a {rsm-004-uuid} Set of the UUIDs",
        Verdict.CORRECT,
        "Restates 004-hashed-bitmap-huge: 32-bit hashes spread the bits over 2^32 offsets, so "
        "the string is as long as the largest hash.",
    )  # fmt: skip
