"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

from setlab.core.units import format_duration
from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapter "Scalable Bloom filters" ------------------------------------------------------------


def _rb() -> dict:
    from setlab.models import redisbloom

    return redisbloom.claim_figures()


def _rb_links() -> str:
    links = _rb()["demo_links"]
    return (
        f"EXPANSION, default {_rb()['default_expansion']}; BF.RESERVE key 0.01 1000 builds "
        + ", ".join(f"{cap:,} items at {_rate(err)}" for cap, err in links)
    )


CLAIMS += [
    Claim(
        "003-scaling-layers", "003", "坑二", "scalable-bloom",
        "RedisBloom's SCALING parameter defaults to 2; when a filter is full it adds a layer of "
        "the same size.",
        "SCALING, default 2; a new layer of the same size",
        _rb_links,
        Verdict.WRONG,
        "The option is EXPANSION: each sub-filter holds EXPANSION times the items of the last, "
        "at half its error.",
    ),
    Claim(
        "003-three-layers-2.97pct", "003", "坑二", "scalable-bloom",
        "Three layers at 1% each give a compound rate of 2.97%.",
        "2.97%",
        lambda: (
            f"RedisBloom, 3 full sub-filters: {_rate(_rb()['three_measured'])} measured, "
            f"{_rate(_rb()['three_model'])} modelled (reference run); equal 1% layers, as "
            f"fakeredis builds them: {_rate(_rb()['three_equal_layers'])}"
        ),
        Verdict.WRONG,
        "Wrong for RedisBloom, which tightens each layer's error; it is what equal layers "
        "(fakeredis, pyprobables) do.",
    ),
    Claim(
        "003-scaling-1-five-layers", "003", "坑二", "scalable-bloom",
        "With SCALING 1 the layers run away: after five the rate is close to 5%.",
        "close to 5%",
        lambda: (
            f"RedisBloom EXPANSION 1, 5 sub-filters: {_rate(_rb()['five_fixed_measured'])} "
            f"(reference run), at {_rb()['five_fixed_bits_per_item']:.1f} bits per item"
        ),
        Verdict.WRONG,
        "The error stays under the one reserved; the price of many layers is memory and "
        "lookups.",
    ),
    Claim(
        "003-latency-0.06-0.3ms", "003", "坑二", "scalable-bloom",
        "One layer: BF.EXISTS takes about 0.06 ms; after three layers the P99 jumps above "
        "0.3 ms.",
        "0.06 ms → 0.3 ms",
        lambda: (
            f"round trip {format_duration(_rb()['rtt_one'])} → "
            f"{format_duration(_rb()['rtt_three'])} (P99 "
            f"{format_duration(_rb()['rtt_three_p99'])}); inside Redis "
            f"{format_duration(_rb()['server_one'])} → {format_duration(_rb()['server_three'])}"
            " (reference run)"
        ),
        Verdict.DEPENDS,
        "The round trip dominates, so the figure depends on the network; two more sub-filters "
        "add a fraction of a microsecond inside Redis.",
    ),
    Claim(
        "003-seven-hashes-21", "003", "坑二", "scalable-bloom",
        "A query computes 7 murmur hashes per layer, each a random memory access: 21 for three "
        "layers.",
        "21",
        lambda: (
            f"2 hashes per query; ≈{_rb()['probes_three']:.1f} bit reads for a stranger in "
            "three sub-filters"
        ),
        Verdict.WRONG,
        "RedisBloom hashes once and derives every position; each sub-filter's test stops at "
        "the first unset bit.",
    ),
    Claim(
        "003-seven-days-7x", "003", "坑二", "scalable-bloom",
        "A 7-day window of daily keys multiplies the cost by 7: P99 from 0.06 ms to over 0.4 ms.",
        "0.06 → 0.4 ms",
        lambda: (
            f"7 round trips {format_duration(_rb()['window_round_trips'])} vs one "
            f"{format_duration(_rb()['window_one'])}; one pipeline of 7 "
            f"{format_duration(_rb()['window_pipelined'])} (reference run)"
        ),
        Verdict.DEPENDS,
        "Right for seven round trips; one pipelined round trip removes most of it.",
    ),
    Claim(
        "003-rebuild-3-5min", "003", "坑三", "scalable-bloom",
        "Deleting the key and rebuilding 2 × 10^7 items leaves 3–5 minutes without "
        "deduplication.",
        "3–5 min",
        lambda: (
            f"window = items / load rate: {format_duration(_rb()['rebuild_window_s'])} at "
            f"{_rb()['load_rate']:,.0f} items/s (reference run); "
            f"{_rb()['rebuild_passed_seed']:,} duplicates at the seed's rate (model)"
        ),
        Verdict.DEPENDS,
        "The window is set by the load rate; the harm is the repeat checks inside it.",
    ),
    Claim(
        "003-dual-write", "003", "坑三", "scalable-bloom",
        "Dual write + shadow read closes the gap: new key written first, both read until it "
        "catches up.",
        "no gap",
        lambda: (
            f"{_rb()['dual_passed']} duplicates; +{_rb()['dual_extra_reads']:,} reads in the "
            f"window, {_rb()['dual_filters']} filters at once (model)"
        ),
        Verdict.CORRECT,
        "Nothing passes; it costs a second read and write during the window.",
    ),
]  # fmt: skip
