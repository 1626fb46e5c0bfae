"""Claims of the chapter string-plus-set: every verdict re-derived from an independent criterion."""

from __future__ import annotations

from setlab.chapters.claims import Verdict

from setlab.chapters import claims
from setlab.models import bitmap

MiB = 2**20


def _by_id(claim_id: str) -> claims.Claim:
    (claim,) = [c for c in claims.CLAIMS if c.id == claim_id]
    return claim


def test_string_plus_set_claims(fake_lab):
    from setlab.lab import like_service

    service = like_service.LikeService(fake_lab, like_service.LikeStore())
    assert _verdict("000-sadd-atomic") is Verdict.WRONG
    assert like_service.forced_double_count(service) == (1, 2)
    assert _verdict("000-reload-on-null") is Verdict.WRONG
    assert fake_lab.r.sismember(fake_lab.key("missing"), "x") == 0
    assert _verdict("000-set-1e4-80kb") is Verdict.CORRECT
    assert abs(like_service.likers_memory(10_000, new_keys=False) / 80_000 - 1) < 0.1
    assert _verdict("000-set-1e8-2gb") is Verdict.IMPRECISE
    low = like_service.likers_memory(10**8, new_keys=False)
    high = like_service.likers_memory(10**8, new_keys=True)
    assert low < 0.5 * 2e9 and high > 2 * 2e9  # 2 GB is neither reading
    assert _verdict("000-bitmap-1e8-12mb") is Verdict.IMPRECISE
    assert bitmap.first_setbit_memory_usage(10**8 - 1) < 13 * MiB
    assert bitmap.first_setbit_memory_usage(bitmap.MAX_OFFSET) > 40 * 12 * MiB
