"""The compiled kernels of :mod:`setlab.models.packed_bloom` (numba, imported only when a build
asks for ``kernel="numba"``): module-level functions, so numba caches their machine code.

``checksum`` does what :meth:`setlab.models.bloom_sim.BloomLayout.locate` does for IDs numbered
``first …`` and XORs each ID's ``(shard, g, step)`` word: the hashing share of a build. ``build``
sets the bits. It sorts the IDs' words by group of shards without a second copy of them (a
counting pass, then the words hashed again straight into their place), and then sets each
group's bits with the group held in the CPU's cache, the threads taking disjoint runs of groups,
so no two threads write one byte. In ID order every write would be a cache miss somewhere in
2 GiB. Both split the work over ``threads`` (the caller passes ``numba.get_num_threads()``: a
call inside would stop numba caching the machine code).

Their threads come from a fork-safe threading layer unless the user chose one
(``NUMBA_THREADING_LAYER``): :mod:`setlab.lab.full_scale.peers` runs each tool in a forked child,
and GNU OpenMP, numba's first choice where it is installed, kills a forked child that runs parallel
code once the parent has (numba's "workqueue" layer does not; "forksafe" picks it or a safe OpenMP).
"""

from __future__ import annotations

import numba
import numpy as np

from setlab.core.hashing import SPLITMIX64_GAMMA, SPLITMIX64_MUL1, SPLITMIX64_MUL2

if numba.config.THREADING_LAYER == "default":  # read when the first parallel loop runs
    numba.config.THREADING_LAYER = "forksafe"

_ONE = np.uint64(1)
_FMIX1, _FMIX2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)


@numba.njit(cache=True, inline="always")
def word_of(i, m, shard_bits, width, s1, s2):  # pragma: no cover - compiled
    m64 = np.uint64(m)
    z = (np.uint64(i) + _ONE) * SPLITMIX64_GAMMA
    z = (z ^ (z >> np.uint64(30))) * SPLITMIX64_MUL1
    z = (z ^ (z >> np.uint64(27))) * SPLITMIX64_MUL2
    z = z ^ (z >> np.uint64(31))
    h1 = z ^ s1
    h1 = (h1 ^ (h1 >> np.uint64(33))) * _FMIX1
    h1 = (h1 ^ (h1 >> np.uint64(33))) * _FMIX2
    h1 = h1 ^ (h1 >> np.uint64(33))
    h2 = z ^ s2
    h2 = (h2 ^ (h2 >> np.uint64(33))) * _FMIX1
    h2 = (h2 ^ (h2 >> np.uint64(33))) * _FMIX2
    h2 = h2 ^ (h2 >> np.uint64(33))
    if shard_bits:
        shard = h1 >> np.uint64(64 - shard_bits)
        low = h1 & ((_ONE << np.uint64(64 - shard_bits)) - _ONE)
    else:
        shard, low = np.uint64(0), h1
    if (m & (m - 1)) == 0:  # a power of two: masks, the same values as % (no division)
        g, step = low & (m64 - _ONE), (h2 & (m64 - _ONE)) | _ONE
    else:
        g, step = low % m64, _ONE + h2 % (m64 - _ONE)
    return (shard << np.uint64(2 * width)) | (g << np.uint64(width)) | step


@numba.njit(cache=True, inline="always")
def slice_of(count, threads):  # pragma: no cover - compiled
    return (count + threads - 1) // threads  # IDs per thread


@numba.njit(cache=True, parallel=True)
def checksum(first, count, m, shard_bits, width, s1, s2, threads):  # pragma: no cover - compiled
    per = slice_of(count, threads)
    partial = np.zeros(threads, dtype=np.uint64)
    for t in numba.prange(threads):
        x = np.uint64(0)
        for j in range(t * per, min(count, (t + 1) * per)):
            x ^= word_of(first + j, m, shard_bits, width, s1, s2)
        partial[t] = x
    out = np.uint64(0)
    for t in range(threads):
        out ^= partial[t]
    return out


@numba.njit(cache=True, parallel=True)
def build(
    packed, ordered, first, count, m, k, shard_bits, width, s1, s2, group_shift, groups, threads
):  # pragma: no cover - compiled
    per = slice_of(count, threads)
    counts = np.zeros((threads, groups), dtype=np.int64)
    for t in numba.prange(threads):  # how many words each thread has for each group
        for j in range(t * per, min(count, (t + 1) * per)):
            word = word_of(first + j, m, shard_bits, width, s1, s2)
            counts[t, word >> np.uint64(group_shift)] += 1
    starts = np.empty(groups + 1, dtype=np.int64)
    at = 0
    for g in range(groups):  # group after group; within one, thread after thread
        starts[g] = at
        for t in range(threads):
            c = counts[t, g]
            counts[t, g] = at
            at += c
    starts[groups] = at
    for t in numba.prange(threads):  # each thread hashes its IDs again, into their place
        for j in range(t * per, min(count, (t + 1) * per)):
            word = word_of(first + j, m, shard_bits, width, s1, s2)
            g = word >> np.uint64(group_shift)
            ordered[counts[t, g]] = word
            counts[t, g] += 1
    m64, mask = np.uint64(m), (_ONE << np.uint64(width)) - _ONE
    power_of_two, low = (m & (m - 1)) == 0, np.uint64(m) - _ONE
    for g in numba.prange(groups):  # a group's bytes are its own: no two threads share one
        for j in range(starts[g], starts[g + 1]):
            word = ordered[j]
            step = word & mask
            off = (word >> np.uint64(width)) & mask
            base = (word >> np.uint64(2 * width)) * m64
            if power_of_two:  # every offset on its own: no chain of adds for the CPU to wait on
                for i in range(k):
                    bit = base + ((off + np.uint64(i) * step) & low)
                    packed[bit >> np.uint64(3)] |= np.uint8(0x80) >> np.uint8(bit & np.uint64(7))
            else:
                for _ in range(k):
                    bit = base + off
                    packed[bit >> np.uint64(3)] |= np.uint8(0x80) >> np.uint8(bit & np.uint64(7))
                    off += step
                    if off >= m64:
                        off -= m64
