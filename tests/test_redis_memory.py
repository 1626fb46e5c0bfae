"""setlab.models.redis_memory: the SET / string / HyperLogLog memory model and Redis's HLL, offline.

Reference values come from hand computation with the struct sizes of Redis 7.0's headers, from
brute-force re-derivations written here in another form, and from measurements of a real
redis-server stored in src/setlab/data (written by scripts/measure_redis_memory.py).
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.core import hashing
from setlab.lab import reference
from setlab.models import redis_memory as rm

# -- integers and members -------------------------------------------------------------------------

_STRICT_INT = re.compile(rb"-?[1-9][0-9]*|0")


def _reference_integer(raw: bytes) -> int | None:
    """string2ll's rule, written as a regular expression plus a range check."""
    if not _STRICT_INT.fullmatch(raw) or len(raw) > 20:
        return None
    value = int(raw)
    return value if -(2**63) <= value < 2**63 else None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"0", 0), (b"123", 123), (b"-5", -5), (b"007", None), (b"-0", None), (b"+1", None),
        (b" 1", None), (b"1.0", None), (b"", None), (b"9223372036854775807", 2**63 - 1),
        (b"9223372036854775808", None), (b"-9223372036854775808", -(2**63)),
        (b"12345678901234567890", None),
    ],
)  # fmt: skip
def test_redis_integer_follows_string2ll(text, value):
    assert rm.redis_integer(text) == value


@given(st.binary(max_size=22) | st.integers(-(2**64), 2**64).map(lambda i: str(i).encode()))
def test_redis_integer_agrees_with_a_regex_reference(raw):
    assert rm.redis_integer(raw) == _reference_integer(raw)


def test_intset_width_boundaries():
    assert [rm.intset_width(v) for v in (0, 32767, 32768, -32768, -32769)] == [2, 2, 4, 2, 4]
    assert [rm.intset_width(v) for v in (2**31 - 1, 2**31, -(2**31), -(2**31) - 1)] == [4, 8, 4, 8]


@settings(max_examples=60, deadline=None)
@given(st.integers(-(2**40), 2**40), st.integers(0, 3000))
def test_decimal_range_summary_equals_summarising_the_members(start, count):
    assert rm.Members.decimal_range(start, start + count) == rm.Members.of(
        range(start, start + count)
    )


def _letters(i: int, length: int) -> str:
    """``i`` in base 26 with letters, padded with 'a' to ``length`` (never an integer)."""
    out = ""
    while i:
        i, digit = divmod(i, 26)
        out = chr(97 + digit) + out
    return out.rjust(length, "a")


@given(st.integers(1, 300), st.integers(1, 200))
def test_fixed_length_summary_equals_summarising_distinct_strings(length, count):
    count = min(count, 26**length)
    members = [_letters(i, length) for i in range(count)]
    assert rm.Members.fixed_length(count, length) == rm.Members.of(members)


def test_members_count_duplicates_once():
    assert rm.Members.of(["a", "a", b"a", "b"]).count == 2
    assert rm.Members.of([1, "1"]).count == 1


# -- sets ----------------------------------------------------------------------------------------


def _simulated_buckets(count: int) -> int:
    """Insert one key at a time with dict.c's expansion rule and return the final table size."""
    size = 0
    for used in range(count):  # ``used`` keys are in the table before this insert
        if size == 0:
            size = 4
        elif used >= size:
            size = 4
            while size < used + 1:  # _dictNextExp(used + 1)
                size *= 2
    return size


@given(st.integers(0, 5000))
def test_dict_buckets_follow_insert_by_insert_expansion(count):
    assert rm.dict_buckets(count) == max(4, _simulated_buckets(count))


def test_set_encoding_thresholds():
    assert rm.set_encoding(range(512)) == "intset"
    assert rm.set_encoding(range(513)) == "hashtable"
    assert rm.set_encoding(range(513), max_intset_entries=1000) == "intset"
    assert rm.set_encoding([1, 2, "x"]) == "hashtable"
    assert rm.set_encoding([1, 2, "x"], version="7.2") == "listpack"
    assert rm.set_encoding(["x" * 65], version="7.2") == "hashtable"
    assert rm.set_encoding([f"m{i}" for i in range(129)], version="7.2") == "hashtable"
    assert rm.set_encoding(range(300), version="7.2") == "intset"


def test_intset_memory_usage_by_hand():
    # key "k": sds 1+1+1 -> 8 B, robj 16, dictEntry 24; intset 8 + 10 x 2 = 28 -> 32 B class
    assert rm.set_cost(range(10), "k").memory_usage == 8 + 16 + 24 + 32
    # one value needing 8 bytes widens every element: 8 + 3 x 8 = 32
    assert rm.set_cost([1, 2, 2**40], "k").memory_usage == 8 + 16 + 24 + 32


def test_hashtable_memory_usage_by_hand():
    # 5 one-letter members: 8 buckets; each member sds 1+1+1 -> 8 B and a 24-byte dictEntry
    cost = rm.set_cost(list("abcde"), "k")
    assert cost.encoding == "hashtable"
    assert cost.memory_usage == (8 + 24) + 16 + 56 + 8 * 8 + 5 * (24 + 8)
    # what the allocator hands out: dictEntry and dict struct rounded to 32 and 64 bytes
    assert cost.allocated == (8 + 32) + 16 + 64 + 8 * 8 + 5 * (32 + 8)
    assert sum(cost.parts.values()) == cost.memory_usage
    assert sum(cost.allocated_parts.values()) == cost.allocated


def test_seed_003_member_costs_72_to_80_bytes_allocated():
    # 16 hex characters: sdshdr5 (1 B) + 16 + NUL = 18 -> 32; dictEntry 32; buckets 8-16 B
    for count in (2**14, 2**14 + 1):
        cost = rm.set_cost(rm.Members.fixed_length(count, 16))
        per_member = (
            cost.allocated - cost.allocated_parts["key name (sds)"] - 32 - 16 - 64
        ) / count
        assert per_member == 32 + 32 + 8 * rm.dict_buckets(count) / count


def test_redis_7_2_model_is_smaller_and_marked_as_modelled():
    members = rm.Members.fixed_length(100_000, 16)
    old, new = rm.set_cost(members), rm.set_cost(members, version="7.2")
    assert new.version == "7.2" and new.memory_usage is None
    assert new.allocated < old.allocated
    small = rm.set_cost(["ab", "cd", 7], "k", version="7.2")
    # listpack: 6 header + (1+2+1) x 2 + (1+1) + 1 end = 17 -> 32 B class
    assert small.encoding == "listpack" and small.allocated_parts["listpack"] == 32


def test_set_cost_rejects_an_empty_set_and_bad_arguments():
    with pytest.raises(ValueError, match="at least one member"):
        rm.set_cost([])
    with pytest.raises(ValueError, match="version"):
        rm.set_cost([1], version="6.2")
    with pytest.raises(ValueError, match="max_intset_entries"):
        rm.set_cost([1], max_intset_entries=-1)
    with pytest.raises(ValueError, match="member"):
        rm.set_cost([1.5])


# -- strings -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "encoding", "usage"),
    [
        (5, "int", 48), ("-77", "int", 48), ("007", "embstr", 48 - 16 + 32),
        ("x" * 12, "embstr", 48 - 16 + 32), ("x" * 13, "embstr", 48 - 16 + 48),
        ("x" * 44, "embstr", 48 - 16 + 64), ("x" * 45, "raw", 48 + 64),
        ("x" * 1000, "raw", 48 + 1024),
    ],
)  # fmt: skip
def test_string_memory_usage_by_hand(value, encoding, usage):
    # embstr: robj 16 + sdshdr8 3 + data + NUL in one allocation; raw: robj + sds
    cost = rm.string_cost(value, "k")
    assert (cost.encoding, cost.memory_usage) == (encoding, usage)


def test_shared_integers_allocate_no_value():
    assert rm.string_cost(9999).allocated == rm.string_cost(10000).allocated - 16
    assert rm.string_cost(9999).memory_usage == rm.string_cost(10000).memory_usage


def test_bitmap_cost_matches_the_bitmap_module():
    from setlab.models import bitmap

    offsets = [5, 10**6, 7]
    assert rm.bitmap_cost(offsets, "k").memory_usage == bitmap.bitmap_memory_usage(offsets, "k")


# -- the model against a real server's stored measurements ---------------------------------------


@pytest.fixture(scope="module")
def set_reference():
    return reference.load("redis-memory")


def test_model_equals_stored_memory_usage_of_the_seed_004_keys(set_reference):
    rows = [r for r in set_reference["rows"] if r["memory_usage"] is not None]
    assert rows
    assert all(r["memory_usage"] == r["model"] for r in rows)


def test_model_equals_stored_growth_curve(set_reference):
    for row in set_reference["growth"]:
        members = _growth_members(row["kind"], row["n"])
        assert rm.set_cost(members, row["key"]).memory_usage == row["memory_usage"], row
        assert rm.set_encoding(members) == row["encoding"]


def _growth_members(kind: str, n: int) -> rm.Members:
    if kind == "integer ids":
        return rm.Members.decimal_range(0, n)
    return rm.Members.fixed_length(n, {"16-hex device ids": 16, "UUIDs": 36}[kind])


# -- HyperLogLog ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hll_reference():
    return reference.load("hyperloglog-reference")


def test_register_of_each_element_equals_what_redis_stored(hll_reference):
    rows = hll_reference["registers"]
    index, count = rm.hll_register_updates(rm.hll_hashes(r["element"] for r in rows))
    assert list(index) == [r["index"] for r in rows]
    assert list(count) == [r["count"] for r in rows]


def test_sparse_bytes_and_memory_equal_what_redis_stored(hll_reference):
    hll = rm.HyperLogLog()
    done = 0
    for row in hll_reference["growth"]:
        hll.add_each(f"reader:{i}" for i in range(done, row["n"]))
        done = row["n"]
        assert (hll.encoding, hll.string_length) == (row["encoding"], row["strlen"])
        assert hll.cost(row["key"]).memory_usage == row["memory_usage"]
        assert hll.count() == row["pfcount"]
        if "payload_hex" in row:
            assert hll.payload.hex() == row["payload_hex"]


def test_pfcount_equals_what_redis_replied(hll_reference):
    for row in hll_reference["counts"]:
        hll = rm.HyperLogLog()
        hll.add_hashes(rm.hll_hashes(f"reader:{i}" for i in range(row["n"])))
        assert hll.count() == row["pfcount"], row


def test_scalar_and_vectorised_murmur_agree():
    rng = np.random.default_rng(3)
    for length in (0, 1, 7, 8, 9, 16, 36, 45):
        rows = rng.integers(0, 256, (50, length), dtype=np.uint8)
        fast = hashing.murmur64a_rows(rows, rm.HLL_SEED)
        assert [int(h) for h in fast] == [hashing.murmur64a(bytes(r), rm.HLL_SEED) for r in rows]


@given(st.integers(0, 2**64 - 1))
def test_register_update_counts_trailing_zeros_like_a_bit_loop(h):
    index, count = rm.hll_register_updates([h])
    rest, expected = h >> 14, 1
    while expected <= 50 and not rest & (1 << (expected - 1)):
        expected += 1
    assert (int(index[0]), int(count[0])) == (h & 16383, expected)


def _decode_sparse(payload: bytes) -> np.ndarray:
    """Registers from sparse opcodes, decoded independently of the model's encoder."""
    registers, i, p = [], 0, 0
    while p < len(payload):
        op = payload[p]
        if op >> 6 == 0:
            registers += [0] * ((op & 63) + 1)
            p += 1
        elif op >> 6 == 1:
            registers += [0] * ((((op & 63) << 8) | payload[p + 1]) + 1)
            p += 2
        else:
            registers += [((op >> 2) & 31) + 1] * ((op & 3) + 1)
            p += 1
        i += 1
    return np.array(registers)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 16383), st.integers(1, 32)), max_size=400))
def test_sparse_encoding_always_decodes_to_the_registers(updates):
    hll = rm.HyperLogLog()
    for index, count in updates:
        hll.set_register(index, count)
    expected = np.zeros(16384, dtype=np.int64)
    for index, count in updates:
        expected[index] = max(expected[index], count)
    assert np.array_equal(hll.registers, expected)
    if hll.encoding == "sparse":
        assert np.array_equal(_decode_sparse(hll.payload), expected)
        assert hll.string_length <= rm.HLL_SPARSE_MAX_BYTES
        assert hll.allocation >= hll.string_length + 1
    else:
        assert np.array_equal(rm.unpack_registers(hll.payload), expected)


def test_a_register_above_32_forces_the_dense_encoding():
    hll = rm.HyperLogLog()
    hll.set_register(5, 32)
    assert hll.encoding == "sparse"
    hll.set_register(6, 33)
    assert hll.encoding == "dense" and hll.string_length == 12304
    # 12,304 bytes + 5-byte sdshdr16 + NUL = 12,310: jemalloc's next class is 14 KiB
    assert hll.allocation == 14336


def test_dense_payload_round_trips():
    rng = np.random.default_rng(0)
    registers = rng.integers(0, 52, 16384).astype(np.uint8)
    assert np.array_equal(rm.unpack_registers(rm._pack_registers(registers)), registers)


def test_estimate_of_an_empty_sketch_is_zero_and_small_counts_are_nearly_exact():
    assert rm.hll_estimate([16384]) == 0
    hll = rm.HyperLogLog()
    hll.add(*range(100))
    assert abs(hll.count() - 100) <= 2


def test_pfmerge_takes_register_maxima():
    a, b = rm.HyperLogLog(), rm.HyperLogLog()
    a.add(*range(0, 500))
    b.add(*range(300, 900))
    merged = rm.HyperLogLog()
    merged.merge(a, b)
    assert np.array_equal(merged.registers, np.maximum(a.registers, b.registers))
    both = rm.HyperLogLog()
    both.add(*range(900))
    assert merged.count() == both.count()


def test_pfadd_reply_is_not_membership():
    hll = rm.HyperLogLog()
    hll.add_hashes(rm.hll_hashes(range(200_000)))
    fresh = hll.add_each(f"new:{i}" for i in range(2000))
    # most brand-new elements leave every register unchanged: PFADD replies 0
    assert sum(fresh) < 200


def test_simulated_registers_match_hashed_registers_in_distribution():
    rng = np.random.default_rng(11)
    simulated = rm.simulate_registers(20_000, rng, trials=8)
    hashed = []
    for t in range(8):
        hll = rm.HyperLogLog()
        hll.add_hashes(rm.hll_hashes(f"{t}:{i}" for i in range(20_000)))
        hashed.append(hll.registers)
    sim = np.bincount(simulated.ravel(), minlength=20)[:12] / simulated.size
    real = np.bincount(np.ravel(hashed), minlength=20)[:12] / (8 * 16384)
    assert np.max(np.abs(sim - real)) < 0.01


def test_relative_error_over_seeded_trials_is_near_the_standard_error():
    rng = np.random.default_rng(2024)
    errors = rm.simulated_estimates(1_000_000, 300, rng) / 1_000_000 - 1
    assert abs(errors.mean()) < 3 * rm.HLL_STANDARD_ERROR / math.sqrt(300)
    assert 0.8 * rm.HLL_STANDARD_ERROR < errors.std() < 1.2 * rm.HLL_STANDARD_ERROR


def test_hll_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="registers"):
        rm.hll_estimate_registers(np.zeros(10))
    with pytest.raises(ValueError, match="histogram"):
        rm.hll_estimate([1, 2, 3])
    with pytest.raises(ValueError, match="cardinality"):
        rm.simulate_registers(-1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rows"):
        hashing.murmur64a_rows(np.zeros(8, dtype=np.uint8), rm.HLL_SEED)


# -- helpers the chapters use ---------------------------------------------------------------------


def test_device_ids_are_distinct_16_hex_digit_strings():
    ids = rm.device_ids(50_000)
    assert len(set(ids)) == 50_000
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in ids[:1000])


@pytest.mark.parametrize("kind", rm.GROWTH_KINDS)
def test_growth_summary_equals_summarising_the_generated_members(kind):
    for n in (1, 513, 3000):
        summary, real = rm.growth_summary(kind, n), rm.Members.of(rm.growth_members(kind, 0, n))
        # a hex ID made only of decimal digits is an integer to a 7.2 listpack: the summary
        # ignores that (one ID in 2,000), so only the 7.0 fields must match exactly
        assert dataclasses.replace(summary, listpack_bytes=0) == dataclasses.replace(
            real, listpack_bytes=0
        )
        assert abs(summary.listpack_bytes - real.listpack_bytes) <= 0.01 * real.listpack_bytes


def test_registers_of_hashes_equal_adding_them_one_by_one():
    hashes = rm.hll_hashes(rm.reader_ids(0, 20_000))
    hll = rm.HyperLogLog()
    hll.add_each(rm.reader_ids(0, 20_000))
    assert np.array_equal(rm.registers_of_hashes(hashes), hll.registers)


def test_hll_growth_curve_turns_dense_where_the_sketch_does():
    readers, sizes, dense_at = rm.hll_growth_curve(2500)
    hll = rm.HyperLogLog()
    hll.add_each(rm.reader_ids(0, dense_at - 1))
    assert hll.encoding == "sparse"
    hll.add(f"reader:{dense_at - 1}")
    assert hll.encoding == "dense"
    assert sizes[-1] == hll.cost("k").memory_usage and readers[-1] == 2500
    assert np.all(np.diff(sizes) >= 0)


def test_counting_costs_agree_with_the_models():
    from setlab.models import bitmap

    costs = rm.counting_costs(1000)
    assert costs["SET"] == rm.set_cost(range(1000)).memory_usage
    assert costs["bitmap"] == bitmap.first_setbit_memory_usage(999, "k")
    assert costs["HyperLogLog"] == rm.hll_cost(rm.reader_ids(0, 1000)).memory_usage


def test_per_member_parts_add_up_to_the_per_member_cost():
    cost = rm.set_cost(rm.Members.fixed_length(15_000, 16))
    parts = rm.per_member_parts(cost)
    fixed = cost.memory_usage - 15_000 * sum(u for u, _ in parts.values())
    assert fixed == pytest.approx(cost.parts["key name (sds)"] + 24 + 16 + 56)
    with pytest.raises(ValueError, match="hashtable"):
        rm.per_member_parts(rm.set_cost(range(10)))


@pytest.mark.parametrize("make", [rm.seed_claims, rm.hll_seed_claims])
def test_seed_claims_are_complete_registry_rows(make):
    from setlab.chapters import claims

    rows = make()
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert set(row) == {
            "id",
            "seed",
            "section",
            "chapter",
            "claim",
            "seed_figure",
            "ours",
            "verdict",
            "why",
        }
        claims.Verdict(row["verdict"])
        assert row["ours"] and row["why"].endswith(".")


# -- through a Lab on the embedded backend -------------------------------------------------------


def test_sadd_all_and_measure_on_fakeredis(fake_lab):
    key = fake_lab.key("s")
    assert rm.sadd_all(fake_lab, key, range(2500), batch=700) == 2500
    measured = rm.measure(fake_lab, key)
    assert measured == rm.Measured(None, None, 2500)
    assert rm.settle_set(fake_lab, key) == rm.dict_buckets(2500) // 2
    assert rm.intset_switch_point(fake_lab, fake_lab.key("sw"), 10) is None


def test_setbit_all_builds_the_same_string_as_setbit_calls(fake_lab):
    offsets = [5, 100_000, 3, 17, 64]
    a, b = fake_lab.key("a"), fake_lab.key("b")
    rm.setbit_all(fake_lab, a, offsets, chunk=2)
    for offset in offsets:
        fake_lab.r.setbit(b, offset, 1)
    assert fake_lab.r.get(a) == fake_lab.r.get(b)


def test_big_set_and_seed_004_on_the_embedded_backend_measure_nothing(fake_lab):
    row = rm.measure_big_set(fake_lab, "integer ids", 2000)
    assert (
        row["memory_usage"] is None
        and row["model_usage"] == rm.set_cost(range(2000), row["key"]).memory_usage
    )
    rows = rm.run_seed_004(fake_lab, rm.seed_004_keys(count=300), repeat=1)
    assert [r["built"] for r in rows] == [True, True, False, False, False, False]
    assert "not built" in rm.seed_004_markdown(rm.seed_004_keys(count=300), rows, "here")
