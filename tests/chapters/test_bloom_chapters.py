"""The helpers of the Bloom chapters' modules (bloom-basics, nk-vs-m-saturation, sharded-bloom):
the picture, the tables and the models the pages call, against values worked out here."""

from __future__ import annotations

import json
import math
from importlib import resources

import matplotlib
import numpy as np
import pytest

from setlab.chapters import bloom_basics, sharded_bloom
from setlab.chapters import nk_vs_m_saturation as nk
from setlab.lab.runs.bloom import LookupRun, RedisBloomFilter
from setlab.models.bloom_sim import BloomLayout, BloomSimulator

matplotlib.use("Agg")


# -- bloom-basics ---------------------------------------------------------------------------------


def test_the_pictures_stranger_finds_a_zero_bit_and_its_liar_only_ones():
    demo = bloom_basics.demo()
    ones = {p for positions in demo.positions.values() for p in positions}
    assert not set(demo.query(demo.stranger)) <= ones
    assert set(demo.query(demo.liar)) <= ones and demo.liar not in bloom_basics.DEMO_NAMES
    assert demo.shared == sorted(set(demo.positions["alice"]) & set(demo.positions["carol"]))
    assert all(len(p) == bloom_basics.DEMO_K for p in demo.positions.values())


def test_the_picture_is_one_panel_per_query():
    import matplotlib.pyplot as plt

    fig = bloom_basics.demo_figure()
    assert len(fig.axes) == 2 and all(len(ax.patches) == 32 for ax in fig.axes)
    plt.close(fig)


def test_the_payoff_table_prices_seed_002_at_each_rate():
    lines = bloom_basics.payoff_markdown().splitlines()
    assert len(lines) == 2 + len(bloom_basics.PAYOFF_RATES)
    one_percent = next(line for line in lines if line.startswith("| 1% |"))
    mib = -8e8 * math.log(0.01) / math.log(2) ** 2 / 8 / 2**20  # by hand: 914 MiB
    assert f"| {mib:.0f} MiB | 7 | 30,000 |" in one_percent


def test_a_lookup_run_reads_as_members_found_and_misses_let_through():
    # 3 of 120 misses through is 2.5%; every member found is 100%
    run = LookupRun(members=500, lookups=400, misses=120, members_found=1.0, misses_through=3,
                    expected_rate=0.01)  # fmt: skip
    assert bloom_basics.lookup_summary(run) == (
        "members found: 100%; misses let through to MySQL: 3 of 120 (2.50%)"
    )


def test_the_figures_run_seed_004s_test_and_the_lookups_once():
    assert bloom_basics.seed004() is bloom_basics.seed004()  # cached: one embedded run
    assert bloom_basics.openid_run().lookups == 4_000


# -- nk-vs-m-saturation ---------------------------------------------------------------------------


def test_the_plan_has_thirty_thousand_items_a_container():
    plan = nk.plan()
    assert plan.per_container == 30_518 == nk.per_plan_container()  # 2e9 / 65,536 = 30,517.6
    assert plan.fill == pytest.approx(1 - math.exp(-15 * 30_518 / 2**17), rel=1e-4)
    assert plan.best_k == 3


def test_the_fix_rows_are_the_planned_load_then_the_real_one():
    planned, real = nk.fix(queries=10_000)
    assert (planned.total, real.total) == (2e9, 8e8)
    assert real.per_container == pytest.approx(6_103.5, abs=0.1)
    assert planned.formula > 0.001 > real.formula


def test_the_overfill_is_simulated_at_twice_a_small_filters_capacity():
    over = nk.overfill(capacity=10_000, queries=20_000)
    assert over.bits == math.ceil(-10_000 * math.log(0.01) / math.log(2) ** 2)
    assert 0.12 < over.simulated < 0.20  # the formula's 15.7%, within sampling noise
    assert nk.overfill_bits() == math.ceil(-1e8 * math.log(0.01) / math.log(2) ** 2)
    assert nk.seed_003_sizing().k == 7


# -- sharded-bloom --------------------------------------------------------------------------------


def test_the_shard_spread_matches_sampled_routings():
    spread = sharded_bloom.shard_spread()
    rng = np.random.default_rng(1)
    maxima = [rng.multinomial(int(8e8), np.full(2**17, 2.0**-17)).max() for _ in range(9)]
    assert abs(spread.worst_load - np.median(maxima)) < 30
    assert spread.mean_load == pytest.approx(8e8 / 2**17)
    assert 0 < spread.excess < 0.01 and 1.3 < spread.worst_ratio < 1.8


def _classic(n, m: int, k: int):
    """(1 - e^(-kn/m))^k, written out here."""
    return (1 - np.exp(-k * np.asarray(n, dtype=float) / m)) ** k


def test_a_routing_puts_every_item_in_one_shard_and_prices_each_at_its_load():
    row = sharded_bloom.route_to_shards(np.random.default_rng(0), 8e8)
    assert row.loads.size == 2**17 and row.loads.sum() == 8e8
    # a binomial load of mean 6,104 (sd 78): the fullest of 2^17 shards sits 3 to 6 sd above
    mean, sd = 8e8 / 2**17, math.sqrt(8e8 * 2**-17 * (1 - 2**-17))
    assert mean + 3 * sd < row.loads.max() < mean + 6 * sd
    assert row.rates == pytest.approx(_classic(row.loads, 2**17, 10))


def test_a_routing_reads_as_its_loads_and_rates():
    total = 100 * 2**17  # a mean load of 100 items a shard
    row = sharded_bloom.ShardRates(total, np.array([90, 110]), np.array([0.001, 0.003]))
    at_mean = _classic(100, 2**17, 10)
    assert row.summary() == (
        f"1e+07: loads 90..110; rate at mean load {at_mean:.3g}, mean over shards 0.002, "
        "worst shard 0.003"
    )


def test_the_picture_of_shard_rates_has_a_histogram_and_two_marks_per_routing():
    import matplotlib.pyplot as plt

    from setlab.chapters.sharded_bloom import plots

    rng = np.random.default_rng(0)
    fig = plots.plot_shard_rates([sharded_bloom.route_to_shards(rng, t) for t in (8e8, 2e9)])
    ax = fig.axes[0]
    assert len(ax.containers) == 2 and len(ax.lines) == 4
    plt.close(fig)


def test_a_filter_check_counts_its_keys_and_agrees_with_the_simulator(fake_lab):
    layout = BloomLayout(2**9, 6, shard_bits=6)
    filt = RedisBloomFilter(fake_lab, "openids", layout)
    rng = np.random.default_rng(5)
    members = rng.integers(0, 2**62, size=2_000, dtype=np.uint64)
    strangers = rng.integers(2**62, 2**63, size=2_000, dtype=np.uint64)
    filt.add_many(members)
    sim = BloomSimulator(layout)  # the same hashing, in process memory
    sim.add(members)
    through = sim.contains(strangers).mean()
    line = sharded_bloom.filter_check(filt, members, strangers)
    assert line.startswith(f"64 keys, e.g. {fake_lab.key('openids')}:2a; members found: True; ")
    assert f"strangers through: {through:.4f} (expected " in line


def test_the_campaign_model_draws_thirty_days_of_eight_thousand_campaigns():
    daily = sharded_bloom.CAMPAIGNS.daily()
    assert daily.shape == (30, 8000)
    assert daily.sum(axis=1).mean() == pytest.approx(1.2e8, rel=0.1)
    own = sharded_bloom.campaigns()
    assert own.ratio == pytest.approx(own.per_campaign / own.shared)
    steadier = sharded_bloom.campaign_sweep([0.1])[0]
    assert steadier.ratio < own.ratio and steadier.utilisation > own.utilisation


def test_the_strategy_table_has_a_row_per_stored_run_row():
    raw = json.loads((resources.files("setlab") / "data" / "bulk-load.json").read_text())
    lines = sharded_bloom.strategies_markdown().splitlines()
    assert len(lines) == 2 + len(raw["rows"])
    assert sharded_bloom.seed_002_rate() == pytest.approx(8e9 / (20 * 3600))
