"""Streaming RESP into a real Redis: what ``redis-cli --pipe`` does, from Python, at its speed.

Redis's documentation on mass insertion (https://redis.io/docs/latest/develop/use/patterns/
bulk-loading/) recommends generating the raw protocol and piping it into ``redis-cli --pipe``,
which writes it to the socket as fast as the server reads it, while draining and counting the
replies. This module is setlab's version of that loop, the fastest per-command loader of the
book (the readable redis-py strategies of :mod:`setlab.lab.wire.loading` remain the ones the chapter
teaches with):

- the commands of a whole chunk (``SETBIT key offset 1``, ``BF.MADD key item …``,
  ``BF.MEXISTS key item …``) are encoded to RESP at once by :func:`setlab.lab.wire.encode.encode`
  (a compiled loop when numba is installed, else numpy rows of equal width filled a column at a
  time);
- the calling thread encodes the next chunk while :func:`setlab.lab.wire.stream.pump` sends
  the previous one to a plain TCP socket and counts the replies (``PipeResult`` and ``pump``
  live there and are importable from here);
- no redis-py command or reply object is made per command.

A fault (an error reply such as ``OOM`` or ``NOPERM``, an unknown or renamed command, a closed
connection, a frozen server) stops the load within seconds, sends nothing more, and raises one
setlab error naming the command, the items acknowledged and the server's words (see
:mod:`setlab.lab.wire.stream`). With ``collect=True`` the reply bytes are kept and ``pump``
returns the integer of every reply element (``BF.MEXISTS`` answers).

Only ``lab.key(...)`` keys are written and a loader asks ``lab.check_allocation`` first. It
needs a real Redis reached over TCP without a password (the raw socket of
:class:`setlab.lab.wire.loading.Wire`); on anything else it raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from setlab.core.progress import Progress
from setlab.core.validate import check_int, check_items
from setlab.lab import guard
from setlab.lab.wire.encode import encode, key_table
from setlab.lab.wire.loading import LoadResult
from setlab.lab.wire.stream import Chunk, PipeResult, pump
from setlab.models.bloom_sim import BloomLayout

if TYPE_CHECKING:
    from setlab.lab.backend import Lab

_SETBIT = b"*4\r\n$6\r\nSETBIT\r\n"
_ONE = b"$1\r\n1\r\n"


# -- commands ----------------------------------------------------------------------------------


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
        payload, _, _ = encode(offsets.ravel(), _SETBIT, _ONE, table, index)
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
        view, bounds, sent = encode(part, b"", b"")
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

    The same keys and bits as :func:`setlab.lab.wire.loading.load` (and
    :class:`setlab.lab.runs.bloom.RedisBloomFilter`); asks ``lab.check_allocation`` for the
    whole filter first. Returns a :class:`setlab.lab.wire.loading.LoadResult` (strategy ``stream``).
    """
    items = check_items(items)
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
    return check_items(items), check_int("batch", batch, 1)


def _check_key(lab: Lab, key: str) -> None:
    prefix = lab.key("x")[:-1]
    if not isinstance(key, str) or not key.startswith(prefix):
        raise ValueError(f"key must be made with lab.key(...) (under {prefix!r}); got {key!r}")


def write_protocol(chunks: Iterable[Chunk], sink: Callable[[bytes], object]) -> tuple[int, int]:
    """Write every chunk's bytes to ``sink`` (a file's ``write``): the input of
    ``redis-cli --pipe``. Returns (bytes written, reply lines the server will send)."""
    size = lines = 0
    for payload, _, n in chunks:
        sink(payload)
        size += len(payload)
        lines += n
    return size, lines
