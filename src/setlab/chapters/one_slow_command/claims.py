"""Every claim of chapter one-slow-command, in the order the seeds make them.

Seed sentences on blocking and big keys that one-slow-command's figures judge, or that the
book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's
"single-threaded" remark and its hot node's allocation get their own entries beside the claims
they used to share, judged by the chapter's figures; seed 000's side remarks on AOF, replicas and
maxmemory and seed 002's "the keyspace is a dict" get an entry marked
:attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.one_slow_command`)."""
    figures.claim(
        "000-single-thread", "000", "§5.1",
        "Redis runs commands on one thread, one after another.",
        "single-threaded, serial",
        "worst GET {osc-top-worst} behind a SETBIT its client timed at {osc-top-setbit} "
        "({osc-source})",
        Verdict.CORRECT,
        "Commands execute one at a time on the main thread (I/O threads and background frees "
        "aside), which is why the GET waits out the SETBIT; restates the cause behind "
        "000-node-blocked.",
        group="000-one-thread",
    )  # fmt: skip
    figures.claim(
        "000-setbit-2-31-256mb", "000", "§5.1",
        "SETBIT key 2147483648 1 allocates 256 MB and zeroes it.",
        "256 MB",
        "{osc-2-31-mem} MEMORY USAGE",
        Verdict.IMPRECISE,
        "Offset 2^31 is bit 0 of byte 2^28: 256 MiB plus one byte and the header, which jemalloc "
        "rounds up to its next class.",
    )  # fmt: skip
    figures.claim(
        "000-node-blocked", "000", "§5.1",
        "While the big SETBIT runs, the node answers no other request.",
        "all clients wait",
        "worst GET {osc-top-worst} behind a SETBIT its client timed at {osc-top-setbit}",
        Verdict.CORRECT,
        "Other clients' worst latency equals the slow command's duration at every size.",
        group="000-one-thread",
    )  # fmt: skip
    figures.claim(
        "000-setbit-2e9-2-5s", "000", "§5.1",
        "A first SETBIT at offset 2,147,483,648 (256 MB) takes 2–5 seconds.",
        "2–5 s",
        "{osc-seed-setbit}, timed by its client ({osc-source})",
        Verdict.WRONG,
        "The seed's lower bound is {osc-seed-ratio}× the reference write: zeroing 256 MiB takes "
        "a tenth of a second, and seconds need a host an order of magnitude slower, which the "
        "seed does not describe.",
    )  # fmt: skip
    figures.claim(
        "000-example-slots", "000", "§5.2",
        "collect:bit:1:10086, collect:bit:1:10087 and collect:bit:2:10086 land in different slots.",
        "slots A, B, C",
        "slots {osc-example-slots}",
        Verdict.CORRECT,
        "CRC16 of the whole key (no hash tag) mod 16,384 gives three different slots.",
    )  # fmt: skip
    figures.claim(
        "000-hot-node", "000", "§5.2",
        "A viral post sends every SETBIT to one key, so one node, while the others idle.",
        "one node takes the load",
        "busiest of 3 nodes: {osc-bitmap-hot} of the SETBITs",
        Verdict.IMPRECISE,
        "One node takes the most, not all: the busiest of three serves {osc-bitmap-hot} of the "
        "SETBITs under a Zipf(1.1) like workload, where the hottest post alone is a fifth of all "
        "likes; the others keep serving their share.",
    )  # fmt: skip
    figures.claim(
        "000-hot-node-256mb", "000", "§5.2",
        "The hot node takes the memory pressure of a 256 MB allocation at once.",
        "256 MB at once",
        "{osc-2-31-mem} MEMORY USAGE after SETBIT at {osc-seed-offset}, in {osc-seed-setbit} "
        "({osc-source})",
        Verdict.IMPRECISE,
        "At the expected offset the string is 256 MiB and jemalloc's class makes it "
        "{osc-2-31-mem} (as 000-alloc-2e9 says); it is paid once per new key, on the node that "
        "owns it (000-expected-offset judged the offset itself).",
    )  # fmt: skip
    figures.claim(
        "000-keys-one-node", "000", "§5.3",
        "In a Redis Cluster KEYS scans only the node it is sent to; SCAN must walk node by node.",
        "one node only",
        "each node answers for its own slots",
        Verdict.CORRECT,
        "A cluster node keeps only the keys of its slots; neither KEYS nor SCAN is forwarded.",
    )  # fmt: skip
    figures.claim(
        "000-keys-blocks", "000", "§5.3",
        "KEYS is O(N) and blocks the node.",
        "O(N), blocks",
        "{osc-keys-ms} for {osc-keys-n} keys",
        Verdict.CORRECT,
        "One call walks the whole keyspace; SCAN spreads the same work over short calls.",
    )  # fmt: skip
    figures.claim(
        "000-del-256mb-stall", "000", "§5.4",
        "DEL of a 256 MB bitmap may trigger defragmentation and a short stall.",
        "short stall",
        "{osc-del-string}",
        Verdict.IMPRECISE,
        "Freeing one big string is milliseconds and starts no defragmentation; it is big "
        "collections (one free per member) that stall on DEL — on Redis, whose "
        "lazyfree-lazy-user-del defaults to no ({osc-rel-del-stall} for a 10^6-member SET). "
        "Valkey 8 defaults it to yes: its DEL returned in {osc-rel-del-lazy} and freed the set "
        "in the background.",
        also=("audit",),
    )  # fmt: skip
    figures.claim(
        "000-fork-big-key", "000", "§5.4",
        "Big keys make fork() for RDB snapshots take longer.",
        "fork slower",
        "{osc-fork-none} → {osc-fork-big} with a {osc-fork-key} key",
        Verdict.OTHER_REASON,
        "Longer with more bytes, not with one key: fork copies page tables, so it grows with used "
        "memory however the keys hold it, and it is milliseconds per GiB (as an AOF rewrite and a "
        "full sync below).",
    )  # fmt: skip
    figures.claim(
        "000-aof-rewrite", "000", "§5.4",
        "AOF rewrite: a big key makes the rewrite take longer.",
        "longer AOF rewrite",
        "BGREWRITEAOF: {osc-aof-times} ({osc-hk-source})",
        Verdict.OTHER_REASON,
        "Longer with more bytes, as any dataset: the rewrite writes every byte (the same "
        "proportionality 000-fork-big-key measures for RDB), and one big key is no slower than "
        "the same bytes in many keys.",
        group="000-housekeeping",
    )  # fmt: skip
    figures.claim(
        "000-replica-full-sync", "000", "§5.4",
        "Replication: a full sync of a big key takes long and the replica stays 'loading'.",
        "long full sync",
        "REPLICAOF to a fresh replica: {osc-sync-times} ({osc-hk-source})",
        Verdict.OTHER_REASON,
        "A full sync ships the dataset, so its time follows the bytes, not whether they sit in "
        "one key; on one machine the network is free, so a real link adds its own time to both.",
        group="000-housekeeping",
    )  # fmt: skip
    figures.claim(
        "000-maxmemory-eviction", "000", "§5.4",
        "maxmemory: one key of hundreds of MB may make the eviction policy drop other keys.",
        "other keys evicted",
        "over a {osc-hk-limit} limit: default policy, {osc-evict-default}; allkeys-lru, "
        "{osc-evict-lru}; allkeys-lfu, {osc-evict-lfu} ({osc-hk-source})",
        Verdict.DEPENDS,
        "On the policy: Redis's default, noeviction, drops nothing and refuses every later write "
        "instead (the outage is writes, not lost keys); a cache's LRU or LFU policy drops other "
        "keys, and the big key too.",
        group="000-housekeeping",
    )  # fmt: skip
    figures.claim(
        "000-sadd-ms", "000", "§5.5",
        "SADD is O(1): milliseconds, so it never blocks the node.",
        "O(1), milliseconds",
        "O(1) per member; a GET round trip beside the stalls took {osc-p50} (median)",
        Verdict.CORRECT,
        "An O(1) command costs microseconds inside Redis; milliseconds is a generous upper bound.",
    )  # fmt: skip
    figures.claim(
        "000-set-spreads", "000", "§5.5",
        "The String + Set design's user-keyed keys spread naturally over the slots.",
        "no skew",
        "SADD busiest node {osc-sadd-hot}, INCR busiest node {osc-incr-hot}",
        Verdict.CORRECT,
        "The user-keyed SADDs spread (an even split is a third a node); the design's "
        "content-keyed INCR counter does not, but this sentence is about the user keys.",
    )  # fmt: skip
    figures.claim(
        "002-keyspace-dict-o1", "002", "§8",
        "Redis keeps every key in one dictionary, so looking a key up is O(1).",
        "O(1)",
        "O(1): GET per Redis's command docs, one hashed lookup",
        Verdict.CORRECT,
        "A key is found by its hash in the keyspace's dictionary, whatever the key count; what "
        "does grow with the key count is KEYS (000-keys-blocks) and fork (000-fork-big-key).",
    )  # fmt: skip
    figures.claim(
        "002-rdb-two-threads", "002", "§8",
        "Serving reads and taking an RDB backup run in two threads, so many keys do not slow "
        "reads.",
        "two threads",
        "a forked child process; fork itself {osc-fork-none} → {osc-fork-big} blocks the server",
        Verdict.WRONG,
        "BGSAVE forks a child process, not a thread; the fork call itself runs on the main thread "
        "and grows with memory, not with the key count.",
    )  # fmt: skip
