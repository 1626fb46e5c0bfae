"""Tests for the MurmurHash3 side of setlab.core.hashing: seed 000's hash64, and the vectorised
ports used by the Monte Carlo runs.

References come from outside the module: the ``mmh3`` package (Appleby's C code) for every hash,
and OpenJDK 17 with Guava 31.1 (``Hashing.murmur3_128().hashLong(id).asLong()``) for hash64.
"""

from __future__ import annotations

import mmh3
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setlab.core import hashing

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

# OpenJDK 17 + Guava 31.1: id → Hashing.murmur3_128().hashLong(id).asLong()
GUAVA = [
    (1, 19144387141682250),
    (2, -2447670524089286488),
    (100, 8349353095166695771),
    (2051776854918803458, 5592238617885023833),
    (-5, 5820834854664223012),
]


@pytest.mark.parametrize(("user_id", "expected"), GUAVA)
def test_java_long_hash64_matches_guavas_hash_long(user_id, expected):
    assert hashing.java_long_hash64(user_id) == expected


@given(st.integers(LONG_MIN, LONG_MAX))
def test_java_long_hash64_is_the_low_half_of_murmur3_x64_128_as_a_signed_long(user_id):
    digest = mmh3.hash128(user_id.to_bytes(8, "little", signed=True), 0, True)
    low = digest & (2**64 - 1)
    assert hashing.java_long_hash64(user_id) == (low - 2**64 if low >= 2**63 else low)


def test_java_long_hash64_refuses_what_a_java_long_cannot_hold():
    with pytest.raises(ValueError, match="value must be at least"):
        hashing.java_long_hash64(2**63)
    with pytest.raises(ValueError, match="value must be an integer"):
        hashing.java_long_hash64("42")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 40), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_vectorised_murmur3_is_bit_identical_to_mmh3(length, seed, random):
    data = np.array(
        [[random.randrange(256) for _ in range(length)] for _ in range(7)], dtype=np.uint8
    ).reshape(7, length)
    h1, h2 = hashing.murmur3_x64_128_rows(data, seed)
    h32 = hashing.murmur3_32_rows(data, seed)
    for i, row in enumerate(data):
        key = row.tobytes()
        assert (int(h1.view(np.int64)[i]), int(h2.view(np.int64)[i])) == mmh3.hash64(key, seed)
        assert int(h32[i]) == mmh3.hash(key, seed, signed=False)


def test_vectorised_x64_128_of_a_long_is_java_long_hash64():
    ids = np.array([user for user, _ in GUAVA], dtype="<i8")
    h1, _ = hashing.murmur3_x64_128_rows(ids.reshape(-1, 1).view(np.uint8))
    assert h1.view(np.int64).tolist() == [expected for _, expected in GUAVA]


@pytest.mark.parametrize("function", [hashing.murmur3_x64_128_rows, hashing.murmur3_32_rows])
def test_vectorised_murmur3_refuses_anything_but_rows_of_bytes(function):
    with pytest.raises(ValueError, match="2-D uint8"):
        function(np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="2-D uint8"):
        function(np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="seed must be at least 0"):
        function(np.zeros((2, 4), dtype=np.uint8), -1)
