"""setlab.models.allocator and the memory models on both jemalloc builds.

Oracles: the size-class table of the jemalloc(3) manual ("IMPLEMENTATION NOTES", 64-bit, 4 KiB
pages, 16-byte quantum) and jemalloc's INSTALL.md, which says that ``--with-lg-quantum=3`` (what
Redis's deps/Makefile passes) "will provide additional size classes that are not 16-byte-aligned
(24, 40, and 56)". Redis's struct sizes are written out by hand (robj 16 B, dictEntry 24 B, an
sdshdr8 header 3 B plus a NUL).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from setlab.models import allocator, bitmap, redis_memory

MANUAL_16 = [
    8, 16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896,
    1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 10240, 12288,
    14336, 16384, 20480, 24576, 28672, 32768, 40960, 49152, 57344, 65536,
]  # fmt: skip
INSTALL_MD_EXTRA_8 = [24, 40, 56]


def test_debian_classes_are_the_manuals_table():
    assert allocator.classes_up_to(65536, "debian") == MANUAL_16


def test_bundled_classes_add_24_40_and_56_and_nothing_else():
    assert allocator.classes_up_to(65536, "bundled") == sorted(MANUAL_16 + INSTALL_MD_EXTRA_8)


@given(st.integers(min_value=1, max_value=2**40), st.sampled_from(["debian", "bundled"]))
def test_a_class_is_the_smallest_that_fits_and_the_builds_agree_above_64_bytes(size, build):
    cls = allocator.size_class(size, build)
    assert cls >= size and allocator.size_class(cls, build) == cls
    if size > 64:
        assert cls == allocator.size_class(size, "debian") == allocator.size_class(size, "bundled")


def test_an_unknown_build_is_refused_naming_the_builds():
    with pytest.raises(ValueError, match="debian, bundled"):
        allocator.size_class(10, "tcmalloc")


def test_a_24_byte_request_costs_32_on_debian_and_24_on_the_bundled_build():
    # a dictEntry (24 B) and a 20-byte key name (sdshdr8: 3 + 20 + 1 = 24 B)
    assert bitmap.jemalloc_size_class(24) == 32
    assert bitmap.jemalloc_size_class(24, "bundled") == 24
    key = "k" * 20
    assert bitmap.key_overhead_bytes(key) == 32 + 16 + 24
    assert bitmap.key_overhead_bytes(key, "bundled") == 24 + 16 + 24


def test_large_bitmaps_cost_the_same_on_both_builds():
    for offset in (10**6, 10**9, bitmap.MAX_OFFSET):
        assert bitmap.first_setbit_memory_usage(offset) == bitmap.first_setbit_memory_usage(
            offset, allocator="bundled"
        )


def test_a_hashtable_of_snowflake_ids_is_cheaper_on_the_bundled_build():
    ids = [2051776854918803458 + i for i in range(1000)]  # 19 digits: sdshdr8 3 + 19 + 1 = 23 B
    debian = redis_memory.set_cost(ids, "k")
    bundled = redis_memory.set_cost(ids, "k", allocator="bundled")
    assert debian.encoding == bundled.encoding == "hashtable"
    # MEMORY USAGE counts each member's sds at its class: 32 B against 24 B
    assert debian.memory_usage - bundled.memory_usage == 1000 * (32 - 24)
    # the allocator also serves each dictEntry (the members' and the key's own) from 32 B on
    # Debian, 24 B on the bundled build, and the 56-byte dict struct from 64 B against 56 B
    assert debian.allocated - bundled.allocated == 1000 * 8 * 2 + 8 + (64 - 56)


def test_a_summary_priced_for_one_build_is_priced_again_for_another_from_its_lengths():
    members = redis_memory.Members.fixed_length(10, 16, allocator="bundled")
    debian = redis_memory.Members.fixed_length(10, 16)
    assert members.priced_for("debian") == debian  # 18-byte sds strings: 24 B, then 32 B
    assert redis_memory.set_cost(members, "k") == redis_memory.set_cost(debian, "k")
    assert redis_memory.set_cost(members, "k", allocator="bundled").encoding == "hashtable"
    # a summary made without its lengths prices only the build it was made for
    bare = redis_memory.Members(10, 10 * 24, False, 0, 16, 10 * 18, "bundled")
    assert redis_memory.set_cost(bare, "k").allocator == "bundled"
    with pytest.raises(ValueError, match="summarised for allocator 'bundled' without"):
        redis_memory.set_cost(bare, "k", allocator="debian")


def test_a_new_hyperloglog_fits_the_24_byte_class_only_on_the_bundled_build():
    from setlab.models.hyperloglog import HyperLogLog

    # createHLLObject: a 16-byte header + one 2-byte XZERO opcode = 18 bytes, sdshdr5 (1 B) + NUL
    assert HyperLogLog().allocation == 32 and HyperLogLog(allocator="bundled").allocation == 24
    dense = [HyperLogLog(allocator=a) for a in ("debian", "bundled")]
    for hll in dense:
        hll.add_hashes(np.arange(1, 200_001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    # 12,304 bytes + sdshdr16 (5 B) + NUL: the 14 KiB class on both builds
    assert [h.encoding for h in dense] == ["dense", "dense"]
    assert dense[0].allocation == dense[1].allocation == 14 * 1024
