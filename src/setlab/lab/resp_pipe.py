"""Streaming RESP into a real Redis: what ``redis-cli --pipe`` does, from Python, at its speed.

Redis's documentation on mass insertion (https://redis.io/docs/latest/develop/use/patterns/
bulk-loading/) recommends generating the raw protocol and piping it into ``redis-cli --pipe``,
which writes it to the socket as fast as the server reads it, while draining and counting the
replies. This module is setlab's version of that loop, the fastest per-command loader of the
book (the readable redis-py strategies of :mod:`setlab.lab.loading` remain the ones the chapter
teaches with):

- the commands of a whole chunk (``SETBIT key offset 1``, ``BF.MADD key item …``,
  ``BF.MEXISTS key item …``) are encoded to RESP at once: by a compiled loop when numba is
  installed (:func:`encode_chunk`), else with numpy (:func:`encode_fixed`: rows of equal width,
  filled a column at a time);
- the calling thread encodes the next chunk while :func:`setlab.lab.resp_stream.pump` sends
  the previous one to a plain TCP socket and counts the replies (``PipeResult`` and ``pump``
  live there and are importable from here);
- no redis-py command or reply object is made per command.

A fault (an error reply such as ``OOM`` or ``NOPERM``, an unknown or renamed command, a closed
connection, a frozen server) stops the load within seconds, sends nothing more, and raises one
setlab error naming the command, the items acknowledged and the server's words (see
:mod:`setlab.lab.resp_stream`). With ``collect=True`` the reply bytes are kept and ``pump``
returns the integer of every reply element (``BF.MEXISTS`` answers).

Only ``lab.key(...)`` keys are written and a loader asks ``lab.check_allocation`` first. It
needs a real Redis reached over TCP without a password (the raw socket of
:class:`setlab.lab.loading.Wire`); on anything else it raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from setlab.core.progress import Progress
from setlab.core.validate import check_int
from setlab.lab import guard
from setlab.lab.loading import LoadResult, key_table
from setlab.lab.resp_stream import Chunk, PipeResult, pump
from setlab.models.bloom_sim import BloomLayout

if TYPE_CHECKING:
    from setlab.lab.backend import Lab

_SETBIT = b"*4\r\n$6\r\nSETBIT\r\n"
_ONE = b"$1\r\n1\r\n"


# -- encoding -------------------------------------------------------------------------------------

#: "0000" … "9999" as little-endian uint32 words: four decimal digits per gather.
_FOUR_DIGITS = np.frombuffer(b"".join(b"%04d" % i for i in range(10_000)), dtype=np.uint32)
_POW10 = np.array([10**i for i in range(1, 20)], dtype=np.uint64)


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


def encode_fixed(
    values: np.ndarray,
    prefix: bytes,
    suffix: bytes,
    keys: np.ndarray | None = None,
    key_index: np.ndarray | None = None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """The records of :func:`setlab.lab.loading.encode_records` (``prefix [key] $len\\r\\n<value>
    \\r\\n suffix``), grouped by the value's number of digits so that each group is one 2-D
    uint8 array of equal-width rows, filled a column at a time.

    Returns the groups (each C-contiguous: write it to a socket or file as it is) and ``order``:
    row ``i`` of the concatenated groups encodes ``values[order[i]]``. ``keys`` is a
    :func:`setlab.lab.loading.key_table` and ``key_index`` picks a row per value. A few times
    faster than the variable-width encoder, whose scattered writes dominate a bulk load.
    """
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


@cache
def _kernel() -> Callable[..., int] | None:
    """The compiled record encoder (numba, the ``dev`` extra), or None without numba.

    One pass per value: its decimal digits, its ``$len`` header, the key and the fixed parts,
    written straight into the output in the values' own order; two to three times faster than
    :func:`encode_fixed`. ``nogil``: the reply reader keeps draining while it runs.
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


def encode_chunk(
    values: np.ndarray,
    prefix: bytes,
    suffix: bytes,
    keys: np.ndarray | None = None,
    key_index: np.ndarray | None = None,
) -> tuple[memoryview, np.ndarray, np.ndarray | None]:
    """The records of :func:`encode_fixed` as one buffer: ``(bytes, bounds, order)``.

    Record ``i`` is ``bytes[bounds[i]:bounds[i + 1]]`` and encodes ``values[order[i]]``;
    ``order`` is None when the records are in the values' order (the compiled encoder of
    :func:`_kernel`, used when numba is installed; else :func:`encode_fixed`'s groups).
    """
    values = np.asarray(values, dtype=np.uint64).ravel()
    kernel = _kernel()
    if kernel is None:
        groups, order = encode_fixed(values, prefix, suffix, keys, key_index)
        widths = np.repeat([g.shape[1] for g in groups], [g.shape[0] for g in groups])
        bounds = np.zeros(values.size + 1, dtype=np.int64)
        np.cumsum(widths, out=bounds[1:])
        return memoryview(b"".join(groups)), bounds, order
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


def bulk_header(words: list[bytes], extra: int) -> bytes:
    """RESP array header and leading arguments: ``*<len(words)+extra>`` then each word as a bulk
    string; ``extra`` arguments are to follow (already encoded)."""
    head = b"*%d\r\n" % (len(words) + extra)
    return head + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)


def setbit_chunks(
    keys: list[str], layout: BloomLayout, items: np.ndarray, chunk_items: int = 1 << 16
) -> Iterator[Chunk]:
    """``SETBIT key offset 1`` for every bit of every item (``k`` per item, grouped by the
    offset's length), encoded ``chunk_items`` items at a time; one integer reply each."""
    table = key_table(keys)
    for lo in range(0, items.size, chunk_items):
        shard, offsets = layout.locate(items[lo : lo + chunk_items])
        index = np.repeat(shard, layout.k).astype(np.intp)
        payload, _, _ = encode_chunk(offsets.ravel(), _SETBIT, _ONE, table, index)
        yield payload, offsets.size, offsets.size


def multi_item_chunks(
    command: bytes,
    key: str,
    items: np.ndarray,
    batch: int,
    batches_per_chunk: int = 64,
    order: list[np.ndarray] | None = None,
) -> Iterator[Chunk]:
    """``<command> key item … item`` (``BF.MADD``, ``BF.MEXISTS``), up to ``batch`` items each,
    items written as decimal integers; each reply is an array of one integer per item.

    Without numba, items are grouped by their number of digits inside each chunk (a command
    still holds exactly ``batch`` items, the last one the rest); when ``order`` is a list,
    the item indices in the order they are sent are appended to it (one array per chunk).
    """
    words = [command, key.encode()]
    step = batch * batches_per_chunk
    for lo in range(0, items.size, step):
        part = items[lo : lo + step]
        view, bounds, sent = encode_chunk(part, b"", b"")
        if order is not None:
            order.append((np.arange(part.size) if sent is None else sent) + lo)
        pieces = []
        for a in range(0, part.size, batch):
            b = min(part.size, a + batch)
            pieces.append(bulk_header(words, b - a))
            pieces.append(view[bounds[a] : bounds[b]])
        n_batches = len(pieces) // 2
        yield b"".join(pieces), n_batches, n_batches + part.size


# -- the loaders ----------------------------------------------------------------------------------


def load_setbits(
    lab: Lab,
    name: str,
    layout: BloomLayout,
    items: np.ndarray,
    *,
    chunk_items: int = 1 << 16,
    progress: bool = False,
) -> LoadResult:
    """Load ``items`` into the sharded filter ``name`` with one ``SETBIT`` per bit, streamed.

    The same keys and bits as :func:`setlab.lab.loading.load` (and
    :class:`setlab.lab.bloom_filter.RedisBloomFilter`); asks ``lab.check_allocation`` for the
    whole filter first. Returns a :class:`setlab.lab.loading.LoadResult` (strategy ``stream``).
    """
    items = _check_items(items)
    chunk_items = check_int("chunk_items", chunk_items, 1)
    lab.check_allocation(
        guard.budget(string=layout.bytes_per_shard, keys=layout.shards),
        f"streamed load of {name!r}",
    )
    keys = [lab.key(name, *layout.key_suffix(s)) for s in range(layout.shards)]
    bits = items.size * layout.k
    report = Progress(bits, "stream load", progress, unit="bits")
    chunks = setbit_chunks(keys, layout, items, chunk_items)
    out = pump(lab, chunks, bits, progress=report, per_item=layout.k)
    report.close()
    return LoadResult("stream", None, int(items.size), bits, bits, 1, out.seconds)


def bf_madd(
    lab: Lab,
    key: str,
    items: np.ndarray,
    batch: int = 1000,
    *,
    allocates: int,
    progress: bool = False,
) -> PipeResult:
    """``BF.MADD key`` every item (``batch`` per command), streamed; ``key`` must come from
    ``lab.key(...)`` and the filter should exist (``BF.RESERVE``) unless the module's default
    is wanted. ``allocates``: bytes the filter will take (a model), checked with the guard."""
    items, batch = _check_multi(lab, key, items, batch)
    lab.check_allocation(allocates, f"BF.MADD into {key!r}")
    lines = items.size + -(-items.size // batch)
    report = Progress(lines, "BF.MADD", progress, unit="reply lines")
    out = pump(lab, multi_item_chunks(b"BF.MADD", key, items, batch), lines, progress=report)
    report.close()
    return out


def bf_mexists(
    lab: Lab, key: str, items: np.ndarray, batch: int = 1000, *, progress: bool = False
) -> np.ndarray:
    """``BF.MEXISTS key`` for every item, streamed; returns the answers in the items' order
    (uint8, 1 = maybe in, 0 = not in)."""
    items, batch = _check_multi(lab, key, items, batch)
    lines = items.size + -(-items.size // batch)
    report = Progress(lines, "BF.MEXISTS", progress, unit="reply lines")
    order: list[np.ndarray] = []
    chunks = multi_item_chunks(b"BF.MEXISTS", key, items, batch, order=order)
    out = pump(lab, chunks, lines, collect=True, progress=report)
    report.close()
    answers = np.empty(items.size, dtype=np.uint8)
    answers[np.concatenate(order) if order else np.zeros(0, dtype=np.intp)] = out.answers
    return answers


def _check_multi(lab: Lab, key: str, items: object, batch: int) -> tuple[np.ndarray, int]:
    _check_key(lab, key)
    return _check_items(items), check_int("batch", batch, 1)


def _check_key(lab: Lab, key: str) -> None:
    prefix = lab.key("x")[:-1]
    if not isinstance(key, str) or not key.startswith(prefix):
        raise ValueError(f"key must be made with lab.key(...) (under {prefix!r}); got {key!r}")


def _check_items(items: object) -> np.ndarray:
    if not isinstance(items, np.ndarray) or items.dtype.kind not in "ui":
        raise ValueError(f"items must be a numpy integer array, got {type(items).__name__}")
    if items.dtype.kind == "i" and items.size and items.min() < 0:
        raise ValueError(f"items must be >= 0; got {items.min()}")
    return items.astype(np.uint64, copy=False).ravel()


def write_protocol(chunks: Iterable[Chunk], sink: Callable[[bytes], object]) -> tuple[int, int]:
    """Write every chunk's bytes to ``sink`` (a file's ``write``): the input of
    ``redis-cli --pipe``. Returns (bytes written, reply lines the server will send)."""
    size = lines = 0
    for payload, _, n in chunks:
        sink(payload)
        size += len(payload)
        lines += n
    return size, lines
