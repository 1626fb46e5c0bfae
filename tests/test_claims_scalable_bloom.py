"""Claims of the chapter scalable-bloom: every verdict re-derived from an independent criterion."""

from __future__ import annotations

import numpy as np
from setlab.chapters.claims import Verdict

from setlab.chapters import claims

MiB = 2**20


def _by_id(claim_id: str) -> claims.Claim:
    (claim,) = [c for c in claims.CLAIMS if c.id == claim_id]
    return claim


def test_redisbloom_layers_grow_and_tighten():
    assert _verdict("003-scaling-layers") is Verdict.WRONG
    capacities = [r["info"]["Capacity"] for r in _rbref()["small"]]  # BF.INFO, live module
    assert capacities[1] - capacities[0] == 2 * capacities[0]  # the second layer is twice
    assert _verdict("003-three-layers-2.97pct") is Verdict.WRONG
    assert _rbref()["small"][2]["fpr_measured"] < 0.01 < 0.0297
    assert _verdict("003-scaling-1-five-layers") is Verdict.WRONG
    assert _rbref()["fixed"][4]["fpr_measured"] < 0.02  # nowhere near 5%


def test_latency_is_the_round_trip():
    rows = _rbref()["rows"]
    assert _verdict("003-latency-0.06-0.3ms") is Verdict.DEPENDS
    assert rows[2]["stranger_rtt_p50"] < 1.5 * rows[0]["stranger_rtt_p50"]
    assert rows[2]["stranger_server"] - rows[0]["stranger_server"] < 1e-6
    assert _verdict("003-seven-hashes-21") is Verdict.WRONG
    half_full = 1 / (1 - 0.5)  # a stranger's test stops at the first unset bit: ~2 reads
    assert 3 * half_full < 21 / 2


def test_seven_daily_filters_cost_round_trips_not_filters():
    w = _rbref()["window"]
    assert _verdict("003-seven-days-7x") is Verdict.DEPENDS
    assert 4 < w["round_trips"]["p50"] / w["one_filter"]["p50"] < 10
    assert w["pipelined"]["p50"] < w["round_trips"]["p50"] / 2


def test_rebuild_window_is_set_by_the_load_rate():
    from setlab.models import redisbloom

    assert _verdict("003-rebuild-3-5min") is Verdict.DEPENDS
    assert 2e7 / _rbref()["load_items_per_second"] < 180  # a faster load, a shorter window
    assert _verdict("003-dual-write") is Verdict.CORRECT
    out = redisbloom.simulate_rebuild(10**6, 1e4, 500, 0.3, "dual-write-shadow-read",
                                      np.random.default_rng(0))  # fmt: skip
    assert out.passed == 0 and out.peak_filters == 2
