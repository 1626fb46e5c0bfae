"""The page helpers of the chapter redis-set-memory (setlab.chapters.redis_set_memory): what the
page opens with, its measurements (live where the backend can, else the stored run) and the
intset switch points in words.

Checked against the stored reference run read straight from its JSON file (not through the
typed records), and on a private live server against Redis's documented rule that a set of
integers converts at member ``set-max-intset-entries + 1``.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from setlab.chapters import redis_set_memory as chapter
from setlab.chapters.redis_set_memory import measurements
from setlab.models import redis_memory as rm


def _stored() -> dict:
    return json.loads((resources.files("setlab") / "data" / "redis-memory.json").read_text())


def _label(stored: dict) -> str:
    server, machine = stored["server"], stored["machine"]
    return (
        f"reference run: Redis {server['redis_version']} ({server['allocator']}), "
        f"{machine['cpu']}, {machine['cores']} cores, measured {stored['measured']}"
    )


def test_the_page_opens_naming_the_stored_run(monkeypatch, capsys):
    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SETLAB_SCALE", raising=False)
    lab = chapter.start()
    try:
        banner, note = capsys.readouterr().out.splitlines()
        assert banner.startswith("embedded fakeredis ")
        assert note == _label(_stored())
    finally:
        lab.cleanup()


def test_the_embedded_backend_shows_the_stored_measurements(fake_lab):
    stored = _stored()
    label = _label(stored)
    big = measurements.big_set(fake_lab, 2_000)
    stored_big = next(r for r in stored["allocated"] if r["kind"] == chapter.BIG_SET_KIND)
    assert not big.live and big.label == label
    assert (big.value.n, big.value.memory_usage) == (stored_big["n"], stored_big["memory_usage"])
    sampling = measurements.sampling(fake_lab)
    assert (sampling.value.exact, sampling.value.default_samples) == (
        stored["sampling"]["exact"],
        stored["sampling"]["default_samples"],
    )
    growth = measurements.growth(fake_lab, [1, 10])
    assert [(r.kind, r.n) for r in growth.value] == [(r["kind"], r["n"]) for r in stored["growth"]]
    switch = measurements.intset_switch_points(fake_lab)
    points = {r["max_intset_entries"]: r["switch_at"] for r in stored["switch"]}
    assert switch.value == {limit: points[limit] for limit in chapter.INTSET_LIMITS}
    seed004 = measurements.seed_004(fake_lab)
    assert [r.memory_usage for r in seed004.value] == [r["memory_usage"] for r in stored["rows"]]
    assert all(m.label == label for m in (sampling, growth, switch, seed004))
    assert not fake_lab.keys()  # nothing was built


def test_the_growth_sizes_straddle_the_intset_limit_and_a_table_doubling():
    sizes = measurements.GROWTH_SIZES
    assert list(sizes) == sorted(set(sizes))
    limit = rm.SET_MAX_INTSET_ENTRIES
    assert {limit, limit + 1, 2**14, 2**14 + 1} <= set(sizes)


def test_switch_text_names_each_limits_member_or_that_it_was_not_measured():
    text = chapter.switch_text({128: 129, 100_000: None})
    assert text.splitlines() == [
        "set-max-intset-entries   128: hashtable from member 129",
        "set-max-intset-entries 100000: not measured "
        "(the config changes only on a server setlab started)",
    ]


@pytest.mark.live
def test_a_private_server_converts_at_one_past_each_limit(live_lab):
    switch = measurements.intset_switch_points(live_lab)
    assert switch.live and switch.label.startswith("this run: Redis ")
    assert switch.value == {limit: limit + 1 for limit in chapter.INTSET_LIMITS}
    sampling = measurements.sampling(live_lab)
    assert sampling.live and sampling.value.exact == sampling.value.model
