"""setlab.models.cuckoo and setlab.models.redisbloom_cuckoo: no false negatives unless an item is
deleted that was never added (or the naive "drop" failure mode is chosen), load factors against the
paper's published figures, the false-positive rate against theory, duplicates, kick-chain
bookkeeping, RedisBloom's sizing against what CF.INFO printed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import bloom, cuckoo, redisbloom_cuckoo
from setlab.models.cuckoo import BucketTable, CuckooFilter
from setlab.models.redisbloom_cuckoo import RedisBloomCuckoo


def values(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**62, size=n, dtype=np.uint64)


def strangers(n: int, seed: int = 1) -> np.ndarray:
    """Values from a range disjoint from :func:`values`'."""
    return np.random.default_rng(seed).integers(2**62, 2**63, size=n, dtype=np.uint64)


# -- never loses an item --------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    log_buckets=st.integers(2, 9),
    b=st.sampled_from([1, 2, 4, 8]),
    f=st.integers(4, 16),
    overfill=st.floats(0.2, 1.3),
    max_kicks=st.sampled_from([0, 1, 20, 200]),
    victim=st.sampled_from(cuckoo.VICTIMS),
    on_failure=st.sampled_from(["rollback", "victim-slot"]),
    seed=st.integers(0, 1000),
)
def test_every_item_reported_inserted_is_found(
    log_buckets, b, f, overfill, max_kicks, victim, on_failure, seed
):
    cf = CuckooFilter(2**log_buckets, b, f, max_kicks, victim, on_failure, seed)
    items = values(int(cf.capacity * overfill), seed)
    ok = cf.insert(items)
    assert cf.contains(items[ok]).all()
    assert cf.count == ok.sum() and cf.lost == 0


def test_rollback_leaves_the_table_exactly_as_it_was():
    cf = CuckooFilter(64, 2, 12, max_kicks=30, victim="random", seed=3)
    cf.insert(values(int(cf.capacity * 0.85)))
    for v in values(400, seed=9):
        before = list(cf.table.slots)
        if not cf.insert(np.array([v], dtype=np.uint64))[0]:
            assert cf.table.slots == before
            break
    else:
        pytest.fail("no insert failed")


def test_the_drop_mode_loses_an_earlier_item_per_failure():
    cf = CuckooFilter(64, 2, 32, max_kicks=20, on_failure="drop", seed=2)
    items = values(cf.capacity)
    ok = cf.insert(items)
    assert cf.lost == (~ok).sum() > 0
    # with 32-bit fingerprints nothing else can hide a loss: every dropped one is missing
    assert (~cf.contains(items)).sum() == cf.lost


def test_victim_slot_mode_stashes_one_item_then_refuses_until_a_delete():
    cf = CuckooFilter(32, 2, 16, max_kicks=10, on_failure="victim-slot", seed=4)
    items = values(cf.capacity * 2)
    ok = cf.insert(items)
    assert cf.stash is not None
    first_refused = int(np.flatnonzero(~ok)[0])
    assert cf.contains(items[:first_refused]).all()  # the stashed item is still found
    assert not ok[first_refused:].any()  # everything after the stash is refused
    cf.delete(items[:1])
    assert cf.contains(items[1:first_refused]).all()


def test_deleting_what_was_added_empties_the_filter():
    cf = CuckooFilter(256, 4, 12, seed=5)
    items = values(900)
    assert cf.insert(items).all()
    assert cf.delete(items).all()
    assert cf.count == 0 and cf.table.occupied() == 0


def test_deleting_a_false_positive_creates_a_false_negative():
    cf = CuckooFilter(64, 4, 6, seed=6)
    members = values(240)
    assert cf.insert(members).all()
    pool = strangers(20_000)
    impostor = pool[cf.contains(pool)][:1]  # a value never added that the filter reports present
    assert impostor.size == 1
    assert cf.delete(impostor).all()
    missing = members[~cf.contains(members)]
    assert missing.size == 1  # exactly one member shared its fingerprint and a bucket


@pytest.mark.parametrize("b", [1, 2, 4, 8])
def test_a_duplicate_fits_2b_times_and_no_more(b):
    cf = CuckooFilter(1024, b, 16, max_kicks=100, seed=7)
    same = np.full(2 * b + 1, 123456789, dtype=np.uint64)
    ok = cf.insert(same)
    assert ok[: 2 * b].all() and not ok[2 * b]
    assert cf.copies(same[:1])[0] == 2 * b


# -- load factors and chains ----------------------------------------------------------------------


@pytest.mark.parametrize("b", sorted(cuckoo.PAPER_LOAD_FACTORS))
def test_load_at_first_failure_is_near_the_papers_figure(b):
    loads = [
        cuckoo.first_failure_load(2**15 // b, b, fingerprint_bits=16, seed=s) for s in range(2)
    ]
    assert np.mean(loads) == pytest.approx(cuckoo.PAPER_LOAD_FACTORS[b], abs=0.05)


def test_round_robin_victims_stall_two_slot_buckets_early():
    # RedisBloom's round-robin victim choice with its default BUCKETSIZE 2: chains loop between
    # a few slots, so the first failure comes much earlier than with random victims.
    rr = cuckoo.first_failure_load(2**13, 2, fingerprint_bits=8, victim="round-robin", seed=1)
    rnd = cuckoo.first_failure_load(2**13, 2, fingerprint_bits=8, victim="random", seed=1)
    assert rnd > 0.8 and rr < rnd - 0.1
    cf = cuckoo.fill(2**12, 2, 2**13, fingerprint_bits=8, victim="round-robin", seed=1)
    rec = cf.record()
    failed_spread = rec.spread[rec.failed]
    assert np.median(failed_spread) < 0.5 * cf.max_kicks  # the chains revisit the same slots


def test_chain_records_are_consistent():
    cf = cuckoo.fill(512, 4, 2048, max_kicks=50, seed=8)
    rec = cf.record()
    assert rec.loads.size == rec.kicks.size == rec.failed.size == 2048
    assert (rec.kicks <= 50).all()
    assert (rec.kicks[rec.failed] == 50).all()  # a rollback failure used every kick
    assert (rec.spread <= rec.kicks).all()
    assert np.all(np.diff(rec.loads) >= 0)
    rows = rec.by_load([0.0, 0.5, 0.9, 1.0])
    assert sum(r["attempts"] for r in rows) == 2048
    assert rows[0]["failure_rate"] == 0.0
    assert rec.first_failure_load() == pytest.approx(rec.loads[np.argmax(rec.failed)])


def test_load_at_a_failure_share_matches_a_running_count():
    rec = cuckoo.fill(256, 4, 1024, max_kicks=30, seed=9).record()
    failed = 0
    for attempt, (load, bad) in enumerate(zip(rec.loads, rec.failed, strict=True), start=1):
        failed += bad
        if failed / attempt >= 0.01:
            assert rec.load_at_failure_share(0.01) == load
            break
    else:
        pytest.fail("the share was never reached")
    assert math.isnan(cuckoo.fill(256, 4, 100, seed=9).record().load_at_failure_share(0.01))


def test_deleting_values_never_added_loses_members():
    members, lost = cuckoo.false_delete_losses(256, 4, 8, 0.9, 5000, seed=3)
    assert members == int(1024 * 0.9) and 0 < lost < 5000
    assert cuckoo.false_delete_losses(256, 4, 8, 0.9, 0, seed=3)[1] == 0


def test_more_kicks_reach_a_higher_load():
    short = cuckoo.first_failure_load(2**12, 4, max_kicks=20, seed=2)
    long = cuckoo.first_failure_load(2**12, 4, max_kicks=500, seed=2)
    assert long > short + 0.03


# -- false positives and space --------------------------------------------------------------------


@pytest.mark.parametrize(("b", "f"), [(2, 6), (4, 8), (4, 10), (8, 9)])
def test_false_positive_rate_matches_the_expected_rate(b, f):
    cf = CuckooFilter(2**12 // b, b, f, seed=f)
    cf.insert(values(int(cf.capacity * 0.9)))
    queries = strangers(300_000)
    hits = int(cf.contains(queries).sum())
    low, high = bloom.fpr_confidence_interval(hits, queries.size)
    assert low <= cuckoo.expected_fpr(b, f, cf.load_factor) <= high
    assert hits / queries.size < 2 * b / 2**f  # the paper's bound


def test_space_formulas_against_hand_computation():
    # log2(2·4/0.01) = 9.64 -> 10 bits; at 95% load 10/0.95 bits per item.
    assert cuckoo.fingerprint_bits_for(0.01, 4) == 10
    assert cuckoo.bits_per_item(0.01, 4, 0.95) == pytest.approx(10 / 0.95)
    assert cuckoo.error_for_bits(12, 4, 0.95) == pytest.approx(8 / 2**11.4)
    assert cuckoo.expected_fpr(4, 8, 1.0) < 8 / 256
    eps = cuckoo.break_even_error(4, 0.95)
    # at the break-even rate both spend the same bits: (log2(1/ε) + 3)/0.95 = log2(1/ε)/ln 2
    assert (math.log2(1 / eps) + 3) / 0.95 == pytest.approx(math.log2(1 / eps) / math.log(2))


# -- RedisBloom's CF sizing (figures printed by CF.INFO of redisbloom.so 2.8.2) --------------------


@pytest.mark.parametrize(
    ("capacity", "b", "expansion", "buckets", "size", "rate"),
    [
        (1000, 2, 1, 512, 1080, 1),
        (1000, 1, 1, 1024, 1080, 1),
        (1000, 4, 2, 256, 1080, 2),
        (1000, 3, 3, 512, 1592, 4),
        (1000, 255, 0, 4, 1076, 0),
        (8, 1, 1, 8, 64, 1),
    ],
)
def test_reserve_sizing_matches_cf_info(capacity, b, expansion, buckets, size, rate):
    info = RedisBloomCuckoo(capacity, b, 20, expansion).info()
    assert (info["Number of buckets"], info["Size"], info["Expansion rate"]) == (
        buckets,
        size,
        rate,
    )
    # the sizing functions the calculator uses give the same figures
    assert redisbloom_cuckoo.reserve_buckets(capacity, b) == buckets
    assert redisbloom_cuckoo.info_size(buckets * b) == size


def test_sizing_counts_every_sub_filter_and_accepts_what_the_calculator_asks():
    # CF.INFO of a default filter of capacity 32768 after 32768 adds on redisbloom.so 2.8.2
    # (the reference run): 2 sub-filters of 16384 two-slot buckets, Size 65608.
    assert redisbloom_cuckoo.info_size(2 * 16384 * 2, filters=2) == 65608
    # below the module's minimum capacity (2b) the table still has one bucket
    assert redisbloom_cuckoo.reserve_buckets(1, 4) == 1
    with pytest.raises(ValueError, match="bucket_size"):
        redisbloom_cuckoo.reserve_buckets(1000, 256)
    with pytest.raises(ValueError, match="filters"):
        redisbloom_cuckoo.info_size(1024, filters=0)


def test_bucket_table_kick_and_undo_restore_the_slots():
    table = BucketTable(4, 1)
    for bucket, fp in enumerate((11, 12, 13, 14)):
        assert table.place(bucket, fp)
    before = list(table.slots)
    kicks, homeless, path = table.kick(0, 99, 5, "round-robin")
    assert kicks == 5 and homeless and len(path) == 5  # a full table: no chain can end
    assert table.undo(path, homeless) == 99 and table.slots == before
    array = table.array()
    found = cuckoo.bucket_matches(array, np.array([2, 3], dtype=np.uint64),
                                  np.array([13, 13], dtype=np.uint64))  # fmt: skip
    assert found.tolist() == [True, False]


@given(st.integers(1, 2**40))
def test_next_pow2_is_the_smallest_power_of_two_not_below(n):
    p = cuckoo.next_pow2(n)
    assert p >= n and p & (p - 1) == 0 and (p == 1 or p // 2 < n)


def test_redisbloom_model_equals_the_simulator_configured_like_redisbloom():
    items = values(3000, seed=11)
    model = RedisBloomCuckoo(2048, 2, 20, expansion=0)
    sim = CuckooFilter(1024, 2, 8, 20, "round-robin", "rollback")
    assert (model.add(items) == np.where(sim.insert(items), 1, -1)).all()
    assert model.dump() == bytes(sim.table.slots)


def test_redisbloom_model_expands_instead_of_failing():
    model = RedisBloomCuckoo(256, 2, 20, expansion=2)
    replies = model.add(values(2000, seed=12))
    assert (replies == 1).all()
    info = model.info()
    assert info["Number of filters"] > 1 and info["Number of items inserted"] == 2000
    assert model.exists(values(2000, seed=12)).all()
    assert info["Size"] == 40 + 16 * info["Number of filters"] + sum(
        t.num_buckets * 2 for t in model.tables
    )


def test_redisbloom_model_duplicates_open_a_new_sub_filter():
    model = RedisBloomCuckoo(1024, 2, 20, expansion=1)
    model.add(np.full(4, 42, dtype=np.uint64))
    assert model.info()["Number of filters"] == 1
    model.add(np.full(1, 42, dtype=np.uint64))  # the fifth copy finds no room: a new sub-filter
    assert model.info()["Number of filters"] == 2
    assert model.count(np.array([42], dtype=np.uint64))[0] == 5


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_buckets": 100}, "power of two"),
        ({"num_buckets": 64, "bucket_size": 0}, "bucket_size"),
        ({"num_buckets": 64, "fingerprint_bits": 1}, "fingerprint_bits"),
        ({"num_buckets": 64, "fingerprint_bits": 33}, "fingerprint_bits"),
        ({"num_buckets": 64, "max_kicks": -1}, "max_kicks"),
        ({"num_buckets": 64, "victim": "oldest"}, "victim"),
        ({"num_buckets": 64, "on_failure": "panic"}, "on_failure"),
    ],
)
def test_bad_simulator_parameters_are_rejected_clearly(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CuckooFilter(**kwargs)


def test_bad_redisbloom_and_theory_arguments_are_rejected_clearly():
    with pytest.raises(ValueError, match="capacity"):
        RedisBloomCuckoo(
            3, bucket_size=2
        )  # the module: "Capacity must be at least (BucketSize * 2)"
    with pytest.raises(ValueError, match="bucket_size"):
        RedisBloomCuckoo(1000, bucket_size=256)
    with pytest.raises(ValueError, match="max_iterations"):
        RedisBloomCuckoo(1000, max_iterations=0)
    with pytest.raises(ValueError, match="expansion"):
        RedisBloomCuckoo(1000, expansion=40_000)
    with pytest.raises(ValueError, match="load"):
        cuckoo.expected_fpr(4, 8, 1.5)
    with pytest.raises(ValueError, match="error"):
        cuckoo.fingerprint_bits_for(0.0, 4)
    with pytest.raises(ValueError, match="values"):
        CuckooFilter(64).insert(np.array([-5]))
