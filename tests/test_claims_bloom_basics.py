"""Claims of the chapter bloom-basics: every verdict re-derived from an independent criterion."""

from __future__ import annotations

import math

import numpy as np
from setlab.chapters.claims import Verdict

from setlab.chapters import claims

MiB = 2**20


def _by_id(claim_id: str) -> claims.Claim:
    (claim,) = [c for c in claims.CLAIMS if c.id == claim_id]
    return claim


def test_thirty_percent_of_ten_million_is_three_million():
    assert _verdict("002-30pct-misses") is Verdict.CORRECT
    assert 10_000_000 * 30 // 100 == 3_000_000


def test_the_rate_depends_on_n_too():
    assert _verdict("002-error-k-m") is Verdict.IMPRECISE
    m, k = 2**17, 10
    assert _p(2e9 / 2**17, m, k) > 100 * _p(8e8 / 2**17, m, k)  # same k and m, n changes it


def test_seed_004s_filter_ignores_the_element(fake_lab):
    from setlab.models import bloom

    assert _verdict("004-java-bloom-works") is Verdict.WRONG
    java = bloom.Seed004BloomFilter(fake_lab, "j", 10_000, 3, rng=np.random.default_rng(0))
    java.add("element1")
    assert java.contains("element4") and java.contains("anything at all")


def test_seed_002_plan_and_fix_against_the_formula():
    m, per = 2**17, 2e9 / 2**16
    assert _verdict("002-15-hashes-over-50pct") is Verdict.CORRECT
    assert _p(per, m, 15) > 0.5
    assert _verdict("002-15-hashes-0.1pct") is Verdict.WRONG
    assert min(_p(per, m, k) for k in range(1, 40)) > 0.001  # no k reaches 0.1%
    assert _verdict("002-fix-verified") is Verdict.DEPENDS
    assert _p(8e8 / 2**17, m, 10) < 0.001 < _p(2e9 / 2**17, m, 10)


def test_nk_equal_m_is_past_the_best_load():
    assert _verdict("002-nk-le-m") is Verdict.IMPRECISE
    n, m = 1000, 10_000  # 10 bits an item: the rule allows k = 10
    best = min(range(1, 20), key=lambda k: _p(n, m, k))
    assert best * n < m and _p(n, m, 10) > 1.2 * _p(n, m, best)


def test_seed_003_sizing_and_overfill():
    assert _verdict("003-sizing-137mib") is Verdict.CORRECT
    m = -1.2e8 * math.log(0.01) / math.log(2) ** 2
    assert round(m / 8 / 2**20) == 137 and round(m / 1.2e8 * math.log(2)) == 7
    assert _verdict("003-overfill-15.7pct") is Verdict.CORRECT
    assert abs(_p(2e8, 1e8 * 9.585, 7) - 0.157) < 0.001


def test_sharding_by_hash_costs_little_on_average():
    assert _verdict("002-shard-high-bits") is Verdict.CORRECT
    m, k, shards = 2**17, 10, 2**17
    loads = np.random.default_rng(11).multinomial(int(8e8), np.full(shards, 1 / shards))
    rates = (1 - np.exp(-k * loads / m)) ** k
    assert rates.mean() < 1.02 * _p(8e8 / shards, m, k)


def test_pipeline_speedup_and_load_time_depend_on_the_setup():
    from setlab.lab import reference

    ref = reference.load("bulk-load")
    rows = {(r["strategy"], r["batch"]): r for r in ref["rows"]}
    best = max(r["bits_per_second"] for r in ref["rows"] if r["strategy"] == "pipeline")
    assert _verdict("002-pipeline-50x") is Verdict.DEPENDS
    assert best / rows[("multi-roundtrip", 1000)]["bits_per_second"] < 50  # not 50× on loopback
    per_bit, rtt = 1 / best, 1e-3  # over a 1 ms network the same batching gains far more
    assert (rtt + per_bit) / (rtt / 1000 + per_bit) > 50
    assert _verdict("002-20-hours") is Verdict.DEPENDS
    assert 8e9 / best < 20 * 3600 / 2  # the same bits go much faster here


def test_own_peak_reservations_waste_most_of_the_memory():
    from setlab.models import bloom

    assert _verdict("003-8000-filters-380mb") is Verdict.CORRECT
    daily = bloom.skewed_daily_loads(np.random.default_rng(5), 8000, 30, 1.2e8, 1.5, 0.55)
    peaks = daily.max(axis=0)
    bits = np.ceil(peaks * -math.log(0.01) / math.log(2) ** 2).sum()
    shared = daily.sum(axis=1).max() * -math.log(0.01) / math.log(2) ** 2
    assert 2.2 < bits / shared < 3.2  # the seed's 380 MB / 137 MiB
    assert 0.25 < daily.sum(axis=1).mean() / peaks.sum() < 0.45  # about its 35% utilisation
