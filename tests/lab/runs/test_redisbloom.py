"""setlab.models.redisbloom without a server: the layout against figures the real module printed,
the chain arithmetic against a brute-force replay, the bit-exact simulator's invariants, the rebuild
simulation against its closed form; and setlab.lab.runs.redisbloom on fakeredis's different BF.*
model, its typed records, and the stored reference run read through them."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.core import hashing
from setlab.lab.runs import redisbloom as runs
from setlab.lab.runs.redisbloom import ScalingRow, WindowRun
from setlab.lab.runs.redisbloom_reference import RedisBloomReference
from setlab.models import bloom, redisbloom
from setlab.models.redisbloom import ChainLayout, ChainSimulator, FreshValues

# -- the layout: figures printed by redisbloom.so 2.8.2 ------------------------------------------

# (error given to BF.RESERVE, capacity, NONSCALING) -> the first sub-filter's BF.DEBUG fields,
# copied from the module's own output (bytes, bits, hashes, ratio).
OBSERVED_FIRST_LINKS = [
    (0.01, 1000, False, 1384, 11072, 8, "0.005"),
    (0.01, 1000, True, 1200, 9600, 7, "0.01"),
    (0.001, 100, False, 200, 1600, 11, "0.0005"),
    (1e-10, 10**7, False, 61709984, 493679872, 35, "5e-11"),
    (0.9, 1, False, 8, 64, 2, "0.45"),
]


@pytest.mark.parametrize(("error", "capacity", "nonscaling", "nbytes", "bits", "k", "ratio"),
                         OBSERVED_FIRST_LINKS)  # fmt: skip
def test_first_sub_filter_matches_what_the_module_printed(
    error, capacity, nonscaling, nbytes, bits, k, ratio
):
    link = ChainLayout(error, capacity, nonscaling=nonscaling).sub_filter(0)
    assert (link.bytes, link.bits, link.hashes, f"{link.error:g}") == (nbytes, bits, k, ratio)


def test_growing_chain_matches_the_modules_debug_and_info_lines():
    # BF.RESERVE k 0.01 1000, then BF.ADD of 5000 distinct items of which 4981 were counted:
    # the module printed these lines and BF.INFO fields.
    layout = ChainLayout(0.01, 1000)
    assert layout.debug(4981) == [
        "size:4981",
        "bytes:1384 bits:11072 hashes:8 hashwidth:64 capacity:1000 size:1000 ratio:0.005",
        "bytes:3120 bits:24960 hashes:9 hashwidth:64 capacity:2000 size:2000 ratio:0.0025",
        "bytes:6960 bits:55680 hashes:10 hashwidth:64 capacity:4000 size:1981 ratio:0.00125",
    ]
    assert layout.info(4981) == {
        "Capacity": 7000, "Size": 11688, "Number of filters": 3,
        "Number of items inserted": 4981, "Expansion rate": 2,
    }  # fmt: skip
    assert ChainLayout(0.01, 1000, nonscaling=True).info(0)["Size"] == 1296
    assert ChainLayout(0.01, 1000, nonscaling=True).info(0)["Expansion rate"] is None


def independent_link(capacity: int, error: float) -> tuple[int, int]:
    """bits and hashes from the textbook formula with exact ln 2, rounded as bloom.c does."""
    bpe = -math.log(error) / math.log(2) ** 2
    raw = int(capacity * bpe)
    return 64 * math.ceil(max(raw, 1) / 64), math.ceil(math.log(2) * bpe)


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 10**9), exponent=st.floats(0.5, 12))
def test_sub_filter_agrees_with_the_textbook_formula_up_to_the_truncated_constants(
    capacity, exponent
):
    error = 10.0**-exponent
    link = redisbloom.sub_filter(capacity, error)
    bits, hashes = independent_link(capacity, error)
    # The source's truncated ln²2 and ln 2 shift bpe by ~1e-15: at most one bit of the floor
    # (so one 64-bit word) and, at a knife edge, one hash.
    assert abs(link.bits - bits) <= 64
    assert abs(link.hashes - hashes) <= 1
    assert link.bits % 64 == 0 and link.bytes * 8 == link.bits
    assert link.bits >= int(capacity * link.bpe)  # floor(n · bpe), rounded up to 64


def brute_force_chain(layout: ChainLayout, items: int) -> list[int]:
    """Replay SBChain_Add's counting rule one item at a time: per-link sizes."""
    sizes = [0]
    for _ in range(items):
        if sizes[-1] >= layout.sub_filter(len(sizes) - 1).capacity:
            sizes.append(0)
        sizes[-1] += 1
    return sizes


@settings(max_examples=80, deadline=None)
@given(capacity=st.integers(1, 50), expansion=st.integers(1, 5), items=st.integers(0, 600))
def test_sub_filter_count_and_sizes_match_a_replay_of_the_add_rule(capacity, expansion, items):
    layout = ChainLayout(0.01, capacity, expansion)
    sizes = brute_force_chain(layout, items)
    assert layout.sizes(items) == sizes
    assert layout.filters_for(items) == len(sizes)
    info = layout.info(items)
    links = layout.sub_filters(len(sizes))
    assert info["Capacity"] == sum(link.capacity for link in links)
    assert info["Size"] == 32 + sum(64 + link.bytes for link in links)


def test_each_sub_filter_grows_by_the_expansion_and_halves_the_rate():
    links = ChainLayout(0.02, 300, 3).sub_filters(4)
    assert [link.capacity for link in links] == [300, 900, 2700, 8100]
    assert [link.error for link in links] == [0.01, 0.005, 0.0025, 0.00125]


@settings(max_examples=100, deadline=None)
@given(
    error=st.floats(1e-6, 0.5),
    expansion=st.integers(1, 4),
    filters=st.integers(1, 12),
)
def test_the_tightened_chain_stays_below_the_requested_rate(error, expansion, filters):
    layout = ChainLayout(error, 1000, expansion)
    assert layout.design_fpr(filters) < error
    # Each full sub-filter is close to its own design rate: the whole-number hash count can
    # overshoot it by a few percent (hashes are rounded up), more at rates of 10% and above.
    for link in layout.sub_filters(min(filters, 6)):
        if link.error <= 0.05:
            assert link.fpr(link.capacity) <= link.error * 1.05


def test_seed_formula_reproduces_the_seeds_own_figures():
    assert redisbloom.seed_compound_fpr(0.01, 3) == pytest.approx(0.0297, abs=5e-5)  # "2.97%"
    assert redisbloom.seed_compound_fpr(0.01, 5) == pytest.approx(0.049, abs=5e-4)  # "~5%"
    assert redisbloom.any_of_fpr([0.01] * 7) == pytest.approx(1 - 0.99**7)


def test_nonscaling_chain_refuses_more_items_than_its_capacity():
    layout = ChainLayout(0.01, 100, nonscaling=True)
    assert layout.filters_for(100) == 1
    with pytest.raises(ValueError, match="NONSCALING"):
        layout.info(101)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"error": 0.0, "capacity": 10}, "error"),
        ({"error": 1.0, "capacity": 10}, "error"),
        ({"error": 0.01, "capacity": 0}, "capacity"),
        ({"error": 0.01, "capacity": 10, "expansion": 0}, "expansion"),
        ({"error": 0.01, "capacity": 10, "expansion": 2**32}, "expansion"),
        ({"error": 0.01, "capacity": 10, "nonscaling": "yes"}, "nonscaling"),
    ],
)
def test_bad_layouts_are_rejected_with_the_parameter_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ChainLayout(**kwargs)


def test_bad_arguments_elsewhere_are_rejected_clearly():
    layout = ChainLayout(0.01, 10)
    with pytest.raises(ValueError, match="items"):
        layout.sizes(-1)
    with pytest.raises(ValueError, match="data"):
        hashing.murmur64a("text", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="values"):
        redisbloom.encode(np.array([-1]))
    with pytest.raises(ValueError, match="rates"):
        redisbloom.any_of_fpr([])
    with pytest.raises(ValueError, match="layout"):
        ChainSimulator("not a layout")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="strategy"):
        redisbloom.simulate_rebuild(10, 1.0, 1.0, 0.5, "pray", np.random.default_rng(0))


# -- hashing --------------------------------------------------------------------------------------


def test_murmur_matches_the_fingerprint_and_bucket_the_module_stored():
    # CF.RESERVE k 8 BUCKETSIZE 1; CF.ADD k <12345 as 8 LE bytes>; CF.SCANDUMP showed fingerprint
    # 245 in bucket 2 of 8: h % 255 + 1 == 245 and h % 8 == 2.
    h = hashing.murmur64a((12345).to_bytes(8, "little"), 0)
    assert (h % 255 + 1, h % 8) == (245, 2)


@settings(max_examples=200, deadline=None)
@given(value=st.integers(0, 2**64 - 1), seed=st.integers(0, 2**64 - 1))
def test_vectorised_murmur_equals_the_byte_by_byte_version(value, seed):
    vec = hashing.murmur64a_u64(np.array([value], dtype=np.uint64), seed)
    assert int(vec[0]) == hashing.murmur64a(value.to_bytes(8, "little"), seed)


def test_murmur_handles_every_tail_length():
    # Reference: MurmurHash64A with the tail read as one little-endian integer is the same as
    # xoring its bytes in one by one (the reference C code's switch fall-through).
    data = bytes(range(1, 24))
    for n in range(len(data)):
        chunk = data[:n]
        h = hashing.murmur64a(chunk, 7)
        m, mask = hashing.MURMUR64A_M, 2**64 - 1
        ref = (7 ^ (n * m)) & mask
        for start in range(0, n - n % 8, 8):
            k = (int.from_bytes(chunk[start : start + 8], "little") * m) & mask
            k = ((k ^ (k >> 47)) * m) & mask
            ref = ((ref ^ k) * m) & mask
        tail = chunk[n - n % 8 :]
        for j in reversed(range(len(tail))):
            ref ^= tail[j] << (8 * j)
        if tail:
            ref = (ref * m) & mask
        ref = ((ref ^ (ref >> 47)) * m) & mask
        assert h == ref ^ (ref >> 47)


# -- the bit-exact chain --------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    capacity=st.integers(5, 200),
    expansion=st.integers(1, 4),
    n=st.integers(1, 1500),
    error=st.sampled_from([0.3, 0.1, 0.01]),
)
def test_chain_simulator_never_forgets_an_item(capacity, expansion, n, error):
    sim = ChainSimulator(ChainLayout(error, capacity, expansion))
    values = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    replies = sim.add(values)
    assert sim.exists(values).all()
    assert int(np.count_nonzero(replies == 1)) == sim.size
    assert sim.sizes == ChainLayout(error, capacity, expansion).sizes(sim.size)


def test_items_that_look_present_are_not_counted():
    sim = ChainSimulator(ChainLayout(0.3, 50))
    values = np.arange(2000, dtype=np.uint64)
    replies = sim.add(values)
    assert (replies == 0).sum() > 0  # at 30% some fresh items look present already
    assert sim.size == (replies == 1).sum() < values.size


def test_full_nonscaling_chain_refuses_new_items():
    sim = ChainSimulator(ChainLayout(0.001, 20, nonscaling=True))
    replies = sim.add(np.arange(100, dtype=np.uint64))
    assert sim.size == 20 and len(sim.links) == 1
    assert (replies[replies != 1] == -2).sum() >= 79  # all refused but a rare false positive


def test_stranger_probe_count_matches_counting_reads_in_the_simulated_chain():
    layout = ChainLayout(0.01, 3000, 2)
    sim = ChainSimulator(layout)
    sim.add(FreshValues(0).take(layout.items_for(3)))
    strangers = FreshValues(1).take(20_000)
    a, b = redisbloom.bloom_hashes(strangers)
    reads = np.zeros(strangers.size)
    for link, array in zip(sim.links, sim.arrays, strict=True):
        bits = np.unpackbits(np.frombuffer(bytes(array), dtype=np.uint8), bitorder="little")
        hit = bits[redisbloom.bit_positions(a, b, link).astype(np.int64)].astype(bool)
        # reads until the first unset bit, inclusive; all k when every bit is set
        reads += np.where(hit.all(axis=0), link.hashes, np.argmin(hit, axis=0) + 1)
    assert reads.mean() == pytest.approx(layout.stranger_probes(sim.size), rel=0.02)


def test_measured_rate_of_the_simulated_chain_matches_the_model():
    layout = ChainLayout(0.05, 2000, 2)
    sim = ChainSimulator(layout)
    sim.add(np.arange(2000 + 4000 + 8000, dtype=np.uint64) + np.uint64(1 << 40))
    strangers = np.arange(200_000, dtype=np.uint64) + np.uint64(1 << 62)
    hits = int(sim.exists(strangers).sum())
    low, high = bloom.fpr_confidence_interval(hits, strangers.size)
    assert (
        low <= layout.expected_fpr(sim.size) * 1.05 and layout.expected_fpr(sim.size) <= high * 1.05
    )
    assert layout.expected_fpr(sim.size) < layout.error


# -- operations -----------------------------------------------------------------------------------


def test_rebuild_window_simulation_matches_the_closed_form():
    rng = np.random.default_rng(5)
    args = (2 * 10**7, 111_000.0, 1_389.0, 0.4)
    passes = [
        redisbloom.simulate_rebuild(*args, "delete-and-rebuild", rng).passed for _ in range(40)
    ]
    expected = redisbloom.expected_rebuild_passes(*args)
    assert np.mean(passes) == pytest.approx(expected, rel=0.03)


def test_dual_write_lets_nothing_through_and_costs_a_second_filter():
    out = redisbloom.simulate_rebuild(
        10**6, 1e5, 1e3, 0.5, "dual-write-shadow-read", np.random.default_rng(1)
    )
    assert out.passed == 0 and out.peak_filters == 2
    assert out.window_seconds == pytest.approx(10.0)
    assert out.extra_reads == pytest.approx(1e4, rel=0.1)


# -- fakeredis: pyprobables' model, not RedisBloom's -----------------------------------------------


def test_fakeredis_layers_keep_the_first_capacity_and_ignore_expansion(fake_lab):
    key = fake_lab.key("bf")
    layout = ChainLayout(0.01, 100, 4)
    runs.reserve(fake_lab, key, layout)
    sent = runs.fill_to(fake_lab, key, 350, FreshValues(0))
    info = runs.read_info(fake_lab, key)
    assert sent >= 350
    # RedisBloom: 100 + 400 = 500 >= 350, two sub-filters. pyprobables: a layer per 100 items.
    assert layout.filters_for(350) == 2
    assert info["Number of filters"] == 4
    assert info["Size"] == info["Number of items inserted"]  # not bytes


def test_scaling_run_works_on_the_embedded_backend(fake_lab):
    rows = runs.scaling_run(fake_lab, "chain", ChainLayout(0.05, 200), 2, queries=2000, timed=0)
    assert [r.filters_full for r in rows] == [1, 2]
    assert rows[1].items == 600
    assert all(0 <= r.fpr_measured <= 1 for r in rows)
    assert math.isnan(rows[0].stranger_server)  # nothing timed
    assert fake_lab.keys() == []


def test_mexists_answers_per_value_like_single_exists(fake_lab):
    key = fake_lab.key("bf")
    runs.reserve(fake_lab, key, ChainLayout(0.01, 500))
    members, strangers = FreshValues(0).take(300), FreshValues(1).take(2500)
    runs.add_items(fake_lab, key, members, batch=64)
    asked = np.concatenate([members, strangers])
    found = runs.mexists(fake_lab, "BF.MEXISTS", key, asked, batch=97)  # batches cut unevenly
    one_by_one = [
        bool(fake_lab.r.execute_command("BF.EXISTS", key, item))
        for item in redisbloom.encode(asked)
    ]
    assert found.tolist() == one_by_one
    assert found[:300].all()  # no false negatives
    assert (runs.exists_items(fake_lab, key, asked) == found).all()


def test_window_run_and_roaring_costs_return_typed_records(fake_lab):
    window = runs.window_run(
        fake_lab, "day", ChainLayout(0.05, 300), days=3, queries=3000, timed=20
    )
    assert isinstance(window, WindowRun) and window.days == 3
    assert window.false_positives == round(window.fpr_measured * window.queries)
    assert window.fpr_model == pytest.approx(1 - (1 - window.fpr_day_model) ** 3)
    assert window.round_trip_ratio == window.round_trips.p50 / window.one_filter.p50
    assert fake_lab.keys() == []
    roaring = runs.roaring_window_costs(3, per_day=1000, queries=500, seed=1)
    # 1,000 random 32-bit IDs a day spread over ~1,000 of 65,536 containers: one array container
    # each, so a few bytes of header and 2 bytes of data per ID (pyroaring's format).
    assert roaring.days == 3 and roaring.per_day == 1000
    assert roaring.bytes_per_id == roaring.day_bytes / 3000 > 2


# -- the stored reference run, typed ---------------------------------------------------------------


def _stored() -> dict:
    return json.loads(
        (resources.files("setlab") / "data" / "redisbloom-reference.json").read_text()
    )


def test_reference_records_read_the_stored_file_and_write_it_back_unchanged():
    raw, ref = _stored(), RedisBloomReference.load()
    assert [r.to_dict() for r in ref.large] == raw["rows"]
    assert [r.to_dict() for r in ref.small] == raw["small"]
    assert asdict(ref.window) == raw["window"]
    assert asdict(ref.roaring) == raw["roaring"]
    assert [asdict(f) for f in ref.cuckoo] == raw["cuckoo"]
    assert ref.layouts["large"] == ChainLayout(**raw["layouts"]["large"])
    assert ref.run.label.startswith("reference run: Redis 7.0.15")
    assert "this machine" not in ref.run.label


def test_reference_rows_are_what_the_layout_model_says_the_module_built():
    ref = RedisBloomReference.load()
    for rows, layout in ((ref.large, ref.layouts["large"]), (ref.small, ref.layouts["small"]),
                         (ref.fixed, ref.layouts["fixed"])):  # fmt: skip
        for row in rows:
            assert dict(row.info) == layout.info(layout.items_for(row.filters_full))


def test_scaling_row_round_trips_through_its_stored_form():
    row = ScalingRow(1, {"Capacity": 10, "Size": 96, "Number of filters": 1,
                         "Number of items inserted": 10, "Expansion rate": 2},
                     12, 1e5, 100, 1, 0.01, 0.011, 0.005, 0.01)  # fmt: skip
    stored = row.to_dict()
    assert "stranger_server" not in stored  # untimed fields are left out, not written as NaN
    again = ScalingRow.from_dict(stored)
    assert again.to_dict() == stored and again.items == 10 and again.capacity == 10
