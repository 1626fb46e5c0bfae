"""setlab.lab.guard: what a write can cost, and the budget that keeps the book inside a server's
headroom (unit tests; tests/lab/test_live_guard.py and test_live_hostile.py use real servers)."""

from __future__ import annotations

import math

import pytest

from setlab.lab.errors import BigAllocationRefused
from setlab.lab.guard import (
    BLIND_BUDGET,
    MemoryGuard,
    MemoryState,
    batch_cost,
    budget,
    fitting_scale,
    write_cost,
)
from setlab.lab.reference import Measurement, beside
from setlab.models.redis_memory import Members, set_cost

MiB = 2**20
GiB = 2**30
#: what a key adds beside its value, by hand: robj 16 B; a 1-byte name's sds (type 5: 1 + 1 +
#: NUL = 3 B, jemalloc's 8-byte class); the dictEntry's 24 B in the 32-byte class; two 8-byte
#: bucket pointers of the keyspace table
KEY_K = 16 + 8 + 32 + 16


def test_reads_cost_nothing_and_unknown_commands_count_as_reads():
    assert write_cost(("GET", "k")) == 0
    assert write_cost(("MEMORY", "USAGE", "k")) == 0


def test_a_setbit_costs_the_allocation_its_string_gets_and_beyond_the_limit_nothing():
    # 1 MiB + 1 bytes of bits + a 9-byte sds header + NUL: jemalloc's next class is 1.25 MiB
    assert write_cost(("SETBIT", "k", 8 * MiB, 1)) == 5 * MiB // 4 + KEY_K
    # 2^29 bytes + 10: the class after 512 MiB is 640 MiB (jemalloc(3): four classes a doubling)
    assert write_cost(("SETBIT", "k", 2**32 - 1, 1)) == 640 * MiB + KEY_K
    assert write_cost(("SETBIT", "k", 2**32, 1)) == 0  # Redis refuses it: nothing allocated


def test_a_budget_prices_what_redis_allocates_not_the_payload():
    assert budget(string=2**29, key_bytes=1) == 640 * MiB + KEY_K
    assert budget(string=2**29, keys=3, key_bytes=1) == 3 * (640 * MiB + KEY_K)
    # a 128-byte name: 3 + 128 + NUL = 132 bytes, in the 160-byte class
    assert budget(string=2**29) == 640 * MiB + KEY_K - 8 + 160
    assert budget(allocated=1000, key_bytes=1) == 1000 + KEY_K
    # seed 000's first two clicks: 224 MiB, then 448 MiB while the realloc holds both
    assert budget(setbits=[1_823_456_789, 3_456_789_012, 0], key_bytes=1) == 672 * MiB + KEY_K


def test_a_set_budget_holds_the_old_bucket_array_of_a_rehash():
    cost = set_cost(Members.decimal_range(0, 100_000), "k")
    # 100,000 members: 131,072 buckets of 8 bytes; the rehash before held 65,536 of them
    assert budget(cost=cost) == cost.allocated + 65_536 * 8


@pytest.mark.parametrize(
    "kwargs", [{}, {"string": 1, "allocated": 1}, {"string": -1}, {"allocated": 1.5}]
)
def test_a_budget_takes_one_value_in_bytes(kwargs):
    with pytest.raises(ValueError, match=r"budget needs exactly one|non-negative int"):
        budget(**kwargs)


def test_an_offset_write_into_an_existing_string_is_priced_by_what_it_adds():
    inside = [("SETBIT", "k", 4 * MiB, 1)]  # 512 KiB + 1 needed
    assert batch_cost(inside, lambda keys: [MiB]) == 0
    assert batch_cost(inside, lambda keys: [0]) == batch_cost(inside) > 512 * 2**10
    # past the end of a 1 KiB string: greedy growth to twice the 1 MiB + 1 needed, which
    # sdsMakeRoomFor caps at + 1 MiB: 2 MiB + 1 + a 9-byte header + NUL → the 2.5 MiB class
    past = [("SETBIT", "k", 8 * MiB, 1)]
    assert batch_cost(past, lambda keys: [1024]) == 5 * MiB // 2


def test_a_bloom_reservation_costs_its_filter():
    # 10^6 items at 1%: 9.59 bits per item (m = -n ln p / ln² 2)
    expected = 1e6 * -math.log(0.01) / math.log(2) ** 2 / 8
    assert write_cost(("BF.RESERVE", "k", "0.01", 1_000_000)) == pytest.approx(expected, rel=0.01)


def test_a_hyperloglog_never_costs_more_than_a_dense_sketch():
    readers = [f"reader-{i}" for i in range(5_000)]
    assert write_cost(("PFADD", "k", *readers)) == 16 * 2**10


def test_a_pipeline_writing_one_bitmap_counts_the_bitmap_once():
    batch = [("SETBIT", "k", offset, 1) for offset in range(0, 8 * MiB + 1, 8 * 1024)]
    assert batch_cost(batch) == 5 * MiB // 4 + KEY_K  # one 1 MiB + 1 string, as above
    two = [*batch, ("SETBIT", "other", 8 * MiB, 1)]
    assert batch_cost(two) == 2 * (5 * MiB // 4 + KEY_K)


def _guard(state: MemoryState | None, owned: bool = False) -> MemoryGuard:
    return MemoryGuard(
        lambda: state, "127.0.0.1:1", owned=owned, allow_big=True, big_bytes=64 * MiB
    )


def test_the_headroom_keeps_a_bigger_margin_when_the_server_evicts():
    quiet = MemoryState(100 * MiB, 50 * MiB, "noeviction")
    evicting = MemoryState(100 * MiB, 50 * MiB, "allkeys-lru")
    assert evicting.headroom < quiet.headroom < 50 * MiB


def test_a_declared_budget_over_the_headroom_is_refused_with_the_remedies():
    guard = _guard(MemoryState(64 * MiB, 56 * MiB, "allkeys-lru"))
    with pytest.raises(BigAllocationRefused) as refused:
        guard.check(4 * MiB, "a 4 MiB window", reads=4 * MiB, scales=True)
    message = str(refused.value)
    for part in ("a 4 MiB window", "8 MiB (4 MiB written + 4 MiB read back)", "allkeys-lru",
                 "SETLAB_SCALE=", "private server"):  # fmt: skip
        assert part in message
    guard.check(1 * MiB, "a small one")


def _refusal(guard: MemoryGuard, nbytes: int, scales: bool = False) -> str:
    with pytest.raises(BigAllocationRefused) as refused:
        guard.check(nbytes, "SETBIT at offset 4,294,967,295", scales=scales)
    return str(refused.value)


def test_the_opt_in_never_lifts_the_headroom_and_the_refusal_never_offers_it():
    # 2 GiB, allkeys-lru, 31 % free: 635 MiB free, so 533 MiB of headroom below the 102 MiB margin
    state = MemoryState(2 * GiB, 2 * GiB - 635 * MiB, "allkeys-lru")
    for allow_big in (False, True):
        guard = _guard(state)
        guard.allow_big = allow_big
        message = _refusal(guard, budget(string=2**29))
        assert "533 MiB of headroom" in message and "safety margin of 102 MiB" in message
        assert "allkeys-lru, which evicts" in message
        assert "SETLAB_ALLOW_BIG=1" not in message  # it would not help
        assert "SETLAB_SCALE" not in message  # a fixed experiment: a scale cannot help


def test_the_opt_in_is_offered_only_when_it_is_the_limit_that_refuses():
    roomy = MemoryState(4 * GiB, GiB, "allkeys-lru")  # 2.8 GiB of headroom
    guard = _guard(roomy)
    guard.allow_big = False
    message = _refusal(guard, budget(string=2**29))
    assert "SETLAB_ALLOW_BIG=1 if this server may hold it" in message
    assert "would hold it" in message and "SETLAB_SCALE" not in message
    assert "SETLAB_SCALE=0.1 fits" in _refusal(guard, 10 * 64 * MiB, scales=True)
    guard.allow_big = True
    guard.check(budget(string=2**29), "SETBIT at offset 4,294,967,295")


def test_without_info_the_refusal_offers_neither_the_opt_in_nor_a_fixed_scale():
    guard = MemoryGuard(lambda: None, "h:1", owned=False, allow_big=True, big_bytes=64 * MiB)
    message = _refusal(guard, budget(string=2**29))
    assert "INFO memory" in message and "+info" in message
    assert "SETLAB_ALLOW_BIG" not in message and "SETLAB_SCALE" not in message


@pytest.mark.parametrize("state", [MemoryState(2 * GiB, 2 * GiB - 600 * MiB, "allkeys-lru"),
                                   MemoryState(2 * GiB, GiB, "noeviction"), None])  # fmt: skip
def test_a_refusal_is_one_line_and_reads_right_beside_a_reference_figure(state):
    guard = _guard(state)
    guard.allow_big = False
    message = _refusal(guard, budget(string=2**29), scales=True)
    assert "\n" not in message and message.endswith(".")
    sentence = beside(Measurement(None, False, "reference run", message), str)
    assert "..)" not in sentence and ".)" in sentence


def test_the_net_stops_writes_before_they_reach_the_headroom():
    server = {"used": 56 * MiB}  # INFO memory of a server that grows with what is written
    guard = MemoryGuard(
        lambda: MemoryState(64 * MiB, server["used"], "allkeys-lru"), "h:1", owned=False,
        allow_big=False, big_bytes=64 * MiB,
    )  # fmt: skip
    room = guard.state().headroom
    guard.before([("SET", "a", b"x" * (room // 2))])
    server["used"] += room // 2
    with pytest.raises(BigAllocationRefused, match="headroom"):
        guard.before([("SET", "b", b"x" * (room // 2 + 1))])


def test_without_info_the_book_keeps_its_own_keys_under_the_blind_budget():
    footprint = [0]
    guard = MemoryGuard(
        lambda: None, "h:1", footprint=lambda: footprint[0], owned=False, allow_big=False,
        big_bytes=64 * MiB,
    )  # fmt: skip
    guard.before([("SET", "a", b"x" * (BLIND_BUDGET // 2))])
    footprint[0] = BLIND_BUDGET // 2  # what MEMORY USAGE of the namespace now says
    with pytest.raises(BigAllocationRefused, match="INFO"):
        guard.before([("SET", "b", b"x" * (BLIND_BUDGET // 2 + 1))])
    footprint[0] = 0  # the first key was deleted: the real footprint frees the budget again
    guard.before([("SET", "b", b"x" * (BLIND_BUDGET // 2 + 1))])


def test_a_server_setlab_started_is_not_rationed():
    guard = _guard(MemoryState(0, 10 * MiB, "noeviction"), owned=True)
    guard.check(512 * MiB, "a big bitmap")


def test_the_fitting_scale_is_rounded_down_to_one_significant_digit(monkeypatch):
    monkeypatch.delenv("SETLAB_SCALE", raising=False)
    assert fitting_scale(10 * MiB, 3 * MiB) == 0.3
    assert fitting_scale(10 * MiB, 37 * MiB) == 3
    assert fitting_scale(10 * MiB, 1024) is None


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True])
def test_a_budget_must_be_bytes(bad):
    with pytest.raises(ValueError, match="non-negative int of bytes"):
        _guard(None, owned=True).check(bad)
