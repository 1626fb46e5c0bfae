"""The SET / string / HyperLogLog models against a real redis-server (exact equality).

Each test builds keys on the private server, asks Redis (MEMORY USAGE key SAMPLES 0, OBJECT
ENCODING, GET, PFADD/PFCOUNT replies, INFO memory) and compares with setlab.models.redis_memory and
setlab.models.hyperloglog; the experiments of setlab.lab.runs.memory and setlab.lab.runs.hyperloglog
are run here the way the chapters and reference/measure_redis_memory.py run them.
"""

from __future__ import annotations

import random
import uuid

import numpy as np
import pytest

from setlab.lab.runs import hyperloglog as hll_runs
from setlab.lab.runs import memory as runs
from setlab.models import hyperloglog as hll
from setlab.models import redis_memory as rm

pytestmark = pytest.mark.live


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def test_string_model_matches_memory_usage_for_every_encoding(live_lab):
    r = live_lab.r
    values = [0, 9999, 10000, -1, 2**63 - 1, "007", "1.5", "9223372036854775808"]
    values += ["x" * n for n in [*range(0, 130), 1000, 4096, 32768, 40000, 10**6]]
    mismatches = []
    for i, value in enumerate(values):
        key = live_lab.key("str", i) + "k" * (i % 40)
        r.set(key, value)
        cost = rm.string_cost(value, key)
        got = (r.memory_usage(key, samples=0), _text(r.object("encoding", key)))
        if got != (cost.memory_usage, cost.encoding):
            mismatches.append((value if len(str(value)) < 50 else len(value), got, cost))
        r.unlink(key)
    assert mismatches == []


def test_shared_integers_are_shared_on_the_server(live_lab):
    r = live_lab.r
    r.set(live_lab.key("a"), 42)
    r.set(live_lab.key("b"), 10_000)
    assert r.object("refcount", live_lab.key("a")) == 2**31 - 1  # OBJ_SHARED_REFCOUNT
    assert r.object("refcount", live_lab.key("b")) == 1


@pytest.mark.parametrize(
    "values",
    [
        [0],
        list(range(10)),
        list(range(512)),
        [1, 40_000],
        [-(2**31) - 1, 5],
        [2**62, -(2**62), 7],
        random.Random(1).sample(range(-(10**12), 10**12), 300),
    ],
)
def test_intset_model_matches_memory_usage(live_lab, values):
    key = live_lab.key("intset")
    runs.sadd_all(live_lab, key, values)
    cost = rm.set_cost(values, key)
    assert _text(live_lab.r.object("encoding", key)) == cost.encoding == "intset"
    assert live_lab.r.memory_usage(key, samples=0) == cost.memory_usage


def _mixed_members(rng: random.Random, count: int) -> list[str | int]:
    makers = [
        lambda: rng.randrange(10**9),
        lambda: f"{rng.getrandbits(64):016x}",
        lambda: str(uuid.UUID(int=rng.getrandbits(128))),
        lambda: "w" * rng.randrange(1, 300),
        lambda: f"user:{rng.randrange(10**6)}",
    ]
    return [rng.choice(makers)() for _ in range(count)]


def test_hashtable_model_matches_memory_usage_once_rehashing_is_done(live_lab):
    rng = random.Random(20261130)
    mismatches = []
    for trial in range(25):
        key = live_lab.key("ht", trial) + "x" * rng.randrange(0, 50)
        members = _mixed_members(rng, rng.choice([1, 3, 5, 9, 100, 513, 1025, 3000, 20_000]))
        runs.sadd_all(live_lab, key, members)
        cost = rm.set_cost(members, key)
        unsettled = live_lab.r.memory_usage(key, samples=0)
        old_buckets = rm.dict_buckets(cost.size) // 2
        # while rehashing, both bucket arrays are counted: at most the old one extra
        assert cost.memory_usage <= unsettled <= cost.memory_usage + 8 * old_buckets
        runs.settle_set(live_lab, key)
        got = (live_lab.r.memory_usage(key, samples=0), _text(live_lab.r.object("encoding", key)))
        if got != (cost.memory_usage, cost.encoding):
            mismatches.append((trial, len(members), got, cost.memory_usage, cost.encoding))
        live_lab.r.unlink(key)
    assert mismatches == []


def test_default_sampling_is_exact_when_members_share_a_size_class(live_lab):
    key = live_lab.key("uuids")
    members = rm.growth_members("UUIDs", 0, 5000)
    runs.sadd_all(live_lab, key, members)
    runs.settle_set(live_lab, key)
    assert live_lab.r.memory_usage(key) == rm.set_cost(members, key).memory_usage


def test_allocated_model_matches_used_memory_freed_by_del(live_lab):
    r = live_lab.r
    members = rm.growth_members("16-hex device ids", 0, 200_000)
    misses = []
    # the first DEL on a fresh server allocates a little of its own; and Redis's clock may free
    # a client's spare query buffer between the two readings (1,680 bytes off one reading in a
    # loaded run): the closest of three later readings is the one nothing else moved
    for attempt in range(4):
        key = live_lab.key("alloc", attempt)
        runs.sadd_all(live_lab, key, members)
        runs.settle_set(live_lab, key)
        held = int(r.info("memory")["used_memory"])
        r.delete(key)  # DEL frees synchronously (UNLINK would free in a background thread)
        freed = held - int(r.info("memory")["used_memory"])
        allocated = rm.set_cost(members, key).allocated
        misses.append(abs(freed - allocated) / allocated)
    assert min(misses[1:]) < 0.0001, misses


@pytest.mark.parametrize("limit", [0, 1, 300, 512, 2000])
def test_intset_becomes_a_hashtable_one_past_set_max_intset_entries(live_lab, limit):
    assert runs.intset_switch_point(live_lab, live_lab.key("switch"), limit) == limit + 1
    config = live_lab.r.config_get("set-max-intset-entries")["set-max-intset-entries"]
    assert config == "512"  # restored


def test_seed_004_keys_match_the_model(live_lab):
    rows = runs.run_seed_004(live_lab, runs.seed_004_keys(count=20_000), repeat=1)
    assert all(row.built for row in rows)
    assert [row.memory_usage for row in rows] == [row.model for row in rows]
    assert [row.encoding for row in rows] == [row.model_encoding for row in rows]


def test_hyperloglog_model_is_bit_for_bit_redis(live_lab):
    r = live_lab.r
    key = live_lab.key("hll")
    sketch = hll.HyperLogLog()
    rng = random.Random(5)
    elements = [rng.choice([f"u{i}", i, uuid.UUID(int=i).hex, "e" * (i % 90)]) for i in range(2500)]
    replies = []
    for i, element in enumerate(elements):
        replies.append((r.pfadd(key, element), sketch.add(element)))
        if i % 97 == 0 or 1600 <= i <= 1700:
            raw = r.get(key)
            assert raw[16:] == sketch.payload, i
            assert (len(raw), r.memory_usage(key)) == (
                sketch.string_length,
                sketch.cost(key).memory_usage,
            )
            assert r.pfcount(key) == sketch.count()
    assert all(a == b for a, b in replies)
    assert sketch.encoding == "dense"


def test_pfmerge_and_multi_key_pfcount_match_the_model(live_lab):
    r = live_lab.r
    keys = [live_lab.key("d", d) for d in range(3)]
    sketches = []
    for d, key in enumerate(keys):
        members = [f"r{i}" for i in range(d * 400, d * 400 + 700 + 3000 * (d == 2))]
        r.pfadd(key, *members)
        sketch = hll.HyperLogLog()
        sketch.add(*members)
        sketches.append(sketch)
    for sources in (keys[:2], keys):
        dest = live_lab.key("merged", len(sources))
        r.pfmerge(dest, *sources)
        merged = hll.HyperLogLog()
        merged.merge(*sketches[: len(sources)])
        assert r.get(dest)[16:] == merged.payload
        assert r.memory_usage(dest) == merged.cost(dest).memory_usage
        assert r.pfcount(dest) == r.pfcount(*sources) == merged.count()


def test_pfadd_replies_on_the_server_equal_the_model(live_lab):
    assert list(hll_runs.pfadd_replies(live_lab, 30_000)) == list(hll.new_reader_replies(30_000))


def test_hll_growth_rows_equal_the_model_and_keep_the_payload_while_asked(live_lab):
    rows = hll_runs.measure_hll_growth(live_lab, [1, 100, 2000], payload_up_to=100)
    for row in rows:
        sketch = hll.sketch_of_readers(row.n)
        assert (row.encoding, row.strlen, row.pfcount) == (
            sketch.encoding, sketch.string_length, sketch.count(),
        )  # fmt: skip
        assert row.memory_usage == sketch.cost(row.key).memory_usage
        assert row.payload_hex == (sketch.payload.hex() if row.n <= 100 else None)
    assert [r.encoding for r in rows] == ["sparse", "sparse", "dense"]


def test_stored_registers_and_counts_are_what_the_server_measures(live_lab):
    registers = hll_runs.measure_registers(live_lab, 40)
    index, count = hll.hll_register_updates(hll.hll_hashes(r.element for r in registers))
    assert [(r.index, r.count) for r in registers] == list(zip(index, count, strict=True))
    counts = hll_runs.measure_counts(live_lab, [1000, 5000])
    assert [c.pfcount for c in counts] == [hll.sketch_of_readers(n).count() for n in (1000, 5000)]


def test_week_on_the_server_equals_the_model(live_lab):
    week = hll.week_of_readers(np.random.default_rng(1), days=3, daily=3000, population=8000)
    result = hll_runs.run_week(live_lab, week)
    assert result.server_daily == result.model_daily
    assert result.server_union == result.server_merged == result.model_union
    assert result.server_merged_bytes == result.model_merged_bytes


def test_sampling_and_big_set_experiments_return_typed_rows_that_match_the_model(live_lab):
    sampling = runs.measure_sampling(live_lab)
    assert sampling.exact == sampling.model != sampling.default_samples
    big = runs.measure_big_set(live_lab, "UUIDs", 20_000)
    assert big.memory_usage == big.default_samples == big.model_usage
    assert abs(big.freed - big.model_allocated) < 0.001 * big.model_allocated
    growth = runs.measure_all_growth(live_lab, [1, 513, 3000])
    assert [r.memory_usage for r in growth] == [r.model for r in growth]
    assert runs.switch_points(live_lab, (3, 7)) == {3: 4, 7: 8}


_SETTLE_HASH = "for i = 1, tonumber(ARGV[1]) do redis.call('HEXISTS', KEYS[1], '') end"


@pytest.mark.parametrize(
    ("fields", "length"), [(5, 10), (512, 28), (513, 28), (300, 64), (300, 65), (20_000, 28)]
)
def test_hash_model_matches_memory_usage_on_both_sides_of_each_listpack_limit(
    live_lab, fields, length
):
    """The dense remap's HASH (advise for string IDs): field strings to their integers."""
    rng = random.Random(fields * 100 + length)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    names = sorted({"".join(rng.choices(letters, k=length)) for _ in range(fields)})
    key = live_lab.key("hash", fields, length)
    pipe = live_lab.r.pipeline(transaction=False)
    for first in range(0, len(names), 500):
        pipe.hset(key, mapping={f: first + i for i, f in enumerate(names[first : first + 500])})
    pipe.execute()
    live_lab.r.eval(_SETTLE_HASH, 1, key, rm.dict_buckets(len(names)))  # finish any rehash
    cost = rm.hash_cost(rm.Members.of(names), rm.Members.decimal_range(0, len(names)), key)
    got = (live_lab.r.memory_usage(key, samples=0), _text(live_lab.r.object("encoding", key)))
    assert got == (cost.memory_usage, cost.encoding)
