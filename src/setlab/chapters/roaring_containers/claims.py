"""Every claim of chapter roaring-containers, in the order the seeds make them.

Seed sentences on Roaring bitmaps that roaring-containers' figures judge beside a claim they
used to share.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's bucket
count and its four-star recommendation, seed 003's high/low split and its container rule each
get their own wording, "their figure" and verdict, judged by the chapter's figures. A pure
restatement says "restates <claim id>".
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.roaring_containers`)."""
    figures.claim(
        "000-roaring-65536-buckets", "000", "§6.1",
        "Roaring splits the 32-bit integer space into 65,536 buckets.",
        "65536 buckets",
        "{rc-chunks} chunks",
        Verdict.CORRECT,
        "Restates 000-roaring-containers: one chunk per value of the high 16 bits.",
    )  # fmt: skip
    figures.claim(
        "000-roaring-containers", "000", "§6.1",
        "Roaring splits the 32-bit space into 65,536 buckets: an array container (2 bytes a value) "
        "up "
        "to 4,096 values, a fixed 8 KB bitmap above, a run container when values are consecutive.",
        "65536 buckets; 2 B × n / 8 KB / runs",
        "{rc-chunks} chunks; array ≤ {rc-array-max} × 2 B, bitset {rc-bitset-bytes}; 10^8 dense "
        "IDs "
        "as runs {rc-dense-runs}",
        Verdict.CORRECT,
        "Runs cost 4 bytes each, so consecutive IDs shrink {rc-dense-ratio}-fold after "
        "run_optimize.",
    )  # fmt: skip
    figures.claim(
        "000-roaring-2e9-2-bytes", "000", "§6.1",
        "Offset 2 × 10^9 in a Roaring bitmap is one value in an array container: 2 bytes, not a "
        "250 MB allocation.",
        "2 bytes",
        "{rc-one-payload} payload, {rc-one-serialized} serialized, {rc-one-redis} as a Redis key",
        Verdict.CORRECT,
        "A value costs 2 bytes in an array container; a chunk's first value adds 8 bytes of key, "
        "count and offset.",
    )  # fmt: skip
    figures.claim(
        "000-roaring-redisbloom-rb", "000", "§6.2.1",
        "The RedisBloom module offers Roaring commands (RB.SETBIT, RB.GETBIT).",
        "RB.SETBIT",
        "“{rc-rb-error}” with RedisBloom {rc-rb-module} loaded",
        Verdict.WRONG,
        "RedisBloom has Bloom, Cuckoo, Count-Min, Top-K and t-digest; Roaring needs a different "
        "module (e.g. redis-roaring's R.SETBIT).",
    )  # fmt: skip
    figures.claim(
        "000-roaring-rmw-loses", "000", "§6.2.2",
        "A client-side read-modify-write of a serialized bitmap loses updates under concurrency.",
        "data loss",
        "{rc-ref-lost4} adds lost with 4 clients (reference run); {rc-forced-lost} with a forced "
        "interleaving, every time",
        Verdict.CORRECT,
        "The last writer's SET replaces the whole bitmap, erasing what others added since its GET.",
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
        "000-roaring-needs-lock", "000", "§6.2.2",
        "So it needs a distributed lock, adding 5–15 ms per update.",
        "lock, 5–15 ms",
        "WATCH/MULTI: {rc-ref-watch-lost4} lost, {rc-ref-retry4} retries per add at 4 clients, "
        "{rc-ref-add4} per add",
        Verdict.WRONG,
        "Optimistic WATCH/MULTI/EXEC retries instead of locking; no lock service, no lease to "
        "expire, and cheap while contention is low.",
    )  # fmt: skip
    figures.claim(
        "000-roaring-full-serialize", "000", "§6.2.2",
        "Every update (de)serializes the whole bitmap: slow when it is big.",
        "slow",
        "{rc-rmw-big} per update at {rc-rmw-ids} IDs ({rc-rmw-size}), reference run",
        Verdict.CORRECT,
        "Cost grows with the bitmap: GET and SET move all of it, every time.",
    )  # fmt: skip
    figures.claim(
        "000-roaring-no-lua", "000", "§6.2.3",
        "A Lua script cannot do it: Redis's Lua has no Roaring library.",
        "not feasible",
        "Redis 7.0's Lua has cjson, cmsgpack, struct and bit only",
        Verdict.CORRECT,
        "A script could parse the format by hand, but that is a module's job.",
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
    figures.claim(
        "003-roaring-4096", "003", "Roaring",
        "An array container holds at most 4,096 values, because 4,096 × 2 B equals the 8 KB "
        "bitset.",
        "4096 × 2 = 8192",
        "array ≤ {rc-array-max} values, bitset {rc-bitset-bytes} (pyroaring)",
        Verdict.CORRECT,
        "The break-even point of 2-byte values against a fixed 8 KiB bitset.",
    )  # fmt: skip
    figures.claim(
        "003-roaring-dense-12-5mb", "003", "Roaring",
        "IDs 0 … 10^8: 1,526 full chunks as bitsets, 12.5 MB.",
        "12.5 MB",
        "{rc-dense} added one by one; {rc-dense-runs} after run_optimize()",
        Verdict.DEPENDS,
        "Right for bitsets, but a full chunk is one run: run containers (seed 000 lists them, seed "
        "003 forgets them) make it {rc-dense-ratio} times smaller.",
    )  # fmt: skip
    figures.claim(
        "003-roaring-11x", "003", "Roaring",
        "12.5 MB for 10^8 dense IDs against the Bloom filter's 137 MiB at 1% is 11 times less.",
        "11×",
        "{rc-bloom} / {rc-dense} = {rc-bloom-over-dense}×",
        Verdict.CORRECT,
        "Both in bytes the ratio is {rc-bloom-over-dense}; the seed's 11 rounds it down.",
    )  # fmt: skip
    figures.claim(
        "003-roaring-sparse-240mb", "003", "Roaring",
        "1.2 × 10^8 random IDs over 2^32: ~1,830 a chunk, array containers, 240 MB, more than the "
        "Bloom filter's 137 MiB.",
        "240 MB > 137 MiB",
        "{rc-sparse} vs {rc-bloom}",
        Verdict.CORRECT,
        "Two bytes a value plus 8 bytes a container; runs do not help random IDs.",
    )  # fmt: skip
    figures.claim(
        "003-roaring64", "003", "Roaring",
        "Roaring64 handles 64-bit IDs, but the memory advantage is mostly gone.",
        "advantage gone",
        "{rc-snow-per} per snowflake ID (BitMap64); {rc-remap-per} re-mapped to dense 32-bit IDs",
        Verdict.CORRECT,
        "Snowflake IDs put almost every ID in its own chunk: a container and its headers per ID.",
    )  # fmt: skip
    figures.claim(
        "003-roaring-window-or", "003", "closing",
        "Seven daily Roaring bitmaps can be ORed in process, with no network round trips.",
        "7 × OR in memory",
        "{rc-w-in} in process vs {rc-w-redis} fetched from Redis (reference run)",
        Verdict.CORRECT,
        "Once the days are in memory the union is a few milliseconds; fetching them is what costs.",
        also=("scalable-bloom",),
    )  # fmt: skip
