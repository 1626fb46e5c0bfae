"""setlab.models.roaring_sizes: the serialized sizes the advisor prices, straight from sorted
IDs, equal the container layout's (setlab.models.roaring, itself checked against pyroaring in
tests/lab/runs/test_roaring.py) and pyroaring's own serialize() for small sets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap, BitMap64

from setlab.models import roaring, roaring_sizes


def _layout_sizes(ascending: np.ndarray) -> tuple[list[int], int | None, int, int]:
    """Cardinalities, buckets and serialized sizes without and with runs, from the layout."""
    wide = int(ascending[-1]) >= 2**32
    build = roaring.layout64 if wide else roaring.layout
    plain = build(ascending.astype(np.uint64 if wide else np.uint32))
    runs = build(ascending.astype(np.uint64 if wide else np.uint32), run_optimize=True)
    cards = (plain.layout if wide else plain).cardinality.tolist()
    return cards, plain.buckets if wide else None, plain.serialized_bytes, runs.serialized_bytes


def _check(values: np.ndarray) -> None:
    ascending = np.unique(values)
    got = roaring_sizes.sizes(ascending)
    cards, buckets, plain, runs = _layout_sizes(ascending)
    assert got.cardinality.tolist() == cards and got.containers == len(cards)
    assert (got.buckets, got.plain_bytes, got.run_bytes) == (buckets, plain, runs)


# runs of consecutive IDs, dense chunks (bitsets, runs inside bitsets) and lone IDs, at a base
# below 2^32, just under it (a set crossing into the 64-bit buckets) or far above
_BLOCKS = st.lists(
    st.tuples(st.integers(0, 2**20), st.integers(1, 9_000), st.integers(1, 3)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=80, deadline=None)
@given(_BLOCKS, st.sampled_from([0, 2**32 - 2**19, 2**40, 2**63]))
def test_sizes_equal_the_layout_for_runs_dense_chunks_and_lone_ids(blocks, base):
    parts = [np.arange(start, start + length * step, step) for start, length, step in blocks]
    _check(np.concatenate(parts).astype(np.uint64) + np.uint64(base))


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_uint32_and_uint64_ids_below_2_32_price_the_same(dtype):
    rng = np.random.default_rng(3)
    values = np.unique(np.r_[rng.integers(0, 2**32, 30_000), np.arange(5_000, 90_000)])
    got = roaring_sizes.sizes(values.astype(dtype))
    bitmap = BitMap(values.astype(np.uint32), optimize=False)
    assert got.plain_bytes == len(bitmap.serialize()) and got.buckets is None
    bitmap.run_optimize()
    assert got.run_bytes == len(bitmap.serialize())


def test_snowflake_like_ids_each_alone_in_a_chunk_match_pyroaring():
    rng = np.random.default_rng(4)
    values = np.unique(rng.integers(2**60, 2**61, 20_000, dtype=np.uint64))
    values = np.r_[values, np.arange(2**61, 2**61 + 100, dtype=np.uint64)]  # and one run
    got = roaring_sizes.sizes(values)
    bitmap = BitMap64(values.tolist(), optimize=False)
    assert got.plain_bytes == len(bitmap.serialize())
    bitmap.run_optimize()
    assert got.run_bytes == len(bitmap.serialize())
    assert got.containers == bitmap.get_statistics()["n_containers"]
