"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapter "Cuckoo filters and kick chains" -----------------------------------------------------


def _ck() -> dict:
    from setlab.models import cuckoo

    return cuckoo.claim_figures()


CLAIMS += [
    Claim(
        "003-cuckoo-12-bits", "003", "坑三", "cuckoo-kick-chains",
        "At 95% load a cuckoo filter costs about 12 bits per item, more than a Bloom filter's "
        "9.6.",
        "12 bits vs 9.6 bits",
        lambda: (
            f"at 1%: {_ck()['cuckoo_bits_1pct']:.1f} vs {_ck()['bloom_bits_1pct']:.1f} bits; "
            f"12 bits buy {_rate(_ck()['seed_bits_error'])}, where Bloom needs "
            f"{_ck()['bloom_bits_seed_error']:.1f}"
        ),
        Verdict.IMPRECISE,
        "Right direction at 1%, but 12 bits is the cost at a lower error, where the two tie.",
    ),
    Claim(
        "003-cuckoo-insert-fails", "003", "坑三", "cuckoo-kick-chains",
        "Inserts can fail: when the kick chain grows too long the insert gives up.",
        "fails",
        lambda: (
            f"b = 4, 500 kicks: first failure at {_ck()['first_failure_b4_500']:.1%} load; "
            f"RedisBloom default (b = 2, 20 iterations): {_ck()['first_failure_rb']:.1%}"
        ),
        Verdict.CORRECT,
        "The wall is set by the bucket size, the victim rule and the kick limit.",
    ),
    Claim(
        "003-cuckoo-0.03pct", "003", "坑三", "cuckoo-kick-chains",
        "Kick chains passed the project's limit of 500; 0.03% of inserts failed.",
        "0.03%",
        lambda: (
            f"0.03% of inserts have failed once the filter reaches "
            f"{_ck()['reach_seed_share_b4_500']:.1%} load (b = 4, 500 kicks); none below "
            f"{_ck()['first_failure_b4_500']:.1%}"
        ),
        Verdict.DEPENDS,
        "A failure rate is a statement about how full the filter ran.",
    ),
    Claim(
        "003-cuckoo-36000", "003", "坑三", "cuckoo-kick-chains",
        "0.03% of 1.2 × 10^8 inserts is 36,000 failures.",
        "36,000",
        lambda: f"{_ck()['seed_failures']:,.0f}",
        Verdict.CORRECT,
        "Arithmetic.",
    ),
    Claim(
        "003-cuckoo-deletes", "003", "坑三", "cuckoo-kick-chains",
        "Cuckoo filters support deletion.",
        "can delete",
        lambda: (
            f"deleting one false positive removed {_ck()['members_lost_by_one_delete']} real "
            f"member; one item fits {_ck()['copies_fitting_b2']} times (2b) with b = 2"
        ),
        Verdict.CORRECT,
        "Right, if only items known to be present are deleted.",
    ),
]  # fmt: skip
