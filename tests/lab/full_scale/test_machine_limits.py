"""setlab.lab.full_scale.machine_limits: the loops that time this machine's limits write what they
count,
and the build floor is the arithmetic it states."""

from __future__ import annotations

import numpy as np
import pytest

from setlab.lab.full_scale import machine_limits


def test_the_bit_write_loop_sets_bits_in_every_threads_part():
    set_bits, threads = machine_limits._kernel()
    size = 2**12
    array = np.zeros(size * threads, dtype=np.uint8)
    set_bits(array, 2**14, 1, threads)
    ones = np.unpackbits(array).reshape(threads, -1).sum(axis=1)
    # 2^14 writes into 2^15 bits per thread part: distinct positions ≈ n(1 − e^(−w/n)) each
    per = 2**14 // threads
    expected = size * 8 * (1 - np.exp(-per / (size * 8)))
    assert all(abs(o - expected) < 0.05 * expected for o in ones), (ones, expected)


def test_the_build_floor_adds_the_cached_writes_and_the_sweeps():
    limits = {"cached_bits_per_second": 1e9, "copy_bytes_per_second": 2e10}
    assert machine_limits.build_floor(limits, 8 * 10**9, 12, 2**31) == pytest.approx(
        8.0 + 12 * 2 * 2**31 / 2e10
    )
