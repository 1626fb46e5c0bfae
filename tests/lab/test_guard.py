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
    fitting_scale,
    write_cost,
)

MiB = 2**20


def test_reads_cost_nothing_and_unknown_commands_count_as_reads():
    assert write_cost(("GET", "k")) == 0
    assert write_cost(("MEMORY", "USAGE", "k")) == 0


def test_a_setbit_costs_its_offset_over_eight_and_beyond_the_limit_nothing():
    assert write_cost(("SETBIT", "k", 8 * MiB, 1)) >= MiB
    assert write_cost(("SETBIT", "k", 2**32 - 1, 1)) >= 512 * MiB
    assert write_cost(("SETBIT", "k", 2**32, 1)) == 0  # Redis refuses it: nothing allocated


def test_a_bloom_reservation_costs_its_filter():
    # 10^6 items at 1%: 9.59 bits per item (m = -n ln p / ln² 2)
    expected = 1e6 * -math.log(0.01) / math.log(2) ** 2 / 8
    assert write_cost(("BF.RESERVE", "k", "0.01", 1_000_000)) == pytest.approx(expected, rel=0.01)


def test_a_hyperloglog_never_costs_more_than_a_dense_sketch():
    readers = [f"reader-{i}" for i in range(5_000)]
    assert write_cost(("PFADD", "k", *readers)) == 16 * 2**10


def test_a_pipeline_writing_one_bitmap_counts_the_bitmap_once():
    batch = [("SETBIT", "k", offset, 1) for offset in range(0, 8 * MiB + 1, 8 * 1024)]
    assert MiB <= batch_cost(batch) < MiB + 1024
    two = [*batch, ("SETBIT", "other", 8 * MiB, 1)]
    assert batch_cost(two) >= 2 * MiB


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
        guard.check(4 * MiB, "a 4 MiB window", reads=4 * MiB)
    message = str(refused.value)
    for part in ("a 4 MiB window", "8 MiB (4 MiB written + 4 MiB read back)", "allkeys-lru",
                 "SETLAB_SCALE=", "private server"):  # fmt: skip
        assert part in message
    guard.check(1 * MiB, "a small one")


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
