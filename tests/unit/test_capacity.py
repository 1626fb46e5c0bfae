"""Sets × IDs (setlab.tools.capacity): totals, one Redis or a cluster, and where one Redis's memory
comes from; and the ``--sets`` of ``setlab advise`` and ``setlab calc``.

References: arithmetic written out here (a total is the shared part plus sets times the rest;
masters are the total over one server, rounded up), and the chapter's like workload for the
hot-key share.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from setlab.models import like_workload
from setlab.tools import advise, capacity
from setlab.tools.analysis import synthetic
from setlab.tools.calc import choice


def test_a_total_is_what_the_sets_share_once_plus_each_set():
    at = capacity.Scale(per_set=14_000, sets=100_000, shared=8 << 20, server=16 << 30)
    assert at.total == (8 << 20) + 100_000 * 14_000 and at.fits
    assert [label for label, _ in at.rows()] == ["for 100,000 sets", "one Redis"]
    assert at.notes() == []


def test_past_one_redis_it_counts_masters_and_says_a_set_stays_on_one():
    at = capacity.Scale(per_set=671_088_688, sets=100_000, server=16 << 30)
    assert at.masters == -(-at.total // (16 << 30)) == 3907 and not at.fits
    rows = dict(at.rows())
    assert rows["Redis Cluster"].startswith("3,907 masters of 16 GiB (7,814 servers")
    (note,) = at.notes()
    assert f"{like_workload.skew_shares()['bitmap']:.0%}" in note and "one master" in note


def test_a_single_set_bigger_than_a_master_is_told_to_split():
    at = capacity.Scale(per_set=20 << 30, sets=2, server=16 << 30)
    assert len(at.notes()) == 2 and "split it over keys" in at.notes()[1]


@pytest.mark.parametrize("field, value", [("sets", 0), ("per_set", -1), ("server", 0)])
def test_a_scale_refuses_what_cannot_be(field, value):
    with pytest.raises(ValueError, match=field):
        capacity.Scale(**{"per_set": 1, field: value})


def test_one_redis_is_what_the_reader_says_else_redis_url_maxmemory_else_the_default(monkeypatch):
    assert capacity.server_budget(1 << 30) == (1 << 30, "a 1 GiB server (yours)")
    default = (capacity.DEFAULT_SERVER_BYTES, capacity.DEFAULT_SOURCE)
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert capacity.server_budget() == default
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: the default
    assert capacity.server_budget(timeout=0.2) == default


def test_advise_compares_candidates_at_the_number_of_sets():
    ids = synthetic(100_000, "random32", universe=2**24)
    one = advise.advise(ids)
    many = advise.advise(ids, choice.Needs(sets=1000))
    assert one.recommendation.choice.name == many.recommendation.choice.name  # no shared part
    bloom = next(c for c in many.candidates if c.name.startswith("Bloom"))
    assert many.scale(bloom).total == 1000 * bloom.memory
    assert "for 1,000 sets" in many.recommendation.reason
    assert "for 1,000 sets" not in one.recommendation.reason


def test_a_shared_part_is_paid_once_for_every_set():
    shared = choice.Candidate("shared", 1000, "exact", "yes", "Redis", (), shared=900)
    assert shared.for_sets(10).memory == 900 + 10 * 100
    assert choice.Candidate("none", None, "exact", "no", "Redis", ()).for_sets(5).memory is None


def _setlab(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    return subprocess.run([sys.executable, "-m", "setlab", *args], capture_output=True,
                          text=True, timeout=60, env=env)  # fmt: skip


def test_setlab_calc_prints_the_seed_000_likes_total_and_the_cluster_it_needs():
    # seed 000: a bitmap per post at the incident's offset, for 10^5 posts
    done = _setlab("calc", "setbit", "4294967295", "--sets", "1e5", "--json")
    data = json.loads(done.stdout)["scale"]
    assert data["total"] == 100_000 * 671_088_688 and data["fits_one_server"] is False
    assert data["cluster_masters"] == 3907
    text = _setlab("calc", "setbit", "4294967295", "--sets", "1e5").stdout
    assert "for 100,000 sets  61 TiB" in text and "Redis Cluster" in text


def test_calculators_without_one_key_take_no_sets():
    done = _setlab("calc", "birthday", "-n", "1000", "--bits", "32", "--sets", "5")
    assert done.returncode == 2 and "unrecognized arguments: --sets" in done.stderr
