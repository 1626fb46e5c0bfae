"""setlab.models.bitmap: offsets, the sds/jemalloc memory model, and the offset sweep."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import bitmap

# jemalloc 5 size classes for a 16-byte quantum and 4 KiB pages, as listed in the "IMPLEMENTATION
# NOTES" table of the jemalloc(3) manual: small classes up to 14 KiB, then large ones.
JEMALLOC_MANUAL_CLASSES = [
    8, 16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896,
    1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 10240, 12288,
    14336, 16384, 20480, 24576, 28672, 32768, 40960, 49152, 57344, 65536,
]  # fmt: skip


def test_size_classes_match_the_jemalloc_manual_table():
    got = sorted({bitmap.jemalloc_size_class(n) for n in range(1, 65537)})
    assert got == JEMALLOC_MANUAL_CLASSES


@given(st.integers(min_value=1, max_value=2**40))
def test_size_class_is_the_smallest_class_that_fits(size):
    cls = bitmap.jemalloc_size_class(size)
    assert cls >= size
    assert bitmap.jemalloc_size_class(cls) == cls
    # Four classes per doubling above 128 bytes: the class is at most 25% above the request.
    if size > 128:
        assert cls < size * 1.25 + 1


def test_bytes_for_offset_covers_the_bit():
    assert bitmap.bytes_for_offset(0) == 1
    assert bitmap.bytes_for_offset(7) == 1
    assert bitmap.bytes_for_offset(8) == 2
    assert bitmap.bytes_for_offset(bitmap.MAX_OFFSET) == 512 * 2**20


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2_000_000))
def test_bytes_for_offset_equals_strlen_after_setbit_on_fakeredis(fake_lab_module, offset):
    key = fake_lab_module.key("strlen")
    fake_lab_module.r.unlink(key)
    fake_lab_module.r.setbit(key, offset, 1)
    assert fake_lab_module.r.strlen(key) == bitmap.bytes_for_offset(offset)


@pytest.mark.parametrize(
    "bad",
    [-1, bitmap.MAX_OFFSET + 1, 2051776854918803458, 1.5, "12", None, True],
)
def test_bad_offsets_raise_a_clear_value_error(bad):
    with pytest.raises(ValueError, match="offset"):
        bitmap.check_offset(bad)


def test_the_offset_limit_follows_proto_max_bulk_len():
    assert bitmap.max_offset() == 2**32 - 1
    assert bitmap.max_offset(2**30) == 2**33 - 1
    assert bitmap.check_offset(2**32, proto_max_bulk_len=2**30) == 2**32
    with pytest.raises(ValueError, match="proto_max_bulk_len"):
        bitmap.max_offset(0)


def test_sds_headers_follow_the_length_thresholds():
    assert [bitmap.sds_header_bytes(n) for n in (0, 31, 32, 255, 256, 65535, 65536)] == [
        1, 1, 3, 3, 5, 5, 9,
    ]  # fmt: skip
    assert bitmap.sds_header_bytes(2**32) == 17


def test_memory_of_one_bit_at_the_largest_offset_is_640_mib_plus_key():
    # 2^29 data bytes + 9-byte header + NUL is just past 2^29; the next class is 2^29 + 2^27.
    assert bitmap.first_setbit_memory_usage(bitmap.MAX_OFFSET, "k") == 640 * 2**20 + 48


@given(st.integers(min_value=0, max_value=bitmap.MAX_OFFSET), st.text(min_size=1, max_size=80))
def test_breakdown_adds_up_to_memory_usage(offset, key):
    parts = bitmap.memory_breakdown(offset, key)
    assert sum(parts.values()) == bitmap.first_setbit_memory_usage(offset, key)
    assert parts["bitmap data"] == bitmap.bytes_for_offset(offset)
    assert parts["allocator rounding"] >= 0


def test_growing_step_by_step_can_cost_twice_a_single_write():
    one_shot = bitmap.first_setbit_memory_usage(8_000_000)
    stepwise = bitmap.bitmap_memory_usage([0, 8_000, 800_000, 8_000_000])
    assert stepwise > 1.9 * (one_shot - 48)


def test_bitmap_memory_usage_needs_an_offset():
    with pytest.raises(ValueError, match="at least one"):
        bitmap.bitmap_memory_usage([])


def test_log_spaced_offsets_span_the_range_without_duplicates():
    offsets = bitmap.log_spaced_offsets(1_000, bitmap.MAX_OFFSET, 12)
    assert offsets[0] == 1_000 and offsets[-1] == bitmap.MAX_OFFSET
    assert offsets == sorted(set(offsets))
    assert len(offsets) == 12
    with pytest.raises(ValueError):
        bitmap.log_spaced_offsets(10, 5)
    with pytest.raises(ValueError):
        bitmap.log_spaced_offsets(1, 10, count=1)
