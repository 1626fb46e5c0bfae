"""setlab.tools.analysis and setlab.tools.advise: describing IDs, pricing the structures,
recommending one (reading them is tests/unit/test_ids.py).

References: brute-force counts over Python sets, pyroaring (an independent Roaring
implementation) for the Roaring bytes, the SET model fed with the lines themselves, and seed
003's sizing formula written out here.
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

from setlab.models import ids as ids_module
from setlab.models import redis_memory as rm
from setlab.tools import advise, analysis
from setlab.tools.calc import choice


def _read(tmp_path, text: str, name: str = "ids.txt") -> ids_module.IDs:
    path = tmp_path / name
    path.write_text(text)
    return ids_module.read_ids(path, progress=False)


# -- analysis -------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2**40), min_size=1, max_size=500))
def test_analysis_counts_match_brute_force(values):
    a = analysis.analyse(ids_module.from_integers(values))
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
    histogram = {(lo, hi): n for lo, hi, n in analysis.analyse(ids_module.from_integers(values))
                 .chunk_histogram()}  # fmt: skip
    assert histogram[(65_536, 65_536)] == 1
    assert histogram[(4_097, 16_383)] == 1
    assert histogram[(1, 1)] == 1
    assert sum(histogram.values()) == 3


def test_snowflake_like_and_wide_ids_get_notes():
    from setlab.models import snowflake as sf

    ids = [sf.TWITTER.id_at(1_700_000_000_000 + i, worker=i % 4) for i in range(1000)]
    notes = " ".join(analysis.analyse(ids_module.from_integers(ids)).notes)
    assert "snowflake" in notes and "2023-11-14" in notes and "JavaScript" in notes
    big = " ".join(analysis.analyse(ids_module.from_integers([2**63 + 1, 2**64 - 1])).notes)
    assert "not Redis integers" in big


def test_a_described_dense_set_prices_like_the_listed_ids():
    count = 300_000
    described = advise.advise(analysis.synthetic(count, "dense"))
    listed = advise.advise(analysis.analyse(ids_module.from_integers(np.arange(count))))
    assert [c.memory for c in described.candidates] == [c.memory for c in listed.candidates]
    assert described.recommendation.choice.name == listed.recommendation.choice.name


def test_described_random_32_bit_ids_are_array_containers_of_two_bytes_each():
    a = analysis.synthetic(12_000_000, "random32", seed=1)  # ~183 per chunk: all arrays
    assert a.chunks == 65_536 and a.bitmap_chunks == 0
    assert a.roaring.serialized_bytes == 8 + 8 * 65_536 + 2 * 12_000_000  # seed 003's 240 MB
    assert int(a.chunk_counts.sum()) == 12_000_000


def test_described_hashed_64_bit_ids_cost_what_pyroaring_says_for_random_ones():
    count = 50_000  # no two share a 2^32 bucket (in expectation 0.3 pairs do: none here)
    a = analysis.synthetic(count, "hashed64", seed=2)
    other = np.random.default_rng(11).integers(0, 2**63, count, dtype=np.uint64) * np.uint64(2)
    bitmap = BitMap64(other.tolist())
    bitmap.run_optimize()
    assert a.roaring.serialized_bytes == len(bitmap.serialize())
    with pytest.raises(ValueError, match="shape must be one of"):
        analysis.synthetic(10, "clustered")


# -- candidates and the recommendation ------------------------------------------------------------


def _by_name(advice: advise.Advice) -> dict[str, choice.Candidate]:
    return {c.name.split(",")[0]: c for c in advice.candidates}


def test_roaring_and_set_prices_come_from_pyroaring_and_the_lines(tmp_path):
    rng = np.random.default_rng(3)
    values = np.r_[rng.integers(0, 2**32, 30_000), np.arange(10**6, 10**6 + 20_000)]
    lines = [str(v) for v in values.tolist()]
    ids = _read(tmp_path, "\n".join(lines))
    found = _by_name(advise.advise(analysis.analyse(ids)))
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
    found = _by_name(advise.advise(analysis.analyse(ids_module.from_integers(values))))
    bitmap = BitMap64(values.tolist())
    bitmap.run_optimize()
    assert found["Roaring bitmap"].memory == len(bitmap.serialize())


def test_dense_auto_increment_ids_get_a_bitmap_with_shifted_offsets():
    rng = np.random.default_rng(5)
    ids = np.arange(50_000_000, 50_500_000)
    ids = ids[rng.random(ids.size) > 0.1]
    advice = advise.advise(analysis.analyse(ids_module.from_integers(ids)))
    assert advice.recommendation.choice.name == "plain bitmap"
    caveat = _by_name(advice)["plain bitmap"].caveats[0]
    assert "ID − 50,000,000" in caveat


def test_sparse_hashed_64_bit_ids_get_a_bloom_filter_or_a_cuckoo_filter_for_deletes():
    values = np.random.default_rng(6).integers(0, 2**63, 200_000, dtype=np.uint64)
    a = analysis.analyse(ids_module.from_integers(values))
    assert advise.advise(a).recommendation.choice.name.startswith("Bloom filter")
    with_deletes = advise.advise(a, choice.Needs(deletes=True))
    assert with_deletes.recommendation.choice.name.startswith("cuckoo filter")
    counting = advise.advise(a, choice.Needs(count_only=True))
    assert counting.recommendation.choice.name == "HyperLogLog"


def test_a_few_hundred_ids_stay_in_a_set():
    values = np.random.default_rng(7).integers(0, 2**63, 300, dtype=np.uint64)
    advice = advise.advise(analysis.analyse(ids_module.from_integers(values)))
    assert advice.recommendation.choice.name == "Redis SET"
    assert _by_name(advice)["Redis SET"].memory < 1.1 * 8 * 300 + 100  # an intset of 8-byte ints


def test_uuids_rule_out_bitmaps_and_roaring(tmp_path):
    texts = [
        str(uuid.UUID(int=int(v) << 64 | int(v), version=4))
        for v in np.random.default_rng(8).integers(0, 2**63, 2_000, dtype=np.uint64)
    ]
    advice = advise.advise(analysis.analyse(_read(tmp_path, "\n".join(texts))))
    found = _by_name(advice)
    assert found["plain bitmap"].memory is None and found["Roaring bitmap"].memory is None
    assert found["Redis SET"].memory == rm.set_cost(rm.Members.of(texts)).allocated
    assert "UUIDv4" in " ".join(advice.analysis.notes)


def test_text_and_json_say_the_same_thing(tmp_path):
    advice = advise.advise(analysis.analyse(ids_module.from_integers(range(1000, 5000))))
    text = advice.text()
    data = advice.as_json()
    assert f"Recommendation: {data['recommendation']['name']}" in text
    assert [c["name"] for c in data["candidates"]] == [c.name for c in advice.candidates]
    assert sum(row["chunks"] for row in data["chunk_histogram"]) == data["chunks"]
    assert advice.candidates_markdown().count("\n") == len(advice.candidates) + 1


def test_needs_are_checked_at_the_boundary():
    with pytest.raises(ValueError, match="error"):
        choice.Needs(error=0)
    with pytest.raises(ValueError, match="--redis must be one of"):
        choice.Needs(release="6.0")
    with pytest.raises(ValueError, match="--allocator must be one of"):
        choice.Needs(allocator="tcmalloc")


# -- the picture ----------------------------------------------------------------------------------


@pytest.mark.parametrize("values", [range(10, 300_000, 3), [2**60, 2**60 + 5, 2**62], [42]])
def test_histograms_are_saved_as_png(tmp_path, values):
    path = analysis.save_figure(
        analysis.analyse(ids_module.from_integers(values)), tmp_path / "h.png"
    )
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_uuid_histograms_and_a_missing_directory(tmp_path):
    ids = _read(tmp_path, "123e4567-e89b-12d3-a456-426614174000\n")
    a = analysis.analyse(ids)
    assert analysis.save_figure(a, tmp_path / "u.png").exists()
    with pytest.raises(ValueError, match="does not exist"):
        analysis.save_figure(a, tmp_path / "no" / "u.png")
