"""The inputs the field reports state that more than one chapter, or a chapter and a lab run,
quotes: one home each, so no chapter imports another for a seed's number.

Seed 002 (a Bloom filter of WeChat openids in Redis): 800 million openids ("8亿"), the plan of §6
(2^16 keys of 2^17 bits and 15 hashes, sized "to leave room" for 2 × 10^9) and the fix of §7
(2^17 such keys and 10 hashes), for a target error rate of 0.1%.
"""

from __future__ import annotations

from setlab.models import bloom

#: Seed 002's real population of openids (the load the fix and the bulk load are judged at).
SEED_002_ITEMS = 8e8
#: Items seed 002's layout was planned for ("to leave room").
SEED_002_PLANNED = 2_000_000_000
#: Bits per container (Redis key), in the plan and in the fix.
SEED_002_BITS = 2**17
#: The plan: 2^16 containers and the 15 hashes ChatGPT proposed.
SEED_002_PLAN_CONTAINERS, SEED_002_PLAN_K = 2**16, 15
#: The fix: 2^17 containers and 10 hashes.
SEED_002_FIX_CONTAINERS, SEED_002_FIX_K = 2**17, 10
#: Seed 002's target error rate.
SEED_002_TARGET = 0.001


def seed_002_fix_rate(items: float) -> float:
    """Seed 002's fix (2^17 keys of 2^17 bits, 10 hashes) holding ``items`` openids: the mean
    false-positive rate over its keys, by the formula (a fraction; binomial key loads,
    :func:`setlab.models.bloom.sharded_fpr`). bloom-basics quotes it; nk-vs-m-saturation also
    simulates it."""
    return float(bloom.sharded_fpr(items, SEED_002_FIX_CONTAINERS, SEED_002_BITS, SEED_002_FIX_K))
