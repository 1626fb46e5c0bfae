"""The first-failure load as a distribution: item streams, the marks of a run, the bit-exact
model against the module (live and stored), and the stored run's shape and label."""

from __future__ import annotations

import json
import math
import statistics
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.lab.full_scale.cuckoo_walls import CuckooWallsReference, WallFill, wall_fill
from setlab.models.cuckoo_walls import (
    FillMarks,
    MarkCounter,
    Spread,
    marks,
    model_fill,
    simulated_first_failure,
    stream_values,
)
from setlab.models.redisbloom_cuckoo import RedisBloomCuckoo


def _raw() -> dict:
    path = resources.files("setlab") / "data" / "cuckoo-walls.json"
    return json.loads(path.read_text())


# -- streams ------------------------------------------------------------------------------------


def test_streams_never_repeat_a_value_within_or_across_streams():
    values = np.concatenate([stream_values(s, 0, 50_000) for s in range(4)])
    assert np.unique(values).size == values.size


def test_a_slice_of_a_stream_is_the_same_values_as_the_whole():
    whole = stream_values(7, 0, 1000)
    assert np.array_equal(whole[300:700], stream_values(7, 300, 400))


@pytest.mark.parametrize(
    ("args", "name"), [((-1, 0, 1), "stream"), ((2**20, 0, 1), "stream"), ((0, -5, 1), "start")]
)
def test_stream_arguments_out_of_range_are_refused_by_name(args, name):
    with pytest.raises(ValueError, match=name):
        stream_values(*args)


# -- marks --------------------------------------------------------------------------------------


def test_marks_of_a_hand_made_run():
    failed = np.array([0, 0, 1, 0, 1, 1], dtype=bool)
    m = marks(failed, slots=10, share=0.3)
    # attempt 2 is the first failure; after it 1 of 3 attempts failed (33% >= 30%)
    assert (m.first_fail_at, m.reach_at, m.held_at_reach, m.failures) == (2, 2, 2, 3)
    assert m.first_fail_load == 0.2 and m.reach_load == 0.2
    later = marks(np.array([0, 0, 1, 0, 0, 0, 1, 1], dtype=bool), slots=10, share=0.3)
    # 1/3 at attempt 2 already reaches 30%; with share 0.35 it takes 3 of 8 at attempt 7
    assert later.reach_at == 2
    late = marks(np.array([0, 0, 1, 0, 0, 0, 1, 1], dtype=bool), slots=10, share=0.35)
    assert (late.reach_at, late.held_at_reach) == (7, 5)  # 7 attempts before it, 2 failed


def test_a_run_without_failures_has_no_marks():
    m = marks(np.zeros(5, dtype=bool), 8, 0.01)
    assert m.first_fail_at is None and m.reach_at is None
    assert math.isnan(m.first_fail_load) and math.isnan(m.reach_load)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.booleans(), min_size=1, max_size=300),
    st.integers(1, 50),
    st.floats(0.001, 0.5),
)
def test_marks_counted_in_chunks_equal_marks_of_the_whole_run(bits, chunk, share):
    failed = np.array(bits, dtype=bool)
    counter = MarkCounter(1000, share)
    for start in range(0, failed.size, chunk):
        counter.add(failed[start : start + chunk])
    assert counter.marks() == marks(failed, 1000, share)


def test_model_fill_marks_the_first_minus_one_of_the_bit_exact_model():
    # an independent replay: all attempts at once, the first -1 found by hand
    cf = RedisBloomCuckoo(2**12, 2, 20, expansion=0)
    replies = cf.add(stream_values(3, 0, 2**12))
    first = int(np.flatnonzero(replies == -1)[0])
    m = model_fill(12, 2, 20, 3, share=3e-4)
    assert m.first_fail_at == first
    assert m.reach_at is not None and m.reach_at >= first


def test_the_papers_rules_reach_the_papers_loads_roughly():
    for b, paper in ((1, 0.50), (2, 0.84), (4, 0.95)):
        assert simulated_first_failure(12, b, 0) == pytest.approx(paper, abs=0.06)


def test_spread_is_median_and_range_and_skips_runs_without_a_mark():
    s = Spread.of([0.61, 0.63, math.nan, 0.62])
    assert (s.median, s.low, s.high, s.count) == (0.62, 0.61, 0.63, 3)
    assert s.percent() == "62.0% (61.0–63.0%)"
    assert Spread.of([0.5]).percent() == "50.0%"
    with pytest.raises(ValueError, match="not NaN"):
        Spread.of([math.nan])


# -- the stored run -----------------------------------------------------------------------------


def test_stored_run_covers_the_grid_the_issue_asks_for():
    raw = _raw()
    assert raw["server"]["modules"].get("bf")  # RedisBloom's version is on the label
    assert raw["server"]["allocator"] and raw["machine"]["cores"]
    sizes = {r["log_slots"] for r in raw["rows"]}
    assert min(sizes) == 12 and max(sizes) >= 20
    configs = {(r["bucket_size"], r["max_iterations"]) for r in raw["rows"]}
    assert configs == {(b, it) for b in (1, 2, 4) for it in (20, 500)}
    for size in range(12, 21):
        streams = {r["stream"] for r in raw["rows"] if r["log_slots"] == size}
        assert len(streams) >= 8
    assert raw["model_checked"]["fills"] > 0
    assert raw["model_checked"]["identical"] == raw["model_checked"]["fills"]


def test_stored_first_failures_are_what_the_bit_exact_model_replays():
    raw = [r for r in _raw()["rows"] if r["log_slots"] == 12 and r["stream"] < 3]
    assert raw
    for row in raw:
        m = model_fill(12, row["bucket_size"], row["max_iterations"], row["stream"], 3e-4)
        assert m.first_fail_at == row["marks"]["first_fail_at"], row
        assert m.reach_at == row["marks"]["reach_at"], row


def test_typed_record_reads_the_spread_the_raw_file_holds():
    ref = CuckooWallsReference.load()
    rows = [r for r in _raw()["rows"]
            if (r["log_slots"], r["bucket_size"], r["max_iterations"]) == (20, 2, 20)]  # fmt: skip
    loads = [r["marks"]["first_fail_at"] / r["marks"]["slots"] for r in rows]
    spread = ref.first_fail(20, 2, 20)
    assert spread.median == pytest.approx(statistics.median(loads))
    assert (spread.low, spread.high) == (min(loads), max(loads))
    with pytest.raises(ValueError, match="log_slots=13"):
        ref.fills(13, 3, 20)


def test_wall_fill_round_trips_and_counts_failures_by_chunk():
    fill = WallFill(27, 4, 500, 0, FillMarks(2**27, 3_000_000, None, None, None, 7), 10**6,
                    (0, 3, 4))  # fmt: skip
    assert WallFill.from_dict(json.loads(json.dumps(fill.to_dict()))) == fill
    assert fill.failures_within(2 * 10**6) == 3
    with pytest.raises(ValueError, match="multiple"):
        fill.failures_within(1500)


# -- the module, live ---------------------------------------------------------------------------


def test_the_module_fails_where_the_model_and_the_stored_run_say(live_lab):
    if not live_lab.has_redisbloom:
        pytest.skip("the private server runs without redisbloom.so")
    stored = {(r["bucket_size"], r["max_iterations"], r["stream"]): r["marks"]
              for r in _raw()["rows"] if r["log_slots"] == 12}  # fmt: skip
    for b, it in ((1, 20), (2, 500), (4, 20)):
        live = wall_fill(live_lab, 12, b, it, 1, 3e-4)
        model = model_fill(12, b, it, 1, 3e-4)
        assert (live.marks.first_fail_at, live.marks.reach_at) == (
            model.first_fail_at,
            model.reach_at,
        )
        assert live.marks.first_fail_at == stored[b, it, 1]["first_fail_at"]
    assert not list(live_lab.r.scan_iter(live_lab.key("wall-*")))  # it cleans up
