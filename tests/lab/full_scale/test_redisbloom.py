"""The stored runs of reference/measure_full_scale_003.py and reference/measure_mass_insertion.py
are internally consistent (each can fail on a hand-edited or half-written file), and the full-scale
run's pieces work on a small scale on a live Redis."""

from __future__ import annotations

import math

import numpy as np
import pytest

from setlab.lab.full_scale import mass_insertion
from setlab.lab.full_scale import redisbloom as full
from setlab.lab.full_scale.mass_insertion import MassInsertionReference
from setlab.lab.full_scale.redisbloom import FullScale003
from setlab.models.redisbloom import ChainLayout


def test_full_scale_items_are_distinct_and_the_absent_probes_are_new():
    added, absent = full.items(0, 200_000), full.items(200_000, 50_000)
    assert np.unique(added).size == added.size
    assert not np.isin(absent, added).any()


def test_the_stored_full_scale_003_run_is_consistent_with_its_reservations():
    ref = FullScale003.load()
    assert [r.config for r in ref.rows] == list(full.CONFIGS)
    for r in ref.rows:
        assert (r.capacity, r.nonscaling) == full.CONFIGS[r.config]
        assert r.sent == (min(full.SEED_003_ITEMS, r.capacity) if r.nonscaling else 120_000_000)
        # adds that look present are not counted: a few fewer, never more
        assert 0.99 * r.sent < r.inserted <= r.sent
        layout = ChainLayout(0.01, r.capacity, nonscaling=r.nonscaling)
        # BF.INFO Size and the filter count follow from the reservation and the count alone
        assert r.info_size == layout.memory(r.inserted) == r.model_size
        assert r.filters == layout.filters_for(r.inserted) == r.model_filters
        assert r.memory_usage >= r.info_size
        # the measured rate is a binomial share of the absent probes: within 5 sigma of the model
        sigma = math.sqrt(r.fpr_model * (1 - r.fpr_model) / r.absent)
        assert abs(r.fpr_measured - r.fpr_model) < 5 * sigma + 1 / r.absent
        assert r.load_seconds > 0 and r.peak_rss_bytes > 0
    # the seed's own arithmetic (137 MiB for 1.2e8 at 1 %): -n ln p / ln²2 bits, to 64 bits
    seed = ref.row("seed-sizing")
    bits = math.floor(1.2e8 * -math.log(0.01) / math.log(2) ** 2)
    assert abs(seed.info_size - bits / 8) < 200  # plus the chain's 96 bytes and rounding


def test_the_stored_mass_insertion_run_holds_every_repeat_of_both_commands():
    ref = MassInsertionReference.load()
    for kind in mass_insertion.KINDS:
        rows = ref.of(kind)
        assert [r.repeat for r in rows] == list(range(len(rows))) and len(rows) >= 3
        for r in rows:
            if kind == "SETBIT":
                assert r.commands == r.writes and r.writes % mass_insertion.LAYOUT.k == 0
            else:
                assert r.commands == -(-r.writes // mass_insertion.BF_BATCH)
            # every command is at least its name and arguments in RESP
            assert r.protocol_bytes > r.commands * len(f"*4\r\n${len(kind)}\r\n{kind}\r\n")
            assert min(r.generate_seconds, r.redis_cli_seconds, r.setlab_seconds) > 0
            assert r.ratio == pytest.approx(r.redis_cli_seconds / r.setlab_pipe_seconds)
            # Redis's main thread cannot use more CPU than the load lasted (INFO's clock ticks
            # and the INFO calls themselves allow a little), and every load kept it busy
            assert set(r.redis_busy) == {"redis-cli", "setlab", "setlab-pipe"}
            assert all(0.5 < share < 1.05 for share in r.redis_busy.values()), r.redis_busy
    assert ref.redis_cli.startswith("redis-cli ")


@pytest.mark.live
def test_one_full_scale_configuration_at_small_scale_matches_the_model(live_lab, monkeypatch):
    if not live_lab.has_redisbloom:
        pytest.skip("RedisBloom is not loaded on this server")
    monkeypatch.setitem(full.CONFIGS, "tiny", (20_000, False))
    monkeypatch.setattr(full, "ABSENT", 20_000)
    row = full.load_one(live_lab, "tiny", 50_000, progress=False)
    assert row.filters == row.model_filters == 2  # 20,000 + 40,000 ≥ 50,000 items
    assert row.info_size == row.model_size
    assert 0 < row.fpr_measured < 0.05
    assert not live_lab.r.exists(live_lab.key("bf", "tiny"))
