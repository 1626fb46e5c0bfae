"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

from functools import cache

from setlab.core.units import format_bytes, format_duration
from setlab.lab import backend
from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapters "Bloom basics", "n·k vs m", "Sharded Bloom" ----------------------------------------


def _bl() -> dict:
    from setlab.models import bloom

    return bloom.claim_figures()


def _rate(p: float) -> str:
    from setlab.models.bloom import format_rate

    return format_rate(p)


@cache
def _seed004() -> dict:
    from setlab.models import bloom

    lab = backend.connect("claims-bloom-basics", backend="fake", quiet=True)
    lab.cleanup()
    try:
        return bloom.seed004_check(lab)
    finally:
        lab.cleanup()


def _ld() -> dict:
    from setlab.lab import loading

    return loading.claim_figures()


def _hours(seconds: float) -> str:
    return format_duration(seconds) if seconds < 3600 else f"{seconds / 3600:.3g} h"


CLAIMS += [
    Claim(
        "002-30pct-misses", "002", "intro", "bloom-basics",
        "30% of the 10 million daily lookups ask for openids that do not exist: about 3 million "
        "wasted MySQL queries a day, which a Bloom filter can stop.",
        "3M wasted queries/day",
        lambda: (
            f"{_bl()['misses_per_day']:,.0f}; a 1% filter for 8 × 10^8 openids costs "
            f"{format_bytes(_bl()['members_1pct_bytes'])} and lets "
            f"{_bl()['misses_left_1pct']:,.0f} a day through"
        ),
        Verdict.CORRECT,
        "The filter pays for itself when a MySQL miss costs more than a Redis lookup.",
    ),
    Claim(
        "002-error-k-m", "002", "intro", "bloom-basics",
        "The false-positive rate depends on the number of hash functions and the bit array's "
        "length.",
        "k and m",
        lambda: (
            f"on k, m and n: 2^17 bits, k = 10: {_rate(_bl()['fix_rate_real'])} at 8 × 10^8 "
            f"items over 2^17 keys, {_rate(_bl()['fix_rate_planned'])} at 2 × 10^9"
        ),
        Verdict.IMPRECISE,
        "It also depends on how many items are in (the fill k·n/m): the same k and m go from "
        "fine to useless as n grows.",
    ),
    Claim(
        "004-java-bloom-works", "004", "§3", "bloom-basics",
        "The Java BloomFilter (size 10,000, 3 hash functions) answers contains(\"element4\") "
        "= false after adding element1–3.",
        "element4 → false",
        lambda: (
            f"element4 → {_seed004()['element4']}; {_seed004()['strangers_present']} of "
            f"{_seed004()['strangers']} never-added strings present; {_seed004()['bits_set']} "
            "bits set in all"
        ),
        Verdict.WRONG,
        "Its 'hash functions' are random numbers drawn once and never look at the element: "
        "every add sets the same bits.",
    ),
    Claim(
        "002-15-hashes-over-50pct", "002", "§6", "nk-vs-m-saturation",
        "15 hashes with about 30,000 items in a 2^17-bit container give over 50% false "
        "positives.",
        "over 50%",
        lambda: (
            f"{_rate(_bl()['plan_rate'])} ({_bl()['per_plan']:,} items a container, "
            f"{_rate(_bl()['plan_fill'])} of the bits set)"
        ),
        Verdict.CORRECT,
        "At k·n/m ≈ 3.5 the container is nearly full, and every probe finds a set bit.",
    ),
    Claim(
        "002-15-hashes-0.1pct", "002", "§6", "nk-vs-m-saturation",
        "15 hashes give a 0.1% error for that container (the answer ChatGPT gave).",
        "15 hashes → 0.1%",
        lambda: (
            f"best k is {_bl()['plan_best_k']}, reaching {_rate(_bl()['plan_best_rate'])}; "
            f"0.1% needs {_bl()['plan_bits_for_0.1pct']:,} bits a container"
        ),
        Verdict.WRONG,
        "No k reaches 0.1% at about 4.3 bits per item: the container is too small, not the "
        "hashes too few.",
    ),
    Claim(
        "002-nk-le-m", "002", "§6", "nk-vs-m-saturation",
        "n·k must not exceed m (or not by much).",
        "n·k ≤ m",
        lambda: (
            f"at n·k = m the filter is {_rate(_bl()['rule_fill'])} full and the rate is 0.632^k "
            f"({_rate(_bl()['rule_rate_k10'])} at k = 10); the best load is n·k/m = ln 2 = "
            f"{_bl()['best_load']:.2f}"
        ),
        Verdict.IMPRECISE,
        "A ceiling, not a target: at the limit the filter is well past its best fill.",
    ),
    Claim(
        "002-fix-verified", "002", "§7", "nk-vs-m-saturation",
        "2^17 containers with 10 hashes give 0.1%, as the formula says and a test verified.",
        "0.1%",
        lambda: (
            f"{_rate(_bl()['fix_rate_real'])} at the real 8 × 10^8; "
            f"{_rate(_bl()['fix_rate_planned'])} at the planned 2 × 10^9"
        ),
        Verdict.DEPENDS,
        "Right for the load tested, wrong for the load the layout was planned for.",
    ),
    Claim(
        "003-sizing-137mib", "003", "sizing", "nk-vs-m-saturation",
        "For 1.2 × 10^8 items at 1%: m ≈ 1.15 × 10^9 bits ≈ 137 MiB, 9.6 bits per item, k = 7.",
        "137 MiB, 9.6 bits/item, k = 7",
        lambda: (
            f"{format_bytes(_bl()['s003_bytes'], 4)}, {_bl()['s003_bits_per_item']:.2f} bits "
            f"per item, k = {_bl()['s003_k']}"
        ),
        Verdict.CORRECT,
        "The textbook formulas, applied correctly.",
    ),
    Claim(
        "003-overfill-15.7pct", "003", "坑一", "nk-vs-m-saturation",
        "Sized for 10^8 items and filled with 2 × 10^8, the filter's rate is 15.7%.",
        "15.7%",
        lambda: (
            f"{_rate(_bl()['overfill_rate'])} (m/n = {_bl()['overfill_bits_per_item']:.2f}, "
            "k = 7)"
        ),
        Verdict.CORRECT,
        "Past capacity the rate grows roughly like the load to the power k.",
    ),
    Claim(
        "002-shard-high-bits", "002", "§4", "sharded-bloom",
        "Shard the filter like a Roaring bitmap: the high bits of the hash pick one of 2^17 "
        "keys of 2^17 bits, the low bits index inside it.",
        "2^17 keys × 2^17 bits",
        lambda: (
            f"at 8 × 10^8 items the mean rate over shards is "
            f"+{_bl()['shard_mean_excess']:.1%} above the rate at the mean load; the worst "
            f"shard is typically {_bl()['shard_worst_ratio']:.1f}× the mean"
        ),
        Verdict.CORRECT,
        "Random routing costs little on average; size shards for the fullest one.",
    ),
    Claim(
        "002-pipeline-50x", "002", "§8", "sharded-bloom",
        "A pipeline is 50 times faster than MULTI.",
        "50×",
        lambda: (
            f"{_ld()['pipeline_vs_multi']:.0f}× on loopback (reference run, round trip "
            f"{format_duration(_ld()['rtt'])}); 50× at a round trip of "
            f"{format_duration(_ld()['rtt_for_50x'])}"
        ),
        Verdict.DEPENDS,
        "Right against a MULTI that waits for +QUEUED after every command; the factor is set "
        "by the network's round-trip time, not by Redis.",
    ),
    Claim(
        "002-20-hours", "002", "§8", "sharded-bloom",
        "Loading 8 × 10^8 openids × 10 hashes took about 20 hours, pipelined.",
        "about 20 hours",
        lambda: (
            f"{_hours(_ld()['pipeline_seconds'])} pipelined from one Python client, "
            f"{_hours(_ld()['local_seconds'])} built locally and written with SET (reference "
            "run)"
        ),
        Verdict.DEPENDS,
        "Slow for the hardware: batch and pipeline harder, or build the bitmaps locally.",
    ),
    Claim(
        "003-8000-filters-380mb", "003", "sizing", "sharded-bloom",
        "8000 per-campaign filters, each reserved for its own peak, take 380 MB against "
        "137 MiB for one filter: about 35% utilisation, 2.8 times the memory.",
        "380 MB vs 137 MiB, ~35%, 2.8×",
        lambda: (
            f"{format_bytes(_bl()['campaign_bytes'])} vs {format_bytes(_bl()['shared_bytes'])}"
            f" = {_bl()['campaign_ratio']:.2f}×, {_bl()['utilisation']:.0%} utilisation "
            "(campaign model)"
        ),
        Verdict.CORRECT,
        f"The explanation holds; 380 MB / 137 MiB is {380e6 / (137 * 2**20):.2f}×, not 2.8×.",
    ),
]  # fmt: skip
