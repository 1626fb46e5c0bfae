"""setlab.models.redis_memory (the SET / string / bitmap memory model) and setlab.lab.runs.memory
(its experiments and stored reference run), offline.

Reference values come from hand computation with the struct sizes of Redis 7.0's headers, from
brute-force re-derivations written here in another form, and from measurements of a real
redis-server stored in src/setlab/data (written by reference/measure_redis_memory.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.lab.runs import memory as runs
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
    # MEMORY USAGE keeps 7.0's sums; 7.2's usual build (bundled jemalloc) serves each 18-byte
    # member sds from 24 B, not 32 B
    assert new.version == "7.2" and new.memory_usage == old.memory_usage - 8 * 100_000
    assert new.allocated < old.allocated
    small = rm.set_cost(["ab", "cd", 7], "k", version="7.2", allocator="debian")
    # listpack: 6 header + (1+2+1) x 2 + (1+1) + 1 end = 17 -> 32 B class
    assert small.encoding == "listpack" and small.allocated_parts["listpack"] == 32


def test_set_cost_rejects_an_empty_set_and_bad_arguments():
    with pytest.raises(ValueError, match="at least one member"):
        rm.set_cost([])
    with pytest.raises(ValueError, match="release"):
        rm.set_cost([1], version="6.0")
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
    return runs.SetMemoryReference.load()


def test_model_equals_stored_memory_usage_of_the_seed_004_keys(set_reference):
    specs = {s.name: s for s in runs.seed_004_keys(100_000)}
    rows = [r for r in set_reference.seed_004 if r.memory_usage is not None]
    assert len(rows) == 6
    for row in rows:
        cost = specs[row.name].model(row.key)
        assert (cost.memory_usage, cost.encoding) == (row.memory_usage, row.encoding), row.name


def test_model_equals_stored_growth_curve(set_reference):
    for row in set_reference.growth:
        members = _growth_members(row.kind, row.n)
        assert rm.set_cost(members, row.key).memory_usage == row.memory_usage, row
        assert rm.set_encoding(members) == row.encoding


def _growth_members(kind: str, n: int) -> rm.Members:
    if kind == "integer ids":
        return rm.Members.decimal_range(0, n)
    return rm.Members.fixed_length(n, {"16-hex device ids": 16, "UUIDs": 36}[kind])


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


def test_per_member_parts_add_up_to_the_per_member_cost():
    cost = rm.set_cost(rm.Members.fixed_length(15_000, 16))
    parts = rm.per_member_parts(cost)
    fixed = cost.memory_usage - 15_000 * sum(u for u, _ in parts.values())
    assert fixed == pytest.approx(cost.parts["key name (sds)"] + 24 + 16 + 56)
    with pytest.raises(ValueError, match="hashtable"):
        rm.per_member_parts(rm.set_cost(range(10)))


# -- through a Lab on the embedded backend -------------------------------------------------------


def test_sadd_all_and_measure_on_fakeredis(fake_lab):
    key = fake_lab.key("s")
    assert runs.sadd_all(fake_lab, key, range(2500), batch=700) == 2500
    measured = runs.measure(fake_lab, key)
    assert measured == runs.Measured(None, None, 2500)
    assert runs.settle_set(fake_lab, key) == rm.dict_buckets(2500) // 2
    assert runs.intset_switch_point(fake_lab, fake_lab.key("sw"), 10) is None
    assert runs.switch_points(fake_lab, (10, 20)) == {10: None, 20: None}


def test_setbit_all_builds_the_same_string_as_setbit_calls(fake_lab):
    offsets = [5, 100_000, 3, 17, 64]
    a, b = fake_lab.key("a"), fake_lab.key("b")
    runs.setbit_all(fake_lab, a, offsets, chunk=2)
    for offset in offsets:
        fake_lab.r.setbit(b, offset, 1)
    assert fake_lab.r.get(a) == fake_lab.r.get(b)


def test_big_set_and_seed_004_on_the_embedded_backend_measure_nothing(fake_lab):
    row = runs.measure_big_set(fake_lab, "integer ids", 2000)
    assert row.memory_usage is None and row.freed is None
    assert row.model_usage == rm.set_cost(range(2000), row.key).memory_usage
    rows = runs.run_seed_004(fake_lab, runs.seed_004_keys(count=300), repeat=1)
    assert [r.built for r in rows] == [True, True, False, False, False, False]
    assert [r.count for r in rows[:2]] == [300, 300]  # SCARD answers on any backend
    assert rows[0].memory_usage is None  # but MEMORY USAGE only on a real one


def test_measure_growth_on_fakeredis_carries_the_model_and_no_measurement(fake_lab):
    rows = runs.measure_all_growth(fake_lab, [1, 513])
    assert [(r.kind, r.n) for r in rows] == [(k, n) for k in rm.GROWTH_KINDS for n in (1, 513)]
    assert all(r.memory_usage is None and r.encoding is None for r in rows)
    integer_513 = rows[1]
    assert integer_513.model_encoding == "hashtable"
    assert integer_513.model == rm.set_cost(range(513), integer_513.key).memory_usage


# -- the typed reference records ----------------------------------------------------------------


def _raw_reference() -> dict:
    return json.loads((resources.files("setlab") / "data" / "redis-memory.json").read_text())


def test_reference_records_hold_every_stored_row(set_reference):
    raw = _raw_reference()
    assert len(set_reference.seed_004) == len(raw["rows"])
    assert [dataclasses.asdict(r) for r in set_reference.growth] == raw["growth"]
    assert [dataclasses.asdict(r) for r in set_reference.big_sets] == raw["allocated"]
    assert dataclasses.asdict(set_reference.sampling) == raw["sampling"]
    assert set_reference.run.redis_version == raw["server"]["redis_version"]


def test_reference_lookups_find_rows_and_name_what_is_missing(set_reference):
    assert set_reference.seed_004_row("bitMap10w_hash").kind == "bitmap"
    assert set_reference.switch_points([512, 128]) == {512: 513, 128: 129}
    assert set_reference.big_set("UUIDs").n == 300_000
    with pytest.raises(ValueError, match="name must be one of"):
        set_reference.seed_004_row("nope")
    with pytest.raises(ValueError, match=r"limits \[7\] were not measured"):
        set_reference.switch_points([7])
    with pytest.raises(ValueError, match="kind must be one of"):
        set_reference.big_set("floats")


# -- the chapter module's tables, texts and plots ------------------------------------------------


def test_seed_004_table_marks_keys_not_built_and_prices_each_item(fake_lab):
    from setlab.chapters import redis_set_memory as chapter

    rows = runs.run_seed_004(fake_lab, runs.seed_004_keys(count=300), repeat=1)
    table = chapter.seed_004_markdown(rows, "this run").splitlines()
    assert len(table) == 2 + 6 and table[0].startswith("| key (this run) |")
    assert sum("not built" in line for line in table) == 4  # no bitmaps on the embedded backend
    assert sum("not measured" in line for line in table) == 2  # and no MEMORY USAGE
    set_row = rows[1]  # integers 0 … 299: an intset, 2 bytes an item plus the key's share
    assert f"{set_row.model / 300:,.1f} B" in table[3]


def test_per_member_table_totals_are_the_chapters_figures():
    from setlab.chapters import redis_set_memory as chapter

    table = chapter.per_member_markdown()
    assert table.count("\n") == 1 + len(chapter.SEED_003_PARTS) + 1
    last = table.splitlines()[-1]
    assert chapter.FIGURES["rsm-usage-per"] in last and chapter.FIGURES["rsm-alloc-per"] in last


def test_growth_mismatches_count_only_measured_rows_that_differ():
    from setlab.chapters import redis_set_memory as chapter

    exact = rm.set_cost(range(600), "k").memory_usage
    row = runs.GrowthRow("integer ids", 600, "k", "hashtable", exact, exact, "hashtable")
    assert chapter.growth_mismatches([row]) == 0
    off = dataclasses.replace(row, memory_usage=exact + 8)
    unmeasured = dataclasses.replace(row, memory_usage=None)
    assert chapter.growth_mismatches([row, off, unmeasured]) == 1


def test_live_sentences_say_whether_this_run_equals_the_model():
    from setlab.chapters import redis_set_memory as chapter

    big = runs.BigSetRow("UUIDs", 10, "k", 0.1, 1000, 1200, 1000, 1000, 1216)
    assert "equal to the model" in chapter.big_set_text(big)
    assert "not equal" in chapter.big_set_text(dataclasses.replace(big, memory_usage=999))
    built = runs.Seed004Row("a", "", "set", 1, "k", 100, "intset", True, 100)
    other = dataclasses.replace(built, memory_usage=120)
    skipped = dataclasses.replace(built, built=False, memory_usage=None)
    assert chapter.seed_004_text([built, other, skipped]) == "1 of 2 keys equal the model"


def test_snowflake_ids_start_at_seed_000s_id():
    from setlab.chapters import redis_set_memory as chapter

    ids = chapter.snowflake_ids(3)
    assert ids == rm.Members.of(range(chapter.SEED_000_SNOWFLAKE, chapter.SEED_000_SNOWFLAKE + 3))


def test_the_chapters_plots_draw_the_model_and_the_measurements():
    from setlab.chapters import redis_set_memory as chapter

    layout = chapter.set_layout_figure()
    assert len(layout.axes) == 1 and "hashtable" in layout.axes[0].get_title()
    stored = runs.SetMemoryReference.load().growth
    growth = chapter.growth_figure(stored, "reference run")
    assert [ax.get_title() for ax in growth.axes] == list(rm.GROWTH_KINDS)
    markers = [line for line in growth.axes[0].get_lines() if line.get_label() == "reference run"]
    assert len(markers[0].get_xdata()) == sum(r.kind == "integer ids" for r in stored)
