"""RESP for many commands at once: one encoder, a compiled fast path and two numpy paths.

Every bulk loader of the book (``redis-cli --pipe``'s loop in :mod:`setlab.lab.wire.pipe`, the raw
strategies of :mod:`setlab.lab.wire.loading`, the full-scale build of
:mod:`setlab.lab.full_scale.sharded_bloom`) sends records of one shape, ``prefix [key]
$len\\r\\n<value>\\r\\n suffix`` per integer value (``SETBIT key offset 1``, ``BF.MADD key item …``,
``GET u1 offset``), and :func:`encode` makes them all, without a Python object per command:

- **compiled** (numba, the ``dev`` extra): one pass per value, in the values' order, two to three
  times faster than the numpy paths;
- **grouped** (numpy): records grouped by the value's number of digits, each group one 2-D array
  of equal-width rows filled a column at a time; fast, but the records come out reordered
  (``order`` says how), so it serves callers that do not care (the piped loads);
- **scattered** (numpy): the records in the values' order, written by scattered stores; the
  slowest, for callers that read replies back by position.

``tests/lab/wire/test_encode.py`` checks every path against redis-py's own encoder
(``Connection.pack_command``) for every number of digits.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

#: 10, 100, … 10^19: a value's number of decimal digits is where it falls among them.
_POW10 = np.array([10**i for i in range(1, 20)], dtype=np.uint64)
#: "0000" … "9999" as little-endian uint32 words: four decimal digits per gather.
_FOUR_DIGITS = np.frombuffer(b"".join(b"%04d" % i for i in range(10_000)), dtype=np.uint32)


def encode(
    values: np.ndarray,
    prefix: bytes,
    suffix: bytes,
    keys: np.ndarray | None = None,
    key_index: np.ndarray | None = None,
    *,
    in_order: bool = False,
) -> tuple[memoryview | bytes, np.ndarray, np.ndarray | None]:
    """RESP records ``prefix [key] $len\\r\\n<value>\\r\\n suffix``, one per value, as one buffer:
    ``(data, bounds, order)``.

    ``keys`` is a :func:`key_table` and ``key_index`` picks a row per value. Record ``i`` is
    ``data[bounds[i]:bounds[i + 1]]`` and encodes ``values[order[i]]``; ``order`` is None when
    the records are in the values' order. Without ``in_order``: the compiled path where numba is
    installed (in order; a caller that times a load calls it once first, to compile it), else the
    grouped one. With ``in_order``: the scattered path, which compiles nothing, so the loading
    strategies a chapter times pay no compilation inside their timing. Equivalent to
    ``b"".join(prefix + key + b"$%d\\r\\n%d\\r\\n" % (len(str(v)), v) + suffix for v in values)``.
    """
    values = np.asarray(values, dtype=np.uint64).ravel()
    kernel = _kernel()
    if kernel is not None and not in_order:
        return _compiled(kernel, values, prefix, suffix, keys, key_index)
    if in_order:
        data, bounds = _scattered(values, prefix, suffix, keys, key_index)
        return data, bounds, None
    groups, order = _grouped(values, prefix, suffix, keys, key_index)
    widths = np.repeat([g.shape[1] for g in groups], [g.shape[0] for g in groups])
    bounds = np.zeros(values.size + 1, dtype=np.int64)
    np.cumsum(widths, out=bounds[1:])
    return memoryview(b"".join(groups)), bounds, order


def key_table(keys: list[str]) -> np.ndarray:
    """RESP bulk strings ``$len\\r\\nkey\\r\\n`` of equal-length keys, as a 2-D uint8 array."""
    encoded = [b"$%d\r\n%s\r\n" % (len(k.encode()), k.encode()) for k in keys]
    width = len(encoded[0])
    if any(len(e) != width for e in encoded):
        raise ValueError("keys must all have the same length (BloomLayout pads shard ids)")
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).reshape(len(keys), width)


# -- the compiled path ----------------------------------------------------------------------------


@cache
def _kernel() -> Callable[..., int] | None:
    """The compiled record encoder (numba, the ``dev`` extra), or None without numba.

    One pass per value: its decimal digits, its ``$len`` header, the key and the fixed parts,
    written straight into the output in the values' own order; two to three times faster than
    the grouped path. ``nogil``: the reply reader keeps draining while it runs.
    """
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(cache=True, nogil=True)
    def encode(values, prefix, keys, key_index, suffix, out, bounds):  # pragma: no cover
        digits = np.empty(20, dtype=np.uint8)
        ten, zero = np.uint64(10), np.uint64(48)  # uint64 throughout: no float promotion
        pos = 0
        for i in range(values.size):
            value = values[i]
            n = 0
            while True:
                digits[n] = zero + value % ten
                value //= ten
                n += 1
                if value == np.uint64(0):
                    break
            out[pos : pos + prefix.size] = prefix
            pos += prefix.size
            row = keys[key_index[i]]
            out[pos : pos + row.size] = row
            pos += row.size
            out[pos] = 36  # $
            pos += 1
            if n >= 10:
                out[pos] = 48 + n // 10
                pos += 1
            out[pos] = 48 + n % 10
            out[pos + 1] = 13
            out[pos + 2] = 10
            pos += 3
            for j in range(n):
                out[pos + j] = digits[n - 1 - j]
            pos += n
            out[pos] = 13
            out[pos + 1] = 10
            pos += 2
            out[pos : pos + suffix.size] = suffix
            pos += suffix.size
            bounds[i + 1] = pos
        return pos

    return encode


def _compiled(
    kernel: Callable[..., int],
    values: np.ndarray,
    prefix: bytes,
    suffix: bytes,
    keys: np.ndarray | None,
    key_index: np.ndarray | None,
) -> tuple[memoryview, np.ndarray, None]:
    """:func:`encode` by the compiled loop of :func:`_kernel`, in the values' order."""
    if keys is None:
        keys, key_index = np.zeros((1, 0), dtype=np.uint8), np.zeros(values.size, np.intp)
    # the longest record: "$20\r\n" + 20 digits + "\r\n" between prefix, key and suffix
    width = len(prefix) + keys.shape[1] + 27 + len(suffix)
    out = np.empty(values.size * width, dtype=np.uint8)
    bounds = np.zeros(values.size + 1, dtype=np.int64)
    end = kernel(
        values, np.frombuffer(prefix, np.uint8), np.ascontiguousarray(keys, np.uint8),
        np.asarray(key_index, np.intp), np.frombuffer(suffix, np.uint8), out, bounds,
    )  # fmt: skip
    return memoryview(out[:end]), bounds, None


# -- the grouped path ------------------------------------------------------------------------------


def _grouped(
    values: np.ndarray,
    prefix: bytes,
    suffix: bytes,
    keys: np.ndarray | None,
    key_index: np.ndarray | None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`encode`'s records grouped by the value's number of digits: the groups (each a
    C-contiguous 2-D uint8 array of equal-width rows) and ``order`` (row ``i`` of the
    concatenated groups encodes ``values[order[i]]``)."""
    values = np.asarray(values, dtype=np.uint64).ravel()
    digits = (np.searchsorted(_POW10, values, side="right") + 1).astype(np.uint8)
    order = np.argsort(digits, kind="stable")
    counts = np.bincount(digits, minlength=21)
    varying = np.zeros(0, dtype=np.intp)
    if keys is not None:
        varying = np.flatnonzero((keys != keys[0]).any(axis=0))
    groups, first = [], 0
    for width in np.flatnonzero(counts).tolist():
        picked = order[first : first + int(counts[width])]
        first += picked.size
        head = b"$%d\r\n" % width
        template = prefix + (b"" if keys is None else keys[0].tobytes()) + head
        at = len(template)
        template += b"0" * width + b"\r\n" + suffix
        rows = np.empty((picked.size, len(template)), dtype=np.uint8)
        rows[:] = np.frombuffer(template, dtype=np.uint8)
        if varying.size:
            columns = len(prefix) + varying
            rows[:, columns] = keys[key_index[picked]][:, varying]
        chosen = values[picked]
        _put_digits(rows, at, width, chosen)
        groups.append(rows)
    return groups, order


def _put_digits(rows: np.ndarray, col: int, width: int, values: np.ndarray) -> None:
    """Write each value's ``width`` decimal digits into ``rows[:, col:col + width]``.

    64-bit values are cut into 8-digit blocks first (one uint64 division per block), so that the
    four-digit steps run in uint32 arithmetic, several times faster than uint64 division.
    """
    end = col + width
    if width > 9:  # may exceed 2^32
        values = values.astype(np.uint64)
        while width > 9:
            values, block = np.divmod(values, np.uint64(10**8))
            _put_small(rows, end - 8, 8, block.astype(np.uint32))
            end -= 8
            width -= 8
    _put_small(rows, end - width, width, values.astype(np.uint32))


def _put_small(rows: np.ndarray, col: int, width: int, values: np.ndarray) -> None:
    """:func:`_put_digits` for uint32 values of at most 10 digits."""
    end = col + width
    while width >= 4:
        values, low = np.divmod(values, np.uint32(10_000))
        rows[:, end - 4 : end] = _FOUR_DIGITS[low].view(np.uint8).reshape(-1, 4)
        end -= 4
        width -= 4
    if width:
        top = _FOUR_DIGITS[values].view(np.uint8).reshape(-1, 4)
        rows[:, end - width : end] = top[:, 4 - width :]


# -- the scattered path ----------------------------------------------------------------------------


def _scattered(
    values: np.ndarray,
    prefix: bytes,
    suffix: bytes,
    keys: np.ndarray | None,
    key_index: np.ndarray | None,
) -> tuple[bytes, np.ndarray]:
    """:func:`encode`'s records in the values' order: the bytes and the offset where each
    record starts (plus the total length at the end)."""
    values = np.asarray(values, dtype=np.uint64).ravel()
    nd = _digits(values)
    nd_len = _digits(nd.astype(np.uint64))
    key_width = 0 if keys is None else keys.shape[1]
    lengths = len(prefix) + key_width + 1 + nd_len + 2 + nd + 2 + len(suffix)
    bounds = np.zeros(values.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    starts = bounds[:-1]
    buf = np.empty(int(bounds[-1]), dtype=np.uint8)
    _put_bytes(buf, starts, prefix)
    if keys is not None:
        _put_bytes(buf, starts + len(prefix), keys[key_index])
    at = starts + len(prefix) + key_width
    buf[at] = ord("$")
    _put_decimal(buf, at + 1 + nd_len, nd, nd_len)
    at = at + 1 + nd_len
    _put_bytes(buf, at, b"\r\n")
    at = at + 2 + nd
    _put_decimal(buf, at, values, nd)
    _put_bytes(buf, at, b"\r\n")
    _put_bytes(buf, at + 2, suffix)
    return buf.tobytes(), bounds


def _digits(values: np.ndarray) -> np.ndarray:
    """Decimal digits of each non-negative integer (0 has one)."""
    return (np.searchsorted(_POW10, values, side="right") + 1).astype(np.int64)


def _put_decimal(buf: np.ndarray, end: np.ndarray, values: np.ndarray, nd: np.ndarray) -> None:
    """Write each value's ``nd`` decimal digits into ``buf``, ending just before ``end``."""
    v = values.astype(np.uint64)
    for j in range(int(nd.max(initial=0))):
        live = nd > j
        buf[(end - 1 - j)[live]] = (v[live] % np.uint64(10)).astype(np.uint8) + 48
        v //= np.uint64(10)


def _put_bytes(buf: np.ndarray, starts: np.ndarray, data: bytes | np.ndarray) -> None:
    """Write the same ``data`` (or one row of a 2-D array per record) at each start."""
    arr = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data
    width = arr.shape[-1]
    if width:
        buf[starts[:, None] + np.arange(width)] = arr
