"""setlab.models.valkey_hashtable against Valkey 8.1's hashtable.c, restated literally here: the
resize policy insert by insert, the bucket chains slot by slot, and small hand-counted layouts."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import valkey_hashtable as vh


def _literal_buckets(count: int, first_insert: int = 1) -> int:
    """hashtableExpandIfNeeded before every insert, as hashtable.c writes it: resize for
    ``used + 1`` entries when ``(used + 1) * 100 > buckets * 7 * 100``; ``nextBucketExp`` is
    ``ceil(n * 5 / 32)`` rounded up to a power of two. A table first sized for ``first_insert``."""
    buckets = 0
    for used in range(count):
        if used == 0:
            wanted = -(-first_insert * 5 // 32)
            buckets = 1 << max(0, wanted - 1).bit_length()
        elif (used + 1) * 100 > buckets * 7 * 100:
            wanted = -(-(used + 1) * 5 // 32)
            buckets = max(buckets, 1 << max(0, wanted - 1).bit_length())
    return buckets


class _Bucket:
    """A 64-byte bucket: 7 slots; when chained, the last one points at the child."""

    def __init__(self) -> None:
        self.entries: list[int] = []
        self.child: _Bucket | None = None

    def full(self) -> bool:
        return len(self.entries) == (6 if self.child else 7)


def _literal_chain(entries: int) -> int:
    """findBucketForInsert and bucketConvertToChained, slot by slot: child buckets of a chain."""
    top, children = _Bucket(), 0
    for entry in range(entries):
        b = top
        while b.full():
            if b.child is None:  # the last entry moves to a new child bucket
                b.child = _Bucket()
                b.child.entries.append(b.entries.pop())
                children += 1
            b = b.child
        b.entries.append(entry)
    return children


def test_hand_counted_bucket_counts():
    # ceil(n * 5 / 32): 1 -> 1, 6 -> 1, 7 -> 2, 129 -> 21 -> 32, 1000 -> 157 -> 256
    assert [vh.buckets_for(n) for n in (0, 1, 6, 7, 129, 1000)] == [1, 1, 1, 2, 32, 256]
    # one at a time: 7 entries fit 1 bucket, the 8th doubles it, 15 need 4, 29 need 8
    assert [vh.buckets_after_inserts(n) for n in (1, 7, 8, 14, 15, 28, 29)] == [1, 1, 2, 2, 4, 4, 8]
    # 850 members fit 128 buckets at seven a bucket; one SADD of 850 sizes the table for
    # ceil(850 * 5 / 32) = 133 -> 256 buckets
    assert vh.buckets_after_inserts(850) == 128
    assert vh.buckets_after_inserts(850, 850) == 256


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 20_000), st.integers(1, 3000))
def test_buckets_follow_the_insert_by_insert_resize_policy(count, first_insert):
    first = min(first_insert, max(count, 1))
    assert vh.buckets_after_inserts(count, first) == max(1, _literal_buckets(count, first))


def test_hand_counted_child_buckets():
    # the top bucket holds 7; the 8th moves one entry out to a child (6 + pointer, 2 in the
    # child); every further 6 entries need one more child
    assert [vh.child_buckets_for(n) for n in (0, 7, 8, 13, 14, 19, 20)] == [0, 0, 1, 1, 2, 2, 3]
    assert vh.chains_of([0] * 8 + [1] * 3 + [5] * 14) == (3, 1 + 2)


@pytest.mark.parametrize("entries", range(0, 60))
def test_child_buckets_are_those_of_the_slot_by_slot_insert(entries):
    assert vh.child_buckets_for(entries) == _literal_chain(entries)


@pytest.mark.parametrize(("count", "buckets"), [(129, 32), (513, 128), (10_000, 2048)])
def test_expected_child_buckets_is_the_mean_of_uniform_layouts(count, buckets):
    rng = random.Random(count)
    draws = [vh.chains_of(rng.randrange(buckets) for _ in range(count))[1] for _ in range(400)]
    spread = statistics.pstdev(draws) / 400**0.5
    assert abs(vh.expected_child_buckets(count, buckets) - statistics.mean(draws)) < 4 * spread


def test_a_single_bucket_has_the_child_buckets_of_its_chain_exactly():
    assert vh.expected_child_buckets(20, 1) == 3
    assert vh.table_bytes(2, 1) == 72 + 3 * 64
