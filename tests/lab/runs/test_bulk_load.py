"""setlab.lab.runs.bulk_load: the stored bulk-load run read as typed rows, and the chapter's small
run live or from the reference (the same rows, labelled)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from setlab.lab.runs import bulk_load
from setlab.lab.runs.bulk_load import BulkLoadReference


def _raw() -> dict:
    """The reference file as plain JSON, read without setlab.lab.reference (an independent path)."""
    return json.loads((resources.files("setlab") / "data" / "bulk-load.json").read_text())


def test_the_typed_reference_holds_every_row_of_the_file_in_order():
    raw, ref = _raw(), BulkLoadReference.load()
    assert [(r.strategy, r.batch) for r in ref.rows] == [
        (r["strategy"], r["batch"]) for r in raw["rows"]
    ]
    for typed, plain in zip(ref.rows, raw["rows"], strict=True):
        assert typed.bits_per_second == plain["bits_per_second"]
        assert typed.seed_002_seconds == plain["seed_002_seconds"]
    assert ref.rtt_seconds == raw["rtt_seconds"]
    assert ref.setbit_ceiling == raw["redis_benchmark_setbit_rps"]
    assert ref.run.redis_version == raw["server"]["redis_version"]
    assert ref.run.label.startswith("reference run: Redis ")


def test_best_pipeline_over_round_trip_multi_matches_the_files_own_summary():
    raw, ref = _raw(), BulkLoadReference.load()
    pipelines = [r for r in raw["rows"] if r["strategy"] == "pipeline"]
    best = max(pipelines, key=lambda r: r["bits_per_second"])
    multi = next(r for r in raw["rows"] if r["strategy"] == "multi-roundtrip")
    assert ref.best("pipeline").batch == best["batch"] == raw["best_pipeline_batch"]
    assert ref.pipeline_vs_multi == pytest.approx(
        best["bits_per_second"] / multi["bits_per_second"]
    )
    assert ref.pipeline_vs_multi == pytest.approx(raw["multi_roundtrip_vs_best_pipeline"])
    assert ref.pipelined_seconds_per_bit == pytest.approx(1 / best["bits_per_second"])


def test_rtt_for_50x_solves_the_round_trip_model():
    ref = BulkLoadReference.load()
    rtt, c = ref.rtt_for(50, 1000), ref.pipelined_seconds_per_bit
    assert (rtt + c) / (rtt / 1000 + c) == pytest.approx(50)


def test_rows_are_found_by_strategy_and_batch_and_a_missing_one_is_named():
    ref = BulkLoadReference.load()
    assert ref.row("local").label == "local"
    assert ref.row("pipeline", 1000).label == "pipeline (batch 1,000)"
    with pytest.raises(ValueError, match="telepathy"):
        ref.row("telepathy")
    with pytest.raises(ValueError, match="telepathy"):
        ref.best("telepathy")


def test_the_embedded_backend_gets_the_reference_rows_labelled_as_the_reference_run(fake_lab):
    m = bulk_load.compare_strategies(fake_lab)
    ref = BulkLoadReference.load()
    assert not m.live and m.label == ref.run.label and "fakeredis" in m.why_not_live
    assert [r.label for r in m.value] == ["one-by-one", "pipeline (batch 1,000)", "local"]
    assert [r.bits_per_second for r in m.value] == [
        ref.row("one-by-one").bits_per_second,
        ref.row("pipeline", 1000).bits_per_second,
        ref.row("local").bits_per_second,
    ]
    assert fake_lab.keys() == []


def test_run_strategies_loads_each_way_and_leaves_no_key(fake_lab):
    rates = bulk_load.run_strategies(fake_lab, scale=0.05)
    assert [r.label for r in rates] == ["one-by-one", "pipeline (batch 1,000)", "local"]
    assert all(r.bits_per_second > 0 for r in rates)
    assert fake_lab.keys() == []


@pytest.mark.live
def test_a_real_redis_measures_the_same_three_strategies_live(live_lab):
    m = bulk_load.compare_strategies(live_lab, scale=0.1)
    assert m.live and m.label.startswith("this run: Redis ")
    assert [r.label for r in m.value] == [r.label for r in bulk_load.reference_strategies()]
    assert live_lab.keys() == []


def test_the_benchmark_refuses_the_embedded_backend(fake_lab):
    with pytest.raises(ValueError, match="real Redis"):
        bulk_load.measure(fake_lab)
