"""Claims of the chapter sharded-bloom: every verdict re-derived from an independent criterion
(sampled shard loads, the raw reference file, a campaign model drawn here)."""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np

from setlab.chapters import sharded_bloom as chapter
from setlab.render.claims import Claim, Verdict


def _claim(claim_id: str) -> Claim:
    return {c.id: c for c in chapter.FIGURES.claims}[claim_id]


def _p(n, m: float, k: int):
    """The classic false-positive rate (1 - e^(-kn/m))^k, written out here, not imported."""
    return (1 - np.exp(-k * np.asarray(n) / m)) ** k


def _bulk_load() -> dict:
    return json.loads((resources.files("setlab") / "data" / "bulk-load.json").read_text())


def test_sharding_by_hash_costs_little_on_average_and_more_in_the_fullest_shard():
    assert _claim("002-shard-high-bits").verdict is Verdict.CORRECT
    m, k, shards = 2**17, 10, 2**17
    loads = np.random.default_rng(11).multinomial(int(8e8), np.full(shards, 1 / shards))
    rates = _p(loads, m, k)
    assert rates.mean() < 1.02 * _p(8e8 / shards, m, k)
    assert 1.2 < rates.max() / rates.mean() < 2.0  # the chapter's figure: about 1.5×
    assert chapter.FIGURES["sb-worst-ratio"] == f"{chapter.shard_spread().worst_ratio:.1f}×"


def test_pipeline_speedup_depends_on_the_round_trip():
    ref = _bulk_load()
    rows = {(r["strategy"], r["batch"]): r for r in ref["rows"]}
    best = max(r["bits_per_second"] for r in ref["rows"] if r["strategy"] == "pipeline")
    assert _claim("002-pipeline-50x").verdict is Verdict.DEPENDS
    assert best / rows[("multi-roundtrip", 1000)]["bits_per_second"] < 50  # not 50× on loopback
    per_bit, rtt = 1 / best, 1e-3  # over a 1 ms network the same batching gains far more
    assert (rtt + per_bit) / (rtt / 1000 + per_bit) > 50


def test_twenty_hours_is_slow_for_the_hardware():
    ref = _bulk_load()
    best = max(r["bits_per_second"] for r in ref["rows"] if r["strategy"] == "pipeline")
    assert _claim("002-20-hours").verdict is Verdict.DEPENDS
    assert 8e9 / best < 20 * 3600 / 2  # the same bits go much faster in the reference run


def test_own_peak_reservations_waste_most_of_the_memory():
    assert _claim("003-8000-filters-380mb").verdict is Verdict.CORRECT
    # An independent campaign draw (seed 5, not the chapter's 4), sized by the formula written out
    rng = np.random.default_rng(5)
    typical = rng.lognormal(0.0, 1.5, size=8000)
    typical *= 1.2e8 / typical.sum()
    daily = typical * rng.lognormal(-(0.55**2) / 2, 0.55, size=(30, 8000))
    peaks = daily.max(axis=0)
    bits = np.ceil(peaks * -math.log(0.01) / math.log(2) ** 2).sum()
    shared = daily.sum(axis=1).max() * -math.log(0.01) / math.log(2) ** 2
    assert 2.2 < bits / shared < 3.2  # the seed's 380 MB / 137 MiB
    assert 0.25 < daily.sum(axis=1).mean() / peaks.sum() < 0.45  # about its 35% utilisation


def test_the_prose_and_the_verdict_table_read_one_campaign_model():
    # The drift this chapter had: prose 374 MiB / 2.6× / 37% (a second draw of the model) against
    # 380 MiB / 2.68× / 36% in the table. Both now read chapter.campaigns(CAMPAIGNS).
    row = _claim("003-8000-filters-380mb").our_figure()
    for name in ("sb-per-campaign", "sb-shared", "sb-ratio", "sb-util"):
        assert chapter.FIGURES[name] in row
    assert chapter.campaign_sweep([chapter.CAMPAIGNS.day_to_day]) == [chapter.campaigns()]
