"""setlab.lab.runs.setbit: the first-write experiment's records, the stall timeline, and the stored
run.

Oracles: hand-made rows and probe results, and the reference file read here as raw JSON.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pytest

from setlab.lab import latency
from setlab.lab.reference import live_or_reference
from setlab.lab.runs import setbit
from setlab.models import bitmap

RAW = json.loads(
    (Path(__file__).resolve().parents[3] / "src/setlab/data/setbit-reference.json").read_text()
)


def _write(server_us, offset=8, second=0.1):
    return setbit.FirstWrite(offset, 2, 56, 56, server_us, 1.0, second)


def test_median_by_offset_collapses_runs():
    (summary,) = setbit.median_by_offset([_write(s) for s in (1.0, 5.0, 3.0)])
    assert summary.server_us == 3.0 and summary.server_s == 3e-6
    assert (summary.server_us_min, summary.server_us_max, summary.runs) == (1.0, 5.0, 3)


def test_median_by_offset_sorts_offsets_and_keeps_missing_server_time_missing():
    rows = setbit.median_by_offset([_write(None, offset=80), _write(2.0, offset=8)])
    assert [r.offset for r in rows] == [8, 80]
    assert rows[1].server_us is None and rows[1].server_us_min is None
    with pytest.raises(ValueError, match="server-side time"):
        _ = rows[1].server_s


def test_first_write_on_fakeredis_reports_no_server_time(fake_lab):
    write = setbit.first_write(fake_lab, 10_000)
    assert write.strlen == bitmap.bytes_for_offset(10_000)
    assert write.memory_usage is None and write.server_us is None
    assert fake_lab.keys() == []


def test_sweep_skips_nothing_it_may_allocate(fake_lab):
    writes = setbit.sweep_first_writes(fake_lab, [100, 1_000])
    assert [w.offset for w in writes] == [100, 1_000]


def _probe(latencies_ms: list[float]) -> latency.ProbeResult:
    waits = np.array(latencies_ms) / 1e3
    starts = np.cumsum(np.r_[0.0, waits[:-1]])
    return latency.ProbeResult(starts, waits, action_start=0.01, action_end=0.6)


def test_a_thinned_timeline_keeps_the_worst_wait():
    waits = [0.1] * 1_001
    waits[501] = 595.0  # not a multiple of the thinning step
    timeline = setbit.StallTimeline.from_probe(_probe(waits), points=100)
    assert len(timeline.latency_ms) <= 102
    assert timeline.worst_ms == 595.0
    assert list(timeline.starts_ms) == sorted(timeline.starts_ms)


def test_a_stored_timeline_gets_its_recorded_worst_back():
    data = {"starts_ms": [0.0, 1.0, 2.0], "latency_ms": [0.1, 0.3, 0.1], "worst_start_ms": 1.5,
            "worst_ms": 595.0, "action_start_ms": 1.4, "action_end_ms": 597.0}  # fmt: skip
    timeline = setbit.StallTimeline.from_json(data)
    assert timeline.worst_ms == 595.0 and timeline.worst_start_ms == 1.5
    assert timeline.starts_ms == (0.0, 1.0, 1.5, 2.0)
    again = setbit.StallTimeline.from_json(timeline.to_json())
    assert again == timeline  # stored with the worst inside: nothing added twice


def test_a_timeline_needs_matching_samples():
    with pytest.raises(ValueError, match="timeline"):
        setbit.StallTimeline((0.0,), (), 0.0, 1.0)


def test_the_reference_run_reads_back_as_typed_records():
    ref = setbit.SetbitReference.load()
    assert len(ref.writes) == len(RAW["rows"])
    for offset in {r["offset"] for r in RAW["rows"]}:
        raw = [r for r in RAW["rows"] if r["offset"] == offset]
        summary = ref.median(offset)
        assert summary.runs == len(raw)
        assert summary.server_us == statistics.median(r["server_us"] for r in raw)
        assert summary.second_client_ms == statistics.median(r["second_client_ms"] for r in raw)
    assert ref.run.redis_version == RAW["server"]["redis_version"]
    assert ref.blocking_at(2**32 - 1).worst_probe_ms == RAW["blocking"][-1]["worst_probe_ms"]
    assert ref.timeline.worst_ms == pytest.approx(RAW["timeline"]["worst_ms"])


def test_the_reference_run_refuses_offsets_it_did_not_measure():
    ref = setbit.SetbitReference.load()
    with pytest.raises(KeyError, match="12,345"):
        ref.median(12_345)
    with pytest.raises(KeyError, match="12,345"):
        ref.blocking_at(12_345)


def test_on_fakeredis_the_stall_is_the_stored_one_with_its_label(fake_lab):
    ref = setbit.SetbitReference.load()
    measured = live_or_reference(fake_lab, setbit.stall_timeline, lambda: ref.timeline,
                                 run_info=ref.run)  # fmt: skip
    assert not measured.live and measured.value is ref.timeline
    assert measured.label.startswith("reference run: Redis 7.0.15")
    assert "fakeredis" in measured.why_not_live


def test_writes_to_rows_numbers_the_run():
    rows = setbit.writes_to_rows([_write(1.0)], run=2)
    assert rows == [{"run": 2, "offset": 8, "strlen": 2, "memory_usage": 56, "model": 56,
                     "server_us": 1.0, "client_ms": 1.0, "second_client_ms": 0.1}]  # fmt: skip


def test_the_seed_sequence_can_hold_both_strings_while_the_second_click_reallocates():
    # by hand: 227,932,099 + 10 bytes → jemalloc's 224 MiB class; the growth asks for the needed
    # 432,098,627 bytes plus 1 MiB of greedy room, + 10 → the 448 MiB class; realloc may hold both
    first, second = 224 * 2**20, 448 * 2**20
    # and the key: robj 16, a 128-byte name's sds (3 + 128 + 1 → the 160-byte class), the
    # dictEntry (24 → 32) and two bucket pointers (16)
    key = 16 + 160 + 32 + 16
    assert setbit.sequence_peak_bytes(setbit.SEED_000_SEQUENCE) == first + second + key
    # two bytes: a type-5 sds of 1 + 2 + 1 bytes in the 8-byte class
    assert setbit.sequence_peak_bytes([8, 0]) == 8 + key


def test_a_replay_on_fakeredis_names_each_write_and_measures_no_server_time(fake_lab):
    steps = setbit.replay_sequence(fake_lab, [800, 8000, 80])
    assert [s.kind for s in steps] == ["creates the key", "grows the string", "inside the string"]
    assert [s.added_bytes for s in steps] == [101, 900, 0]
    assert all(s.server_us is None and s.memory_usage is None for s in steps)
    assert fake_lab.r.exists(fake_lab.key("sequence")) == 0  # the key is deleted


def test_replays_collapse_to_the_median_time_of_each_step():
    def step(i, us):
        return setbit.SequenceStep(i, 8 * i, 0, i, None, 56, us, 1.0)

    merged = setbit.median_sequence([step(1, 5.0), step(2, 9.0), step(1, 1.0), step(1, 3.0)])
    assert [(s.step, s.server_us) for s in merged] == [(1, 3.0), (2, 9.0)]


def test_the_stored_replay_reads_back_with_its_own_label():
    ref = setbit.SetbitReference.load()
    raw = RAW["sequence"]
    assert len(ref.sequence) == len(raw["rows"]) and ref.sequence_run is not None
    assert ref.sequence_run.measured == raw["measured"]
    assert [s.offset for s in ref.sequence_steps()] == list(setbit.SEED_000_SEQUENCE)


def test_a_first_write_that_fails_midway_deletes_its_key_at_once(fake_lab, monkeypatch):
    from setlab.lab.errors import BigAllocationRefused

    setbit_once = fake_lab.r.setbit
    calls = []

    def refuse_the_second(key, offset, value):
        calls.append(offset)
        if len(calls) == 2:
            raise BigAllocationRefused("the net under the second write says no")
        return setbit_once(key, offset, value)

    monkeypatch.setattr(fake_lab.r, "setbit", refuse_the_second)
    with pytest.raises(BigAllocationRefused):
        setbit.first_write(fake_lab, 80_000)
    assert calls == [80_000, 40_000]
    assert fake_lab.keys() == []  # not left for lab.cleanup() at the end of the page


def test_on_fakeredis_the_exercises_measure_nothing_and_change_no_setting(fake_lab):
    """No MEMORY USAGE and no server of setlab's own: None, so the page prints the model only."""
    assert setbit.memory_after_writes(fake_lab, fake_lab.key("steps"), [0, 8_000]) is None
    assert setbit.setbit_past_the_limit(fake_lab, fake_lab.key("past")) is None
    assert fake_lab.r.exists(fake_lab.key("steps"), fake_lab.key("past")) == 0
