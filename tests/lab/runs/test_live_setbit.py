"""The bitmap memory model against a real redis-server's MEMORY USAGE (exact equality)."""

from __future__ import annotations

import random

import pytest

from setlab.lab.reference import live_or_reference
from setlab.lab.runs import setbit
from setlab.models import bitmap

pytestmark = pytest.mark.live


def _boundary_offsets() -> list[int]:
    """Offsets whose strings sit on both sides of every sds-header and size-class boundary."""
    lengths = {1, 2, 31, 32, 33, 255, 256, 257, 65535, 65536, 65537}
    for n in range(7, 27):  # size classes from 128 B to 64 MiB
        base = 1 << n
        for quarter in range(4):
            edge = base + quarter * (base >> 2)
            lengths.update({edge - 11, edge - 10, edge - 9, edge + 1})
    return sorted(8 * (length - 1) for length in lengths if length > 0)


def test_memory_model_matches_memory_usage_for_first_writes(live_lab):
    assert live_lab.has_memory_usage
    mismatches = []
    for offset in _boundary_offsets():
        key = live_lab.key("mu", offset)
        live_lab.r.setbit(key, offset, 1)
        usage = live_lab.r.memory_usage(key, samples=0)
        expected = bitmap.first_setbit_memory_usage(offset, key)
        if usage != expected:
            mismatches.append((offset, usage, expected))
        live_lab.r.unlink(key)
    assert mismatches == []


def test_memory_model_matches_memory_usage_for_growing_bitmaps(live_lab):
    rng = random.Random(20261130)
    mismatches = []
    for trial in range(40):
        key = live_lab.key("grow", trial) + "x" * rng.randrange(0, 60)
        offsets = [rng.randrange(0, 2 ** rng.randrange(3, 26)) for _ in range(rng.randrange(1, 8))]
        for offset in offsets:
            live_lab.r.setbit(key, offset, 1)
        usage = live_lab.r.memory_usage(key, samples=0)
        expected = bitmap.bitmap_memory_usage(offsets, key)
        if usage != expected:
            mismatches.append((offsets, usage, expected))
        live_lab.r.unlink(key)
    assert mismatches == []


def test_model_holds_at_the_largest_offset(live_lab):
    write = setbit.first_write(live_lab, bitmap.MAX_OFFSET)
    assert write.strlen == 2**29
    assert (
        write.memory_usage
        == write.model
        == bitmap.first_setbit_memory_usage(
            bitmap.MAX_OFFSET, live_lab.key("first-write", bitmap.MAX_OFFSET)
        )
    )
    assert write.server_us > 0


def test_redis_rejects_offsets_past_the_limit_with_the_documented_error(live_lab):
    import redis

    for offset in (bitmap.MAX_OFFSET + 1, 2051776854918803458):
        with pytest.raises(redis.ResponseError, match=bitmap.OFFSET_ERROR):
            live_lab.r.setbit(live_lab.key("limit"), offset, 1)
    limit = int(live_lab.r.config_get("proto-max-bulk-len")["proto-max-bulk-len"])
    assert bitmap.max_offset(limit) == bitmap.MAX_OFFSET


def test_memory_after_writes_is_what_the_server_says_for_the_same_writes(live_lab):
    steps = [0, 8_000, 800_000, 8_000_000]
    key, twin = live_lab.key("steps"), live_lab.key("stepz")  # names of one length
    measured = setbit.memory_after_writes(live_lab, key, steps)
    for offset in steps:
        live_lab.r.setbit(twin, offset, 1)
    assert measured == live_lab.r.memory_usage(twin, samples=0)
    assert live_lab.r.exists(key) == 0
    live_lab.r.unlink(twin)


def test_a_setbit_past_the_limit_builds_the_longer_string_and_puts_the_limit_back(live_lab):
    limit = live_lab.r.config_get("proto-max-bulk-len")["proto-max-bulk-len"]
    key = live_lab.key("past")
    strlen, usage = setbit.setbit_past_the_limit(live_lab, key, 2**32, max_bulk_bytes=2**30)
    assert strlen == 2**32 // 8 + 1  # the byte that holds bit 2^32, counted from 0
    assert usage == bitmap.SdsString.new(strlen).allocation + bitmap.key_overhead_bytes(key)
    assert live_lab.r.config_get("proto-max-bulk-len")["proto-max-bulk-len"] == limit
    assert live_lab.r.exists(key) == 0


def test_another_client_waits_as_long_as_a_big_first_setbit(live_lab):
    ref = setbit.SetbitReference.load()
    measured = live_or_reference(
        live_lab, lambda lab: setbit.stall_timeline(lab, 2**31), lambda: ref.timeline,
        allocates=bitmap.bytes_for_offset(2**31), run_info=ref.run,
    )  # fmt: skip
    assert measured.live and measured.label.startswith("this run: Redis ")
    timeline = measured.value
    action_ms = timeline.action_end_ms - timeline.action_start_ms
    assert timeline.worst_ms > 0.5 * action_ms  # one GET waited for most of the SETBIT
    assert timeline.median_ms < timeline.worst_ms / 10
    assert live_lab.keys() == []
