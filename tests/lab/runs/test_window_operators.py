"""setlab.lab.runs.window_operators off a real server: the Redis 7.0 ways on the embedded
fakeredis (which has BITOP AND, OR and XOR but none of 8.2's operators), the questions' own
answers, the stored run on Redis 8.2.3 and the chapter's table of it.

The oracle is a count of days per ID in plain Python sets, never the module's own pyroaring
expressions; the stored run's counts are rebuilt from its seed.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

from setlab.chapters import roaring_containers as chapter
from setlab.lab.reference import Measurement
from setlab.lab.runs import window_operators as wo
from setlab.models import roaring as ro

#: What each operator answers, by days per ID: today is the last day (Redis's bitops.c, 8.2)
BRUTE = {
    "DIFF": lambda on, today: on == {today},
    "DIFF1": lambda on, today: today not in on,
    "ANDOR": lambda on, today: today in on and len(on) >= 2,
    "ONE": lambda on, today: len(on) == 1,
}


def brute(days: list[set[int]], operator: str) -> set[int]:
    """The IDs ``BITOP <operator>`` keeps, from the days each ID was seen on (today last)."""
    today = len(days) - 1
    seen: dict[int, set[int]] = {}
    for day, ids in enumerate(days):
        for i in ids:
            seen.setdefault(i, set()).add(day)
    return {i for i, on in seen.items() if BRUTE[operator](on, today)}


weeks = st.lists(st.sets(st.integers(0, 300), max_size=60), min_size=2, max_size=9)


@settings(max_examples=40, deadline=None)
@given(weeks)
def test_the_questions_pyroaring_answers_are_the_operators_by_days_per_id(week):
    bitmaps = [BitMap(d) for d in week]
    for q in wo.QUESTIONS:
        assert set(q.expected(bitmaps[-1], bitmaps[:-1])) == brute(week, q.operator), q.name


@settings(max_examples=25, deadline=None)
@given(weeks)
def test_each_70_way_gives_the_operators_answer_whatever_each_day_ends_at(fake_lab_module, week):
    lab = fake_lab_module
    keys = [lab.key("day", i) for i in range(len(week))]
    for k, d in zip(keys, week, strict=True):  # days of their own lengths, some empty
        lab.r.set(k, ro.redis_bitmap_bytes(BitMap(d)))
    *others, today = keys
    temporary = [lab.key("temporary", i) for i in range(wo.splits(len(week)))]
    dest = lab.key("answer")
    for q in wo.QUESTIONS:
        for command in q.old_way(dest, today, others, temporary[: q.temporaries(len(week))]):
            lab.r.execute_command("BITOP", *command)
        raw = lab.r.get(dest) or b""
        bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="big")
        assert set(np.flatnonzero(bits).tolist()) == brute(week, q.operator), q.name
    lab.r.delete(*keys, *temporary, dest)


def test_the_70_ways_are_3_2_2_and_ten_bitops_into_three_temporaries_for_a_week():
    others, today = [f"d{i}" for i in range(6)], "d6"
    temporary = ["t0", "t1", "t2"]
    ways = {q.operator: q.old_way("dest", today, others, temporary) for q in wo.QUESTIONS}
    assert {op: len(w) for op, w in ways.items()} == {"DIFF": 3, "DIFF1": 2, "ANDOR": 2, "ONE": 10}
    assert not any(c[0] == "NOT" for w in ways.values() for c in w), "NOT truncates: never used"
    written = {c[1] for c in ways["ONE"]}
    assert written == {"dest", *temporary}, "ONE writes the answer and three temporaries only"
    assert [q.temporaries(7) for q in wo.QUESTIONS] == [0, 0, 0, 3]


def test_on_the_embedded_backend_the_operators_are_missing_and_the_70_ways_still_answer(fake_lab):
    days = ro.daily_bitmaps(np.random.default_rng(3), daily=500, population=5_000)
    result = wo.window_operators(fake_lab, days, repeat=2)
    assert not result.available and result.missing.startswith("no BITOP DIFF, DIFF1, ANDOR or ONE")
    week = [set(d) for d in days]
    for answer in result.answers:
        assert answer.operator_way is None
        assert answer.old_way.same and answer.agrees
        assert answer.old_way.count == answer.expected == len(brute(week, answer.operator))
        assert np.isnan(answer.old_way.server_s), "fakeredis has no INFO: nothing timed"
    assert not fake_lab.keys()


def test_window_operators_refuses_a_single_day(fake_lab):
    with pytest.raises(ValueError, match="days must be at least 2"):
        wo.window_operators(fake_lab, [BitMap([1])])


def test_the_stored_run_is_redis_82_and_every_answer_is_the_seeded_days_count():
    raw = json.loads((resources.files("setlab") / "data" / "window-operators.json").read_text())
    ref = wo.OperatorsReference.load()
    assert raw["server"]["redis_version"] == ref.run.redis_version == "8.2.3"
    assert ref.run.label.startswith("reference run: Redis 8.2.3 (jemalloc-")
    assert ref.window.available and [a.operator for a in ref.window.answers] == list(wo.OPERATORS)
    days = ro.daily_bitmaps(
        np.random.default_rng(ref.seed),
        days=ref.window.days,
        daily=round(ref.window.users_per_day),
        population=ref.population,
    )
    ids, seen = np.unique(np.concatenate([d.to_array() for d in days]), return_counts=True)
    today = np.isin(ids, days[-1].to_array())
    counts = {
        "DIFF": int(np.sum(today & (seen == 1))),
        "DIFF1": int(np.sum(~today)),
        "ANDOR": int(np.sum(today & (seen >= 2))),
        "ONE": int(np.sum(seen == 1)),
    }
    for answer, row in zip(ref.window.answers, raw["rows"], strict=True):
        assert answer.agrees and answer.old_way.same and answer.operator_way.same
        assert answer.expected == answer.old_way.count == answer.operator_way.count
        assert answer.expected == counts[answer.operator], answer.question
        assert answer.operator_way.commands == 1 and answer.operator_way.temporaries == 0
        assert answer.old_way.server_s == row["7.0 seconds"] > 0
        assert answer.operator_way.server_s == row["8.2 seconds"] > 0


def test_the_stored_70_ways_are_the_ones_the_module_sends():
    ref = wo.OperatorsReference.load()
    others, today = [f"d{i}" for i in range(6)], "d6"
    for q, answer in zip(wo.QUESTIONS, ref.window.answers, strict=True):
        temporary = [f"t{i}" for i in range(q.temporaries(ref.window.days))]
        sent = len(q.old_way("dest", today, others, temporary)) + bool(temporary)
        assert (answer.old_way.commands, answer.old_way.temporaries) == (sent, len(temporary))


def test_the_chapter_shows_the_stored_82_run_on_the_embedded_backend(fake_lab):
    ref = wo.OperatorsReference.load()
    measured = chapter.operators_measurement(fake_lab, np.random.default_rng(0), daily=1_000)
    assert not measured.live and measured.value == ref.window
    table = chapter.operators_table(measured)
    head, rows = table.splitlines()[0], table.splitlines()[4:]
    assert head.startswith(f"*{ref.run.label}*") and "embedded fakeredis" in head
    assert [r.split(" | ")[1] for r in rows] == [f"`BITOP {op}`" for op in wo.OPERATORS]
    one = rows[-1].split(" | ")
    assert (
        one[3] == "11 commands, 3 temporary keys"
        and one[-1] == f"{ref.window.answers[-1].expected:,} |"
    )
    assert not fake_lab.keys()


def test_the_chapters_figures_come_from_the_stored_run():
    ref = wo.OperatorsReference.load()
    one = ref.window.answer("ONE")
    compute = chapter.FIGURES._compute
    assert compute["rc-ops-server"]() == "Redis 8.2.3"
    assert compute["rc-ops-old-commands"]() == "2 to 11"
    ratio = one.old_way.server_s / one.operator_way.server_s
    assert compute["rc-ops-one-speedup"]() == f"{ratio:.1f}"
    low, high = compute["rc-ops-others-speedup"]().split(" to ")
    assert float(low) <= float(high)


def test_a_mismatch_is_shown_not_hidden():
    way = wo.Way(commands=3, temporaries=0, server_s=1e-4, count=9, same=False)
    good = wo.Way(commands=1, temporaries=0, server_s=1e-4, count=10, same=True)
    answer = wo.Answer("new today", "DIFF", 10, good, way)
    assert not answer.agrees
    assert wo.Answer.from_row(answer.row()) == answer
    measured = Measurement(wo.WindowOperators((answer,), "", 7, 1.0), True, "this run: x")
    assert "differ: 8.2 10, 7.0 9, pyroaring 10" in chapter.operators_table(measured)
