"""setlab.models.sharded_bloom: the fullest shard of a Bloom filter split over keys.

Independent references: a Monte Carlo routing of items to shards (numpy's multinomial), the
Bloom formula written out here, and the one-shard case, which is just a Bloom filter.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from setlab.models import bloom
from setlab.models.sharded_bloom import one_two_five, shard_filter, sizing_table, worst_load_table


def test_one_shard_is_a_plain_bloom_filter():
    s = shard_filter(1_000_000, 1, 1_000_000, 0.01)
    assert s.worst_load == 1_000_000 == s.mean_load
    assert s.worst_fpr == pytest.approx(s.mean_fpr) == pytest.approx(s.fpr_at_mean)
    assert s.worst_fpr == pytest.approx(0.01, rel=0.02)  # sized for exactly this load


def test_each_shard_is_sized_by_the_bloom_formulas():
    s = shard_filter(10**8, 1024, 120_000, 0.01)
    # m = -c ln p / (ln 2)^2, k = (m/c) ln 2 rounded
    assert s.m == math.ceil(-120_000 * math.log(0.01) / math.log(2) ** 2)
    assert s.k == 7
    assert s.total_bytes == 1024 * math.ceil(s.m / 8)


@pytest.mark.parametrize(("items", "shards"), [(100_000, 64), (2_000_000, 1024)])
def test_the_worst_load_is_the_median_of_the_fullest_shard_over_routings(items, shards):
    rng = np.random.default_rng(7)
    fullest = [rng.multinomial(items, [1 / shards] * shards).max() for _ in range(301)]
    s = shard_filter(items, shards, items // shards, 0.01)
    sd = math.sqrt(items / shards)
    assert abs(s.worst_load - np.median(fullest)) < 0.15 * sd


def test_the_fullest_shard_errs_more_than_the_mean():
    s = shard_filter(800_000_000, 2**17, 6_500, 0.01)
    assert s.worst_load > s.mean_load
    expected = (1 - math.exp(-s.k * s.worst_load / s.m)) ** s.k
    assert s.worst_fpr == pytest.approx(expected)
    assert s.worst_fpr > s.mean_fpr > s.fpr_at_mean  # Jensen: the rate is convex in the load


def test_a_shard_larger_than_one_redis_string_is_refused():
    with pytest.raises(ValueError, match="capacity"):
        shard_filter(10**9, 1, 10**9, 1e-6)


def test_tables_for_the_browser_agree_with_the_model():
    (row,) = worst_load_table((800_000_000,), (17,))
    assert row["worst_load"] == shard_filter(800_000_000, 2**17, 6_500, 0.01).worst_load
    (size,) = sizing_table((6_500,), (0.01,))
    assert (size["m"], size["k"]) == (bloom.size_for(6_500, 0.01).m, bloom.size_for(6_500, 0.01).k)
    assert one_two_five(100, 1000) == (100, 200, 500, 1000)
