"""setlab.tools.advise: reading IDs, describing them, pricing the structures, recommending one.

References: Python's own int()/uuid parsing of the same text, brute-force counts over Python sets,
pyroaring (an independent Roaring implementation) for the Roaring bytes, the SET model fed with
the lines themselves, and seed 003's sizing formula written out here.
"""

from __future__ import annotations

import collections
import itertools
import math
import uuid

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap, BitMap64

from setlab.models import redis_memory as rm
from setlab.tools import advise

U64 = 2**64 - 1


def _read(tmp_path, text: str | bytes, name: str = "ids.txt") -> advise.IDs:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return advise.read_ids(path, progress=False)


# -- reading --------------------------------------------------------------------------------------

_SPACE = st.sampled_from(["", " ", "\t", "  "])


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(0, U64), min_size=1, max_size=300),
    form=st.sampled_from(["decimal", "hex", "0x"]),
    pad=st.tuples(_SPACE, _SPACE),
    ending=st.sampled_from(["\n", "\r\n"]),
    blanks=st.integers(0, 3),
)
def test_integers_round_trip_through_text(values, form, pad, ending, blanks):
    write = {"decimal": str, "hex": lambda v: f"{v:x}", "0x": lambda v: f"0x{v:X}"}[form]
    if form == "hex" and all(f"{v:x}".isdigit() for v in values):
        values = [*values, 0xABC]  # a hex file needs one ID with a letter to look like hex
    texts = [write(v) for v in values]
    body = ending.join(pad[0] + t + pad[1] for t in texts) + ending * (blanks + 1)
    ids = advise.parse_ids(body.encode())
    assert ids.values.tolist() == values
    assert ids.lengths.tolist() == [len(t) for t in texts]
    assert ids.blank_lines == blanks
    assert ids.kind == ("decimal" if form == "decimal" else "hex")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2**128 - 1), min_size=1, max_size=200), st.booleans())
def test_uuids_and_wide_hex_keep_all_128_bits(values, as_uuid):
    if not as_uuid and all(f"{v:032x}".isdigit() for v in values):
        values = [*values, 2**128 - 1]  # one ID with a letter, or the file reads as decimal
    texts = [str(uuid.UUID(int=v)) if as_uuid else f"{v:032x}" for v in values]
    expected = [int(t.replace("-", ""), 16) for t in texts]
    ids = advise.parse_ids("\n".join(texts).encode())
    assert ids.high is not None and ids.bits == 128
    got = [(int(h) << 64) | int(lo) for h, lo in zip(ids.high, ids.values, strict=True)]
    assert got == expected


def test_blocks_are_cut_at_line_ends_and_line_numbers_survive(monkeypatch):
    monkeypatch.setattr(advise, "BLOCK_BYTES", 50)
    lines = [str(i * 7919) for i in range(200)]
    assert advise.parse_ids("\n".join(lines).encode()).values.tolist() == [int(x) for x in lines]
    lines[150] = "oops"
    with pytest.raises(ValueError, match=r"^line 151: 'oops'"):
        advise.parse_ids("\n".join(lines).encode())


def test_a_hex_file_is_hex_even_where_a_line_has_no_letters():
    ids = advise.parse_ids(b"1234567890123456\na1b2c3d4e5f60718\n")
    assert ids.kind == "hex"
    assert ids.values.tolist() == [0x1234567890123456, 0xA1B2C3D4E5F60718]


def test_leading_zeros_are_remembered_because_redis_keeps_them_as_strings():
    ids = advise.parse_ids(b"007\n7\n0\n")
    assert ids.canonical.tolist() == [False, True, True]
    assert ids.lengths.tolist() == [3, 1, 1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"user_id\n1\n", "^line 1: 'user_id' is not an ID.*header"),
        (b"1\n2\n3,4\n", "^line 3: '3,4' is not an ID"),
        (b"1\n2 3\n", "^line 2: .*two values"),
        (b"1\n123e4567-e89b-12d3-a456-426614174000\n", "^line 2: .* UUID but line 1"),
        (b"18446744073709551616\n", "^line 1: .*above 2\\^64"),
        (b"1" * 21 + b"\n", "more than 20 digits"),
        (b"a" * 33 + b"\n", "more than 32 hex digits"),
        (b"1\n\x00\x01\n", "^line 2: a NUL byte"),
        (b"1\n" + b"9" * 500 + b"\n", "^line 2: 500 characters"),
        (b"", "no IDs"), (b"\n \n\t\n", "no IDs"), (b"-5\n", "not an ID"), (b"0x\n", "not an ID"),
        ("caf\u00e9\n".encode(), "not an ID"),
    ],
)  # fmt: skip
def test_bad_input_names_the_line_and_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        advise.parse_ids(text)


def test_read_ids_reports_missing_files_and_directories(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        advise.read_ids(tmp_path / "missing.txt", progress=False)
    with pytest.raises(ValueError, match="directory"):
        advise.read_ids(tmp_path, progress=False)


def test_a_utf8_byte_order_mark_is_not_part_of_the_first_id(tmp_path):
    assert _read(tmp_path, b"\xef\xbb\xbf42\n43\n").values.tolist() == [42, 43]


# -- analysis -------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2**40), min_size=1, max_size=500))
def test_analysis_counts_match_brute_force(values):
    a = advise.analyse(advise.from_integers(values))
    distinct = sorted(set(values))
    assert (a.distinct, a.duplicates) == (len(distinct), len(values) - len(distinct))
    assert (a.low, a.high) == (distinct[0], distinct[-1])
    assert a.runs == 1 + sum(b != c + 1 for c, b in itertools.pairwise(distinct))
    chunks = collections.Counter(v >> 16 for v in distinct)
    assert sorted(a.chunk_counts.tolist()) == sorted(chunks.values())
    assert a.range_counts.sum() == len(distinct)
    assert a.density == pytest.approx(len(distinct) / (distinct[-1] - distinct[0] + 1))
    repeats = collections.Counter(values).most_common(1)[0][1]
    assert (a.most_repeated is None) == (repeats == 1)
    if a.most_repeated:
        assert a.most_repeated[1] == repeats


def test_chunk_histogram_puts_full_chunks_and_singletons_in_their_bins():
    values = np.r_[np.arange(65_536), 2**20 + np.arange(5_000), [2**30]]
    histogram = {(lo, hi): n for lo, hi, n in advise.analyse(advise.from_integers(values))
                 .chunk_histogram()}  # fmt: skip
    assert histogram[(65_536, 65_536)] == 1
    assert histogram[(4_097, 16_383)] == 1
    assert histogram[(1, 1)] == 1
    assert sum(histogram.values()) == 3


def test_snowflake_like_and_wide_ids_get_notes():
    from setlab.models import snowflake as sf

    ids = [sf.TWITTER.id_at(1_700_000_000_000 + i, worker=i % 4) for i in range(1000)]
    notes = " ".join(advise.analyse(advise.from_integers(ids)).notes)
    assert "snowflake" in notes and "2023-11-14" in notes and "JavaScript" in notes
    big = " ".join(advise.analyse(advise.from_integers([2**63 + 1, 2**64 - 1])).notes)
    assert "not Redis integers" in big


# -- candidates and the recommendation ------------------------------------------------------------


def _by_name(advice: advise.Advice) -> dict[str, advise.Candidate]:
    return {c.name.split(",")[0]: c for c in advice.candidates}


def test_roaring_and_set_prices_come_from_pyroaring_and_the_lines(tmp_path):
    rng = np.random.default_rng(3)
    values = np.r_[rng.integers(0, 2**32, 30_000), np.arange(10**6, 10**6 + 20_000)]
    lines = [str(v) for v in values.tolist()]
    ids = _read(tmp_path, "\n".join(lines))
    found = _by_name(advise.advise(advise.analyse(ids)))
    bitmap = BitMap(values.astype(np.uint32))
    bitmap.run_optimize()
    assert found["Roaring bitmap"].memory == len(bitmap.serialize())
    assert found["Redis SET"].memory == rm.set_cost(rm.Members.of(lines)).allocated
    n = len(set(lines))
    assert found["Bloom filter"].memory == math.ceil(math.ceil(n * math.log(100) / math.log(2)
                                                               ** 2) / 8)  # fmt: skip
    assert found["plain bitmap"].memory >= int(values.max()) // 8 + 1


def test_roaring64_price_matches_pyroaring():
    rng = np.random.default_rng(4)
    values = rng.integers(2**40, 2**50, 5_000, dtype=np.uint64)
    found = _by_name(advise.advise(advise.analyse(advise.from_integers(values))))
    bitmap = BitMap64(values.tolist())
    bitmap.run_optimize()
    assert found["Roaring bitmap"].memory == len(bitmap.serialize())


def test_dense_auto_increment_ids_get_a_bitmap_with_shifted_offsets():
    rng = np.random.default_rng(5)
    ids = np.arange(50_000_000, 50_500_000)
    ids = ids[rng.random(ids.size) > 0.1]
    advice = advise.advise(advise.analyse(advise.from_integers(ids)))
    assert advice.recommendation.choice.name == "plain bitmap"
    caveat = _by_name(advice)["plain bitmap"].caveats[0]
    assert "ID − 50,000,000" in caveat


def test_sparse_hashed_64_bit_ids_get_a_bloom_filter_or_a_cuckoo_filter_for_deletes():
    values = np.random.default_rng(6).integers(0, 2**63, 200_000, dtype=np.uint64)
    a = advise.analyse(advise.from_integers(values))
    assert advise.advise(a).recommendation.choice.name.startswith("Bloom filter")
    with_deletes = advise.advise(a, advise.Needs(deletes=True))
    assert with_deletes.recommendation.choice.name.startswith("cuckoo filter")
    counting = advise.advise(a, advise.Needs(count_only=True))
    assert counting.recommendation.choice.name == "HyperLogLog"


def test_a_few_hundred_ids_stay_in_a_set():
    values = np.random.default_rng(7).integers(0, 2**63, 300, dtype=np.uint64)
    advice = advise.advise(advise.analyse(advise.from_integers(values)))
    assert advice.recommendation.choice.name == "Redis SET"
    assert _by_name(advice)["Redis SET"].memory < 1.1 * 8 * 300 + 100  # an intset of 8-byte ints


def test_uuids_rule_out_bitmaps_and_roaring(tmp_path):
    texts = [
        str(uuid.UUID(int=int(v) << 64 | int(v), version=4))
        for v in np.random.default_rng(8).integers(0, 2**63, 2_000, dtype=np.uint64)
    ]
    advice = advise.advise(advise.analyse(_read(tmp_path, "\n".join(texts))))
    found = _by_name(advice)
    assert found["plain bitmap"].memory is None and found["Roaring bitmap"].memory is None
    assert found["Redis SET"].memory == rm.set_cost(rm.Members.of(texts)).allocated
    assert "UUIDv4" in " ".join(advice.analysis.notes)


def test_text_and_json_say_the_same_thing(tmp_path):
    advice = advise.advise(advise.analyse(advise.from_integers(range(1000, 5000))))
    text = advice.text()
    data = advice.as_json()
    assert f"Recommendation: {data['recommendation']['name']}" in text
    assert [c["name"] for c in data["candidates"]] == [c.name for c in advice.candidates]
    assert sum(row["chunks"] for row in data["chunk_histogram"]) == data["chunks"]
    assert advice.candidates_markdown().count("\n") == len(advice.candidates) + 1


def test_needs_are_checked_at_the_boundary():
    with pytest.raises(ValueError, match="error"):
        advise.Needs(error=0)
    with pytest.raises(ValueError, match="version"):
        advise.Needs(version="6.0")


# -- the picture ----------------------------------------------------------------------------------


@pytest.mark.parametrize("values", [range(10, 300_000, 3), [2**60, 2**60 + 5, 2**62], [42]])
def test_histograms_are_saved_as_png(tmp_path, values):
    path = advise.save_figure(advise.analyse(advise.from_integers(values)), tmp_path / "h.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_uuid_histograms_and_a_missing_directory(tmp_path):
    ids = _read(tmp_path, "123e4567-e89b-12d3-a456-426614174000\n")
    a = advise.analyse(ids)
    assert advise.save_figure(a, tmp_path / "u.png").exists()
    with pytest.raises(ValueError, match="does not exist"):
        advise.save_figure(a, tmp_path / "no" / "u.png")
