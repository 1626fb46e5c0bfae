"""Every claim of chapter nk-vs-m-saturation, in the order the seeds make them.

Seed sentences on sizing and saturation that nk-vs-m-saturation's figures judge beside a
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
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.nk_vs_m_saturation`)."""
    figures.claim(
        "002-hex-example", "002", "§4–5",
        "821697800 is 0x30FA1D08: high 16 bits 30FA pick the container, low 16 bits 1D08 = 7432 "
        "index it (hash >> 16, hash & 0xFFFF).",
        "30FA / 1D08 = 7432",
        "{nk-hex-split}",
        Verdict.CORRECT,
        "The shift and the mask split a 32-bit hash exactly as printed.",
        also=("sharded-bloom",),
    )  # fmt: skip
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
        "002-doubled-20yi", "002", "§6",
        "8 × 10^8 openids with room for as many again gives a 2 × 10^9 filter.",
        "2 × 10^9 (20 亿)",
        "8 × 10^8 doubled is {nk-doubled}",
        Verdict.IMPRECISE,
        "Doubling gives {nk-doubled}; the plan rounds it up to 2 × 10^9.",
    )  # fmt: skip
    figures.claim(
        "002-2-16-65525", "002", "§6–7",
        "2^16 = 65525 containers (and later 65535).",
        "65525 / 65535",
        "2^16 = {nk-2-16}",
        Verdict.CORRECT,
        "A typo, twice: 2^16 is {nk-2-16}. Off by 11 and by 1 of 65,536, it changes no "
        "conclusion, and the seed's per-container load uses the right value (as 65535 does "
        "below).",
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
        "002-15-hashes-0.1pct", "002", "§6",
        "15 hashes give a 0.1% error for that container (the answer ChatGPT gave).",
        "15 hashes → 0.1%",
        "best k is {nk-plan-bestk}, reaching {nk-plan-bestp}; 0.1% needs {nk-bits-needed} bits a "
        "container",
        Verdict.WRONG,
        "No k reaches 0.1% at about {nk-plan-ratio} bits per item: the container is too small, not "
        "the hashes too few.",
    )  # fmt: skip
    figures.claim(
        "002-container-arith", "002", "§6",
        "2 × 10^9 items over 2^16 containers is about 3w each; 2^17 bits hold 13w; 15 hashes × 3w "
        "= 45w bit writes into one container.",
        "3w, 13w, 45w",
        "{nk-plan-n} a container, 2^17 = {nk-2-17} bits, 15 × n = {nk-15n}",
        Verdict.CORRECT,
        "The arithmetic holds; 45w writes into 13w bits is why the plan fails.",
    )  # fmt: skip
    figures.claim(
        "002-15-hashes-over-50pct", "002", "§6",
        "15 hashes with about 30,000 items in a 2^17-bit container give over 50% false positives.",
        "over 50%",
        "{nk-plan-fpr} ({nk-plan-n} items a container, {nk-plan-fill} of the bits set)",
        Verdict.CORRECT,
        "At k·n/m ≈ {nk-plan-load} the container is nearly full, and every probe finds a set bit.",
    )  # fmt: skip
    figures.claim(
        "002-nk-le-m", "002", "§6",
        "n·k must not exceed m (or not by much).",
        "n·k ≤ m",
        "at n·k = m the filter is {nk-fill-at-rule} full and the rate is 0.632^k ({nk-rule-p10} at "
        "k = 10); the best load is n·k/m = ln 2 = {nk-best-load}",
        Verdict.IMPRECISE,
        "A ceiling, not a target: at the limit the filter is well past its best fill.",
    )  # fmt: skip
    figures.claim(
        "002-65535-containers", "002", "§7",
        "Since 65,535 containers are not enough, the fix takes more.",
        "65535, not enough",
        "2^16 = {nk-2-16}",
        Verdict.CORRECT,
        "The conclusion holds (at the plan's load each container is overfilled, "
        "002-container-arith); the count is off by one, which changes nothing, as the §6 figure "
        "65525 (002-2-16-65525) is off by eleven.",
    )  # fmt: skip
    figures.claim(
        "002-fix-verified", "002", "§7",
        "2^17 containers with 10 hashes give 0.1%, as the formula says and a test verified.",
        "0.1%",
        "{nk-fix-8e8} at the real 8 × 10^8; {nk-fix-2e9} at the planned 2 × 10^9",
        Verdict.WRONG,
        "At neither load the seed names: the real one gives {nk-fix-8e8} and the planned one "
        "{nk-fix-2e9}, each more than ten times off; 0.1% holds only for a load between them.",
    )  # fmt: skip
    figures.claim(
        "002-6w-keys", "002", "§8",
        "Going from 2^16 to 2^17 containers adds only about 6w keys.",
        "6w",
        "{nk-more-keys} more keys",
        Verdict.CORRECT,
        "2^17 − 2^16 = 2^16 keys, a small keyspace for Redis.",
        also=("sharded-bloom",),
    )  # fmt: skip
    figures.claim(
        "002-multi-a-month", "002", "§9",
        "20 hours pipelined means about a month with MULTI.",
        "about a month",
        "20 h × 50 = {nk-multi-days}",
        Verdict.IMPRECISE,
        "The seed's own two figures multiply to {nk-multi-days}, not a month; its 50× is judged in "
        "sharded-bloom.",
        also=("sharded-bloom",),
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
        "003-sizing-137mib", "003", "sizing",
        "For 1.2 × 10^8 items at 1%: m ≈ 1.15 × 10^9 bits ≈ 137 MiB, 9.6 bits per item, k = 7.",
        "137 MiB, 9.6 bits/item, k = 7",
        "{nk-003-bytes}, {nk-003-bpi} bits per item, k = {nk-003-k}; BF.RESERVE NONSCALING "
        "loaded at full scale (reference run): {nk-003-measured}, {nk-003-measured-fpr} false "
        "positives; with the default expansion: {nk-003-default} (model)",
        Verdict.CORRECT,
        "The textbook formulas, applied correctly. The seed's BF.RESERVE with RedisBloom's "
        "defaults builds its first sub-filter for {nk-003-default-rate}, so it allocates "
        "{nk-003-default}: within the rubric's tolerance of 137 MiB; NONSCALING gives exactly "
        "the formula's size.",
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
        "003-overfill-15.7pct", "003", "坑一",
        "Sized for 10^8 items and filled with 2 × 10^8, the filter's rate is 15.7%.",
        "15.7%",
        "{nk-003-over} for a fixed bit array (m/n = {nk-003-over-ratio}, k = 7); RedisBloom's "
        "default BF.RESERVE 0.01 10^8 at 2 × 10^8: {nk-003-over-default} in "
        "{nk-003-over-default-filters} sub-filters (model)",
        Verdict.DEPENDS,
        "On the filter: the arithmetic is right for a fixed bit array (one built on SETBIT, or in "
        "the client), whose rate grows roughly like the load to the power k past capacity. "
        "RedisBloom never gets there: its default adds a sub-filter, and NONSCALING refuses the "
        "adds past capacity ('non scaling filter is full').",
        also=("audit",),
    )  # fmt: skip
    figures.claim(
        "003-one-in-six", "003", "坑一",
        "At 15.7% one device in six is wrongly taken for one already reached.",
        "1 in 6",
        "1 in {nk-one-in}",
        Verdict.CORRECT,
        "1 / 15.7% rounds to 6.",
    )  # fmt: skip
    figures.claim(
        "003-exposure-down-9pct", "003", "坑一",
        "That day impressions fell 9%, and the team spent three hours finding out why.",
        "−9%, 3 hours", NO_FIGURE, Verdict.NOT_JUDGED,
        "The author's own business figure: context for the story, nothing to check; the false "
        "positive rate behind it is 003-one-in-six.",
    )  # fmt: skip
    figures.claim(
        "003-reserve-1.5x", "003", "坑一",
        "Set capacity to at least 1.5× the peak: the third argument of BF.RESERVE key 0.01 "
        "150000000.",
        "1.5× peak, 150000000",
        "capacity is that argument; 2 × 10^8 into it: {nk-reserve-over} in a fixed bit array, "
        "{nk-reserve-over-default} with RedisBloom's default (a second sub-filter)",
        Verdict.IMPRECISE,
        "1.5 × 10^8 is 1.5× the old capacity, not 1.5× the 2 × 10^8 peak the seed just met.",
    )  # fmt: skip
