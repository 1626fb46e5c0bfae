"""Seed 000's sentences that snowflake-ranges' figures judge beside a claim they used to share.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): the code comment
and the code line, the §3.2 summary and the §4.2 detail, the §4.1 and §8.1 comparisons each get
their own wording, "their figure" and verdict, judged by the chapter's figures. A pure
restatement says "restates <claim id>"; where the verdict differs, the reason says why.
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level claims on its ``FIGURES`` (called once, at the end
    of :mod:`setlab.chapters.snowflake_ranges`)."""
    figures.claim(
        "000-offset-reaches-4e9", "000", "§2",
        "The code's comment: toOffset(userId) reaches offsets up to 4.29 billion.",
        "up to 4.29 billion",
        "at most {sf-printed-max}: Java evaluates 2^32 - 1 to {sf-printed-modulus}",
        Verdict.WRONG,
        "Restates 000-to-offset-range: the modulus as printed is 2 XOR 31.",
    )  # fmt: skip
    figures.claim(
        "000-modulo-many-to-one", "000", "§4.2",
        "A modulo is a compressing map: many IDs necessarily share an offset.",
        "many-to-one, necessarily",
        "{sf-printed-users} users on {sf-printed-offsets} offsets as printed",
        Verdict.CORRECT,
        "The pigeonhole principle: more possible IDs than offsets means shared offsets, whatever "
        "the modulus (000-to-offset-range judges the printed one, which is wrong); how likely a "
        "shared offset is among the users actually present is the birthday table "
        "(000-table-cells).",
    )  # fmt: skip
    figures.claim(
        "000-uniform-mean-2e9", "000", "§3.2",
        "After the hash and the modulo, offsets are uniform over 0 – 4.29 billion, with an "
        "expected value of about 2.14 billion.",
        "uniform on 0 – 4.29 × 10^9, mean ~2.14 × 10^9",
        "mean {sf-expected-offset} as meant; as printed at most {sf-printed-max}",
        Verdict.DEPENDS,
        "Restates 000-uniform-offsets and 000-expected-offset: right (to a bias of "
        "{sf-excess-meant}) for the modulus the seed meant, not for the code it prints.",
    )  # fmt: skip
    figures.claim(
        "000-19-digits-over-2-32", "000", "§4.4",
        "A snowflake ID is itself a 19-digit number (~2^61), far beyond the bitmap's 2^32 limit.",
        "19 digits, ~2^61 ≫ 2^32",
        "{sf-seed-digits} digits, 2^{sf-seed-log2}: {sf-ratio-seed}× the offset limit",
        Verdict.CORRECT,
        "Restates 000-typical-id; SETBIT refuses it ({sf-setbit-error}).",
    )  # fmt: skip
    figures.claim(
        "000-64-vs-32-bits", "000", "§8.1",
        "64-bit IDs against 32-bit offsets: two billion times apart.",
        "20 亿倍 (2 billion times)",
        "range: {sf-ratio-range}×; the seed's own ID: {sf-ratio-seed}×",
        Verdict.IMPRECISE,
        "Restates 000-20yi-times: two billion is the whole positive range over 2^32; real IDs "
        "are smaller and grow with time.",
    )  # fmt: skip
