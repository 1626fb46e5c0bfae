"""Seed sentences on bulk loading and per-campaign filters that sharded-bloom's figures judge
beside a claim they used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 002's
"MULTI saves network I/O" and seed 003's utilisation get their own wording, "their figure" and
verdict, judged by the chapter's figures; seed 002's PHP client modes and seed 003's traffic are
marked :attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level entries on its ``FIGURES`` (called once, at the
    end of :mod:`setlab.chapters.sharded_bloom`)."""
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
        "003-utilisation-35pct", "003", "sizing",
        "With each of the 8,000 keys reserved for its own peak, space utilisation is only "
        "about 35%.",
        "~35%",
        "{sb-util} utilisation (campaign model)",
        Verdict.CORRECT,
        "Restates 003-8000-filters-380mb: a key sized for its own peak is about a third full "
        "on an ordinary day.",
    )  # fmt: skip
    figures.claim(
        "002-phpredis-multi-mode", "002", "§9",
        "phpredis's $redis->multi() has two modes and defaults to Redis::MULTI.",
        "Redis::MULTI by default", NO_FIGURE, Verdict.NOT_JUDGED,
        "A client library's API the lab cannot run (PHP); no Redis figure in it. What the two "
        "modes cost on the wire is 002-pipeline-50x.",
    )  # fmt: skip
    figures.claim(
        "003-1-2e8-ids-8000-plans", "003", "intro",
        "The daily peak is 120 million IDs, spread over about 8,000 active campaigns.",
        "1.2 亿 IDs, ~8000 campaigns", NO_FIGURE, Verdict.NOT_JUDGED,
        "The author's own traffic: the input of every seed 003 sizing, used as given "
        "(003-sizing-137mib, 003-8000-filters-380mb).",
    )  # fmt: skip
