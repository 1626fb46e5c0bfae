"""Every claim of chapter redis-set-memory, in the order the seeds make them.

Seed sentences on SET and bitmap memory that redis-set-memory's figures judge beside a claim
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
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.redis_set_memory`)."""
    figures.claim("000-user-key-few-kb", "000", "§5.5",
        "A per-user Set key is usually a few KB (a user likes hundreds to a few thousand items).",
        "a few KB",
        "300 / 3,000 likes: {rsm-user-sets}",
        Verdict.DEPENDS,
        "Up to 512 IDs the set is an intset (8 bytes each); past it a hashtable, and thousands of "
        "likes are hundreds of KiB.",
        also=("one-slow-command",))  # fmt: skip
    figures.claim("000-content-set-1e6", "000", "§7.2",
        "A content-keyed Set of a viral post's 10^6 likers is one key of several hundred MB.",
        "several hundred MB",
        "{rsm-viral-set} MEMORY USAGE",
        Verdict.IMPRECISE,
        "Too big for one key, right, but tens of MiB, not hundreds: a hashtable member costs "
        "about {rsm-usage-per}, and several hundred MB is 3× to 8× that.",
        also=("string-plus-set",))  # fmt: skip
    figures.claim(
        "000-user-likes-hundreds", "000", "§7.2",
        "Per-user keys stay under control: a user acts hundreds to a few thousand times.",
        "hundreds to a few thousand members",
        "300 / 3,000 likes: {rsm-user-sets}",
        Verdict.DEPENDS,
        "Restates 000-user-key-few-kb: a few hundred IDs stay an intset of a few KiB; a few "
        "thousand make a hashtable of hundreds of KiB — bounded, but not 'a few KB'.",
    )  # fmt: skip
    figures.claim("000-bitmap-1e4-1.2kb", "000", "§7.5",
        "For 10,000 users the bitmap design costs about 1.2 KB.",
        "~1.2 KB",
        "{rsm-1e4-dense-bitmap} at offsets 0…9,999 only, up to {rsm-hashed-bitmap} with the "
        "seed's hashed offsets",
        Verdict.WRONG,
        "Only dense offsets give that; the seed's design hashes user IDs over 2^32, where one key "
        "costs hundreds of MiB: judged in the seed's context, as for 10^8 users.",
        also=("string-plus-set",))  # fmt: skip
    figures.claim("003-set-12gb", "003", "SET memory",
        "1.2 × 10^8 members × ~90 B ≈ 10.8 GB, which matches the 12 GB measured.",
        "10.8 GB ≈ 12 GB",
        "{rsm-total-alloc} allocated, {rsm-total-usage} by MEMORY USAGE ({rsm-plans} sets)",
        Verdict.IMPRECISE,
        "Allocations come to about 73 B a member; 12 GB needs 1.4× more, e.g. RSS overhead "
        "(fragmentation, an old peak) that MEMORY USAGE never shows.")  # fmt: skip
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
    figures.claim("003-set-member-70-100", "003", "SET memory",
        "A SET member costs 70–100 bytes: sds 16 + 3 (24 or 32 after jemalloc), robj 16, "
        "dictEntry 24, bucket ~8.",
        "70–100 B",
        "{rsm-alloc-per} allocated, {rsm-usage-per} by MEMORY USAGE ({rsm-plan-members} 16-hex IDs "
        "per set) on 7.0 with Debian's jemalloc; {rsm-alloc-per-bundled} on Redis's own build; "
        "{rsm-rel-62} on 6.2, {rsm-rel-82} on 8.2 (10^6 IDs, per-release run)",
        Verdict.DEPENDS,
        "Depends on the release and the jemalloc build. On 7.0 with Debian's jemalloc the total "
        "lands in the range, but not for the seed's reasons: no robj is stored per member, the "
        "header is sdshdr5 (1 B), and with no 24-byte class the sds and the dictEntry take 32 B "
        "each. Redis's own build has that class: {rsm-alloc-per-bundled}, below the range, as on "
        "the seeds' own era (6.2: {rsm-rel-62}). From 7.2 a member alone in its bucket has no "
        "dictEntry (redis#11595): {rsm-rel-82} on 8.2, about half the seed's figure, while "
        "MEMORY USAGE still counts one per member.")  # fmt: skip
    figures.claim("003-intset-512", "003", "SET memory",
        "set-max-intset-entries defaults to 512; past it an integer set becomes a hashtable.",
        "512",
        "hashtable from member {rsm-switch-512} (OBJECT ENCODING, reference run)",
        Verdict.CORRECT,
        "Raising the limit keeps 2–8 B a member, but every insert into an intset moves up to the "
        "whole array (O(n)).", also=("audit",))  # fmt: skip
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
    figures.claim("004-hashed-bitmap-huge", "004", "§2.2",
        "The bitmap at murmur3 offsets of 100,000 UUIDs takes far more memory than the Set of the "
        "UUIDs themselves.",
        "“unbelievable” (table lost)",
        "{rsm-004-hash} vs {rsm-004-uuid}",
        Verdict.CORRECT,
        "Offsets spread over 2^32 make a key of {rsm-004-hash}; the Set holds only what is "
        "there.")  # fmt: skip
    figures.claim("004-dense-bitmap-small", "004", "§2.2",
        "With offsets 0…99,999 the bitmap is tiny, smaller than the Set of the same integers.",
        "“small”",
        "{rsm-004-incr} vs {rsm-004-ints}",
        Verdict.CORRECT,
        "12,500 bytes of bits against ~42 B a member for a hashtable of integers.")  # fmt: skip
    figures.claim("004-query-times", "004", "§2.3",
        "Counting a key and testing one member takes 7 ms for the UUID Set, 3 ms for the integer "
        "Set, 35 ms for the dense bitmap and 141 ms for the hashed one (SCARD + SISMEMBER, "
        "BITCOUNT + GETBIT, each pair timed by its Java client).",
        "7 / 3 / 35 / 141 ms",
        "{rsm-004-query-ms} ms, the same pairs on the same keys, timed by their client (reference "
        "run)",
        Verdict.DEPENDS,
        "Like with like, key by key: the hashed bitmap's 141 ms matches ours (BITCOUNT scans "
        "its {rsm-004-hash}). The other three are two round trips here, so their 3 to 35 ms "
        "are the seed's client and network, not Redis, and depend on where the client "
        "runs.")  # fmt: skip
    figures.claim("004-bitcount-99998", "004", "§2.3",
        "BITCOUNT of the hashed bitmap is 99,998: two of 100,000 UUIDs collided.",
        "99998",
        "{rsm-004-bitcount} in our seeded run; {rsm-004-pairs} colliding pairs expected",
        Verdict.CORRECT,
        "100,000 hashes into 2^32 offsets collide about n²/2^33 times: 0, 1, 2 or 3 collisions are "
        "all ordinary.")  # fmt: skip
