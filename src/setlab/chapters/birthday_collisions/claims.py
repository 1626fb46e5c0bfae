"""Every claim of chapter birthday-collisions, in the order the seeds make them.

Seed sentences that birthday-collisions' figures judge beside a claim they used to share.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's §3.4
prose beside its table, its §7.5 correctness row, and seed 004's modulo code line each get their
own wording, "their figure" and verdict, judged by the chapter's figures. A pure restatement
says "restates <claim id>"; where the verdict differs, the reason says why.
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict

#: Seed 000 §3.4 as printed: (log2 M, users per item) → collision probability.
SEED_000_TABLE: dict[tuple[int, int], str] = {
    (32, 100): "0.0001%", (32, 1000): "0.01%", (32, 10000): "1.2%",
    (28, 100): "0.002%", (28, 1000): "0.19%", (28, 10000): "17%",
    (24, 100): "0.03%", (24, 1000): "3%", (24, 10000): "95%",
    (20, 100): "0.48%", (20, 1000): "100%", (20, 10000): "100%",
}  # fmt: skip
#: Seed 004 §3: the two "collision rates" it prints for 100,000 UUIDs.
SEED_004_UNLIMITED = "0.002%"
SEED_004_SIZED = "36.84%"


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.birthday_collisions`)."""
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
        "000-table-cells", "000", "§3.4",
        "Collision probabilities for M = 2^32…2^20 and 100/1,000/10,000 users.",
        "12 cells",
        "{bd-right-cells} right as printed",
        Verdict.IMPRECISE,
        "The birthday formula, rounded to the seed's precision, gives the same figure in every "
        "cell but two, judged on their own (M = 2^20 with 100 users, an approximation within "
        "tolerance, and with 1,000, wrong): a table with a wrong cell is imprecise as a whole.",
    )  # fmt: skip
    figures.claim(
        "000-table-2^20-1000", "000", "§3.4",
        "M = 2^20, 1,000 users per item: a collision is certain.",
        SEED_000_TABLE[20, 1000],
        "{bd-wrong-exact}",
        Verdict.WRONG,
        f"Only n²/M = {figures['bd-wrong-n2m']} prints as 100%: the pair count without its ½ (and "
        "no 1 − e^−x), i.e. twice the union bound.",
    )  # fmt: skip
    figures.claim(
        "000-table-2^20-100", "000", "§3.4",
        "M = 2^20, 100 users per item.",
        SEED_000_TABLE[20, 100],
        "{bd-rough-exact}",
        Verdict.CORRECT,
        f"{SEED_000_TABLE[20, 100]} is n²/2M = {figures['bd-rough-n2']}, the usual approximation "
        f"(n² pairs for n(n−1)/2): {figures['bd-rough-high']} high, within the rubric's "
        "tolerance.",
    )  # fmt: skip
    figures.claim(
        "000-table-memory", "000", "§3.4",
        "First allocation: 512 MB, 32 MB, 2 MB, 128 KB for M = 2^32…2^20.",
        "M/8 bytes",
        "{bd-size-2-32} at most, {bd-mean-2-32} on average (M = 2^32)",
        Verdict.IMPRECISE,
        "M/8 is the most a first SETBIT can allocate; a uniformly hashed first offset allocates "
        "half "
        "that on average.",
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
    figures.claim(
        "004-0.002pct", "004", "§3",
        "100,000 UUIDs hashed by murmur3 x86_32 with no size limit collide 0.002%.",
        SEED_004_UNLIMITED,
        "{bd-004-lost32} ± {bd-004-sd32} of 100,000 lost ({bd-004-rate32}); P(any) {bd-004-pany32}",
        Verdict.CORRECT,
        "One run's lost fraction, 2 of 100,000 (the seed's BITCOUNT of 99,998), under a standard "
        "deviation from the model's expectation: an ordinary run, judged as 36.84% is; two events "
        "cannot pin a rate down, and a collision somewhere is more likely than not.",
        also=("bloom-basics",),
    )  # fmt: skip
    figures.claim(
        "004-36.84pct", "004", "§3",
        "100,000 UUIDs into 100,000 slots collide 36.84%.",
        SEED_004_SIZED,
        "{bd-004-empty} ± {bd-004-sd-empty} expected",
        Verdict.CORRECT,
        f"(1 − 1/n)^n ≈ 1/e of the slots stay empty, so as many items are lost; 36.84% is "
        f"{figures['bd-004-z']} standard deviations from that: an ordinary run.",
        also=("bloom-basics",),
    )  # fmt: skip
