"""Seed sentences on sizing and saturation that nk-vs-m-saturation's figures judge beside a
claim they used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 002's hex
example, its container arithmetic and its container count, and seed 003's sizing steps, each
get their own wording, "their figure" and verdict, judged by the chapter's figures. Seed 003's
capacity plan and its exposure drop are marked :attr:`~setlab.render.claims.Verdict.NOT_JUDGED`,
with the reason. A pure restatement says "restates <claim id>"; where the verdict differs, the
reason says why.
"""

from __future__ import annotations

from setlab.render.claims import NO_FIGURE, Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level entries on its ``FIGURES`` (called once, at the
    end of :mod:`setlab.chapters.nk_vs_m_saturation`)."""
    figures.claim(
        "002-1d08-7432", "002", "§4",
        "The low 16 bits, 0x1D08, are 7,432.",
        "1D08 = 7432",
        "{nk-hex-split}",
        Verdict.CORRECT,
        "Restates 002-hex-example.",
    )  # fmt: skip
    figures.claim(
        "002-shift-mask-code", "002", "§5",
        "The code: container = hash >> 16, index = hash & 0xFFFF.",
        "hash >> 16, hash & 0xFFFF",
        "{nk-hex-split}",
        Verdict.CORRECT,
        "Restates 002-hex-example: the shift and the mask split a 32-bit hash as printed.",
    )  # fmt: skip
    figures.claim(
        "002-3w-per-container", "002", "§6",
        "Each container takes about 30,000 items.",
        "3w",
        "{nk-plan-n} a container",
        Verdict.CORRECT,
        "Restates 002-container-arith: the doubled plan over 2^16 containers.",
    )  # fmt: skip
    figures.claim(
        "002-17-bits-13w", "002", "§6",
        "With the low 17 bits a container can hold 130,000.",
        "13w",
        "2^17 = {nk-2-17} bits",
        Verdict.CORRECT,
        "Restates 002-container-arith: 13w is the container's length in bits (the seed "
        "compares it with 45w bit writes next), not a count of items.",
    )  # fmt: skip
    figures.claim(
        "002-65535-containers", "002", "§7",
        "Since 65,535 containers are not enough, the fix takes more.",
        "65535, not enough",
        "2^16 = {nk-2-16}",
        Verdict.CORRECT,
        "The conclusion holds (at the plan's load each container is overfilled, "
        "002-container-arith); the count is off by one, which changes nothing — unlike the "
        "§6 figure 65525 (002-2-16-65525, wrong), which is off by eleven.",
    )  # fmt: skip
    figures.claim(
        "003-sizing-formulas", "003", "sizing",
        "The sizing formulas: m = −n · ln(p) / (ln 2)², k = (m / n) · ln 2.",
        "m = −n ln p / (ln 2)², k = (m/n) ln 2",
        "m = {nk-003-m} bits, k = {nk-003-kreal} for the seed's n and p",
        Verdict.CORRECT,
        "The standard optimum for a Bloom filter; restates the method of 003-sizing-137mib.",
    )  # fmt: skip
    figures.claim(
        "003-k-6-64-take-7", "003", "sizing",
        "k = 9.585 × 0.693147 ≈ 6.64, rounded to 7.",
        "6.64 → 7",
        "k = {nk-003-kreal}, rounded to {nk-003-k}",
        Verdict.CORRECT,
        "Restates 003-sizing-137mib.",
    )  # fmt: skip
    figures.claim(
        "003-9-6-bits-1-2-bytes", "003", "sizing",
        "Each item costs 9.6 bits, that is 1.2 bytes.",
        "9.6 bits = 1.2 B",
        "{nk-003-bpi} bits per item",
        Verdict.CORRECT,
        "Restates 003-sizing-137mib.",
    )  # fmt: skip
    figures.claim(
        "003-capacity-1e8-margin", "003", "坑一",
        "The capacity was set to 100 million, thought to leave a 20% margin.",
        "1 亿, 20% margin", NO_FIGURE, Verdict.NOT_JUDGED,
        "The plan's expected volume is not given, so the 20% margin cannot be checked; what "
        "that capacity does at twice its load is 003-overfill-15.7pct.",
    )  # fmt: skip
    figures.claim(
        "003-exposure-down-9pct", "003", "坑一",
        "That day impressions fell 9%, and the team spent three hours finding out why.",
        "−9%, 3 hours", NO_FIGURE, Verdict.NOT_JUDGED,
        "The author's own business figure: context for the story, nothing to check; the false "
        "positive rate behind it is 003-one-in-six.",
    )  # fmt: skip
