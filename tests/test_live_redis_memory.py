"""The SET / string / HyperLogLog model against a real redis-server (exact equality).

Each test builds keys on the private server, asks Redis (MEMORY USAGE key SAMPLES 0, OBJECT
ENCODING, GET, PFADD/PFCOUNT replies, INFO memory) and compares with setlab.models.redis_memory.
"""

from __future__ import annotations

import random
import uuid

import pytest

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
    rm.sadd_all(live_lab, key, values)
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
        rm.sadd_all(live_lab, key, members)
        cost = rm.set_cost(members, key)
        unsettled = live_lab.r.memory_usage(key, samples=0)
        old_buckets = rm.dict_buckets(cost.size) // 2
        # while rehashing, both bucket arrays are counted: at most the old one extra
        assert cost.memory_usage <= unsettled <= cost.memory_usage + 8 * old_buckets
        rm.settle_set(live_lab, key)
        got = (live_lab.r.memory_usage(key, samples=0), _text(live_lab.r.object("encoding", key)))
        if got != (cost.memory_usage, cost.encoding):
            mismatches.append((trial, len(members), got, cost.memory_usage, cost.encoding))
        live_lab.r.unlink(key)
    assert mismatches == []


def test_default_sampling_is_exact_when_members_share_a_size_class(live_lab):
    key = live_lab.key("uuids")
    members = rm.growth_members("UUIDs", 0, 5000)
    rm.sadd_all(live_lab, key, members)
    rm.settle_set(live_lab, key)
    assert live_lab.r.memory_usage(key) == rm.set_cost(members, key).memory_usage


def test_allocated_model_matches_used_memory_freed_by_del(live_lab):
    r = live_lab.r
    members = rm.growth_members("16-hex device ids", 0, 200_000)
    freed = []
    for attempt in range(2):  # the first DEL on a fresh server allocates a little of its own
        key = live_lab.key("alloc", attempt)
        rm.sadd_all(live_lab, key, members)
        rm.settle_set(live_lab, key)
        held = int(r.info("memory")["used_memory"])
        r.delete(key)  # DEL frees synchronously (UNLINK would free in a background thread)
        freed.append(held - int(r.info("memory")["used_memory"]))
    allocated = rm.set_cost(members, live_lab.key("alloc", 1)).allocated
    assert abs(freed[-1] - allocated) < 0.0001 * allocated


@pytest.mark.parametrize("limit", [0, 1, 300, 512, 2000])
def test_intset_becomes_a_hashtable_one_past_set_max_intset_entries(live_lab, limit):
    assert rm.intset_switch_point(live_lab, live_lab.key("switch"), limit) == limit + 1
    config = live_lab.r.config_get("set-max-intset-entries")["set-max-intset-entries"]
    assert config == "512"  # restored


def test_seed_004_keys_match_the_model(live_lab):
    rows = rm.run_seed_004(live_lab, rm.seed_004_keys(count=20_000), repeat=1)
    assert all(row["built"] for row in rows)
    assert [row["memory_usage"] for row in rows] == [row["model"] for row in rows]
    assert [row["encoding"] for row in rows] == [row["model_encoding"] for row in rows]


def test_hyperloglog_model_is_bit_for_bit_redis(live_lab):
    r = live_lab.r
    key = live_lab.key("hll")
    hll = rm.HyperLogLog()
    rng = random.Random(5)
    elements = [rng.choice([f"u{i}", i, uuid.UUID(int=i).hex, "e" * (i % 90)]) for i in range(2500)]
    replies = []
    for i, element in enumerate(elements):
        replies.append((r.pfadd(key, element), hll.add(element)))
        if i % 97 == 0 or 1600 <= i <= 1700:
            raw = r.get(key)
            assert raw[16:] == hll.payload, i
            assert (len(raw), r.memory_usage(key)) == (
                hll.string_length,
                hll.cost(key).memory_usage,
            )
            assert r.pfcount(key) == hll.count()
    assert all(a == b for a, b in replies)
    assert hll.encoding == "dense"


def test_pfmerge_and_multi_key_pfcount_match_the_model(live_lab):
    r = live_lab.r
    keys = [live_lab.key("d", d) for d in range(3)]
    sketches = []
    for d, key in enumerate(keys):
        members = [f"r{i}" for i in range(d * 400, d * 400 + 700 + 3000 * (d == 2))]
        r.pfadd(key, *members)
        hll = rm.HyperLogLog()
        hll.add(*members)
        sketches.append(hll)
    for sources in (keys[:2], keys):
        dest = live_lab.key("merged", len(sources))
        r.pfmerge(dest, *sources)
        merged = rm.HyperLogLog()
        merged.merge(*sketches[: len(sources)])
        assert r.get(dest)[16:] == merged.payload
        assert r.memory_usage(dest) == merged.cost(dest).memory_usage
        assert r.pfcount(dest) == r.pfcount(*sources) == merged.count()


def test_pfadd_replies_on_the_server_equal_the_model(live_lab):
    assert list(rm.pfadd_replies(live_lab, 30_000)) == list(rm.pfadd_replies(None, 30_000))
