"""The hash functions the book's Redis structures use, each written once.

- **MurmurHash64A** (Austin Appleby's MurmurHash2, 64-bit): Redis hashes every ``PFADD``
  element with it (``hyperloglog.c``, seed ``0xadc83b19``) and RedisBloom hashes Bloom items
  with it (``MurmurHash64A_Bloom``) and Cuckoo items with it too. One scalar version for
  arbitrary bytes, one vectorised version over fixed-length rows (n items of L bytes each, the
  form numpy can do all at once), and one for 64-bit integers sent as 8 little-endian bytes.
- **MurmurHash3 x64-128** (via the ``mmh3`` package): the ``hash64(userId)`` of seed 000, as
  Guava's ``Hashing.murmur3_128().hashLong(id).asLong()`` computes it for a Java ``long``
  (:func:`java_long_hash64`).
- **MurmurHash3, vectorised** (:func:`murmur3_x64_128_rows`, :func:`murmur3_32_rows`): the same
  hashes over every row of an ``(n, length)`` uint8 array at once, bit-identical to ``mmh3``,
  for the Monte Carlo runs that hash millions of IDs (``mmh3`` hashes one key per call).
  Port of Austin Appleby's MurmurHash3.cpp (smhasher).
- **SplitMix64** (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
  OOPSLA 2014; Java's ``SplittableRandom``): its constants, which turn a counter into IDs that
  never repeat — :func:`setlab.models.packed_bloom.splitmix64` and its compiled twin in
  :mod:`setlab.models.packed_kernels`, and :func:`setlab.models.cuckoo_walls.stream_values`.
"""

from __future__ import annotations

import mmh3
import numpy as np

from setlab.core.validate import check_int

MASK64 = (1 << 64) - 1
#: MurmurHash64A's multiplier ``m`` (also the seed RedisBloom uses for a Bloom item's first hash)
MURMUR64A_M = 0xC6A4A7935BD1E995
_R = 47

#: SplitMix64's increment (2^64 / φ, rounded to an odd integer): counter ``i`` becomes
#: ``(i + 1) · GAMMA``
SPLITMIX64_GAMMA = np.uint64(0x9E3779B97F4A7C15)
#: The two multipliers of SplitMix64's finaliser ``z ^= z >> 30; z *= MUL1; z ^= z >> 27;
#: z *= MUL2; z ^= z >> 31`` (a bijection of 64-bit words; Stafford's "Mix13" variant)
SPLITMIX64_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
SPLITMIX64_MUL2 = np.uint64(0x94D049BB133111EB)

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


# -- MurmurHash3, vectorised over rows (bit-identical to the mmh3 package) -------------------------

_U64 = np.uint64
_C1_64, _C2_64 = _U64(0x87C37B91114253D5), _U64(0x4CF5AD432745937F)
_C1_32, _C2_32 = np.uint32(0xCC9E2D51), np.uint32(0x1B873593)


def _check_rows(data: object) -> np.ndarray:
    array = np.asarray(data)
    if array.dtype != np.uint8 or array.ndim != 2:
        raise ValueError(
            f"data must be a 2-D uint8 array (one key per row); got dtype {array.dtype}, "
            f"{array.ndim} dimensions"
        )
    return np.ascontiguousarray(array)


def _rotl64(x: np.ndarray, r: int) -> np.ndarray:
    return (x << _U64(r)) | (x >> _U64(64 - r))


def _rotl32(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _le(data: np.ndarray, start: int, stop: int, width: int) -> np.ndarray:
    """Little-endian words from bytes ``start:stop`` of each row (zero-padded to ``width``)."""
    block = np.zeros((data.shape[0], width), dtype=np.uint8)
    block[:, : stop - start] = data[:, start:stop]
    return block.view("<u8" if width == 8 else "<u4")[:, 0].copy()


def _fmix64(k: np.ndarray) -> np.ndarray:
    k = k ^ (k >> _U64(33))
    k = k * _U64(0xFF51AFD7ED558CCD)
    k = k ^ (k >> _U64(33))
    k = k * _U64(0xC4CEB9FE1A85EC53)
    return k ^ (k >> _U64(33))


def murmur3_x64_128_rows(data: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """MurmurHash3_x64_128 of every row of ``data`` (a 2-D uint8 array of equal-length keys).

    Returns ``(h1, h2)`` as uint64 arrays; ``h1.view(np.int64)`` equals ``mmh3.hash64(row)[0]``,
    and ``h1`` is what Java's ``Murmur3.hash_x64_128(...)[0]`` returns. Port of
    ``MurmurHash3_x64_128`` in Appleby's MurmurHash3.cpp.
    """
    data = _check_rows(data)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rows, length = data.shape
    h1 = np.full(rows, seed, dtype=_U64)
    h2 = h1.copy()
    with np.errstate(over="ignore"):
        for b in range(length // 16):
            k1 = _le(data, 16 * b, 16 * b + 8, 8)
            k2 = _le(data, 16 * b + 8, 16 * b + 16, 8)
            h1 ^= _rotl64(k1 * _C1_64, 31) * _C2_64
            h1 = _rotl64(h1, 27) + h2
            h1 = h1 * _U64(5) + _U64(0x52DCE729)
            h2 ^= _rotl64(k2 * _C2_64, 33) * _C1_64
            h2 = _rotl64(h2, 31) + h1
            h2 = h2 * _U64(5) + _U64(0x38495AB5)
        tail = 16 * (length // 16)
        if length - tail > 8:
            h2 ^= _rotl64(_le(data, tail + 8, length, 8) * _C2_64, 33) * _C1_64
        if length - tail > 0:
            h1 ^= _rotl64(_le(data, tail, min(length, tail + 8), 8) * _C1_64, 31) * _C2_64
        h1 ^= _U64(length)
        h2 ^= _U64(length)
        h1 = h1 + h2
        h2 = h2 + h1
        h1 = _fmix64(h1)
        h2 = _fmix64(h2)
        h1 = h1 + h2
        h2 = h2 + h1
    return h1, h2


def murmur3_32_rows(data: np.ndarray, seed: int = 0) -> np.ndarray:
    """MurmurHash3_x86_32 of every row of ``data`` (2-D uint8), as uint32.

    Equals ``mmh3.hash(row, seed, signed=False)`` and Java's ``Murmur3.hash_x86_32`` (which
    returns the unsigned value in a ``long``): the "x86_32" offsets of seed 004.
    """
    data = _check_rows(data)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rows, length = data.shape
    h = np.full(rows, seed, dtype=np.uint32)
    with np.errstate(over="ignore"):
        for b in range(length // 4):
            k = _le(data, 4 * b, 4 * b + 4, 4)
            h ^= _rotl32(k * _C1_32, 15) * _C2_32
            h = _rotl32(h, 13) * np.uint32(5) + np.uint32(0xE6546B64)
        tail = 4 * (length // 4)
        if length > tail:
            h ^= _rotl32(_le(data, tail, length, 4) * _C1_32, 15) * _C2_32
        h ^= np.uint32(length & 0xFFFFFFFF)
        h ^= h >> np.uint32(16)
        h = h * np.uint32(0x85EBCA6B)
        h ^= h >> np.uint32(13)
        h = h * np.uint32(0xC2B2AE35)
        h ^= h >> np.uint32(16)
    return h
