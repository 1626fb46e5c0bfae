"""Every claim of chapter cuckoo-kick-chains, in the order the seeds make them."""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.cuckoo_kick_chains`)."""
    figures.claim(
        "003-cuckoo-deletes", "003", "坑三",
        "Cuckoo filters support deletion.",
        "can delete",
        "deleting one false positive removed {ck-lost} real member; one item fits {ck-copies-b2} "
        "times (2b) with b = 2",
        Verdict.CORRECT,
        "Right, if only items known to be present are deleted.",
    )  # fmt: skip
    figures.claim(
        "003-cuckoo-12-bits", "003", "坑三",
        "At 95% load a cuckoo filter costs about 12 bits per item, more than a Bloom filter's 9.6.",
        "12 bits vs 9.6 bits",
        "at 1%: {ck-cuckoo-1pc} vs {ck-bloom-1pc} bits; 12 bits buy {ck-seed-eps}, where Bloom "
        "needs "
        "{ck-bloom-at-seed-eps}; 95% is reachable (b = 4 at {ck-seed-slots} slots first fails at "
        "{ck-seed-wall})",
        Verdict.CORRECT,
        "Within the rubric's tolerance at 1% ({ck-cuckoo-1pc} bits), and more than Bloom's, as "
        "the seed says; at 12 bits the two tie, at a lower error.",
    )  # fmt: skip
    figures.claim(
        "003-cuckoo-insert-fails", "003", "坑三",
        "Inserts can fail: when the kick chain grows too long the insert gives up.",
        "fails",
        "RedisBloom, first 'full' at (median, range; {ck-wall-size}): b = 4, 500 iterations "
        "{ck-rb-b4-500}; default b = 2, 20 iterations {ck-rb-b2-20}; at the seed's size "
        "({ck-seed-slots} slots, b = 4, 500): {ck-seed-wall}",
        Verdict.CORRECT,
        "The wall is set by the bucket size, the victim rule, the kick limit and the table's size, "
        "and varies from stream to stream: RedisBloom's default first fails at {ck-rb-b2-20-small} "
        "at {ck-wall-small-size}, {ck-rb-b2-20-large} at {ck-wall-large-size} and "
        "{ck-seed-wall-b2} "
        "at {ck-seed-slots}.",
    )  # fmt: skip
    figures.claim(
        "003-cuckoo-0.03pct", "003", "坑三",
        "Kick chains passed the project's limit of 500; 0.03% of inserts failed.",
        "0.03%",
        "1.2 × 10^8 inserts into CF.RESERVE 1.2e8 BUCKETSIZE 4 MAXITERATIONS 500 ({ck-seed-slots} "
        "slots, {ck-seed-load} full): {ck-seed-fails} refused; 0.03% fail only once it runs to "
        "{ck-seed-reach} (first 'full' at {ck-seed-wall})",
        Verdict.DEPENDS,
        "A failure rate is a statement about how full the filter ran: sized for the seed's volume, "
        "a b = 4 filter refuses {ck-seed-fails}; 0.03% means it was run at its wall.",
    )  # fmt: skip
    figures.claim(
        "003-cuckoo-36000", "003", "坑三",
        "0.03% of 1.2 × 10^8 inserts is 36,000 failures.",
        "36,000",
        "{ck-seed-failures}",
        Verdict.CORRECT,
        "Arithmetic, on the seed's own 0.03%; measured at that volume, a b = 4 filter sized for it "
        "refused {ck-seed-fails} (see 003-cuckoo-0.03pct).",
    )  # fmt: skip
