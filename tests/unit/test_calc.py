"""setlab.tools.calc: the calculators behind `setlab calc` (their input parsing is
tests/unit/test_quantities.py).

Reference values come from published tables (Pei Cao's Bloom filter table, Fan et al.'s cuckoo
filter paper), from seed 003's own arithmetic, from formulas re-derived here in another form,
from pyroaring (an independent Roaring implementation) and from stored measurements of a real
redis-server.
"""

from __future__ import annotations

import json
import math
import statistics
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

from setlab.lab import reference
from setlab.models import ids
from setlab.models import redis_memory as rm
from setlab.tools import calc

# -- Bloom ----------------------------------------------------------------------------------------


def _rate(n: float, m: float, k: int) -> float:
    """(1 - e^(-kn/m))^k, written out here; 1 - e^(-x) as -expm1(-x), which keeps its digits
    for tiny x (1 - exp(-1e-8) is off by 5e-9 relative, and hypothesis found such a case)."""
    return (-math.expm1(-k * n / m)) ** k


def test_seed_003_sizing_137_mib_and_seven_hashes():
    s = calc.solve_bloom(n=120_000_000, p=0.01)
    # seed 003: m = 1.2e8 × 4.60517 / 0.480453 ≈ 1.15e9 bits ≈ 137 MiB, k = 9.585 × 0.693 → 7
    assert abs(s.m / 1.15e9 - 1) < 0.005
    assert round(s.m / 8 / 2**20) == 137
    assert s.k == 7
    assert s.bits_per_item == pytest.approx(9.585, abs=0.001)
    assert s.lower_bound == pytest.approx(math.log2(1 / s.p))


@pytest.mark.parametrize(
    ("bits_per_item", "k", "published"),
    # Pei Cao's table "false positive rate for m/n and k" (Fan, Cao, Almeida & Broder 2000)
    [(8, 6, 0.0216), (10, 7, 0.00819), (16, 11, 0.000458), (4, 3, 0.147)],
)
def test_rate_from_n_m_k_matches_the_published_table(bits_per_item, k, published):
    s = calc.solve_bloom(n=1_000_000, m=bits_per_item * 1_000_000, k=k)
    assert s.p == pytest.approx(published, rel=0.01)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10**10), p=st.floats(1e-9, 0.5), k=st.integers(1, 30))
def test_n_p_k_gives_the_fewest_bits_that_reach_p(n, p, k):
    s = calc.solve_bloom(n=n, p=p, k=k)
    assert s.k == k and s.n == n
    assert _rate(n, s.m, k) <= p * (1 + 1e-9)
    if s.m > 1:
        assert _rate(n, s.m - 1, k) > p * (1 - 1e-6)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(64, 2**40), p=st.floats(1e-6, 0.3))
def test_m_p_gives_a_capacity_that_keeps_the_rate(m, p):
    s = calc.solve_bloom(m=m, p=p)
    assert s.m == m
    assert _rate(s.n, m, s.k) <= p * (1 + 1e-9)
    assert _rate(s.n + max(1, s.n // 100), m, s.k) > p * 0.99  # and not much more fits


def test_n_k_and_m_k_make_k_the_best_number_of_hashes():
    s = calc.solve_bloom(n=10_000, k=7)
    assert s.m == math.ceil(7 * 10_000 / math.log(2))
    assert calc.solve_bloom(n=s.n, m=s.m).k == 7
    t = calc.solve_bloom(m=1_000_000, k=5)
    assert t.n == math.floor(1_000_000 * math.log(2) / 5)
    assert t.fill == pytest.approx(0.5, abs=1e-4)  # best k leaves the filter half full


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"n": 10}, "two or three"), ({}, "two or three"),
        ({"n": 10, "p": 0.1, "m": 100, "k": 3}, "not all four"), ({"p": 0.1, "k": 3}, "n or m"),
        ({"n": 0, "p": 0.1}, "n must be"), ({"n": 10, "p": 1.5}, "p must be"),
        ({"m": 10, "k": 99}, "k must be"), ({"m": 1, "p": 1e-6}, "cannot hold"),
        # so few bits that every one is set: the rate rounds to 1 (it used to fail later, in
        # the report, with "p must be a probability … got 1.0")
        ({"n": 1000, "p": 0.995}, "every query answers maybe"),
        ({"n": 10**10, "m": 64}, r"m = 64 bits for n = 10,000,000,000 items"),
    ],
)  # fmt: skip
def test_under_or_over_determined_bloom_is_a_clear_error(given, message):
    with pytest.raises(ValueError, match=message):
        calc.solve_bloom(**given)


def test_bloom_report_flags_more_bits_than_one_redis_string():
    report = calc.bloom_report(calc.solve_bloom(n=10**9, p=1e-4))
    assert report.data["redis_keys"] == math.ceil(report.data["m"] / 2**32) > 1
    assert any("2^32 bits" in note for note in report.notes)


def test_redisbloom_layout_tightens_the_first_sub_filter_and_grows_by_expansion():
    report = calc.redisbloom_layout(10_000, 0.01, load=70_000)
    first = report.data["first"]
    assert first["error"] == pytest.approx(0.005)
    # capacity 10k, then 20k, 40k: 70,000 items need three sub-filters
    assert report.data["sub_filters"] == 3
    assert report.data["expected_fpr"] < 0.01
    flat = calc.redisbloom_layout(10_000, 0.01, nonscaling=True)
    assert flat.data["first"]["error"] == pytest.approx(0.01)
    with pytest.raises(ValueError, match="NONSCALING"):
        calc.redisbloom_layout(10_000, 0.01, nonscaling=True, load=10_001)


# -- cuckoo ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("p", "b", "bits"), [(0.01, 4, 10), (0.001, 4, 13), (0.03, 2, 8)])
def test_cuckoo_fingerprints_follow_the_papers_bound(p, b, bits):
    report = calc.cuckoo_sizing(1_000_000, p, bucket_size=b)
    assert report.data["fingerprint_bits"] == bits
    assert 2 * b / 2**bits <= p < 2 * b / 2 ** (bits - 1)  # Fan et al. 2014, eq. (6)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 10**9), b=st.sampled_from([1, 2, 4, 8]))
def test_cuckoo_table_is_a_power_of_two_below_the_papers_load(n, b):
    data = calc.cuckoo_sizing(n, 0.01, bucket_size=b).data
    buckets = data["buckets"]
    assert buckets & (buckets - 1) == 0
    wall = {1: 0.50, 2: 0.84, 4: 0.95, 8: 0.98}[b]  # Fan et al. 2014 §2
    assert n / (buckets * b) <= wall + 1e-12
    assert buckets == 1 or n / (buckets // 2 * b) > wall  # the smallest such table
    assert data["bytes"] == math.ceil(buckets * b * data["fingerprint_bits"] / 8)


def test_redisbloom_cuckoo_size_and_wall_come_from_cf_info_and_the_reference_run():
    ref = reference.load("redisbloom-reference").data
    default = ref["cuckoo_default"]  # CF.RESERVE 32768 BUCKETSIZE 2 on the real module
    data = calc.cuckoo_sizing(default["capacity"], bucket_size=2).data["redisbloom"]
    first_filter = default["info"]["Number of buckets"] * 2 + 40 + 16
    assert data["bytes"] == first_filter
    # the wall: the module's first "full" over the stored streams at the nearest measured size
    walls = json.loads((resources.files("setlab") / "data" / "cuckoo-walls.json").read_text())
    loads = [r["marks"]["first_fail_at"] / r["marks"]["slots"] for r in walls["rows"]
             if (r["log_slots"], r["bucket_size"], r["max_iterations"]) == (15, 2, 20)]  # fmt: skip
    assert data["wall_load"] == pytest.approx(statistics.median(loads))
    assert data["wall_low"] == pytest.approx(min(loads))


def test_cuckoo_needs_a_load_for_bucket_sizes_the_paper_does_not_list():
    with pytest.raises(ValueError, match="--load"):
        calc.cuckoo_sizing(1000, 0.01, bucket_size=3)
    assert calc.cuckoo_sizing(1000, 0.01, bucket_size=3, load=0.9).data["bucket_size"] == 3


# -- Roaring --------------------------------------------------------------------------------------


def test_dense_roaring_matches_pyroaring_built_from_the_ids():
    report = calc.roaring_estimate(300_000, dense=True)
    bitmap = BitMap(np.arange(300_000, dtype=np.uint32), optimize=False)  # not from a range
    assert report.data["serialized_bytes"] == len(bitmap.serialize())
    bitmap.run_optimize()
    assert report.data["run_optimized_bytes"] == len(bitmap.serialize())


def test_random_roaring_is_seed_003s_240_mb_for_sparse_device_ids():
    # 1.2e8 over 2^32: ~1,831 per chunk, array containers, 2 bytes each + 8 per container
    data = calc.roaring_estimate(120_000_000).data
    assert data["kinds"]["array"] == 65_536
    assert data["serialized_bytes"] == 8 + 8 * 65_536 + 2 * 120_000_000


def test_roaring_from_a_file_matches_pyroaring(tmp_path):
    rng = np.random.default_rng(5)
    values = np.r_[rng.integers(0, 2**32, 20_000), np.arange(70_000, 80_000)]
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(map(str, values.tolist())))
    data = calc.roaring_from_ids(ids.read_ids(path, progress=False)).data
    bitmap = BitMap(values.astype(np.uint32), optimize=False)
    assert data["serialized_bytes"] == len(bitmap.serialize())
    assert data["duplicates"] == values.size - len(bitmap)


def test_roaring_refuses_ranges_wider_than_32_bits_and_128_bit_ids(tmp_path):
    with pytest.raises(ValueError, match="2\\^32"):
        calc.roaring_estimate(10, 0, 2**33)
    path = tmp_path / "u.txt"
    path.write_text("123e4567-e89b-12d3-a456-426614174000\n")
    with pytest.raises(ValueError, match="128 bits"):
        calc.roaring_from_ids(ids.read_ids(path, progress=False))


# -- SET ------------------------------------------------------------------------------------------


def test_set_estimate_agrees_with_the_members_themselves():
    rng = np.random.default_rng(1)
    hexes = [f"{x:016x}" for x in rng.integers(2**60, 2**63, 3_000).tolist()]
    assert calc.set_estimate(3_000, "hex").data["memory_usage"] == (
        rm.set_cost(rm.Members.of(hexes)).memory_usage
    )
    ints = list(range(5, 5 + 700))
    assert calc.set_estimate(700, "int", start=5).data["memory_usage"] == (
        rm.set_cost(rm.Members.of(ints)).memory_usage
    )


def test_small_integer_sets_are_intsets_of_two_bytes_each():
    data = calc.set_estimate(100, "int").data
    assert data["encoding"] == "intset"
    # key "k": sds 8 + dictEntry 24 + robj 16 + intset (8 + 100 × 2 = 208 → jemalloc 224)
    assert data["memory_usage"] == 8 + 24 + 16 + 224


@pytest.mark.parametrize("kind", ["decimal", "hex", "uuid"])
def test_set_from_a_file_equals_the_set_of_its_lines(tmp_path, kind):
    rng = np.random.default_rng(2)
    values = [*rng.integers(0, 2**62, 6_000).tolist(), 7, 7]
    lines = {
        "decimal": [str(v) for v in values] + ["0042"],
        "hex": [f"{v:x}" for v in values],
        "uuid": [f"{v:032x}" for v in values],
    }[kind]
    if kind == "uuid":
        lines = [f"{t[:8]}-{t[8:12]}-{t[12:16]}-{t[16:20]}-{t[20:]}" for t in lines]
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(lines))
    data = calc.set_from_ids(ids.read_ids(path, progress=False)).data
    assert data["memory_usage"] == rm.set_cost(rm.Members.of(lines)).memory_usage
    assert data["duplicates"] == len(lines) - len(set(lines))


def test_set_estimate_refuses_what_it_cannot_model():
    for kwargs, message in [
        ({"member_type": "float"}, "member type"), ({"member_type": "string"}, "--length"),
        ({"release": "6.0"}, "--redis must be one of"), ({"length": 5}, "--length is for string"),
    ]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            calc.set_estimate(10, **kwargs)


# -- HyperLogLog ----------------------------------------------------------------------------------


def test_hll_memory_matches_the_live_servers_dense_key():
    growth = reference.load("hyperloglog-reference").data["growth"]
    big = max(growth, key=lambda r: r["n"])
    assert big["encoding"] == "dense" and big["strlen"] == 12_304
    # reference key 'setlab:reference:growth' (23 bytes: sds 3+23+1 → 32); ours is 'k' (→ 8)
    expected = big["memory_usage"] - 32 + 8
    data = calc.hll_estimate(10**6).data
    assert data["encoding"] == "dense"
    assert data["memory_usage"] == expected
    assert data["standard_error"] == pytest.approx(1.04 / 128)


def test_hll_cost_from_dense_on_is_the_replayed_default_sketchs():
    from setlab.models.hyperloglog import sketch_of_readers

    replayed = sketch_of_readers(calc.HLL_DENSE_FROM)  # PFADD of every element, default config
    assert replayed.encoding == "dense"
    assert calc.hll_key_cost(calc.HLL_DENSE_FROM) == replayed.cost("k")
    assert calc.hll_key_cost(10**9) == replayed.cost("k")


def test_small_hll_is_sparse_and_smaller():
    data = calc.hll_estimate(100).data
    assert data["encoding"] == "sparse"
    assert data["memory_usage"] < 1024
