"""The hash functions the book's Redis structures use, each written once.

- **MurmurHash64A** (Austin Appleby's MurmurHash2, 64-bit): Redis hashes every ``PFADD``
  element with it (``hyperloglog.c``, seed ``0xadc83b19``) and RedisBloom hashes Bloom items
  with it (``MurmurHash64A_Bloom``) and Cuckoo items with it too. One scalar version for
  arbitrary bytes, one vectorised version over fixed-length rows (n items of L bytes each, the
  form numpy can do all at once), and one for 64-bit integers sent as 8 little-endian bytes.
- **MurmurHash3 x64-128** (via the ``mmh3`` package): the ``hash64(userId)`` of seed 000, as
  Guava's ``Hashing.murmur3_128().hashLong(id).asLong()`` computes it for a Java ``long``.
"""

from __future__ import annotations

import mmh3
import numpy as np

from setlab.core.validate import check_int

MASK64 = (1 << 64) - 1
#: MurmurHash64A's multiplier ``m`` (also the seed RedisBloom uses for a Bloom item's first hash)
MURMUR64A_M = 0xC6A4A7935BD1E995
_R = 47

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


def murmur64a(data: bytes, seed: int) -> int:
    """MurmurHash64A of ``data`` with ``seed``: a 64-bit unsigned int (little-endian blocks)."""
    if not isinstance(data, bytes | bytearray):
        raise ValueError(f"data must be bytes, got {type(data).__name__}")
    seed = check_int("seed", seed, 0, MASK64)
    m = MURMUR64A_M
    n = len(data)
    h = (seed ^ (n * m)) & MASK64
    whole = n - n % 8
    for start in range(0, whole, 8):
        k = int.from_bytes(data[start : start + 8], "little")
        k = (k * m) & MASK64
        k ^= k >> _R
        k = (k * m) & MASK64
        h = ((h ^ k) * m) & MASK64
    if n % 8:
        h ^= int.from_bytes(data[whole:], "little")
        h = (h * m) & MASK64
    h ^= h >> _R
    h = (h * m) & MASK64
    return h ^ (h >> _R)


def _seeds(seed: int | np.ndarray, n: int) -> np.ndarray:
    if isinstance(seed, np.ndarray):
        if seed.shape != (n,):
            raise ValueError(f"seed array must have shape ({n},), got {seed.shape}")
        return seed.astype(np.uint64, copy=True)
    return np.full(n, check_int("seed", seed, 0, MASK64), dtype=np.uint64)


def murmur64a_rows(rows: np.ndarray, seed: int | np.ndarray) -> np.ndarray:
    """:func:`murmur64a` of every row of an ``(n, length)`` uint8 array, vectorised.

    ``seed`` is one integer or an array of ``n`` per-row seeds (RedisBloom seeds a Bloom
    item's second hash with its first). Returns a uint64 array of ``n`` hashes.
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    if rows.ndim != 2:
        raise ValueError(f"rows must be a 2-D uint8 array (n, length); got shape {rows.shape}")
    n, length = rows.shape
    m = np.uint64(MURMUR64A_M)
    r = np.uint64(_R)
    with np.errstate(over="ignore"):
        h = _seeds(seed, n) ^ np.uint64((length * MURMUR64A_M) & MASK64)
        blocks = length - (length & 7)
        if blocks:
            words = rows[:, :blocks].copy().view("<u8")
            for j in range(words.shape[1]):
                k = words[:, j] * m
                k ^= k >> r
                k *= m
                h ^= k
                h *= m
        if length & 7:
            padded = np.zeros((n, 8), dtype=np.uint8)
            padded[:, : length & 7] = rows[:, blocks:]
            h ^= padded.view("<u8")[:, 0]
            h *= m
        h ^= h >> r
        h *= m
        h ^= h >> r
    return h


def as_uint64(values: object) -> np.ndarray:
    """``values`` as a flat uint64 array, if they are all integers in [0, 2^64)."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise ValueError(
            f"values must be an array of integers in [0, 2^64), got {values!r}"
        ) from None
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if arr.dtype.kind == "u":
        return arr.astype(np.uint64, copy=False).ravel()
    if arr.dtype.kind == "i" and arr.min() >= 0:
        return arr.astype(np.uint64).ravel()
    if arr.dtype == object and all(isinstance(v, int) and 0 <= v < 2**64 for v in arr.ravel()):
        return arr.astype(np.uint64).ravel()
    raise ValueError(f"values must be integers in [0, 2^64), got dtype {arr.dtype}")


def murmur64a_u64(values: object, seed: int | np.ndarray) -> np.ndarray:
    """:func:`murmur64a` of each value's 8 little-endian bytes, vectorised (uint64 array)."""
    x = as_uint64(values)
    return murmur64a_rows(x.astype("<u8").view(np.uint8).reshape(-1, 8), seed)


def java_long_hash64(value: int) -> int:
    """MurmurHash3 x64-128 (seed 0) of a Java ``long``'s 8 little-endian bytes, first half, as a
    signed 64-bit int: Guava's ``Hashing.murmur3_128().hashLong(value).asLong()``, the
    ``hash64(userId)`` seed 000 stands for."""
    value = check_int("value", value, LONG_MIN, LONG_MAX)
    return mmh3.hash64(value.to_bytes(8, "little", signed=True))[0]
