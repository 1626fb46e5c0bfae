"""Every claim of chapter setbit-offset, in the order the seeds make them.

Seed sentences that setbit-offset's figures judge beside a claim they used to share.

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
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.setbit_offset`)."""
    figures.claim(
        "000-click-1-5s", "000", "§1",
        "The user's first click on the favourite button took 1.5 s to answer.",
        "1.5 s (the API's response)",
        "{sb-seq-1-time} of it inside Redis ({sb-seq-source})",
        Verdict.DEPENDS,
        "Restates 000-first-setbit-1500ms at the API: the SETBIT itself takes {sb-seq-1-time} "
        "in the replay of the seed's sequence; the rest of 1.5 s is the client, the network and "
        "the application.",
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
        "000-key-256kb", "000", "§1",
        "Redis now holds a new key of 256 KB.",
        "256 KB",
        "{sb-incident-mem} MEMORY USAGE ({sb-incident-len} string)",
        Verdict.WRONG,
        "Restates 000-memory-256kb: offset 1,823,456,789 needs a string of hundreds of MiB.",
    )  # fmt: skip
    figures.claim(
        "000-first-setbit-1500ms", "000", "§1",
        "The first favourite (SETBIT at offset 1,823,456,789 on a new key) took 1.5 s.",
        "1500 ms",
        "{sb-seq-1-time} inside Redis ({sb-seq-source})",
        Verdict.DEPENDS,
        "The seed times the API, not the command: the write inside Redis is {sb-seq-1-ratio}× "
        "shorter. The rest depends on what the seed does not break down (the client, the network, "
        "the application) and on the host: page faults while {sb-incident-len} are zeroed.",
        also=("audit",),
    )  # fmt: skip
    figures.claim(
        "000-memory-256kb", "000", "§1",
        "The first favourite made Redis grow by 256 KB.",
        "256 KB",
        "{sb-incident-mem}",
        Verdict.WRONG,
        "Offset 1,823,456,789 needs a 228-million-byte string: about 900× more than 256 KB.",
    )  # fmt: skip
    figures.claim(
        "000-later-setbit-20ms", "000", "§1",
        "The second favourite (offset 3,456,789,012) and the third (987,654,321) on the same key "
        "took "
        "20 ms and 18 ms — normal speed — and left memory unchanged.",
        "20 ms, 18 ms; memory unchanged",
        "2nd grows the string by {sb-seq-2-added} in {sb-seq-2-time} inside Redis (MEMORY USAGE "
        "{sb-seq-1-mem} → {sb-seq-2-mem}); 3rd is inside it: {sb-seq-3-time}",
        Verdict.WRONG,
        "The second offset is beyond the first, so that write reallocates the string (a copy) and "
        "zeroes the new tail: no faster than the first ({sb-seq-1-time}). Only the third lands "
        "inside the string, and it takes microseconds: 18 ms is the application's path, not Redis.",
    )  # fmt: skip
    figures.claim(
        "000-third-setbit-18ms", "000", "§1",
        "The third favourite (offset 987,654,321, inside the string) took 18 ms: normal speed.",
        "18 ms, normal speed",
        "{sb-seq-3-time} inside Redis; MEMORY USAGE stays {sb-seq-3-mem}",
        Verdict.DEPENDS,
        "The one fast write of the seed's sequence, as the seed says: its offset is inside the "
        "string. 18 ms is the application's round trip, not comparable with the write inside "
        "Redis; it depends on the application, as the first click's 1.5 s does "
        "(000-first-setbit-1500ms).",
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
        group="000-summary-table",
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
        group="000-summary-table",
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
        "000-alloc-time-column", "000", "§3.2",
        "A first SETBIT takes ms at offset 10^6, hundreds of ms at 10^8, seconds at 10^9, several "
        "seconds at 2.14 × 10^9 and risks a timeout at 4.29 × 10^9.",
        "ms / 100s of ms / s / several s / timeout",
        "{sb-time-column} inside Redis, at the same offsets ({sb-source})",
        Verdict.WRONG,
        "The first four rows are {sb-time-column-ratio} the median inside Redis at their "
        "offsets (zeroing runs at {sb-ms-per-gib} a GiB); the last, a 512 MiB string, takes "
        "{sb-max-ms} (median{sb-max-range}): near a one-second client timeout, not seconds.",
        also=("one-slow-command",),
        group="000-alloc-table",
    )  # fmt: skip
    figures.claim(
        "000-setbit-complexity", "000", "§3.1",
        "Redis's documentation defines SETBIT's complexity as O(1) when the key exists and the "
        "offset "
        "is inside it, and O(offset) when the key is new.",
        "O(1) / O(offset), \"per the docs\"",
        "docs: O(1), with a warning that allocating a large string blocks; measured: new key "
        "{sb-seq-1-time}, growing it {sb-seq-2-time}, inside it {sb-seq-3-time}",
        Verdict.WRONG,
        "The docs (and COMMAND DOCS) give one complexity, O(1); the split is the seed's own, and "
        "it "
        "misses its own second click. The rule: a SETBIT costs O(bytes it adds) — a new key zeroes "
        "offset/8 bytes; a write past the end of an existing key zeroes the new tail (plus a copy "
        "of the old string if realloc moves it); a write inside the string is O(1).",
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
        "000-alloc-1e6", "000", "§3.2",
        "A first SETBIT at offset 1 million allocates about 125 KB.",
        "~125 KB",
        "{sb-1e6-len} string, {sb-1e6-mem} MEMORY USAGE",
        Verdict.CORRECT,
        "125,001 bytes; jemalloc rounds the allocation up to the next size class.",
        group="000-alloc-table",
    )  # fmt: skip
    figures.claim(
        "000-alloc-1e8", "000", "§3.2",
        "A first SETBIT at offset 100 million allocates about 12 MB.",
        "~12 MB",
        "{sb-1e8-len} string, {sb-1e8-mem} MEMORY USAGE",
        Verdict.CORRECT,
        "12.5 million bytes; jemalloc rounds the allocation up to its 12 MiB class, within a "
        "few per cent of the seed's figure.",
        group="000-alloc-table",
    )  # fmt: skip
    figures.claim(
        "000-alloc-1e9", "000", "§3.2",
        "A first SETBIT at offset 1 billion allocates about 120 MB.",
        "~120 MB",
        "{sb-1e9-len} string, {sb-1e9-mem} MEMORY USAGE",
        Verdict.CORRECT,
        "The string is {sb-1e9-len} and jemalloc hands out {sb-1e9-mem}, which MEMORY USAGE "
        "reports: within the rubric's tolerance of the seed's 120 MB either way.",
        group="000-alloc-table",
    )  # fmt: skip
    figures.claim(
        "000-alloc-2e9", "000", "§3.2",
        "At the expected hashed offset (2.14 billion) a first SETBIT allocates about 256 MB.",
        "~256 MB",
        "{sb-2e9-len} string, {sb-2e9-mem} MEMORY USAGE",
        Verdict.IMPRECISE,
        "The string is 256 MiB plus one byte, which falls into jemalloc's 320 MiB class.",
        group="000-alloc-table",
    )  # fmt: skip
    figures.claim(
        "000-alloc-4e9", "000", "§3.2",
        "At the worst offset (4.29 billion) a first SETBIT allocates about 512 MB.",
        "~512 MB",
        "{sb-worst-len} string, {sb-worst-mem} MEMORY USAGE",
        Verdict.IMPRECISE,
        "512 MiB of data plus a 10-byte header is just over 2^29, so jemalloc's next class, "
        "640 MiB, is what MEMORY USAGE reports (the untouched tail is never faulted into RSS), "
        "on every jemalloc build ({sb-rel-jemalloc-servers}). A glibc build such as Valkey "
        "8.1's wheel allocates {sb-rel-libc}: the seed's figure, on an allocator Redis's own "
        "builds do not use.",
        group="000-alloc-table",
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
        "000-getbit-sismember-o1", "000", "§7.5",
        "Checking whether a user already acted: GETBIT is O(1), SISMEMBER is O(1).",
        "O(1) / O(1)",
        "GETBIT: one byte read at offset / 8, nothing allocated",
        Verdict.CORRECT,
        "Restates 002-getbit-o1 for GETBIT; SISMEMBER is a hash lookup in a hashtable set (a "
        "binary search of at most 512 members in an intset).",
    )  # fmt: skip
    figures.claim(
        "000-setbit-returns-old", "000", "§7.5",
        "SETBIT is atomic and returns the bit's old value.",
        "✅ returns the old value",
        "0 on the first SETBIT of a bit, 1 on the second",
        Verdict.CORRECT,
        "One command reads and writes the bit, so two clients cannot both see 0.",
        also=("string-plus-set",),
    )  # fmt: skip
    figures.claim(
        "002-max-2-32", "002", "§1",
        "One Redis string bitmap holds at most 2^32 bits (4.29 billion).",
        "2^32",
        "offsets 0…{sb-max-offset}",
        Verdict.CORRECT,
        "With the default proto-max-bulk-len of 512 MiB; raising that config raises the limit.",
    )  # fmt: skip
    figures.claim(
        "002-bitmap-is-string", "002", "§1",
        "A bitmap is a Redis string driven by bit commands; MEMORY USAGE gives its size in bytes.",
        "same structure; bytes",
        "TYPE string, STRLEN {sb-1e9-strlen} after SETBIT at 10^9",
        Verdict.CORRECT,
        "SETBIT writes into a plain string (GET returns its bytes); MEMORY USAGE counts bytes, the "
        "allocator's rounding included.",
        group="002-bitmap-string",
    )  # fmt: skip
    figures.claim(
        "002-memory-usage-bytes", "002", "§1",
        "MEMORY USAGE key returns the key's size in bytes.",
        "bytes",
        "{sb-1e9-mem} for a string of {sb-1e9-strlen}",
        Verdict.CORRECT,
        "It reports bytes, the allocator's size class and the key's overhead included — "
        "which is why it differs from STRLEN.",
        group="002-bitmap-string",
    )  # fmt: skip
    figures.claim(
        "002-1e9-whole-array", "002", "§2",
        "Writing a 1 at bit 10^9 makes Redis allocate a whole array 10^9 (bits) long.",
        "a full 10^9-bit array",
        "STRLEN {sb-1e9-strlen} ({sb-1e9-len})",
        Verdict.CORRECT,
        "SETBIT grows the string to offset / 8 + 1 bytes: every bit below the offset is "
        "allocated and zeroed (its cost in memory is 002-1e9-bits-128m).",
        group="002-1e9-bit",
    )  # fmt: skip
    figures.claim(
        "002-1e9-bits-128m", "002", "§2",
        "SETBIT at bit 1 billion instantly allocates about 128 MB.",
        "128M",
        "{sb-1e9-mem}",
        Verdict.OTHER_REASON,
        "10^9 bits are 119 MiB; it is jemalloc's rounding to the 128 MiB size class that makes "
        "the figure exact.",
        group="002-1e9-bit",
    )  # fmt: skip
    figures.claim(
        "002-getbit-o1", "002", "§3",
        "Reading one bit of a huge bitmap is O(1): start address plus index.",
        "O(1)",
        "one byte read at offset / 8; nothing allocated",
        Verdict.CORRECT,
        "GETBIT reads one byte and never grows the string, even past its end.",
        also=("string-plus-set",),
    )  # fmt: skip
    figures.claim(
        "004-getbit-default-0", "004", "§1",
        "GETBIT of a bit never set returns 0 (every position defaults to 0).",
        "0",
        "0, also past the end of the string and on a missing key",
        Verdict.CORRECT,
        "Bits past the end read as 0 and the string stays as it was.",
    )  # fmt: skip
    figures.claim(
        "004-range-in-bytes", "004", "§1",
        "BITCOUNT bitmap001 0 1000000 and BITPOS bitmap001 1 0 100 count or search a range of "
        "bits.",
        "bit ranges",
        "start and end are bytes: {sb-range-bits}",
        Verdict.IMPRECISE,
        "Without the BIT option (Redis 7.0+) the range is in bytes, eight times what it looks "
        "like.",
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
