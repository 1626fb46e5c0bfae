"""Seed sentences that birthday-collisions' figures judge beside a claim they used to share.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's §3.4
prose beside its table, its §7.5 correctness row, and seed 004's modulo code line each get their
own wording, "their figure" and verdict, judged by the chapter's figures. A pure restatement
says "restates <claim id>"; where the verdict differs, the reason says why.
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's sentence-level claims on its ``FIGURES`` (called once, at the end
    of :mod:`setlab.chapters.birthday_collisions`)."""
    figures.claim(
        "000-2-20-128kb", "000", "§3.4",
        "Shrinking the modulus from 2^32 to 2^20 (about a million) makes a first write allocate "
        "only 128 KB.",
        "128 KB",
        "{bd-size-2-20} at most (M = 2^20)",
        Verdict.IMPRECISE,
        "Restates 000-table-memory for M = 2^20: M/8 is the most a first write can allocate, a "
        "uniformly hashed first offset needs half of it on average — and the price is "
        "collisions ({bd-p-10k-2-20} for 10,000 users).",
    )  # fmt: skip
    figures.claim(
        "000-collision-effects", "000", "§3.4",
        "When A and B share an offset, B reads as favourited after A's favourite (a false "
        "positive), and B's unfavourite clears A's.",
        "false 'yes'; one unfavourite clears both",
        "one bit for two users: GETBIT answers for both, SETBIT 0 clears both",
        Verdict.CORRECT,
        "A shared bit cannot tell its users apart; how often two of n users share one of M "
        "offsets is the table (000-table-cells, {bd-right-cells} cells right).",
    )  # fmt: skip
    figures.claim(
        "000-set-no-collisions", "000", "§7.5",
        "Correctness: a hashed bitmap risks collisions, a Set of the raw IDs has none.",
        "collision risk vs zero collisions",
        "10,000 users at M = 2^20 collide with probability {bd-p-10k-2-20}; a Set stores each ID",
        Verdict.CORRECT,
        "The birthday formula behind 000-table-cells; a Set compares whole IDs, so two users "
        "never share an entry.",
    )  # fmt: skip
    figures.claim(
        "004-hash-mod-1e5", "004", "§2.1",
        "Seed 004 bounds its offsets by taking the hash modulo 100,000 (key bitMap10w_hash_size).",
        "offsets 0 ~ 99,999",
        "{bd-004-empty} ± {bd-004-sd-empty} of the 100,000 slots expected empty",
        Verdict.CORRECT,
        "The modulo bounds the bitmap to 100,000 bits as intended; with 100,000 items it leaves "
        "about 1/e of the slots empty and as many items collide (004-36.84pct).",
    )  # fmt: skip
