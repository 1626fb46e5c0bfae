"""String IDs (setlab.models.string_ids) and their advice (setlab.tools.advise_strings).

References: Python sets of the lines for the exact counts, the bit-exact HyperLogLog model of
Redis 7.0 (setlab.models.hyperloglog, checked against PFCOUNT in tests/lab) fed with the same
lines for the estimate, redis_memory's SET model fed with the distinct lines themselves, and
MEMORY USAGE figures read off Redis 7.0.15 for the HASH model (a live test re-measures them).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.core.quantities import parse_bytes
from setlab.models import bitmap, hyperloglog
from setlab.models import redis_memory as rm
from setlab.models import string_ids as sid
from setlab.tools import advise_strings
from setlab.tools.calc import choice

OPENID_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def openids(count: int, seed: int = 0) -> list[bytes]:
    """Openid-like IDs: "o" and 27 characters of [A-Za-z0-9_-] (seed 002's 28 bytes)."""
    rng = np.random.default_rng(seed)
    body = np.frombuffer(OPENID_CHARS, np.uint8)[rng.integers(0, 64, size=(count, 27))]
    return [b"o" + bytes(row) for row in body]


def _parse(lines: list[bytes], memory: int = sid.DEFAULT_MEMORY) -> sid.StringIDs:
    return sid.parse_strings(io.BytesIO(b"\n".join(lines) + b"\n"), memory=memory)


# -- reading ---------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.text(
            # control characters (DEL, C1) are not text: setlab refuses them (test_advise_inputs)
            st.characters(
                min_codepoint=33, max_codepoint=0x2FFF, blacklist_categories=("Cs", "Cc")
            ),
            min_size=1, max_size=40,
        ),
        min_size=1, max_size=300,
    )
)  # fmt: skip
def test_the_exact_count_and_lengths_are_those_of_a_python_set(words):
    lines = [w.encode() for w in words]
    found = _parse(lines)
    distinct = set(lines)
    assert found.exact and found.distinct == len(distinct) and found.ids == len(lines)
    by_length: dict[int, int] = {}
    for line in distinct:
        by_length[len(line)] = by_length.get(len(line), 0) + 1
    assert found.lengths == dict(sorted(by_length.items()))
    # what the SET model needs: every sds as the set of the lines has it; a member that is an
    # integer counts as a string (a SET makes an intset only when every member is one, and the
    # advice says to read such a file as integers), so the rest matches when none is
    summary, model = found.members, rm.Members.of(distinct)
    assert (summary.count, summary.sds_bytes, summary.max_length) == (
        model.count, model.sds_bytes, model.max_length
    )  # fmt: skip
    if not any(rm.redis_integer(line) is not None for line in distinct):
        assert summary == model


def test_spaces_crlf_blank_lines_and_a_byte_order_mark_are_not_part_of_an_id():
    data = b"\xef\xbb\xbfalice\r\n  bob \t\n\n\r\nalice\ncarol"
    found = sid.parse_strings(io.BytesIO(data))
    assert (found.ids, found.blank_lines, found.distinct) == (4, 2, 3)
    assert found.lengths == {3: 1, 5: 2} and found.line_lengths == {3: 1, 5: 3}


def test_a_file_read_in_many_blocks_counts_as_one(monkeypatch):
    monkeypatch.setattr(sid.id_files, "BLOCK_BYTES", 1000)  # 34 blocks of openids
    lines = openids(1000) + openids(200)
    found = _parse(lines)
    assert found.exact and found.distinct == 1000 and found.ids == 1200


def test_past_the_memory_bound_the_count_is_redis_hyperloglog_estimate_of_the_same_ids():
    lines = openids(60_000, seed=3)
    lines += lines[:10_000]
    found = _parse(lines, memory=1 << 20)  # 43,690 exact at most
    assert not found.exact and found.exact_limit == (1 << 20) // sid.EXACT_PEAK_BYTES
    sketch = hyperloglog.HyperLogLog()
    sketch.add_hashes(hyperloglog.hll_hashes(lines))
    assert found.distinct == sketch.count()  # what PFADD of these lines, then PFCOUNT, says
    assert abs(found.distinct - 60_000) < 3 * found.relative_error * 60_000
    assert sum(found.lengths.values()) == found.distinct and list(found.lengths) == [28]


def test_under_the_bound_the_count_stays_exact():
    lines = openids(40_000, seed=4)
    assert _parse(lines, memory=1 << 20).exact


@pytest.mark.parametrize(
    "data, message",
    [
        (b"alice\n" + b"x" * 2000 + b"\n", "line 2: 2,000 bytes long, not an ID"),
        (b"alice\nbob\x00\n", "line 2: a NUL byte"),
        (b"\n \n", "no IDs found"),
        (b"a\n" + b"y" * (3 * sid.MAX_STRING), "line 2: more than 1024 characters"),
    ],
)
def test_what_is_not_a_file_of_ids_is_one_error_naming_the_line(data, message):
    with pytest.raises(ValueError, match=message):
        sid.parse_strings(io.BytesIO(data))


@pytest.mark.parametrize(
    "head, strings",
    [
        (b"ohlkUvNGBeu3YV4IedU7OW2vwEDd\nohlkUvNGBeu3YV4IedU7OW2vwEDe\n", True),
        (b"alice@example.com\nbob@example.com\n", True),
        (b"1\n2\nbob\n3\n", True),  # a string among the first IDs after the first
        (b"user_id\n1\n2\n3\n", False),  # a header over decimals: the integer reader says so
        (b"1\n2\n3\n", False),
        (b"deadbeef\ncafebabe\n", False),
        (b"0x1f\n0x20\n", False),
        (b"123e4567-e89b-12d3-a456-426614174000\n", False),
        (b"1\n2\n3\nbo", False),  # a cut last line does not decide...
    ],
)
def test_auto_reads_strings_only_when_an_id_after_the_first_is_no_number(head, strings):
    assert sid.looks_like_strings(head, whole=False) is strings


def test_a_whole_file_decides_on_its_last_line_too():
    assert sid.looks_like_strings(b"1\n2\n3\nbo", whole=True)  # ...unless it is the whole file


def test_stdin_is_looked_at_and_then_read_whole(monkeypatch):
    data = b"".join(line + b"\n" for line in openids(5000))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    strings, source = sid.sniff("-")
    assert strings and sid.read_strings(source, progress=False).ids == 5000


@pytest.mark.parametrize(
    "text, expected",
    [("1GiB", 1 << 30), ("512MB", 512 * 10**6), ("2^20", 1 << 20), ("800MiB", 800 << 20)],
)
def test_memory_sizes_are_read_in_bytes(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("text", ["1.5B", "-1", "12 parsecs", "0"])
def test_a_memory_size_that_is_not_one_is_refused_naming_it(text):
    with pytest.raises(ValueError, match="memory"):
        parse_bytes(text)


# -- the HASH model --------------------------------------------------------------------------------

#: (fields, field length) -> MEMORY USAGE key SAMPLES 0 on Redis 7.0.15 (jemalloc 5.3.0, Debian)
#: of the key "setlab:probe:h<fields>-<length>", fields of random letters, values 0 … n−1 sent
#: by HSET in batches of 500 (tests/lab/runs/test_live_memory.py measures it again)
MEASURED_HASHES = {(5, 10): 152, (512, 28): 20552, (513, 28): 41152, (20000, 28): 1542272}


@pytest.mark.parametrize(("fields", "length"), list(MEASURED_HASHES))
def test_the_hash_model_matches_memory_usage_on_both_sides_of_the_listpack_limit(fields, length):
    key = f"setlab:probe:h{fields}-{length}"
    cost = rm.hash_cost(
        rm.Members.fixed_length(fields, length), rm.Members.decimal_range(0, fields), key
    )
    assert cost.encoding == ("listpack" if fields <= 512 else "hashtable")
    assert cost.memory_usage == MEASURED_HASHES[(fields, length)]
    assert sum(cost.parts.values()) == cost.memory_usage
    assert sum(cost.allocated_parts.values()) == cost.allocated >= cost.memory_usage


def test_a_hash_needs_one_value_per_field():
    with pytest.raises(ValueError, match="as many values as fields"):
        rm.hash_cost(rm.Members.fixed_length(3, 5), rm.Members.decimal_range(0, 2))


# -- the advice ------------------------------------------------------------------------------------


def test_the_set_is_priced_by_the_set_model_of_the_distinct_lines_and_the_remap_by_its_parts():
    lines = openids(3000) + openids(100)
    found = _parse(lines)
    by_name = {c.name: c for c in advise_strings.candidates(found)}
    assert by_name["Redis SET"].memory == rm.set_cost(set(lines)).allocated
    numbers = rm.Members.decimal_range(0, 3000)
    remap = rm.hash_cost(rm.Members.of(set(lines)), numbers, advise_strings.MAP_KEY).allocated
    remap += bitmap.first_setbit_memory_usage(2999)
    assert by_name["dense remap: HASH + bitmap"].memory == remap
    assert not any(c.name.startswith(("plain bitmap", "Roaring")) for c in by_name.values())


def test_a_few_ids_stay_a_set_many_at_one_percent_become_a_bloom_filter():
    few = advise_strings.advise_strings(_parse(openids(50)))
    assert few.recommendation.choice.name == "Redis SET"
    many = advise_strings.advise_strings(_parse(openids(200_000)))
    assert many.recommendation.choice.name.startswith("Bloom filter")
    counting = advise_strings.advise_strings(
        _parse(openids(200_000)), choice.Needs(count_only=True)
    )
    assert counting.recommendation.choice.name == "HyperLogLog"


def test_the_advice_prints_the_count_its_bound_and_the_lengths_and_says_so_in_json():
    found = _parse(openids(1000) + [b"alice@example.com"] * 3)
    advice = advise_strings.advise_strings(found)
    text = advice.text()
    assert "1,003 IDs in <stream>: strings" in text and "distinct  1,001; 2 duplicates" in text
    assert "28 B" in text and "17 B" in text and "Recommendation:" in text
    data = json.loads(json.dumps(advice.as_json()))
    assert data["kind"] == "string" and data["distinct"] == 1001 and data["exact"] is True
    assert data["lengths"] == {"17": 1, "28": 1000}
    assert {c["name"] for c in data["candidates"]} >= {"Redis SET", "HyperLogLog"}


def test_an_estimate_says_so_with_its_interval():
    found = _parse(openids(60_000, seed=5), memory=1 << 20)
    text = advise_strings.advise_strings(found).text()
    assert f"about {found.distinct:,} (95%: " in text and "HyperLogLog estimate" in text


# -- the command -----------------------------------------------------------------------------------


def _advise(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "setlab", "advise", *args], input=stdin, capture_output=True,
        timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip


def test_setlab_advise_reads_a_file_of_openids_that_it_used_to_refuse(tmp_path):
    path = tmp_path / "openids.txt"
    path.write_bytes(b"".join(line + b"\n" for line in openids(2000)))
    done = _advise(str(path), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["kind"], data["distinct"], data["lengths"]) == ("string", 2000, {"28": 2000})


def test_format_str_reads_decimals_as_the_strings_a_set_would_store():
    done = _advise("-", "--format", "str", "--json", stdin=b"1\n2\n2\n007\n")
    data = json.loads(done.stdout)
    assert (data["kind"], data["distinct"], data["integers"]) == ("string", 3, 4)  # lines


def test_a_decimal_file_with_a_stray_word_says_how_to_read_strings(tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("".join(f"{i}\n" for i in range(3000)) + "oops\n")
    done = _advise(str(path))
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert b"line 3001: 'oops' is not an ID" in done.stderr and b"--format str" in done.stderr


def test_plotting_string_ids_is_one_clear_error():
    done = _advise("-", "--plot", "x.png", stdin=b"xx\nyy\nzz\n")
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1
    assert b"string IDs have none" in done.stderr
