"""What this machine can do at most, for the full-scale build to be held against: memory bandwidth,
random bit writes into a filter-sized array, and bit writes into a cache-sized one.

:func:`measure` times three loops on every core numba is given (the build's own threads):

- ``copy``: a STREAM-like copy of a 1 GiB array (``np.copyto``, one thread), counted as bytes
  read plus bytes written per second;
- ``random``: bits set at random positions in a 2 GiB array (seed 002's payload; each thread in
  its own half): each write is a cache miss, which is what a build in ID order pays;
- ``cached``: the same writes, each thread into its own 256 KiB (the build's group of shards,
  which stays in the core's cache).

The positions come from a 64-bit LCG in registers (a few cycles), so the loops time the writes,
not the random numbers. :func:`build_floor` turns the figures into the shortest time a build of
``bits`` writes in ``sweeps`` passes over ``payload`` bytes could take here.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

import numpy as np

from setlab.models.packed_bloom import GROUP_BITS

#: Bytes of the random-write target (seed 002's packed filter) and of the cached one (the
#: build's group of shards).
RANDOM_BYTES, CACHED_BYTES = 2**31, GROUP_BITS // 8
#: Bytes of the copied array, and bit writes per timed loop.
COPY_BYTES, WRITES = 2**30, 2**26


@cache
def _kernel() -> Any:
    from setlab.models.packed_kernels import numba  # with the build's threading layer

    @numba.njit(cache=True, parallel=True)
    def set_bits(array, writes, seed, threads):  # pragma: no cover - compiled
        per = (writes + threads - 1) // threads
        size = array.size // threads  # each thread its own part, as the build's groups are
        mask = np.uint64(size * 8 - 1)  # size is a power of two
        for t in numba.prange(threads):
            x = np.uint64(seed + 2 * t + 1)
            base = np.uint64(t * size)
            for _ in range(per):
                x = x * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
                bit = (x >> np.uint64(17)) & mask
                at = base + (bit >> np.uint64(3))
                array[at] |= np.uint8(0x80) >> np.uint8(bit & np.uint64(7))

    return set_bits, numba.get_num_threads()


def bits_per_second(nbytes: int, writes: int = WRITES) -> float:
    """Bit writes per second at random positions, each thread in its own ``nbytes`` (a power of
    two) of one array."""
    set_bits, threads = _kernel()
    array = np.zeros(nbytes * threads, dtype=np.uint8)
    array[::4096] = 1  # touch every page first: time writes, not page faults
    set_bits(array, 1024, 0, threads)  # compile (or load the cached machine code)
    t0 = time.perf_counter()
    set_bits(array, writes, 1, threads)
    return writes / (time.perf_counter() - t0)


def measure(writes: int = WRITES) -> dict[str, float]:
    """The machine's limits: ``copy_bytes_per_second`` (read + write), and
    ``random_bits_per_second`` / ``cached_bits_per_second`` over every numba thread, with
    ``threads``."""
    _, threads = _kernel()
    source = np.ones(COPY_BYTES, dtype=np.uint8)
    target = np.empty_like(source)
    np.copyto(target, source)  # fault the pages in
    t0 = time.perf_counter()
    np.copyto(target, source)
    copy = 2 * COPY_BYTES / (time.perf_counter() - t0)
    del source, target
    return {
        "threads": float(threads),
        "copy_bytes_per_second": copy,
        "random_bits_per_second": bits_per_second(RANDOM_BYTES // threads, writes),
        "cached_bits_per_second": bits_per_second(CACHED_BYTES, writes),
    }


def build_floor(limits: dict[str, float], bits: int, sweeps: int, payload: int) -> float:
    """Seconds a build can take at the least here: ``bits`` writes at the cached rate, plus
    ``sweeps`` passes that read and write ``payload`` bytes at the copy bandwidth."""
    return (
        bits / limits["cached_bits_per_second"]
        + sweeps * 2 * payload / limits["copy_bytes_per_second"]
    )
