"""Every claim of chapter choosing, in the order the seeds make them.

Seed sentences on when to use a bitmap that choosing's figures judge beside the rule they
used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): seed 000's §8.4
examples (online status, daily actives, check-ins) each get their own entry beside its rule
"compact small integers" (000-compact-rule): the examples are good uses even though the rule is
wrong, so their verdicts differ. Seed 003's remark on its script's length is marked
:attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.models.hyperloglog import HLL_BITS, HLL_REGISTERS
from setlab.render.claims import NO_FIGURE, Figures, Verdict

#: a dense HyperLogLog's registers (6 bits × 16,384), what "12 KB" names
_HLL_REGISTER_BYTES = HLL_REGISTERS * HLL_BITS // 8


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.choosing`)."""
    figures.claim(
        "000-compact-rule", "000", "§8.4",
        "Use a bitmap only when offsets are compact small integers (within tens of thousands).",
        "within tens of thousands",
        "density, not size: a bitmap beats a SET once {ch-bitmap-breakeven} offsets is set; "
        "10^8 dense IDs fit in {ch-dense-1e8-bitmap}",
        Verdict.WRONG,
        "A SET member costs tens of bytes, a bitmap one bit per possible offset: what matters is "
        "the "
        "share of offsets in use, not how large they are.",
    )  # fmt: skip
    figures.claim(
        "000-online-bitmap", "000", "§8.4",
        "Online status: auto-increment user IDs as offsets of one bitmap (SETBIT online 42 1).",
        "a good use",
        "dense IDs: {ch-dense-count} users in {ch-dense-1e8-bitmap}",
        Verdict.CORRECT,
        "Auto-increment IDs are dense, so every offset is a user and a bit is the cheapest "
        "exact record; it is density that makes it work, not smallness (000-compact-rule).",
    )  # fmt: skip
    figures.claim(
        "000-dau-bitmaps", "000", "§8.4",
        "Daily actives: auto-increment IDs, one bitmap a day, BITCOUNT and BITOP for DAU.",
        "a good use",
        "{ch-dense-1e8-bitmap} a day for {ch-dense-count} dense IDs",
        Verdict.CORRECT,
        "Dense offsets again; BITCOUNT and BITOP scan the bytes of each day's key, so the cost "
        "follows the largest ID, which auto-increment keeps equal to the user count.",
    )  # fmt: skip
    figures.claim(
        "000-sign-in-bitmap", "000", "§8.4",
        "Check-ins: the day of the month (1–31) as the offset of a per-user, per-month key.",
        "a good use",
        "one bit a day: a month fits in a few bytes",
        Verdict.CORRECT,
        "Every offset of the month is a possible check-in, so the key is fully dense and tiny; "
        "the book's density rule ({ch-bitmap-breakeven} offsets set) is met many times over.",
    )  # fmt: skip
    figures.claim(
        "003-table-dense-roaring", "003", "selection table",
        "Dense IDs within 32 bits (orders, auto-increment): a Roaring bitmap, 12.5 MB per 10^8 "
        "IDs, exact and deletable.",
        "Roaring, 12.5 MB / 10^8",
        "{ch-dense-count} consecutive IDs: Roaring {ch-dense-roaring-plain} as bitsets, "
        "{ch-dense-roaring} after run_optimize(); plain bitmap {ch-dense-plain}; "
        "advisor: {ch-dense-pick}",
        Verdict.OTHER_REASON,
        "Roaring is the pick, but because consecutive IDs collapse into run containers; at "
        "12.5 MB of bitsets a plain Redis bitmap costs the same without a module.",
    )  # fmt: skip
    figures.claim(
        "003-table-sparse-bloom", "003", "selection table",
        "Sparse 64-bit insert-only IDs: a Bloom filter; 1.2 bytes per element is about the "
        "ceiling (as good as it gets).",
        "Bloom, 1.2 B / element",
        "{ch-sparse64-count} device IDs: Bloom filter {ch-sparse64-bloom}, Roaring bitmap "
        "{ch-sparse64-roaring}, one Redis SET {ch-sparse64-redis}; advisor: {ch-sparse64-pick}",
        Verdict.IMPRECISE,
        "Bloom is the pick, but {ch-bloom-bytes} is its price at 1%, not a limit: any "
        "structure needs {ch-floor} at 1%, and a lower error costs more.",
    )  # fmt: skip
    figures.claim(
        "003-table-deletes-set", "003", "selection table",
        "Deletes needed and up to 5 × 10^7 IDs: a cuckoo filter, or simply a Redis SET (do not "
        "optimise early).",
        "Cuckoo or SET",
        "{ch-deletes-count} device IDs: Redis SET {ch-deletes-redis}, Roaring bitmap "
        "{ch-deletes-roaring}, cuckoo filter {ch-deletes-cuckoo}; advisor: {ch-deletes-pick}",
        Verdict.WRONG,
        "The cuckoo filter is right; the SET is seed 003's own 12 GB problem at a smaller "
        "scale, dozens of times the filter: not an early optimisation.",
    )  # fmt: skip
    figures.claim(
        "003-table-small-set", "003", "selection table",
        "Below ten million IDs: a Redis SET or intset; the memory saved does not pay for the "
        "operations.",
        "SET / intset",
        "{ch-small-count} integer IDs: Redis SET {ch-small-redis}, Roaring bitmap "
        "{ch-small-roaring}, Bloom filter {ch-small-bloom} (an intset stops at {ch-intset} "
        "members); advisor: {ch-small-pick}",
        Verdict.WRONG,
        "An intset cannot hold ten million members by default, and as a hash table the SET "
        "costs dozens of times an exact Roaring bitmap.",
    )  # fmt: skip
    figures.claim(
        "003-table-count-hll", "003", "selection table",
        "Only the count (UV), 1% error allowed: HyperLogLog, which counts but cannot test "
        "membership.",
        "HyperLogLog, 12 KB",
        f"HyperLogLog {{ch-count-hyperloglog}} ({_HLL_REGISTER_BYTES:,} B of registers) for "
        "{ch-count-count} IDs, ±{ch-hll-error}; smallest exact {ch-count-exact}; advisor: "
        "{ch-count-pick}",
        Verdict.CORRECT,
        "Orders of magnitude below any exact structure; its '12 KB' itself is checked in the "
        "HyperLogLog chapter.",
    )  # fmt: skip
    figures.claim(
        "003-histogram-first", "003", "closing",
        "Look at how your IDs are distributed (draw a histogram) before choosing a structure.",
        "histogram first",
        "same advisor, same scale: {ch-dense-pick} for {ch-dense-count} consecutive IDs "
        "({ch-dense-exact-per} per ID exact), {ch-sparse64-pick} for {ch-sparse64-count} hashed "
        "64-bit IDs ({ch-sparse64-exact-per} per ID exact)",
        Verdict.CORRECT,
        "At the same count the cheapest exact structure differs by orders of magnitude per ID "
        "with the IDs' shape, and the pick changes with it.",
    )  # fmt: skip
    figures.claim(
        "003-script-20-lines", "003", "closing",
        "The statistics script takes about twenty lines of code.",
        "~20 lines", NO_FIGURE, Verdict.NOT_JUDGED,
        "A remark about effort, not about Redis; the book's histogram is one call "
        "(003-histogram-first).",
    )  # fmt: skip
