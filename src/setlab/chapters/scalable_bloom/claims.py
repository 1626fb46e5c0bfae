"""Every claim of chapter scalable-bloom, in the order the seeds make them.

Seed 003's sentence on the rebuild's losses, judged by scalable-bloom's figures beside the
claim it used to share (one registry entry per seed sentence, see
:mod:`setlab.site.seed_sentences`).
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.scalable_bloom`)."""
    figures.claim(
        "003-rebuild-lost-2e7", "003", "intro",
        "During the 3-minute rebuild, all 20 million records were lost.",
        "3 min, 2 × 10^7 records",
        "window {sbf-window} at {sbf-rate} (reference run); {sbf-passed-seed} repeats let "
        "through at the seed's rate (model)",
        Verdict.DEPENDS,
        "Restates 003-rebuild-3-5min: an empty filter forgets every item until it is reloaded; "
        "how long that lasts is set by the load rate, and what is lost is deduplication "
        "inside the window.",
    )  # fmt: skip
    figures.claim(
        "003-fixed-at-creation", "003", "坑一",
        "A Bloom filter's bit array is fixed when it is created; growing it means building a new "
        "one.",
        "fixed; rebuild to grow",
        "RedisBloom grows by default: {sbf-demo-sent} items into capacity {sbf-demo-capacity} made "
        "{sbf-demo-filters} sub-filters; only NONSCALING stays fixed",
        Verdict.DEPENDS,
        "True of one bit array and of NONSCALING; BF.RESERVE's default adds layers, which "
        "坑二 then describes.",
    )  # fmt: skip
    figures.claim(
        "003-scaling-layers", "003", "坑二",
        "RedisBloom's SCALING parameter defaults to 2; when a filter is full it adds a layer of "
        "the same size.",
        "SCALING, default 2; a new layer of the same size",
        "EXPANSION, default {sbf-expansion}; BF.RESERVE key 0.01 1000 builds {sbf-demo-links}",
        Verdict.WRONG,
        "The option is EXPANSION: each sub-filter holds EXPANSION times the items of the last, "
        "at half its error.",
    )  # fmt: skip
    figures.claim(
        "003-three-layers-2.97pct", "003", "坑二",
        "Three layers at 1% each give a compound rate of 2.97%.",
        "2.97%",
        "RedisBloom, 3 full sub-filters: {sbf-rb-3} measured, {sbf-rb-3-model} modelled (reference "
        "run); equal 1% layers, as fakeredis builds them: {sbf-seed-3}",
        Verdict.WRONG,
        "The other way for RedisBloom: it tightens each layer's error, so three full layers stay "
        "under the 1% reserved; 2.97% is what equal layers (fakeredis, pyprobables) give.",
    )  # fmt: skip
    figures.claim(
        "003-scaling-1-five-layers", "003", "坑二",
        "With SCALING 1 the layers run away: after five the rate is close to 5%.",
        "close to 5%",
        "RedisBloom EXPANSION 1, 5 sub-filters: {sbf-rb1-5} (reference run), at {sbf-bpi-exp1} "
        "bits per item",
        Verdict.WRONG,
        "The other way: the seed has the rate run away to five times the 1% reserved, and it "
        "stays under it (each sub-filter is built tighter); the price of many layers is memory "
        "and lookups.",
    )  # fmt: skip
    figures.claim(
        "003-latency-0.06-0.3ms", "003", "坑二",
        "One layer: BF.EXISTS takes about 0.06 ms; after three layers the P99 jumps above 0.3 ms.",
        "0.06 ms → 0.3 ms",
        "round trip {sbf-rtt-1} → {sbf-rtt-3} (P99 {sbf-p99-3}); inside Redis {sbf-srv-1} → "
        "{sbf-srv-3} (reference run)",
        Verdict.WRONG,
        "The seed's jump, about 0.24 ms, is hundreds of times what two more sub-filters add: a "
        "fraction of a microsecond inside Redis and on the round trip; the 0.06 ms itself is the "
        "network's.",
    )  # fmt: skip
    figures.claim(
        "003-seven-hashes-21", "003", "坑二",
        "A query computes 7 murmur hashes per layer, each a random memory access: 21 for three "
        "layers.",
        "21",
        "2 hashes per query; ≈{sbf-probes-3} bit reads for a stranger in three sub-filters",
        Verdict.WRONG,
        "RedisBloom hashes once and derives every position; each sub-filter's test stops at the "
        "first unset bit.",
    )  # fmt: skip
    figures.claim(
        "003-seven-days-7x", "003", "坑二",
        "A 7-day window of daily keys multiplies the cost by 7: P99 from 0.06 ms to over 0.4 ms.",
        "0.06 → 0.4 ms",
        "7 round trips {sbf-win-rt} vs one filter's {sbf-win-one}; one pipeline of 7 "
        "{sbf-win-pipe} (one reference run)",
        Verdict.DEPENDS,
        "Right for seven round trips; one pipelined round trip removes most of it.",
    )  # fmt: skip
    figures.claim(
        "003-rebuild-3-5min", "003", "坑三",
        "Deleting the key and rebuilding 2 × 10^7 items leaves 3–5 minutes without deduplication.",
        "3–5 min",
        "window = items / load rate: {sbf-window} at {sbf-rate} (reference run); {sbf-passed-seed} "
        "duplicates at the seed's rate (model)",
        Verdict.DEPENDS,
        "The window is set by the load rate; the harm is the repeat checks inside it.",
    )  # fmt: skip
    figures.claim(
        "003-dual-write", "003", "坑三",
        "Dual write + shadow read closes the gap: new key written first, both read until it "
        "catches up.",
        "no gap",
        "{sbf-dual-passed} duplicates; +{sbf-dual-reads} reads in the window, {sbf-dual-filters} "
        "filters at once (model)",
        Verdict.CORRECT,
        "Nothing passes; it costs a second read and write during the window.",
    )  # fmt: skip
