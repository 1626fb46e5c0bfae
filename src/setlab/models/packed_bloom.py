"""A sharded Bloom filter built in one packed bit array: seed 002's 8 × 10^8 IDs in 2 GiB.

Seed 002 (§8) loaded 8 × 10^8 openids × 10 hashes into 2^17 Redis strings of 2^17 bits and took
about 20 hours. This module builds the same filter in process memory, one bit per bit (the
:class:`setlab.models.bloom_sim.BloomSimulator` spends a byte per bit, 16 GiB at this size), so
that :mod:`setlab.lab.full_scale.sharded_bloom` can write it to Redis shard by shard with ``SET``.

The IDs. ID number ``i`` is ``splitmix64(i)`` (Steele, Lea & Flood, "Fast splittable
pseudorandom number generators", OOPSLA 2014): a bijection on 64-bit integers, so IDs
``0 … n-1`` are distinct and every ID numbered ``n`` or more was never inserted. They stand for
the 64-bit hash of a 28-character openid. That changes nothing the filter can see: a Bloom filter
only ever looks at its items through :func:`setlab.models.bloom_sim.base_hashes`, and distinct
inputs give (to within a 2^-64 collision chance per pair) independent, uniform 64-bit hashes
whether the input was a string or an integer. The evidence is the measured false-positive rate,
which the full-scale run compares with :func:`setlab.models.bloom.sharded_fpr`.

The bits. :func:`build_packed` sets exactly the bits :meth:`BloomLayout.locate` picks (the book's
hashing: MurmurHash3's ``fmix64`` with two seeds, Kirsch–Mitzenmacher double hashing, the top
``shard_bits`` of ``h1`` choosing the key), packed the way Redis stores a bitmap (bit 0 is the most
significant bit of byte 0), shard after shard: shard ``s`` is bytes ``s·m/8 … (s+1)·m/8``. Two
kernels compute it: ``"numpy"`` (``BloomLayout.locate`` and ``np.bitwise_or.at``: a few million
bits/s) and ``"numba"`` (the same arithmetic compiled, on every core; each ID's shard, first offset
and step go into one 64-bit word, the words of 2^26 IDs are sorted by group of shards, and the bits
are set group after group, so the writes hit the CPU cache instead of random places in 2 GiB; the
``dev`` extra installs numba). The tests check that both give the same bytes, and the same bytes as
:class:`setlab.models.bloom_sim.BloomSimulator`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Literal

import numpy as np

from setlab.core.hashing import SPLITMIX64_GAMMA, SPLITMIX64_MUL1, SPLITMIX64_MUL2
from setlab.core.validate import check_int
from setlab.models.bloom_sim import _GOLDEN, BloomLayout

Kernel = Literal["numpy", "numba"]
KERNELS: tuple[Kernel, ...] = ("numpy", "numba")
_CHUNK = 1 << 20  # IDs per numpy step: ~200 MB of temporaries at k = 10
#: IDs per compiled step: one 512 MiB array of their words. Every step sweeps the whole filter
#: through the cache once, so fewer, larger steps move less memory (12 at seed 002's size).
NUMBA_CHUNK = 1 << 26
#: Filter bits per group of shards the compiled build fills at once (256 KiB: a core's L2).
GROUP_BITS = 1 << 21


def splitmix64(counters: np.ndarray) -> np.ndarray:
    """``splitmix64`` of each counter (uint64 in, uint64 out): ID number ``i`` of the run.

    The output function of Java's ``SplittableRandom`` applied to ``(i + 1) · 0x9E3779B97F4A7C15``
    — a bijection, so distinct counters give distinct IDs.
    """
    z = (counters.astype(np.uint64, copy=False) + np.uint64(1)) * SPLITMIX64_GAMMA
    z = (z ^ (z >> np.uint64(30))) * SPLITMIX64_MUL1
    z = (z ^ (z >> np.uint64(27))) * SPLITMIX64_MUL2
    return z ^ (z >> np.uint64(31))


def ids(first: int, count: int) -> np.ndarray:
    """IDs number ``first … first + count - 1`` (uint64)."""
    first = check_int("first", first, 0, 2**63)
    count = check_int("count", count, 0, 2**40)
    return splitmix64(np.arange(first, first + count, dtype=np.uint64))


def packed_bytes(layout: BloomLayout) -> int:
    """Bytes of the packed array: one bit per filter bit (shards of whole bytes)."""
    if layout.bits_per_shard % 8:
        raise ValueError(
            f"bits_per_shard must be a multiple of 8 to pack shards into whole bytes; "
            f"got {layout.bits_per_shard}"
        )
    return layout.total_bits // 8


def _seeds(layout: BloomLayout) -> tuple[np.uint64, np.uint64]:
    """The two seeds :func:`setlab.models.bloom_sim.base_hashes` mixes into an integer item."""
    s = layout.seed
    return (
        np.uint64((_GOLDEN * (2 * s + 1)) & 0xFFFFFFFFFFFFFFFF),
        np.uint64((_GOLDEN * (2 * s + 2) + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF),
    )


def _build_numpy(
    layout: BloomLayout, packed: np.ndarray, first: int, count: int, write: bool
) -> int:
    m = np.uint64(layout.bits_per_shard)
    masks = np.array([0x80 >> b for b in range(8)], dtype=np.uint8)
    checksum = np.uint64(0)
    for lo in range(first, first + count, _CHUNK):
        shard, offsets = layout.locate(ids(lo, min(_CHUNK, first + count - lo)))
        index = (offsets + (shard * m)[:, None]).ravel()
        if write:
            np.bitwise_or.at(packed, (index >> np.uint64(3)).view(np.int64), masks[index & 7])
        else:
            checksum ^= np.bitwise_xor.reduce(index, initial=np.uint64(0))
    return int(checksum)


@cache
def _numba_kernels() -> tuple[Callable[..., int], Callable[..., None]]:
    """The compiled loops ``(checksum, build)`` of :mod:`setlab.models.packed_kernels` (numba is
    imported, and they are compiled or read from numba's cache, on first use)."""
    try:
        from setlab.models import packed_kernels
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError(
            "kernel='numba' needs numba (pip install 'setlab[dev]'); use kernel='numpy'"
        ) from exc
    threads = packed_kernels.numba.get_num_threads()
    return partial(packed_kernels.checksum, threads=threads), partial(
        packed_kernels.build, threads=threads
    )


def _word_width(layout: BloomLayout) -> int:
    """Bits of an offset (and of a step) in the numba kernel's word; ValueError if shard,
    offset and step do not fit in 64 bits together."""
    width = int(layout.bits_per_shard - 1).bit_length()
    if layout.shard_bits + 2 * width > 64:
        raise ValueError(
            f"kernel='numba' packs shard, offset and step in 64 bits: shard_bits + 2 × "
            f"{width} must be <= 64, got shard_bits={layout.shard_bits}; use kernel='numpy'"
        )
    return width


def _build_numba(
    layout: BloomLayout, packed: np.ndarray, first: int, count: int, write: bool
) -> int:
    checksum, build = _numba_kernels()
    s1, s2 = _seeds(layout)
    m = layout.bits_per_shard
    width = _word_width(layout)
    if not write:
        return int(checksum(first, count, m, layout.shard_bits, width, s1, s2))
    # groups of shards of about 256 KiB each (whole shards; one group when shards are larger)
    per_group = max(1, GROUP_BITS // m)
    group_bits = min(layout.shard_bits, max(0, layout.shard_bits - (per_group.bit_length() - 1)))
    group_shift = 2 * width + layout.shard_bits - group_bits
    ordered = np.empty(min(count, NUMBA_CHUNK), dtype=np.uint64)
    for lo in range(first, first + count, NUMBA_CHUNK):
        n = min(NUMBA_CHUNK, first + count - lo)
        build(packed, ordered, lo, n, m, layout.k, layout.shard_bits, width, s1, s2,
              group_shift, 1 << group_bits)  # fmt: skip
    return 0


def build_packed(
    layout: BloomLayout,
    packed: np.ndarray,
    first: int,
    count: int,
    kernel: Kernel = "numpy",
    write: bool = True,
) -> int:
    """Insert IDs number ``first … first + count - 1`` into ``packed`` (in place).

    ``packed``: a zeroed (or partly built) uint8 array of :func:`packed_bytes` bytes. Call it
    chunk after chunk to show progress; the result does not depend on the chunking. With
    ``write=False`` nothing is set: the IDs are generated and hashed to their bit positions only
    (the hashing share of a build, timed on its own), and the XOR of the positions is returned
    so the work cannot be skipped; with ``write=True`` the return value is 0.
    """
    if not isinstance(layout, BloomLayout):
        raise ValueError(f"layout must be a BloomLayout, got {layout!r}")
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(KERNELS)}; got {kernel!r}")
    if kernel == "numba":
        _word_width(layout)
    size = packed_bytes(layout)
    if not isinstance(packed, np.ndarray) or packed.dtype != np.uint8 or packed.shape != (size,):
        raise ValueError(f"packed must be a uint8 array of shape ({size},)")
    first = check_int("first", first, 0, 2**63)
    count = check_int("count", count, 0, 2**40)
    if kernel == "numpy":
        return _build_numpy(layout, packed, first, count, write)
    return _build_numba(layout, packed, first, count, write)


def contains_packed(layout: BloomLayout, packed: np.ndarray, items: np.ndarray) -> np.ndarray:
    """``True`` where all ``k`` bits of an item are set in ``packed`` (a bool array)."""
    shard, offsets = layout.locate(items)
    index = offsets + (shard * np.uint64(layout.bits_per_shard))[:, None]
    byte = packed[(index >> np.uint64(3)).view(np.int64)]
    bit = (byte << (index & np.uint64(7)).astype(np.uint8)) & np.uint8(0x80)
    return bit.all(axis=1)
