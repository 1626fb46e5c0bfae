"""setlab.lab.runs.window_operators on the real servers: Redis 8.2.3's BITOP DIFF, DIFF1, ANDOR and
ONE against pyroaring and a count of days per ID on a small week, what the module's docstring says
of them (two sources at least, missing keys, the result's length), and Redis 7.0.15, which has
none of them: the function says so and still answers the 7.0 way; and why that way has no NOT."""

from __future__ import annotations

import numpy as np
import pytest
import redis
from pyroaring import BitMap

import setlab
from setlab.chapters import roaring_containers as chapter
from setlab.lab import backend, servers
from setlab.lab.runs import window_operators as wo
from setlab.lab.server import RedisServer
from setlab.models import roaring as ro
from tests.conftest import REQUIRE_LIVE

pytestmark = pytest.mark.live


def _server(name: str):
    release = servers.release(name)
    binary = release.binary()
    if binary is None:
        if REQUIRE_LIVE:  # CI installs every extra: a missing server is a broken install
            pytest.fail(f"SETLAB_REQUIRE_LIVE=1 but {name} is missing: {release.package}")
        pytest.skip(f"{name} not installed here ({release.package})")
    server = RedisServer.start(binary=binary, module=False)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server82():
    yield from _server("8.2")


@pytest.fixture(scope="module")
def server70():
    yield from _server("7.0")


def _lab(monkeypatch, server, name: str) -> setlab.Lab:
    """A Lab on ``server``, as if setlab had started it (connect reuses it: same binary)."""
    for variable in ("REDIS_URL", "SETLAB_USER", "SETLAB_REDIS_SERVER", "SETLAB_BACKEND"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(backend, "_private_server", server)
    lab = setlab.connect("test-window-operators", backend="live", server=name, quiet=True)
    assert lab.server is server
    return lab


@pytest.fixture
def lab82(monkeypatch, server82):
    lab = _lab(monkeypatch, server82, "8.2")
    yield lab
    lab.cleanup()
    lab.close()


@pytest.fixture
def lab70(monkeypatch, server70):
    lab = _lab(monkeypatch, server70, "7.0")
    yield lab
    lab.cleanup()
    lab.close()


def _week(seed: int = 7) -> list[BitMap]:
    return ro.daily_bitmaps(np.random.default_rng(seed), daily=2_000, population=20_000)


def _days_per_id(days: list[BitMap]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids, seen = np.unique(np.concatenate([d.to_array() for d in days]), return_counts=True)
    return ids, seen, np.isin(ids, days[-1].to_array())


def test_the_82_operators_answer_what_pyroaring_and_a_count_of_days_say(lab82):
    days = _week()
    result = wo.window_operators(lab82, days, repeat=2)
    assert result.available and result.missing == ""
    ids, seen, today = _days_per_id(days)
    by_count = {
        "DIFF": ids[today & (seen == 1)],
        "DIFF1": ids[~today],
        "ANDOR": ids[today & (seen >= 2)],
        "ONE": ids[seen == 1],
    }
    for answer in result.answers:
        new, old = answer.operator_way, answer.old_way
        assert new.same and old.same, answer.question
        assert new.count == old.count == answer.expected == len(by_count[answer.operator])
        assert (new.commands, new.temporaries) == (1, 0)
        assert new.server_s > 0 and old.server_s > 0, "INFO commandstats timed both"
    assert not lab82.keys(), "every key it wrote is gone"


def test_the_82_operators_read_as_the_module_says(lab82):
    r = lab82.r
    x, a, b, dest, absent = (lab82.key(k) for k in ("x", "a", "b", "dest", "absent"))
    r.set(x, bytes([0b11110000]))
    r.set(a, bytes([0b11001100]))
    r.set(b, bytes([0b10101010, 0b00000001]))  # longer than the others
    expected = {  # bit by bit from the definitions, the result as long as the longest source
        "DIFF": [0b00010000, 0],  # x ∧ ¬(a ∨ b)
        "DIFF1": [0b00001110, 0b00000001],  # ¬x ∧ (a ∨ b)
        "ANDOR": [0b11100000, 0],  # x ∧ (a ∨ b)
        "ONE": [0b00010110, 0b00000001],  # in exactly one of x, a, b
    }
    for op, want in expected.items():
        assert r.execute_command("BITOP", op, dest, x, a, b) == 2
        assert list(r.get(dest)) == want, op
    for op in ("DIFF", "DIFF1", "ANDOR"):
        with pytest.raises(
            redis.ResponseError, match=f"BITOP {op} must be called with at least two source"
        ):
            r.execute_command("BITOP", op, dest, x)
    assert r.execute_command("BITOP", "DIFF", dest, x, absent) == 1  # a missing key is zeros
    assert r.get(dest) == r.get(x)
    assert wo.missing_operators(lab82) == ""


def test_on_70_the_function_says_the_operators_are_missing_and_answers_the_70_way(lab70):
    days = _week(8)
    result = wo.window_operators(lab70, days, repeat=2)
    assert not result.available
    assert result.missing == "no BITOP DIFF, DIFF1, ANDOR or ONE: it answers 'syntax error'"
    for answer in result.answers:
        assert answer.operator_way is None and answer.old_way.same and answer.agrees
        assert answer.old_way.server_s > 0
    assert not lab70.keys()


def test_on_70_the_chapter_shows_the_stored_82_run_saying_why(lab70):
    measured = chapter.operators_measurement(lab70, np.random.default_rng(0), daily=1_000)
    assert not measured.live and measured.value == chapter.operators_run().window
    assert measured.why_not_live.startswith("Redis 7.0.15 has no BITOP DIFF")
    assert "this run measured none of it: Redis 7.0.15" in chapter.operators_table(measured)


def test_on_82_the_chapter_measures_this_run(lab82):
    measured = chapter.operators_measurement(lab82, np.random.default_rng(0), daily=1_000)
    assert measured.live and measured.label.startswith("this run: Redis 8.2.3 (")
    assert all(a.agrees and a.operator_way for a in measured.value.answers)
    assert not lab82.keys()


def test_not_then_and_loses_the_users_past_the_other_days_end_so_the_70_way_uses_xor(lab70):
    r = lab70.r
    others = [lab70.key("day", i) for i in range(2)]
    today, dest = lab70.key("today"), lab70.key("dest")
    r.set(others[0], ro.redis_bitmap_bytes(BitMap([1, 5])))
    r.set(others[1], ro.redis_bitmap_bytes(BitMap([2])))
    r.set(today, ro.redis_bitmap_bytes(BitMap([5, 6, 1_000])))  # 1,000 is past their end
    r.execute_command("BITOP", "OR", dest, *others)
    r.execute_command("BITOP", "NOT", dest, dest)
    r.execute_command("BITOP", "AND", dest, today, dest)
    assert r.bitcount(dest) == 1, "only 6 is left: NOT stopped at byte 0, 1,000 is lost"
    for command in wo.QUESTIONS[0].old_way(dest, today, others, []):
        r.execute_command("BITOP", *command)
    assert [r.getbit(dest, i) for i in (5, 6, 1_000)] == [0, 1, 1]
    assert r.bitcount(dest) == 2
