"""Every claim of chapter sharded-bloom, in the order the seeds make them.

Seed sentences on bulk loading and per-campaign filters that sharded-bloom's figures judge
beside a claim they used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 002's
"MULTI saves network I/O" and seed 003's utilisation get their own wording, "their figure" and
verdict, judged by the chapter's figures; seed 002's PHP client modes and seed 003's traffic are
marked :attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.sharded_bloom`)."""
    figures.claim(
        "002-shard-high-bits", "002", "§4",
        "Shard the filter like a Roaring bitmap: the high bits of the hash pick one of 2^17 keys "
        "of "
        "2^17 bits, the low bits index inside it.",
        "2^17 keys × 2^17 bits",
        "at 8 × 10^8 items the mean rate over shards is +{sb-jensen} above the rate at the mean "
        "load; "
        "the worst shard is typically {sb-worst-ratio} the mean",
        Verdict.CORRECT,
        "Random routing costs little on average; size shards for the fullest one.",
    )  # fmt: skip
    figures.claim(
        "002-layout-2-34-bits", "002", "§7",
        "The final layout: the high 17 bits of the hash pick one of 2^17 containers (keys), the "
        "low "
        "17 bits a bit in it — 2^34 bits, i.e. 2 GiB.",
        "2^17 keys × 2^17 bits (implied: 2^34 bits = 2 GiB)",
        "{sb-layout-presized} presized, {sb-layout-grown} grown by SETBIT (MEMORY USAGE over the "
        "2^17 keys; payload {sb-layout-payload})",
        Verdict.IMPRECISE,
        "2 GiB is the payload. A 16 KiB key is 16,390 bytes with its sds header, which jemalloc "
        "serves "
        "from its 20 KiB class (+{sb-layout-presized-over}); keys grown by random SETBITs "
        "reallocate "
        "greedily into {sb-layout-grown-classes} (+{sb-layout-grown-over}). The same on both "
        "jemalloc "
        "builds.",
        also=("nk-vs-m-saturation",),
    )  # fmt: skip
    figures.claim(
        "002-phpredis-multi-mode", "002", "§9",
        "phpredis's $redis->multi() has two modes and defaults to Redis::MULTI.",
        "Redis::MULTI by default",
        "the server saw, for one SET and one INCR: {sb-php-default}; {sb-php-pipeline} "
        "(phpredis {sb-php-version}, {sb-php-source})",
        Verdict.CORRECT,
        "Two modes, and the default is the transaction: every multi() without an argument wraps "
        "its commands in MULTI/EXEC. What the two modes cost on the wire is 002-pipeline-50x.",
    )  # fmt: skip
    figures.claim(
        "002-multi-saves-round-trips", "002", "§9",
        "MULTI is still faster than single commands: it saves a lot of network I/O time.",
        "faster; fewer round trips",
        "{sb-multi-vs-single} the rate of single SETBITs; round trips per bit {sb-multi-trips} "
        "({sb-ref-label})",
        Verdict.OTHER_REASON,
        "MULTI as the seed uses it (phpredis's default mode) reads +QUEUED after every "
        "command, so it makes as many round trips as single commands and saves no network "
        "time; it measures a little faster on the reference run, but not for that reason. "
        "Only a pipeline saves round trips (002-pipeline-50x).",
    )  # fmt: skip
    figures.claim(
        "002-pipeline-50x", "002", "§8",
        "A pipeline is 50 times faster than MULTI.",
        "50×",
        "{sb-ratio-multi} on loopback (reference run, median PING round trip {sb-rtt}); 50× at a "
        "round trip of "
        "{sb-rtt50}",
        Verdict.DEPENDS,
        "Right against a MULTI that waits for +QUEUED after every command; the factor is set by "
        "the "
        "network's round-trip time, not by Redis.",
    )  # fmt: skip
    figures.claim(
        "002-20-hours", "002", "§8",
        "Loading 8 × 10^8 openids × 10 hashes took about 20 hours, pipelined.",
        "about 20 hours",
        "{sb-full-wall} end to end for all 8 × 10^8 IDs, built locally and written with SET "
        "(measured, reference run); {sb-pipe-8e9} pipelined from one Python client (extrapolated)",
        Verdict.DEPENDS,
        "Slow for the hardware: batch and pipeline harder, or build the bitmaps locally.",
    )  # fmt: skip
    figures.claim(
        "003-8000-filters-380mb", "003", "sizing",
        "8000 per-campaign filters, each reserved for its own peak, take 380 MB against 137 MiB "
        "for "
        "one filter: about 35% utilisation, 2.8 times the memory.",
        "380 MB vs 137 MiB, ~35%, 2.8×",
        "{sb-per-campaign} vs {sb-shared} for one filter sized for the model's busiest day "
        "({sb-shared-peak} IDs) = {sb-ratio}, {sb-util} utilisation (campaign model)",
        Verdict.CORRECT,
        "The explanation holds; 380 MB / 137 MiB is {sb-seed-ratio}, not 2.8×. A shared filter "
        "must hold the busiest day, not the average one, hence {sb-shared} rather than 137 MiB.",
    )  # fmt: skip
    figures.claim(
        "003-1-2e8-ids-8000-plans", "003", "intro",
        "The daily peak is 120 million IDs, spread over about 8,000 active campaigns.",
        "1.2 亿 IDs, ~8000 campaigns", NO_FIGURE, Verdict.NOT_JUDGED,
        "The author's own traffic: the input of every seed 003 sizing, used as given "
        "(003-sizing-137mib, 003-8000-filters-380mb).",
    )  # fmt: skip
    figures.claim(
        "003-utilisation-35pct", "003", "sizing",
        "With each of the 8,000 keys reserved for its own peak, space utilisation is only "
        "about 35%.",
        "~35%",
        "{sb-util} utilisation (campaign model)",
        Verdict.CORRECT,
        "Restates 003-8000-filters-380mb: a key sized for its own peak is about a third full "
        "on an ordinary day.",
    )  # fmt: skip
