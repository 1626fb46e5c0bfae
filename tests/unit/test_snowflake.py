"""Tests for setlab.models.snowflake: layouts, streams, the Java mapping, dense ints, JS numbers.

Reference values come from independent sources: Twitter's published shifts (22 / 17 / 12),
OpenJDK 17 with Guava 31.1 (``Hashing.murmur3_128().hashLong(id).asLong()``, Java's ``%`` and
``Math.abs``), Node.js 20 (``String(x)``, ``Date``), numpy's wrapping integer arithmetic and
brute-force enumeration.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess

import numpy as np
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.core.hashing import java_long_hash64
from setlab.models import bitmap
from setlab.models import snowflake as sf

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
SEED_ID = 2051776854918803458  # seed 000 §4's "typical" snowflake ID


# -- layouts ------------------------------------------------------------------------------------


@st.composite
def twitter_fields(draw):
    return {
        "timestamp": draw(st.integers(0, 2**41 - 1)),
        "datacenter": draw(st.integers(0, 31)),
        "worker": draw(st.integers(0, 31)),
        "sequence": draw(st.integers(0, 4095)),
    }


@given(twitter_fields())
def test_twitter_encode_matches_published_shifts_and_decodes_back(fields):
    expected = (
        (fields["timestamp"] << 22)
        | (fields["datacenter"] << 17)
        | (fields["worker"] << 12)
        | fields["sequence"]
    )
    assert sf.TWITTER.encode(**fields) == expected
    assert sf.TWITTER.decode(expected) == fields


@given(
    st.integers(0, 2**41 - 1),
    st.integers(0, 1023),
    st.integers(0, 4095),
)
def test_seed_layout_round_trips_over_whole_field_ranges(timestamp, machine, sequence):
    snowflake = sf.SEED_000.encode(timestamp=timestamp, machine=machine, sequence=sequence)
    assert 0 <= snowflake <= LONG_MAX
    assert sf.SEED_000.decode(snowflake) == {
        "timestamp": timestamp,
        "machine": machine,
        "sequence": sequence,
    }


@given(st.integers(0, LONG_MAX))
def test_every_non_negative_long_decodes_and_encodes_back(snowflake):
    for layout in (sf.TWITTER, sf.SEED_000):
        assert layout.encode(**layout.decode(snowflake)) == snowflake


def test_seed_example_id_decodes_to_the_time_node_js_gives():
    # node: new Date(Number(BigInt("2051776854918803458") >> 22n) + 1288834974657).toISOString()
    # → 2026-05-05T21:31:37.040Z = 1778016697040 ms
    assert sf.SEED_000.unix_ms(SEED_ID) == 1778016697040
    assert sf.SEED_000.decode(SEED_ID) == {
        "timestamp": 1778016697040 - 1288834974657,
        "machine": 6 * 32 + 27,
        "sequence": 2,
    }
    assert sf.TWITTER.decode(SEED_ID)["datacenter"] == 6
    assert sf.TWITTER.decode(SEED_ID)["worker"] == 27


@pytest.mark.parametrize("limit", [2**32, 2**53, 2**62, 1])
def test_ms_until_above_is_the_first_millisecond_whose_smallest_id_reaches_the_limit(limit):
    ms = sf.TWITTER.ms_until_above(limit)
    assert sf.TWITTER.encode(timestamp=ms) >= limit
    assert ms == 0 or sf.TWITTER.encode(timestamp=ms - 1) < limit


def test_twitter_ids_pass_two_to_the_32_after_1024_ms_and_js_safe_range_after_24_9_days():
    assert sf.TWITTER.ms_until_above(2**32) == 2**32 // 2**22
    assert sf.TWITTER.ms_until_above(2**53) / 86_400_000 == pytest.approx(2**31 / 86_400_000)


def test_twitter_layout_runs_out_in_2080():
    # 2^41 - 1 ms after 2010-11-04T01:42:54.657Z is 2080-07-10T17:30:30.208Z (node: new Date(...))
    assert sf.TWITTER.last_unix_ms == 3487858230208


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sf.TWITTER.decode(-1), "snowflake must be at least 0"),
        (lambda: sf.TWITTER.decode(2**63), "at most"),
        (lambda: sf.TWITTER.encode(worker=32), "worker must be at least 0 and at most 31"),
        (lambda: sf.TWITTER.encode(sequence=-1), "sequence must be at least 0"),
        (lambda: sf.TWITTER.encode(machine=1), "unknown field"),
        (lambda: sf.TWITTER.encode(timestamp=1.5), "timestamp must be an integer"),
        (lambda: sf.TWITTER.id_at(sf.TWITTER_EPOCH_MS - 1), "before this layout's epoch"),
        (lambda: sf.TWITTER.max_value("machine"), "name must be one of"),
        (lambda: sf.Layout("x", 0, (("timestamp", 41), ("sequence", 23))), "at most 63 bits"),
        (lambda: sf.Layout("x", 0, (("sequence", 12), ("timestamp", 41))), "start with"),
        (lambda: sf.Layout("x", 0, (("timestamp", 0), ("sequence", 12))), "bits of field"),
        (lambda: sf.TWITTER.ms_until_above(2**63), "above every ID"),
    ],
)
def test_bad_input_raises_value_error_saying_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# -- generators and streams -----------------------------------------------------------------------


def test_generator_borrows_the_next_millisecond_when_the_sequence_overflows():
    gen = sf.Generator(sf.TWITTER, node=5)
    now = sf.TWITTER_EPOCH_MS + 1_000
    ids = [gen.next_id(now) for _ in range(4096 + 10)]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)
    assert [sf.TWITTER.decode(i)["timestamp"] for i in ids[4095:4097]] == [1_000, 1_001]
    assert {sf.TWITTER.decode(i)["worker"] for i in ids} == {5}
    # a clock reading behind the last one used does not go back in time
    assert gen.next_id(now) > ids[-1]


def test_simulated_stream_ids_are_distinct_and_from_the_requested_machines_and_span():
    start = sf.TWITTER_EPOCH_MS + 10**11
    ids = sf.simulate_stream(
        start_unix_ms=start, span_s=2, machines=3, rate_per_s=500, bursts=1, burst_size=20_000
    )
    assert ids.dtype == np.int64
    assert len(np.unique(ids)) == len(ids)
    fields = [sf.TWITTER.decode(int(i)) for i in ids]
    assert {f["datacenter"] * 32 + f["worker"] for f in fields} <= {0, 1, 2}
    stamps = np.array([f["timestamp"] for f in fields]) + sf.TWITTER_EPOCH_MS
    # 20 000 requests in one ms over 3 machines overflow 4096 per ms: up to two borrowed ms
    assert stamps.min() >= start and stamps.max() <= start + 2_000 + 2
    assert len(ids) > 20_000


def test_stream_rejects_a_start_before_the_epoch():
    with pytest.raises(ValueError, match="start_unix_ms"):
        sf.simulate_stream(start_unix_ms=0, span_s=1)


# -- the seed's hash-mod mapping --------------------------------------------------------------

# OpenJDK 17 + Guava 31.1: id, Hashing.murmur3_128().hashLong(id).asLong(),
# Math.abs(h) % (2^32 - 1), Math.abs(h) % 4294967295L, Math.floorMod(h, 1L << 32)
GUAVA = [
    (1, 19144387141682250, 23, 4215916545, 4211459146),
    (2, -2447670524089286488, 27, 3045138103, 1819721896),
    (100, 8349353095166695771, 14, 2979460546, 1035475291),
    (SEED_ID, 5592238617885023833, 1, 735952318, 3728875097),
    (-5, 5820834854664223012, 4, 557906842, 3497605412),
]


@pytest.mark.parametrize(("user_id", "h", "printed", "intended", "unsigned"), GUAVA)
def test_mapping_matches_java_and_guava(user_id, h, printed, intended, unsigned):
    assert java_long_hash64(user_id) == h  # the hash64 every mapping below starts from
    assert sf.java_offset(user_id) == printed
    assert sf.java_offset(user_id, sf.SEED_MODULUS_INTENDED) == intended
    assert sf.unsigned_offset(user_id) == unsigned


def test_java_parses_the_seeds_two_to_the_32_minus_1_as_29():
    # Java (JDK 17) prints 29 for `2^32 - 1`: additive binds tighter than bitwise XOR.
    assert sf.SEED_MODULUS_AS_PRINTED == 29
    assert sf.SEED_MODULUS_INTENDED == 4_294_967_295


def test_java_abs_and_rem_of_long_min_value_match_the_jvm():
    # JDK 17: Math.abs(Long.MIN_VALUE) = -9223372036854775808; % (2^32-1) → -12;
    # % 4294967295L → -2147483648
    assert sf.java_abs(LONG_MIN) == LONG_MIN
    assert sf.java_rem(sf.java_abs(LONG_MIN), 29) == -12
    assert sf.java_rem(sf.java_abs(LONG_MIN), 2**32 - 1) == -(2**31)
    assert sf.java_rem(-7, 29) == -7 and sf.java_rem(7, 29) == 7


@given(st.integers(LONG_MIN, LONG_MAX), st.integers(1, LONG_MAX))
def test_java_rem_truncates_like_numpy_fmod_on_int64(a, b):
    expected = int(np.fmod(np.int64(a), np.int64(b)))
    assert sf.java_rem(a, b) == expected


@given(st.integers(LONG_MIN, LONG_MAX))
def test_unsigned_offset_is_never_negative_and_below_two_to_the_32(user_id):
    assert 0 <= sf.unsigned_offset(user_id) < 2**32


def _brute_force_bias(modulus: int, dtype) -> tuple[int, int, int]:
    """Every value of a signed ``dtype`` through numpy's wrapping abs and C-style fmod."""
    info = np.iinfo(dtype)
    h = np.arange(info.min, info.max + 1, dtype=np.int64).astype(dtype)
    with np.errstate(over="ignore"):
        r = np.fmod(np.abs(h).astype(np.int64), modulus)
    counts = np.bincount(r[r >= 0], minlength=modulus)
    negative = r[r < 0]
    return int(counts.max()), int(counts.min()), int(negative[0]) if negative.size else 0


@given(st.integers(1, 128))
def test_abs_mod_bias_matches_brute_force_over_every_8_bit_hash(modulus):
    bias = sf.abs_mod_bias(modulus, hash_bits=8)
    assert (bias.most, bias.least, bias.min_value_result) == _brute_force_bias(modulus, np.int8)


@pytest.mark.parametrize("modulus", [1, 2, 29, 255, 1000, 2**15 - 1, 2**15])
def test_abs_mod_bias_matches_brute_force_over_every_16_bit_hash(modulus):
    bias = sf.abs_mod_bias(modulus, hash_bits=16)
    assert (bias.most, bias.least, bias.min_value_result) == _brute_force_bias(modulus, np.int16)


def test_abs_mod_bias_counts_cover_all_two_to_the_64_hashes_for_the_seeds_moduli():
    for modulus in (29, 2**32 - 1, 2**32):
        bias = sf.abs_mod_bias(modulus)
        assert bias.least * modulus <= 2**64 <= bias.most * modulus + 1
    assert sf.abs_mod_bias(2**32).excess == 0
    assert sf.abs_mod_bias(2**32 - 1).excess == pytest.approx(2 / 2**32)


# -- straight into SETBIT ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "lab_fixture", [pytest.param("live_lab", marks=pytest.mark.live), "fake_lab"]
)
def test_setbit_at_a_snowflake_offset_is_refused_with_the_offset_error(lab_fixture, request):
    lab = request.getfixturevalue(lab_fixture)
    with pytest.raises(redis.ResponseError) as caught:
        lab.r.setbit(lab.key("bm"), SEED_ID, 1)
    assert str(caught.value) == bitmap.OFFSET_ERROR
    assert lab.r.exists(lab.key("bm")) == 0


# -- dense ints ---------------------------------------------------------------------------------


@given(st.lists(st.integers(0, 2**63 - 1) | st.integers(0, 5), max_size=80))
def test_first_seen_ranks_number_ids_in_the_order_they_first_appear(ids):
    expected, seen = [], {}
    for snowflake in ids:  # the dict a client-side map would keep
        expected.append(seen.setdefault(snowflake, len(seen)))
    got = sf.first_seen_ranks(np.array(ids, dtype=np.int64) if ids else [])
    assert got.dtype == np.int64 and got.tolist() == expected


def test_first_seen_ranks_of_distinct_ids_are_0_to_n_minus_1_in_like_order():
    ids = [sf.TWITTER.id_at(sf.TWITTER_EPOCH_MS + 10**11 - k, worker=k % 32) for k in range(500)]
    assert sf.first_seen_ranks(ids).tolist() == list(range(500))


# -- Leaf segments ----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 50),
    st.integers(1, 5),
    st.integers(0, 2_000),
    st.integers(0, 5),
    st.floats(0.05, 1.0),
    st.integers(0, 2**32),
)
def test_leaf_issues_distinct_ids_and_accounts_for_every_fetched_one(
    step, servers, requests, restarts, prefetch, seed
):
    run = sf.LeafSegments(step, servers, prefetch).run(requests, restarts, seed)
    assert len(np.unique(run.ids)) == requests
    assert requests == 0 or (run.ids.min() >= 1 and run.ids.max() <= run.max_id)
    assert run.db_fetches * step == run.max_id
    assert run.max_id == requests + run.lost + run.unused
    assert run.lost <= 2 * step * restarts
    if restarts == 0:
        assert run.lost == 0


def test_one_leaf_server_without_restarts_issues_1_to_n_and_prefetches_after_10_percent():
    run = sf.LeafSegments(step=100, servers=1).run(250)
    assert run.ids.tolist() == list(range(1, 251))
    # segments 1-100, 101-200 and (prefetched once 11 of the third were used) 201-300, 301-400
    assert run.db_fetches == 4 and run.unused == 150


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"step": 0}, "step"), ({"servers": 0}, "servers"), ({"prefetch_below": 0}, "prefetch")],
)
def test_leaf_rejects_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sf.LeafSegments(**kwargs)


# -- JavaScript numbers -------------------------------------------------------------------------

# Node.js 20: String(x) for each x
NODE = [
    (1234567890123456789, "1234567890123456800"),
    (SEED_ID, "2051776854918803500"),
    (0.1, "0.1"),
    (1e21, "1e+21"),
    (1e20, "100000000000000000000"),
    (123e-20, "1.23e-18"),
    (2**53 + 1, "9007199254740992"),
    (0.000001, "0.000001"),
    (1e-7, "1e-7"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (-0.5, "-0.5"),
    (100, "100"),
    (123456789012345680000, "123456789012345680000"),
    (-1234.5678, "-1234.5678"),
    (0.000123, "0.000123"),
    (1.5e-6, "0.0000015"),
    (4294967295, "4294967295"),
]


@pytest.mark.parametrize(("value", "text"), NODE)
def test_js_number_string_prints_what_node_prints(value, text):
    assert sf.js_number_string(float(value)) == text


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@settings(max_examples=1, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=300, max_size=300))
def test_js_number_string_agrees_with_node_on_random_floats(values):
    values = [*values, *(float(random.Random(i).getrandbits(63)) for i in range(100))]
    script = (
        "const xs = JSON.parse(require('fs').readFileSync(0));"
        "console.log(JSON.stringify(xs.map(String)))"
    )
    out = subprocess.run(
        ["node", "-e", script], input=json.dumps(values), capture_output=True, text=True, check=True
    )
    assert [sf.js_number_string(v) for v in values] == json.loads(out.stdout)


def test_js_json_parse_turns_the_seeds_number_into_its_printed_value_and_strings_survive():
    parsed = json.loads('{"id": 1234567890123456789}', parse_int=float)["id"]
    assert sf.js_number_string(parsed) == "1234567890123456800"
    assert int(parsed) == 1234567890123456768  # node: BigInt(1234567890123456789)
    assert json.loads(json.dumps({"id": str(SEED_ID)}))["id"] == str(SEED_ID)


def test_float64_spacing_matches_numpy_spacing():
    for value in (1, 2**53, SEED_ID, 2**62, 1234567890123456789):
        assert sf.float64_spacing(value) == int(np.spacing(float(value)))
    assert sf.float64_spacing(SEED_ID) == 2 ** (60 - 52)
    assert math.isclose(sf.float64_spacing(2**53 - 1), 1)


# -- small helpers and pictures -------------------------------------------------------------------


def test_minted_at_and_utc_agree_with_the_node_date():
    minted = sf.SEED_000.minted_at(SEED_ID)
    assert minted.isoformat(timespec="milliseconds") == "2026-05-05T21:31:37.040+00:00"
    assert sf.utc(sf.TWITTER_EPOCH_MS).isoformat(timespec="milliseconds") == (
        "2010-11-04T01:42:54.657+00:00"
    )
