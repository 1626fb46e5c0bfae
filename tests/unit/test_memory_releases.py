"""The memory models by release family (setlab.models.redis_memory, key_layout, sds, hyperloglog,
bitmap, exactness): small layouts counted by hand from each family's source, byte by byte."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import bitmap, builds, exactness, hyperloglog, key_layout, sds
from setlab.models import redis_memory as rm
from setlab.models.allocator import size_class

# -- the key and its object ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "key", "encoding", "bundled", "libc"),
    [
        # object: 16 B + 1 (header size) + sdshdr5 1 + "k" + NUL = 20 -> 24 (bundled), 24 (glibc)
        (5, "k", "int", 24, 24),
        (10_000, "k", "int", 24, 24),
        # + sdshdr8 3 + 10 + NUL = 34 -> 40 on both
        ("x" * 10, "k", "embstr", 40, 40),
        # key + value = 41 bytes still embeds: 16 + 4 + 44 = 64
        ("x" * 40, "k", "embstr", 64, 72),
        # 45 bytes: the object (24) and an sds of 3 + 44 + 1 = 48 (bundled 48, glibc 56)
        ("x" * 44, "k", "raw", 24 + 48, 24 + 56),
        # a 40-byte key keeps one byte: 16 + (1 + 3 + 40 + 1) + 5 = 66 -> 80 (bundled), 72 (glibc)
        ("x", "k" * 40, "embstr", 80, 72),
        ("xy", "k" * 40, "raw", 64 + 8, 72 + 24),
        # a key of 128 bytes or more keeps 8 bytes for an expire: 16 + 8 + 205 = 229 -> 256
        (5, "k" * 200, "int", 256, 232),
    ],
)
def test_redis_8_and_valkey_keep_the_key_in_the_object(value, key, encoding, bundled, libc):
    for release, expected in (("8.2", bundled), ("valkey-8.1", libc)):
        cost = rm.string_cost(value, key, version=release)
        assert (cost.encoding, cost.memory_usage, cost.allocated) == (encoding, expected, expected)
        assert "key name (sds)" not in cost.parts and "keyspace dictEntry" not in cost.parts


def test_embedding_rule_counts_key_and_value_together():
    assert [rm.string_encoding("x" * (41 - n), "k" * n, "8.2") for n in (1, 20, 32, 40)] == [
        "embstr"
    ] * 4
    assert [rm.string_encoding("x" * (42 - n), "k" * n, "8.2") for n in (1, 20, 32, 40)] == [
        "raw"
    ] * 4
    assert rm.string_encoding("x" * 44, "k" * 40, "7.0") == "embstr"


def test_redis_6_2_counts_an_embstr_by_its_length():
    # 6.2 objectComputeSize: sdslen + 2 + sizeof(robj); allocated: 16 + 3 + 1 + 1 = 21 -> 24
    cost = rm.string_cost("x", "k", version="6.2")
    assert cost.memory_usage == (1 + 2 + 16) + 8 + 24
    assert cost.allocated == 24 + 8 + 24
    assert rm.string_cost("x" * 45, "k", version="6.2").memory_usage == 16 + 56 + 8 + 24


def test_key_overhead_is_one_object_in_redis_8():
    assert bitmap.key_overhead_bytes("k", "bundled", "8.2") == 24
    assert bitmap.key_overhead_bytes("k", "bundled", "7.0") == 8 + 16 + 24
    assert bitmap.first_setbit_memory_usage(0, "k", "bundled", "8.2") == 24 + 8


# -- sets ----------------------------------------------------------------------------------------


def test_redis_6_2_dict_struct_and_intset_by_hand():
    # 6.2's dict holds two dictht: 8 + 8 + 2 x 32 + 8 + 8 = 96 bytes
    cost = rm.set_cost(list("abcde"), "k", version="6.2")
    assert cost.memory_usage == cost.allocated == (8 + 24) + 16 + 96 + 8 * 8 + 5 * (24 + 8)
    # an intset counts its blob (8 + 10 x 2 = 28 bytes), allocated as 32
    small = rm.set_cost(range(10), "k", version="6.2")
    assert (small.memory_usage, small.allocated) == (8 + 24 + 16 + 28, 8 + 24 + 16 + 32)


def test_redis_7_2_listpack_and_chained_entries_by_hand():
    small = rm.set_cost(["ab", "cd", 7], "k", version="7.2")
    # listpack 17 bytes -> 24 on the bundled build; robj, key sds 8 and a 24-byte dictEntry
    assert small.encoding == "listpack"
    assert small.memory_usage == small.allocated == 16 + 24 + 8 + 24
    big = rm.set_cost(rm.Members.fixed_length(1000, 16, "bundled"), "k", version="7.2")
    chained = 1000 - 1024 * (1 - (1 - 1 / 1024) ** 1000)
    assert big.allocated_parts["dictEntry (chained members only)"] == round(16 * chained)
    assert big.memory_usage == 8 + 24 + 16 + 56 + 1024 * 8 + 1000 * (24 + 24)


def test_redis_8_set_by_hand():
    # the object holding "k" (24 B) replaces robj + key sds + dictEntry
    members = rm.Members.fixed_length(1000, 16, "bundled")
    cost = rm.set_cost(members, "k", version="8.2")
    assert cost.memory_usage == 24 + 56 + 1024 * 8 + 1000 * (24 + 24)
    chained = 1000 - 1024 * (1 - (1 - 1 / 1024) ** 1000)
    assert cost.allocated == 24 + 56 + 1024 * 8 + 1000 * 24 + round(16 * chained)
    assert rm.set_cost(range(10), "k", version="8.2").memory_usage == 24 + 32


def test_valkey_set_by_hand():
    members = rm.Members.fixed_length(1000, 16, "libc")
    cost = rm.set_cost(members, "k", version="valkey-8.1")
    # 1000 members at seven a bucket: 256 buckets; each member's sds 1 + 16 + 1 -> 24 usable
    from setlab.models.valkey_hashtable import expected_child_buckets

    children = expected_child_buckets(1000, 256)
    assert cost.memory_usage == int(24 + 72 + 256 * 64 + round(64 * children) + 1000 * 24)
    # glibc: a 16 KiB table is 16,392 usable bytes, a 64-byte child bucket 72
    assert cost.allocated == 24 + 72 + 16392 + round(72 * children) + 1000 * 24
    assert "dictEntry per member" not in cost.parts
    # 850 members made by one SADD: a table sized for 850 (256 buckets), not 128
    one_call = rm.set_cost(rm.Members.fixed_length(850, 16, "libc"), version="valkey-8.1")
    sized = rm.set_cost(rm.Members.fixed_length(850, 16), version="valkey-8.1", sadd_batch=850)
    assert sized.parts["bucket array"] - one_call.parts["bucket array"] == 128 * 64


def test_encodings_by_family():
    strings = [f"m{i}" for i in range(100)]
    assert [rm.set_encoding(strings, version=r) for r in ("6.2", "7.0", "7.4", "8.0")] == [
        "hashtable", "hashtable", "listpack", "listpack",
    ]  # fmt: skip
    assert rm.set_encoding(range(100), version="valkey-8.1") == "intset"
    assert rm.set_encoding(range(100), max_intset_entries=50, version="8.2") == "listpack"
    assert rm.set_encoding(range(513), version="8.2") == "hashtable"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.one_of(st.integers(-(10**12), 10**12), st.text(max_size=80)), max_size=300),
    st.sampled_from(list(builds.RELEASES)),
    st.sampled_from(["debian", "bundled", "libc"]),
)
def test_parts_add_up_and_memory_usage_is_always_given(members, release, allocator):
    if not {rm.as_bytes(m) for m in members}:
        return
    cost = rm.set_cost(members, "key", version=release, allocator=allocator)
    assert cost.version == release and cost.allocator == allocator
    assert sum(cost.parts.values()) == cost.memory_usage > 0
    assert sum(cost.allocated_parts.values()) == cost.allocated > 0
    if cost.encoding == "hashtable":
        per = rm.per_member_parts(cost)
        assert set(per) == {"member string (sds)", "robj", "dictEntry", "bucket array"}


def test_every_existing_call_keeps_its_7_0_result():
    members = rm.Members.fixed_length(5000, 36)
    assert rm.set_cost(members) == rm.set_cost(members, version="7.0", allocator="debian")
    assert rm.set_cost(members).allocator == "debian"
    assert rm.string_cost("x" * 50).version == "7.0"


def test_a_release_gets_its_usual_allocator():
    for release, family in builds.RELEASES.items():
        cost = rm.string_cost("x" * 100, version=release)
        assert cost.allocator == builds.USUAL_ALLOCATOR[family]
    with pytest.raises(ValueError, match="allocator"):
        rm.set_cost([1], allocator="tcmalloc")


def test_members_priced_again_and_joined():
    parts = [rm.Members.fixed_length(3, 16), rm.Members.fixed_length(2, 40)]
    joined = rm.Members.disjoint_union(parts)
    assert joined.lengths == ((16, 3), (40, 2)) and joined.count == 5
    # glibc: 1 + 16 + 1 = 18 -> a 32-byte chunk, 24 usable; 3 + 40 + 1 = 44 -> 64, 56 usable
    assert joined.priced_for("libc").sds_bytes == 3 * 24 + 2 * 56
    assert rm.Members.of(["a" * 16] * 2 + ["b" * 16]).lengths == ((16, 2),)
    # a summary without its lengths keeps its own build unless another is asked for
    bare = rm.Members(5, 5 * 32, False, 0, 16, 5 * 18)
    assert rm.set_cost(bare, version="7.2").allocator == "debian"
    with pytest.raises(ValueError, match="without their lengths"):
        rm.set_cost(bare, version="7.2", allocator="bundled")
    with pytest.raises(ValueError, match="different allocators"):
        rm.Members.disjoint_union([parts[0], rm.Members.fixed_length(1, 5, "libc")])


# -- sds, HyperLogLog, bitmaps -------------------------------------------------------------------


def test_sds_resize_records_the_usable_size():
    # sdsResize(s, 42, would_regrow=1) of an 18-byte type-5 string: sdshdr8, 3 + 42 + 1 = 46
    grown = sds.SdsString.new(18, "bundled").resize(42)
    assert (grown.length, grown.allocation, grown.capacity) == (18, 48, 48 - 3 - 1)
    # past 255 bytes a 5-byte header: 5 + 703 + 1 = 709 -> 768
    assert sds.SdsString.new(400, "bundled").resize(703).allocation == 768


def test_sparse_hyperloglog_grows_by_at_most_300_bytes_from_7_2():
    old = hyperloglog.HyperLogLog(allocator="bundled", version="7.0")
    new = hyperloglog.HyperLogLog(version="7.2")

    def bound(length: int) -> int:
        # 7.2: sdsResize to len + 3 + min(len + 3, 300), at most 3,000, header at most 5 bytes
        return size_class(5 + min(length + 3 + min(length + 3, 300), 3000) + 1, "bundled")

    doubled = False
    for element in (f"reader:{i}" for i in range(1500)):
        before_old, before_new = old.string_length, new.string_length
        old.add(element)
        new.add(element)
        assert new.payload == old.payload  # the same registers and opcodes
        assert new.allocation <= bound(before_new)
        doubled = doubled or old.allocation > bound(before_old)
    # 7.0's greedy sdsMakeRoomFor doubles past that bound; 1,500 readers stay sparse in both
    assert doubled and old.encoding == new.encoding == "sparse"
    assert new.allocation < old.allocation
    assert new.cost("h").memory_usage == new.cost("h").allocated


def test_a_bitmap_at_the_last_offset_on_glibc_is_512_mib_and_a_page():
    cost = rm.bitmap_cost([bitmap.MAX_OFFSET], "k", version="valkey-8.1")
    # mapped: 2^29 + sdshdr32 9 + NUL + the 8-byte chunk header, rounded up to 4 KiB, less 16
    assert cost.allocated_parts["bitmap (sds)"] == 2**29 + 4096 - 16
    assert rm.bitmap_cost([bitmap.MAX_OFFSET], "k", version="8.2").allocated == 640 * 2**20 + 24


# -- how exact ------------------------------------------------------------------------------------


def test_every_family_says_how_exact_both_figures_are():
    assert set(exactness.EXACTNESS) == {
        (family, quantity) for family in builds.FAMILIES for quantity in exactness.QUANTITIES
    }
    assert exactness.exactness("7.4", "allocated") == exactness.EXACTNESS[("7.2", "allocated")]
    assert exactness.exactness("7.0", "memory_usage").level == "exact"
    for entry in exactness.EXACTNESS.values():
        assert entry.level and entry.note and entry.source
    with pytest.raises(ValueError, match="quantity"):
        exactness.exactness("8.2", "rss")


def test_embedded_key_bytes_by_hand():
    assert key_layout.embedded_key_bytes(1) == 1 + 1 + 1 + 1
    assert key_layout.embedded_key_bytes(40) == 1 + 3 + 40 + 1
    assert key_layout.object_bytes(200) == 16 + 8 + 1 + 3 + 200 + 1
    assert math.isnan(key_layout.KeyCost("set", "intset", 0, 1, 1).usage_per_member)
