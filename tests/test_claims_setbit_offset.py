"""Claims of the chapter setbit-offset: every verdict re-derived from an independent criterion."""

from __future__ import annotations

import pytest
from setlab.chapters.claims import Verdict

from setlab.chapters import claims
from setlab.models import bitmap

MiB = 2**20


def _by_id(claim_id: str) -> claims.Claim:
    (claim,) = [c for c in claims.CLAIMS if c.id == claim_id]
    return claim


def test_256_kb_is_wrong_by_orders_of_magnitude():
    assert _by_id("000-memory-256kb").verdict is Verdict.WRONG
    assert bitmap.first_setbit_memory_usage(1_823_456_789) > 500 * 256 * 1000


def test_later_setbit_20ms_is_not_redis():
    claim = _by_id("000-later-setbit-20ms")
    assert claim.verdict is Verdict.WRONG
    second_ms = claims._reference_median(claims.SEED_INCIDENT_OFFSET, "second_client_ms")
    assert second_ms < 20 / 10  # an order of magnitude below the seed's figure


def test_first_setbit_time_is_the_same_order_as_the_seed():
    assert _by_id("000-first-setbit-1500ms").verdict is Verdict.DEPENDS
    server_ms = claims._reference_median(claims.SEED_INCIDENT_OFFSET, "server_us") / 1e3
    assert 1500 / 30 < server_ms < 1500 * 3


@pytest.mark.parametrize(
    ("claim_id", "offset", "seed_mb"),
    [("000-alloc-1e6", 10**6, 0.125), ("000-alloc-1e8", 10**8, 12)],
)
def test_small_allocation_figures_are_correct_within_ten_percent(claim_id, offset, seed_mb):
    assert _by_id(claim_id).verdict is Verdict.CORRECT
    usage = bitmap.first_setbit_memory_usage(offset)
    assert abs(usage / (seed_mb * MiB) - 1) < 0.1 or abs(usage / (seed_mb * 1e6) - 1) < 0.1


@pytest.mark.parametrize(
    ("claim_id", "offset", "seed_mib"),
    [
        ("000-alloc-1e9", 10**9, 120),
        ("000-alloc-2e9", 2**31, 256),
        ("000-alloc-4e9", 2**32 - 1, 512),
    ],
)
def test_large_allocation_figures_miss_the_allocators_rounding(claim_id, offset, seed_mib):
    assert _by_id(claim_id).verdict is Verdict.IMPRECISE
    assert bitmap.first_setbit_memory_usage(offset) > seed_mib * MiB * 1.05


def test_128m_for_a_billion_bits_is_right_only_because_of_jemalloc():
    assert _by_id("002-1e9-bits-128m").verdict is Verdict.OTHER_REASON
    assert bitmap.bytes_for_offset(10**9) < 120 * MiB
    assert bitmap.first_setbit_memory_usage(10**9) - 48 == 128 * MiB


def test_complexity_claim_holds_in_the_reference_run():
    assert _by_id("000-setbit-complexity").verdict is Verdict.CORRECT
    first = claims._reference_median(bitmap.MAX_OFFSET, "server_us") / 1e3
    second = claims._reference_median(bitmap.MAX_OFFSET, "second_client_ms")
    assert first > 100 * second


def test_the_limit_is_2_to_the_32_bits():
    assert _by_id("002-max-2-32").verdict is Verdict.CORRECT
    assert bitmap.max_offset() + 1 == 2**32
