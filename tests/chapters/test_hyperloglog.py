"""setlab.models.hyperloglog (Redis 7.0's HyperLogLog, bit for bit) and setlab.lab.runs.hyperloglog
(its experiments and stored reference run), offline.

Reference values come from measurements of a real redis-server stored in src/setlab/data
(registers, sparse payloads, MEMORY USAGE and PFCOUNT replies, written by
reference/measure_redis_memory.py), from decoders and bit loops written here independently of the
model, and from the theoretical standard error 1.04/sqrt(16384) (Flajolet et al. 2007).
"""

from __future__ import annotations

import dataclasses
import json
import math
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.core import hashing
from setlab.lab.runs import hyperloglog as runs
from setlab.models import bitmap
from setlab.models import hyperloglog as hll
from setlab.models import redis_memory as rm

# -- against the stored reference run ---------------------------------------------------------


@pytest.fixture(scope="module")
def hll_reference():
    return runs.HyperLogLogReference.load()


def test_register_of_each_element_equals_what_redis_stored(hll_reference):
    rows = hll_reference.registers
    index, count = hll.hll_register_updates(hll.hll_hashes(r.element for r in rows))
    assert list(index) == [r.index for r in rows]
    assert list(count) == [r.count for r in rows]


def test_sparse_bytes_and_memory_equal_what_redis_stored(hll_reference):
    sketch = hll.HyperLogLog()
    done = 0
    for row in hll_reference.growth:
        sketch.add_each(f"reader:{i}" for i in range(done, row.n))
        done = row.n
        assert (sketch.encoding, sketch.string_length) == (row.encoding, row.strlen)
        assert sketch.cost(row.key).memory_usage == row.memory_usage
        assert sketch.count() == row.pfcount
        if row.payload_hex is not None:
            assert sketch.payload.hex() == row.payload_hex


def test_pfcount_equals_what_redis_replied(hll_reference):
    for row in hll_reference.counts:
        sketch = hll.HyperLogLog()
        sketch.add_hashes(hll.hll_hashes(f"reader:{i}" for i in range(row.n)))
        assert sketch.count() == row.pfcount, row


def test_model_replies_equal_what_redis_replied_to_new_readers(hll_reference):
    replies = hll.new_reader_replies(100_000)
    assert runs.zero_replies(replies) == list(hll_reference.zero_replies)


def test_week_model_equals_what_redis_replied(hll_reference):
    week = hll.week_of_readers(np.random.default_rng(runs.WEEK_SEED))
    stored = hll_reference.week
    assert [len(np.unique(d)) for d in week] == stored.true_daily
    assert len(np.unique(np.concatenate(week))) == stored.true_union
    sketches = []
    for day in week:
        sketch = hll.HyperLogLog()
        sketch.add_hashes(hll.hll_hashes(f"reader:{int(r)}" for r in day))
        sketches.append(sketch)
    assert [s.count() for s in sketches] == stored.server_daily
    merged = hll.HyperLogLog()
    merged.merge(*sketches)
    assert merged.count() == stored.server_union == stored.server_merged


def test_scalar_and_vectorised_murmur_agree():
    rng = np.random.default_rng(3)
    for length in (0, 1, 7, 8, 9, 16, 36, 45):
        rows = rng.integers(0, 256, (50, length), dtype=np.uint8)
        fast = hashing.murmur64a_rows(rows, hll.HLL_SEED)
        assert [int(h) for h in fast] == [hashing.murmur64a(bytes(r), hll.HLL_SEED) for r in rows]


@given(st.integers(0, 2**64 - 1))
def test_register_update_counts_trailing_zeros_like_a_bit_loop(h):
    index, count = hll.hll_register_updates([h])
    rest, expected = h >> 14, 1
    while expected <= 50 and not rest & (1 << (expected - 1)):
        expected += 1
    assert (int(index[0]), int(count[0])) == (h & 16383, expected)


def _decode_sparse(payload: bytes) -> np.ndarray:
    """Registers from sparse opcodes, decoded independently of the model's encoder."""
    registers, i, p = [], 0, 0
    while p < len(payload):
        op = payload[p]
        if op >> 6 == 0:
            registers += [0] * ((op & 63) + 1)
            p += 1
        elif op >> 6 == 1:
            registers += [0] * ((((op & 63) << 8) | payload[p + 1]) + 1)
            p += 2
        else:
            registers += [((op >> 2) & 31) + 1] * ((op & 3) + 1)
            p += 1
        i += 1
    return np.array(registers)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 16383), st.integers(1, 32)), max_size=400))
def test_sparse_encoding_always_decodes_to_the_registers(updates):
    sketch = hll.HyperLogLog()
    for index, count in updates:
        sketch.set_register(index, count)
    expected = np.zeros(16384, dtype=np.int64)
    for index, count in updates:
        expected[index] = max(expected[index], count)
    assert np.array_equal(sketch.registers, expected)
    if sketch.encoding == "sparse":
        assert np.array_equal(_decode_sparse(sketch.payload), expected)
        assert sketch.string_length <= hll.HLL_SPARSE_MAX_BYTES
        assert sketch.allocation >= sketch.string_length + 1
    else:
        assert np.array_equal(hll.unpack_registers(sketch.payload), expected)


def test_a_register_above_32_forces_the_dense_encoding():
    sketch = hll.HyperLogLog()
    sketch.set_register(5, 32)
    assert sketch.encoding == "sparse"
    sketch.set_register(6, 33)
    assert sketch.encoding == "dense" and sketch.string_length == 12304
    # 12,304 bytes + 5-byte sdshdr16 + NUL = 12,310: jemalloc's next class is 14 KiB
    assert sketch.allocation == 14336


def test_dense_payload_round_trips():
    rng = np.random.default_rng(0)
    registers = rng.integers(0, 52, 16384).astype(np.uint8)
    assert np.array_equal(hll.unpack_registers(hll.pack_registers(registers)), registers)


def test_estimate_of_an_empty_sketch_is_zero_and_small_counts_are_nearly_exact():
    assert hll.hll_estimate([16384]) == 0
    sketch = hll.HyperLogLog()
    sketch.add(*range(100))
    assert abs(sketch.count() - 100) <= 2


def test_pfmerge_takes_register_maxima():
    a, b = hll.HyperLogLog(), hll.HyperLogLog()
    a.add(*range(0, 500))
    b.add(*range(300, 900))
    merged = hll.HyperLogLog()
    merged.merge(a, b)
    assert np.array_equal(merged.registers, np.maximum(a.registers, b.registers))
    both = hll.HyperLogLog()
    both.add(*range(900))
    assert merged.count() == both.count()


def test_pfadd_reply_is_not_membership():
    sketch = hll.HyperLogLog()
    sketch.add_hashes(hll.hll_hashes(range(200_000)))
    fresh = sketch.add_each(f"new:{i}" for i in range(2000))
    # most brand-new elements leave every register unchanged: PFADD replies 0
    assert sum(fresh) < 200


def test_simulated_registers_match_hashed_registers_in_distribution():
    rng = np.random.default_rng(11)
    simulated = hll.simulate_registers(20_000, rng, trials=8)
    hashed = []
    for t in range(8):
        sketch = hll.HyperLogLog()
        sketch.add_hashes(hll.hll_hashes(f"{t}:{i}" for i in range(20_000)))
        hashed.append(sketch.registers)
    sim = np.bincount(simulated.ravel(), minlength=20)[:12] / simulated.size
    real = np.bincount(np.ravel(hashed), minlength=20)[:12] / (8 * 16384)
    assert np.max(np.abs(sim - real)) < 0.01


def test_relative_error_over_seeded_trials_is_near_the_standard_error():
    rng = np.random.default_rng(2024)
    errors = hll.simulated_estimates(1_000_000, 300, rng) / 1_000_000 - 1
    assert abs(errors.mean()) < 3 * hll.HLL_STANDARD_ERROR / math.sqrt(300)
    assert 0.8 * hll.HLL_STANDARD_ERROR < errors.std() < 1.2 * hll.HLL_STANDARD_ERROR


def test_hll_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="registers"):
        hll.hll_estimate_registers(np.zeros(10))
    with pytest.raises(ValueError, match="histogram"):
        hll.hll_estimate([1, 2, 3])
    with pytest.raises(ValueError, match="cardinality"):
        hll.simulate_registers(-1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rows"):
        hashing.murmur64a_rows(np.zeros(8, dtype=np.uint8), hll.HLL_SEED)


# -- helpers the chapters use ---------------------------------------------------------------------


def test_registers_of_hashes_equal_adding_them_one_by_one():
    hashes = hll.hll_hashes(hll.reader_ids(0, 20_000))
    sketch = hll.HyperLogLog()
    sketch.add_each(hll.reader_ids(0, 20_000))
    assert np.array_equal(hll.registers_of_hashes(hashes), sketch.registers)


def test_hll_growth_curve_turns_dense_where_the_sketch_does():
    readers, sizes, dense_at = hll.hll_growth_curve(2500)
    sketch = hll.HyperLogLog()
    sketch.add_each(hll.reader_ids(0, dense_at - 1))
    assert sketch.encoding == "sparse"
    sketch.add(f"reader:{dense_at - 1}")
    assert sketch.encoding == "dense"
    assert sizes[-1] == sketch.cost("k").memory_usage and readers[-1] == 2500
    assert np.all(np.diff(sizes) >= 0)


def test_counting_costs_agree_with_the_models():
    costs = hll.counting_costs(1000)
    assert costs["SET"] == rm.set_cost(range(1000)).memory_usage
    assert costs["bitmap"] == bitmap.first_setbit_memory_usage(999, "k")
    assert costs["HyperLogLog"] == hll.hll_cost(hll.reader_ids(0, 1000)).memory_usage


def test_sketch_of_readers_equals_adding_the_readers_one_by_one():
    sketch = hll.HyperLogLog()
    sketch.add_each(hll.reader_ids(0, 3000))
    built = hll.sketch_of_readers(3000)
    assert np.array_equal(built.registers, sketch.registers)
    assert (built.encoding, built.payload) == (sketch.encoding, sketch.payload)
    assert hll.sketch_of_readers(0).count() == 0
    with pytest.raises(ValueError, match="count"):
        hll.sketch_of_readers(-1)


def test_new_reader_replies_are_whether_a_register_grew():
    replies = hll.new_reader_replies(5000)
    index, count = hll.hll_register_updates(hll.hll_hashes(hll.reader_ids(0, 5000)))
    best = np.zeros(16384, dtype=np.int64)
    expected = []
    for i, c in zip(index, count, strict=True):  # a register grows only past its maximum
        expected.append(int(c > best[i]))
        best[i] = max(best[i], c)
    assert list(replies) == expected
    assert replies[0] == 1 and replies.dtype == np.int8


def test_stored_encoding_reads_the_header_and_rejects_other_strings():
    sparse, dense = hll.HyperLogLog(), hll.HyperLogLog()
    dense.set_register(0, 40)
    header = b"HYLL"
    assert hll.stored_encoding(header + b"\x01" + bytes(11) + sparse.payload) == "sparse"
    assert hll.stored_encoding(header + b"\x00" + bytes(11) + dense.payload) == "dense"
    for bad in (b"", b"HYLL", b"NOPE" + bytes(12), header + b"\x07" + bytes(11)):
        with pytest.raises(ValueError, match="HyperLogLog"):
            hll.stored_encoding(bad)


def test_pack_registers_rejects_a_wrong_shape_or_a_value_over_51():
    with pytest.raises(ValueError, match="registers"):
        hll.pack_registers(np.zeros(100, dtype=np.uint8))
    with pytest.raises(ValueError, match="registers"):
        hll.pack_registers(np.full(16384, 52, dtype=np.uint8))


def test_week_of_readers_draws_distinct_readers_per_day():
    week = hll.week_of_readers(np.random.default_rng(0), days=3, daily=100, population=150)
    assert [len(np.unique(d)) for d in week] == [100, 100, 100]
    assert all(d.max() < 150 for d in week)
    with pytest.raises(ValueError, match="daily"):
        hll.week_of_readers(np.random.default_rng(0), daily=10, population=5)


# -- the lab's experiments on the embedded backend, and the typed reference records -----------


def test_zero_replies_bins_count_the_zeros_between_edges():
    replies = np.array([1, 0, 1, 0, 0, 1, 0])
    bins = runs.zero_replies(replies, [0, 2, 5, 100])
    assert bins == [runs.ZeroReplies(0, 2, 1), runs.ZeroReplies(2, 5, 2), runs.ZeroReplies(5, 7, 1)]
    assert bins[1].share == pytest.approx(2 / 3)


def test_fakeredis_pfadd_replies_like_a_set_where_redis_would_not(fake_lab):
    replies = runs.pfadd_replies(fake_lab, 20_000)
    assert replies.min() == 1  # fakeredis: every new element is "new"
    assert (hll.new_reader_replies(20_000) == 0).sum() > 1000  # Redis: many are not


def test_run_week_on_fakeredis_gives_exact_server_counts_and_the_models_replies(fake_lab):
    week = hll.week_of_readers(np.random.default_rng(3), days=3, daily=2000, population=5000)
    result = runs.run_week(fake_lab, week)
    assert result.server_daily == result.true_daily == [2000, 2000, 2000]
    assert result.server_union == result.server_merged == result.true_union
    merged = hll.HyperLogLog()
    merged.add_hashes(hll.hll_hashes(f"reader:{int(r)}" for r in np.concatenate(week)))
    assert result.model_union == merged.count()
    assert result.server_merged_bytes is None
    assert fake_lab.keys() == []


def test_experiments_that_need_redis_strings_refuse_the_embedded_backend(fake_lab):
    key = fake_lab.key("x")
    runs.pfadd_many(fake_lab, key, ["a", "b", "c"], batch=2)
    assert fake_lab.r.pfcount(key) == 3
    with pytest.raises(ValueError, match="real Redis"):
        runs.observe(fake_lab, key, 3)
    with pytest.raises(ValueError, match="real Redis"):
        runs.measure_registers(fake_lab, 3)


def _raw_reference() -> dict:
    text = (resources.files("setlab") / "data" / "hyperloglog-reference.json").read_text()
    return json.loads(text)


def test_reference_records_hold_every_stored_row(hll_reference):
    raw = _raw_reference()
    assert [dataclasses.asdict(r) for r in hll_reference.registers] == raw["registers"]
    assert [dataclasses.asdict(r) for r in hll_reference.counts] == raw["counts"]
    assert runs.zero_replies_as_stored(hll_reference.zero_replies) == raw["zero_replies"]
    assert dataclasses.asdict(hll_reference.week) == raw["week"]
    growth = [{k: v for k, v in dataclasses.asdict(r).items() if v is not None}
              for r in hll_reference.growth]  # fmt: skip
    assert growth == raw["growth"]


def test_reference_lookups_find_rows_and_name_what_is_missing(hll_reference):
    assert hll_reference.count_at(1_000).pfcount == 1004
    assert hll_reference.growth_at(100).encoding == "sparse"
    assert hll_reference.zeros(0, 10).zero_replies == 0
    with pytest.raises(ValueError, match="n must be one of"):
        hll_reference.count_at(7)
    with pytest.raises(ValueError, match="n must be one of"):
        hll_reference.growth_at(7)
    with pytest.raises(ValueError, match="must be one of"):
        hll_reference.zeros(1, 2)


# -- the chapter module's tables, texts and plots ------------------------------------------------


def test_model_mismatches_find_a_row_that_differs_from_the_model(hll_reference):
    from setlab.chapters import hyperloglog as chapter

    rows = list(hll_reference.growth)
    assert chapter.model_mismatches(rows) == 0
    assert chapter.growth_check_text(rows) == f"all {len(rows)} measurements equal the model"
    rows[3] = dataclasses.replace(rows[3], memory_usage=rows[3].memory_usage + 1)
    assert chapter.model_mismatches(rows) == 1
    assert chapter.growth_check_text(rows).startswith("1 of ")


def test_error_study_is_seeded_and_independent_across_cardinalities():
    from setlab.chapters import hyperloglog as chapter

    a = chapter.simulated_errors(10**5, 60)
    assert np.array_equal(a, chapter.simulated_errors.__wrapped__(10**5, 60))  # same seed
    b = chapter.simulated_errors(10**6, 60)
    assert not np.allclose(a, b)  # each cardinality draws its own sketches
    hashed = chapter.hashed_errors(6)
    assert len(hashed) == 6 and np.std(hashed) < 3 * hll.HLL_STANDARD_ERROR


def test_week_and_reply_tables_show_the_stored_run(hll_reference):
    from setlab.chapters import hyperloglog as chapter

    week = chapter.week_markdown(hll_reference.week, "Redis")
    assert f"**{hll_reference.week.true_union:,}**" in week and week.count("| day ") == 7
    late = hll_reference.zeros(10_000, 100_000)
    here = runs.ZeroReplies(0, 2000, 0)
    replies = chapter.zero_replies_markdown(hll_reference.zero_replies, "Redis", here, "fakeredis")
    assert (
        f"{late.share:.1%}" in replies and "| (fakeredis, first 2,000) | 2,000 | 0.0% |" in replies
    )


def test_counting_table_prices_each_cardinality_three_ways():
    from setlab.chapters import hyperloglog as chapter

    table = chapter.counting_markdown({1000: 0.005, 10**6: 0.008}).splitlines()
    assert len(table) == 4 and table[2].startswith("| 1,000 |") and table[3].endswith("0.80% |")
    assert "14 KiB" in table[3]  # a million readers: a dense HyperLogLog


def test_the_chapters_plots_draw_the_model_and_the_measurements(hll_reference):
    from setlab.chapters import hyperloglog as chapter

    mechanism = chapter.mechanism_figure(readers=20_000)
    assert len(mechanism.axes) == 2
    growth = chapter.growth_figure(hll_reference.growth, "reference run")
    (ax,) = growth.axes
    markers = [line for line in ax.get_lines() if line.get_label() == "reference run"]
    assert len(markers[0].get_xdata()) == sum(
        r.n <= chapter.CURVE_READERS for r in hll_reference.growth
    )
    errors = chapter.error_figure({10**3: np.zeros(5), 10**5: np.zeros(5)}, np.zeros(3))
    assert "over 5 sketches" in errors.axes[0].get_title()


# -- what the page opens with and measures (live where it can, else the stored run) -------------


def _stored_hll() -> dict:
    text = (resources.files("setlab") / "data" / "hyperloglog-reference.json").read_text()
    return json.loads(text)


def test_the_page_opens_naming_the_stored_run(monkeypatch, capsys):
    from setlab.chapters import hyperloglog as chapter

    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SETLAB_SCALE", raising=False)
    stored = _stored_hll()
    server, machine = stored["server"], stored["machine"]
    lab = chapter.start()
    try:
        banner, note = capsys.readouterr().out.splitlines()
        assert banner.startswith("embedded fakeredis ")
        assert note == (
            f"reference run: Redis {server['redis_version']} ({server['allocator']}), "
            f"{machine['cpu']}, {machine['cores']} cores, measured {stored['measured']}"
        )
    finally:
        lab.cleanup()


def test_the_embedded_backend_shows_the_stored_key_growth_and_replies(fake_lab):
    from setlab.chapters import hyperloglog as chapter

    stored = _stored_hll()
    key = fake_lab.key("post")
    seen = chapter.key_memory(fake_lab, key, 2_000)
    at = next(r for r in stored["growth"] if r["n"] == chapter.READERS)
    assert not seen.live and (seen.value.n, seen.value.memory_usage) == (
        at["n"],
        at["memory_usage"],
    )
    # the stored key equals the model (the claims' tests check it), so both figures are its
    assert chapter.key_memory_text(seen).splitlines() == [
        seen.label,
        f"{at['n']:,} readers: MEMORY USAGE {at['memory_usage']:,} B, "
        f"model {at['memory_usage']:,} B",
    ]
    growth = chapter.growth_measurement(fake_lab, [1, 10])
    assert [r.memory_usage for r in growth.value] == [r["memory_usage"] for r in stored["growth"]]
    zeros = chapter.zero_replies_measurement(fake_lab, 10_000)
    assert [(b.start, b.stop, b.zero_replies) for b in zeros.value] == [
        (b["from"], b["to"], b["zero_replies"]) for b in stored["zero_replies"]
    ]
    assert not fake_lab.keys()


@pytest.mark.live
def test_a_real_redis_measures_the_key_and_replies_as_the_model_says(live_lab):
    from setlab.chapters import hyperloglog as chapter

    key = live_lab.key("post")
    runs.pfadd_many(live_lab, key, hll.reader_ids(0, 500))
    seen = chapter.key_memory(live_lab, key, 500)
    assert seen.live and seen.value.n == 500
    assert seen.value.memory_usage == hll.sketch_of_readers(500).cost(key).memory_usage
    zeros = chapter.zero_replies_measurement(live_lab, 3_000)
    bins = [(0, 10), (10, 100), (100, 1000), (1000, 3000)]  # the last bin ends at the count
    assert [(b.start, b.stop) for b in zeros.value] == bins
    replies = hll.new_reader_replies(3_000)
    expected = [int((replies[a:b] == 0).sum()) for a, b in bins]
    assert [b.zero_replies for b in zeros.value] == expected
