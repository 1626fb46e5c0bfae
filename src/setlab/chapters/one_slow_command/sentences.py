"""Seed sentences on blocking and big keys that one-slow-command's figures judge, or that the
book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's
"single-threaded" remark and its hot node's allocation get their own entries beside the claims
they used to share, judged by the chapter's figures; seed 000's side remarks on AOF, replicas and
maxmemory and seed 002's "the keyspace is a dict" get an entry marked
:attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level entries on its ``FIGURES`` (called once, at the
    end of :mod:`setlab.chapters.one_slow_command`)."""
    figures.claim(
        "000-single-thread", "000", "§5.1",
        "Redis runs commands on one thread, one after another.",
        "single-threaded, serial",
        "worst GET {osc-top-worst} behind a {osc-top-setbit} SETBIT ({osc-source})",
        Verdict.CORRECT,
        "Commands execute one at a time on the main thread (I/O threads and background frees "
        "aside), which is why the GET waits out the SETBIT; restates the cause behind "
        "000-node-blocked.",
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
        "000-aof-rewrite", "000", "§5.4",
        "AOF rewrite: a big key makes the rewrite take longer.",
        "longer AOF rewrite", NO_FIGURE, Verdict.NOT_JUDGED,
        "Not measured: the lab's servers run without AOF; a rewrite writes every byte of the "
        "dataset, the same proportionality 000-fork-big-key measures for RDB.",
    )  # fmt: skip
    figures.claim(
        "000-replica-full-sync", "000", "§5.4",
        "Replication: a full sync of a big key takes long and the replica stays 'loading'.",
        "long full sync", NO_FIGURE, Verdict.NOT_JUDGED,
        "Not measured: the lab runs no replicas; a full sync ships the RDB, so its time follows "
        "the dataset's bytes, not whether they sit in one key.",
    )  # fmt: skip
    figures.claim(
        "000-maxmemory-eviction", "000", "§5.4",
        "maxmemory: one key of hundreds of MB may make the eviction policy drop other keys.",
        "other keys evicted", NO_FIGURE, Verdict.NOT_JUDGED,
        "A policy remark without a figure: which keys an LRU/LFU policy evicts depends on the "
        "workload, not on the big key's size alone.",
    )  # fmt: skip
    figures.claim(
        "002-keyspace-dict-o1", "002", "§8",
        "Redis keeps every key in one dictionary, so looking a key up is O(1).",
        "O(1)", NO_FIGURE, Verdict.NOT_JUDGED,
        "Textbook (dict.c, a hashed lookup) and not in dispute; the book measures what does "
        "grow with the key count: KEYS (000-keys-blocks) and fork (000-fork-big-key).",
    )  # fmt: skip
