"""setlab.models.roaring against pyroaring; setlab.lab.runs.roaring: a Roaring bitmap shared in
Redis, and its reference run; the chapter's experiment helpers (setlab.chapters.roaring_containers).

pyroaring (CRoaring) is the independent reference: for every kind of set the model's container
counts and bytes must equal ``get_statistics()`` and its serialized size ``len(serialize())``,
before and after ``run_optimize()``. The stored reference run is checked against the JSON file
read directly, not through the typed records.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap, BitMap64

from setlab.chapters import roaring_containers as chapter
from setlab.lab.runs import roaring as rr
from setlab.models import roaring as ro

U32 = 2**32 - 1


def _check_against_pyroaring(values) -> None:
    values = np.asarray(values, dtype=np.int64)
    bitmap = BitMap(values.astype(np.uint32), optimize=False)
    for run_optimize in (False, True):
        if run_optimize:
            bitmap.run_optimize()
        model = ro.layout(values, run_optimize=run_optimize)
        assert model.statistics() == ro.pyroaring_statistics(bitmap)
        assert model.serialized_bytes == len(bitmap.serialize())


@st.composite
def clustered(draw):
    """A few dense clusters of random width plus scattered noise."""
    values = []
    for _ in range(draw(st.integers(1, 5))):
        start = draw(st.integers(0, U32 - 70_000))
        width = draw(st.integers(1, 70_000))
        fill = draw(st.sampled_from([1.0, 0.5, 0.1, 0.02]))
        rng = np.random.default_rng(draw(st.integers(0, 2**32)))
        block = np.arange(start, start + width)
        values.append(block[rng.random(width) < fill])
    values.append(np.array(draw(st.lists(st.integers(0, U32), max_size=50)), dtype=np.int64))
    return np.concatenate(values)


@st.composite
def run_heavy(draw):
    """Many short runs in one or two chunks: around the array/run/bitset thresholds."""
    runs = draw(st.integers(1, 3000))
    length = draw(st.integers(1, 6))
    gap = draw(st.integers(1, 8))
    base = draw(st.sampled_from([0, 65536 * 7, U32 - 2**17]))
    starts = base + np.arange(runs) * (length + gap)
    return (starts[:, None] + np.arange(length)).ravel()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, U32), max_size=3000))
def test_model_matches_pyroaring_for_random_sets(values):
    _check_against_pyroaring(values)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, U32 - 300_000), st.integers(1, 300_000))
def test_model_matches_pyroaring_for_dense_ranges(start, length):
    _check_against_pyroaring(np.arange(start, start + length))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 20_000), st.integers(1, 16))
def test_model_matches_pyroaring_for_sparse_sets(seed, count, log_universe_chunks):
    rng = np.random.default_rng(seed)
    _check_against_pyroaring(ro.random_ids(count, rng, universe=65536 << log_universe_chunks))


@settings(max_examples=40, deadline=None)
@given(clustered())
def test_model_matches_pyroaring_for_clustered_sets(values):
    _check_against_pyroaring(values)


@settings(max_examples=60, deadline=None)
@given(run_heavy())
def test_model_matches_pyroaring_for_run_heavy_sets(values):
    _check_against_pyroaring(values)


@pytest.mark.parametrize(
    ("cardinality", "runs", "kind"),
    [
        (4096, 4096, "array"),
        (4097, 4097, "bitset"),  # the 4,096 array limit
        (8, 4, "array"),
        (8, 3, "run"),  # run 2 + 4r must be strictly below array 2c
        (3, 1, "array"),  # 6 B either way: stays an array
        (6141, 2047, "run"),
        (6144, 2048, "bitset"),  # 2 + 4r against the 8,192-byte bitset
    ],
)
def test_container_thresholds(cardinality, runs, kind):
    per_run, leftover = divmod(cardinality, runs)
    lengths = [per_run + (i < leftover) for i in range(runs)]
    starts = np.cumsum([0] + [n + 1 for n in lengths[:-1]])
    values = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, lengths, strict=True)])
    assert ro.layout(values, run_optimize=True).counts()[kind] == 1
    _check_against_pyroaring(values)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=500), st.booleans())
def test_64_bit_model_matches_bitmap64(values, optimize):
    bitmap = BitMap64(values, optimize=False)
    if optimize:
        bitmap.run_optimize()
    model = ro.layout64(values, run_optimize=optimize)
    assert model.serialized_bytes == len(bitmap.serialize())
    assert model.statistics() == ro.pyroaring_statistics(bitmap) or not values


def test_dense_layout_equals_the_layout_of_the_values():
    for count in (1, 65536, 65537, 1_000_000):
        for run_optimize in (False, True):
            assert (
                ro.dense_layout(count, run_optimize=run_optimize).statistics()
                == ro.layout(np.arange(count), run_optimize=run_optimize).statistics()
            )


def test_seed_003_dense_case_is_1526_bitsets_or_runs():
    plain, runs = ro.dense_layout(10**8), ro.dense_layout(10**8, run_optimize=True)
    assert plain.counts() == {"array": 0, "bitset": 1526, "run": 0}
    assert plain.payload_bytes == 1526 * 8192
    # one run per chunk: 6 bytes of payload, 8 of key/count/offset, plus cookie and flag bits
    assert runs.serialized_bytes == 4 + (1526 + 7) // 8 + 1526 * (8 + 6)


@pytest.mark.parametrize("density", [1e-4, 0.02, 0.2, 0.75])
def test_random_layout_matches_materialised_random_ids(density):
    rng = np.random.default_rng(5)
    universe = 2**22
    count = int(density * universe)
    ids = ro.random_ids(count, rng, universe=universe)
    assert ids.size == np.unique(ids).size == count and ids.max() < universe
    modelled = ro.random_layout(count, rng, universe=universe)
    built = ro.layout(ids)
    assert modelled.values == built.values == count
    # two random draws: chunk counts differ a little, the bytes by well under 1%
    assert abs(modelled.containers - built.containers) <= 2
    assert abs(modelled.serialized_bytes / built.serialized_bytes - 1) < 0.01
    optimized = ro.layout(ids, run_optimize=True)
    expected_runs = ro.random_layout(count, rng, universe=universe, run_optimize=True)
    assert abs(expected_runs.serialized_bytes / optimized.serialized_bytes - 1) < 0.01


def test_random_layout_handles_the_whole_32_bit_space():
    rng = np.random.default_rng(1)
    sparse = ro.random_layout(120_000_000, rng)
    assert sparse.values == 120_000_000 and sparse.counts()["array"] == 65536
    assert ro.random_layout(2**32, rng).counts() == {"array": 0, "bitset": 65536, "run": 0}


def test_bytes_per_id_curves_follow_their_formulas():
    from setlab.models import bloom

    densities = [1e-5, 0.01, 0.5, 1.0]
    curves = ro.bytes_per_id(densities, np.random.default_rng(0))
    counts = np.array([round(d * 2**32) for d in densities])
    assert np.allclose(curves["plain bitmap"], 2**29 / counts)
    assert np.allclose(curves["Bloom filter, 1%"], bloom.bits_per_item(0.01) / 8)
    # past 4,096 values a chunk, Roaring is a set of bitsets: the plain bitmap's cost
    assert curves["roaring"][2] == pytest.approx(curves["plain bitmap"][2], rel=0.01)
    assert curves["roaring (run-optimized)"][3] < 0.001  # one run per full chunk


def _pyroaring_bytes_per_id(density: float, universe: int = 2**24) -> float:
    count = round(density * universe)
    ids = np.random.default_rng(11).choice(universe, count, replace=False).astype(np.uint32)
    return len(BitMap(ids, optimize=False).serialize()) / count


@pytest.mark.parametrize("target", [1.198, 1.5, 2.1])
def test_crossover_density_is_where_pyroaring_gets_cheaper_than_the_target(target):
    density = ro.crossover_density(target)
    assert 0 < density < 1
    # pyroaring on random IDs (a 256-chunk space, same density) brackets the crossing
    assert (
        _pyroaring_bytes_per_id(density * 0.95) > target > _pyroaring_bytes_per_id(density * 1.05)
    )


def test_crossover_density_for_a_1pct_bloom_filter_is_near_a_tenth():
    per_id = -np.log(0.01) / np.log(2) ** 2 / 8  # optimal Bloom bits per item, in bytes
    chunk_bytes = 8192 + 8  # a bitset and its key, count and offset (portable format)
    assert ro.crossover_density(per_id) == pytest.approx(chunk_bytes / per_id / 65536, abs=2e-5)
    assert np.isnan(ro.crossover_density(0.1))  # even the full space costs 0.125 B an ID
    with pytest.raises(ValueError, match="bytes_per_id"):
        ro.crossover_density(0)


def test_redis_bitmap_bytes_equal_what_the_bits_say():
    raw = ro.redis_bitmap_bytes(BitMap([0, 9, 15]))
    assert raw == bytes([0b1000_0000, 0b0100_0001])
    assert ro.redis_bitmap_bytes(BitMap()) == b""


def test_daily_bitmaps_hold_daily_ids_of_the_population():
    days = ro.daily_bitmaps(np.random.default_rng(0), days=3, daily=500, population=4000)
    assert [len(d) for d in days] == [500] * 3
    assert all(d.max() < 4000 for d in days)
    assert len(BitMap.union(*days)) > 500  # different users each day
    with pytest.raises(ValueError, match="daily"):
        ro.daily_bitmaps(np.random.default_rng(0), daily=10, population=5)


def test_bad_values_raise_value_error():
    with pytest.raises(ValueError, match="2\\^32"):
        ro.layout([2**32])
    with pytest.raises(ValueError, match="2\\^32"):
        ro.layout([-1])
    with pytest.raises(ValueError, match="integers"):
        ro.layout([1.5])
    with pytest.raises(ValueError, match="count"):
        ro.random_layout(10, np.random.default_rng(0), universe=5)
    with pytest.raises(ValueError, match="runs"):
        ro.layout_from_counts([5], [6])
    with pytest.raises(ValueError, match="densities"):
        ro.bytes_per_id([0.0], np.random.default_rng(0))


# -- a serialized bitmap shared in Redis ----------------------------------------------------------


def test_forced_interleaving_loses_one_update_every_time(fake_lab):
    for _ in range(3):
        result = rr.lost_update(fake_lab, fake_lab.key("bm"))
        assert result["final"] == [2] and result["lost"] == [1]


def test_watch_retry_keeps_every_update_under_concurrency(fake_lab):
    result = rr.contend(fake_lab, fake_lab.key("bm"), clients=4, adds_per_client=60, watch=True)
    assert result.final == result.adds == 240
    assert result.lost == 0


def _client_whose_first_watch_another_client_interrupts(lab, key):
    """A client of ``lab`` after whose first ``WATCH key`` another client adds 99 to the bitmap
    at ``key`` (lands between the WATCH and the EXEC)."""
    other = lab.new_client()
    client = lab.new_client()
    real_get = client.pipeline

    def pipeline_with_interference(*args, **kwargs):
        pipe = real_get(*args, **kwargs)
        watch = pipe.watch

        def watch_then_someone_writes(*keys):
            watch(*keys)
            if not getattr(pipe, "_interfered", False):
                pipe._interfered = True
                rr.rmw_add(other, key, 99)

        pipe.watch = watch_then_someone_writes
        return pipe

    client.pipeline = pipeline_with_interference
    return client


def test_a_watched_add_retries_after_another_client_wrote(fake_lab):
    key = fake_lab.key("bm")
    client = _client_whose_first_watch_another_client_interrupts(fake_lab, key)
    assert rr.watched_add(client, key, 1) == 1
    assert sorted(rr.load(fake_lab.r, key)) == [1, 99]


def test_a_watched_batch_keeps_every_id_of_both_batches_after_another_client_wrote(fake_lab):
    key = fake_lab.key("bm")
    assert rr.watched_add_many(fake_lab.r, key, [1, 2, 3]) == 0
    client = _client_whose_first_watch_another_client_interrupts(fake_lab, key)
    assert rr.watched_add_many(client, key, [3, 4]) == 1
    assert sorted(rr.load(fake_lab.r, key)) == [1, 2, 3, 4, 99]


def test_plain_bitmap_bytes_equal_what_setbit_builds(fake_lab):
    values = [0, 7, 8, 1000, 65_537]
    key = fake_lab.key("plain")
    for v in values:
        fake_lab.r.setbit(key, v, 1)
    assert fake_lab.r.get(key) == ro.redis_bitmap_bytes(BitMap(values))


def test_contention_grid_and_rmw_timings_on_the_embedded_backend(fake_lab):
    rows = rr.contention_grid(fake_lab, fake_lab.key("bm"), clients=(1, 2), adds_per_client=20)
    assert [(r["method"], r["clients"]) for r in rows] == [
        ("read-modify-write", 1),
        ("WATCH/MULTI", 1),
        ("read-modify-write", 2),
        ("WATCH/MULTI", 2),
    ]
    assert all(r["final"] == r["adds"] for r in rows if r["method"] == "WATCH/MULTI")
    timings = rr.rmw_timings(fake_lab, [100, 1000], np.random.default_rng(0), repeat=1)
    assert [t["values"] for t in timings] == [100, 1000]
    assert timings[1]["serialized"] > timings[0]["serialized"] > 0


def test_window_union_on_the_embedded_backend(fake_lab):
    days = ro.daily_bitmaps(np.random.default_rng(0), days=3, daily=1000, population=10_000)
    timings = rr.window_timings(fake_lab, days, repeat=1)
    assert timings["union size"] == len(BitMap.union(*days))
    assert np.isnan(timings["BITOP OR"])


def test_contention_runs_go_naive_then_watched_and_rows_round_trip(fake_lab):
    runs = rr.contention_runs(fake_lab, fake_lab.key("bm"), clients=(1, 3), adds_per_client=15)
    assert [(r.method, r.clients, r.adds) for r in runs] == [
        ("read-modify-write", 1, 15),
        ("WATCH/MULTI", 1, 15),
        ("read-modify-write", 3, 45),
        ("WATCH/MULTI", 3, 45),
    ]
    assert runs[0].lost == 0 and runs[3].lost == 0 and runs[3].final == 45
    for run in runs:
        row = run.row()
        assert row["lost"] == row["adds"] - row["final"]
        assert rr.Contention.from_row(row) == run
    assert not fake_lab.keys()  # the experiment cleans up after itself


def _stored() -> dict:
    from importlib import resources

    return json.loads((resources.files("setlab") / "data" / "roaring-reference.json").read_text())


def test_reference_records_read_what_the_file_stores():
    raw, ref = _stored(), rr.RoaringReference.load()
    assert ref.run.redis_version == raw["server"]["redis_version"]
    assert len(ref.contention) == len(raw["contention"])
    for row in raw["contention"]:
        got = ref.contended(row["method"], row["clients"])
        assert (got.lost, got.retries, got.seconds) == (row["lost"], row["retries"], row["seconds"])
    assert ref.largest_rmw.values == max(r["values"] for r in raw["rmw"])
    assert ref.largest_rmw.seconds == max(raw["rmw"], key=lambda r: r["values"])["seconds"]
    assert (
        ref.snowflake.bitmap64_per_id
        == raw["snowflake"]["bitmap64_bytes"] / raw["snowflake"]["ids"]
    )
    assert ref.window.from_redis == raw["window"]["from Redis"]
    assert ref.window.has_bitop == (raw["window"]["BITOP OR"] == raw["window"]["BITOP OR"])
    assert list(ref.lost_update.lost) == raw["lost_update"]["lost"]
    assert raw["rb_setbit"].startswith(ref.rb_error) and "," not in ref.rb_error
    assert (ref.pyroaring, ref.croaring) == (raw["pyroaring"], raw["croaring"])
    with pytest.raises(ValueError, match="no contention row"):
        ref.contended("WATCH/MULTI", 3)


def test_window_record_says_when_bitop_was_not_measured(fake_lab):
    days = ro.daily_bitmaps(np.random.default_rng(1), days=2, daily=100, population=1000)
    record = rr.WindowTimings.from_row(rr.window_timings(fake_lab, days, repeat=1))
    assert record.union_size == len(days[0] | days[1])
    assert not record.has_bitop
    assert rr.LostUpdate.from_row({"added": [1, 2], "final": [2], "lost": [1]}).lost == (1,)
    assert rr.RmwTiming.from_row({"values": 10.0, "serialized": 40.0, "seconds": 0.5}).values == 10


def test_chapter_shows_the_reference_run_on_the_embedded_backend(fake_lab):
    ref = chapter.reference_run()
    contention = chapter.contention_measurement(fake_lab)
    assert not contention.live and contention.value == ref.contention
    assert contention.label == ref.run.label and contention.why_not_live
    table = chapter.contention_table(contention)
    assert table.startswith(f"*{ref.run.label}*")
    assert table.count("| WATCH/MULTI |") == 4
    window = chapter.window_measurement(fake_lab, np.random.default_rng(0), daily=1000)
    assert not window.live and window.value == ref.window
    assert chapter.window_text(window).startswith("reference run: ")
    assert not fake_lab.keys()


def test_built_sizes_equal_the_model_and_make_a_table():
    rows = chapter.built_sizes(0.01)
    assert len(rows) == 3 and all(b.serialized == b.model for b in rows)
    assert rows[0].serialized == len(BitMap(range(10**8)).serialize())
    assert chapter.built_table(0.01).count("\n") == 4
    with pytest.raises(ValueError, match="scale"):
        chapter.built_sizes(0)


def test_chapter_plots_return_figures():
    import matplotlib.pyplot as plt

    density = chapter.density_figure()
    assert len(density.axes[0].get_lines()) == 5 + 1  # five structures and the 4,096 marker
    structure = chapter.structure_figure()
    assert len(structure.axes[0].patches) == 8  # four keys, four containers
    plt.close(density)
    plt.close(structure)


@pytest.mark.live
def test_chapter_measures_this_run_on_live_redis(live_lab):
    contention = chapter.contention_measurement(live_lab, clients=(2,), adds_per_client=30)
    assert contention.live and contention.label.startswith("this run: Redis ")
    naive, watched = contention.value
    assert naive.final <= naive.adds and watched.final == watched.adds == 60
    window = chapter.window_measurement(live_lab, np.random.default_rng(0), daily=2000)
    assert window.live and window.value.has_bitop
    assert window.value.union_size > 2000
    assert not live_lab.keys()


@pytest.mark.live
def test_read_modify_write_loses_updates_on_live_redis(live_lab):
    assert rr.lost_update(live_lab, live_lab.key("bm"))["lost"] == [1]
    naive = rr.contend(live_lab, live_lab.key("bm"), clients=4, adds_per_client=200, watch=False)
    assert naive.final <= naive.adds  # usually far fewer; the forced case above is certain


@pytest.mark.live
def test_watch_is_exact_under_concurrency_on_live_redis(live_lab):
    result = rr.contend(live_lab, live_lab.key("bm"), clients=6, adds_per_client=150, watch=True)
    assert result.final == result.adds == 900


@pytest.mark.live
def test_redisbloom_has_no_roaring_commands(live_lab):
    if "bf" not in live_lab.modules:
        pytest.skip("RedisBloom is not loaded on this server")
    assert rr.unknown_command(live_lab, "RB.SETBIT", live_lab.key("rb"), 2_000_000_000, 1)
    assert rr.unknown_command(live_lab, "BF.ADD", live_lab.key("bf"), "x") is None
