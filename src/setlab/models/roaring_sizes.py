"""The serialized size of a Roaring bitmap straight from sorted distinct IDs (``setlab advise``).

:mod:`setlab.models.roaring` builds a :class:`~setlab.models.roaring.Layout` — the key, values,
runs and kind of every container — which the chapters draw and which is tested against
pyroaring. Pricing a file of IDs needs less: how many IDs each container holds (the advisor's
histogram) and ``len(serialize())`` with and without run optimisation. :func:`sizes` computes
exactly the numbers the layout gives (``tests/unit/test_roaring_sizes.py`` compares them) without
building it: 10^7 snowflake IDs, each alone in its 2^16 chunk, are 10^7 containers, and the
layout's arrays and their temporaries were most of the advisor's memory and time.

How: one pass over the values, slice by slice, marks where a chunk starts and which values
follow their predecessor inside a chunk. Where no value does (random or time-spread 64-bit
IDs), every container's runs equal its values and no container can be a run container
(``2 + 4c`` is never below ``2c``): nothing more is needed. Otherwise each container's runs are
its values minus the values that continue a run. Container kinds and payloads follow
:func:`setlab.models.roaring.choose_kinds` and :meth:`~setlab.models.roaring.Layout.
container_bytes`; headers follow :attr:`~setlab.models.roaring.Layout.header_bytes` and
:attr:`~setlab.models.roaring.Layout64.serialized_bytes` (CRoaring's portable format, one
32-bit bitmap per 2^32 bucket for 64-bit IDs).

Pure computation: numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from setlab.models.roaring import ARRAY_MAX, BITSET_BYTES, CHUNK_BITS, NO_OFFSET_THRESHOLD

#: Values (or containers) handled per step: temporaries of 512 KiB that stay in the cache and
#: are reused, not one per value.
_SLICE = 1 << 16


@dataclass(frozen=True)
class Sizes:
    """A Roaring bitmap of some IDs, as far as pricing it goes."""

    cardinality: np.ndarray  #: IDs per container (int64), keys ascending
    buckets: int | None  #: 2^32-value buckets of a 64-bit bitmap (None: 32-bit)
    plain_bytes: int  #: ``len(serialize())`` as built by adding the IDs (no run containers)
    run_bytes: int  #: ``len(serialize())`` after ``run_optimize()``

    @property
    def containers(self) -> int:
        return int(self.cardinality.size)


def _marks(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whether each value starts a new 2^16 chunk, and whether it is its predecessor + 1 in
    the same chunk (slice by slice)."""
    new = np.empty(v.size, dtype=bool)
    follows = np.empty(v.size, dtype=bool)
    new[:1], follows[:1] = True, False
    bits, one = v.dtype.type(CHUNK_BITS), v.dtype.type(1)
    for lo in range(1, v.size, _SLICE):
        hi = min(v.size, lo + _SLICE)
        now, before = v[lo:hi], v[lo - 1 : hi - 1]
        np.not_equal(now >> bits, before >> bits, out=new[lo:hi])
        np.equal(now - before, one, out=follows[lo:hi])
        np.greater(follows[lo:hi], new[lo:hi], out=follows[lo:hi])  # and not a new chunk
    return new, follows


def _continued(follows: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per container, the values that continue a run (``follows`` summed per chunk)."""
    if 8 * starts.size <= follows.size:  # few, large containers: one reduction per container
        return np.add.reduceat(follows, starts, dtype=np.int64)
    inside = np.flatnonzero(follows)
    chunk_of = np.searchsorted(starts, inside, side="right") - 1
    return np.bincount(chunk_of, minlength=starts.size)


def _new_buckets(v: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Whether each container starts a new 2^32-value bucket (its first value's high half
    differs from the previous container's)."""
    new = np.empty(starts.size, dtype=bool)
    new[:1] = True
    shift = np.uint64(32)
    for lo in range(1, starts.size, _SLICE):
        hi = min(starts.size, lo + _SLICE)
        first = v[starts[lo - 1 : hi]] >> shift
        np.not_equal(first[1:], first[:-1], out=new[lo:hi])
    return new


def _lengths_in_place(starts: np.ndarray, total: int) -> np.ndarray:
    """Each container's values, from where each starts, written over ``starts`` (one array of
    10^7 entries for 10^7 lone IDs, not two): slice by slice from the front, so that every
    start is read before it is overwritten."""
    last = starts.size - 1
    for lo in range(0, last, _SLICE):
        hi = min(last, lo + _SLICE)
        starts[lo:hi] = starts[lo + 1 : hi + 1] - starts[lo:hi]
    starts[last] = total - starts[last]
    return starts


def _payloads(cards: np.ndarray, runs: np.ndarray | None) -> tuple[int, int, np.ndarray | None]:
    """Payload bytes without and with run containers, and which containers are run containers
    (None when none is): arrays 2 B a value up to 4,096 values, else an 8 KiB bitset; a run
    container (2 + 4 B a run) only where strictly smaller than both."""
    plain = bitsets = 0
    for lo in range(0, cards.size, _SLICE):
        c = cards[lo : lo + _SLICE]
        big = c > ARRAY_MAX
        bitsets += int(np.count_nonzero(big))
        plain += 2 * (int(c.sum()) - int(c[big].sum()))
    plain += BITSET_BYTES * bitsets
    if runs is None:
        return plain, plain, None
    is_run = 2 + 4 * runs < np.minimum(2 * cards, BITSET_BYTES)
    if not is_run.any():
        return plain, plain, None
    size = np.where(cards > ARRAY_MAX, BITSET_BYTES, 2 * cards)
    size[is_run] = 2 + 4 * runs[is_run]
    return plain, int(size.sum()), is_run


def _run_header(n: np.ndarray | int) -> np.ndarray | int:
    """Header bytes of a 32-bit bitmap of ``n`` containers, some of them runs: cookie and
    container count, one flag bit a container, key and cardinality, offsets from 4 containers."""
    return 4 + (n + 7) // 8 + 4 * n + np.where(n >= NO_OFFSET_THRESHOLD, 4 * n, 0)


def sizes(ascending: np.ndarray) -> Sizes:
    """The containers' cardinalities and the serialized sizes of a Roaring bitmap of
    ``ascending`` — sorted distinct unsigned integers (uint32, or uint64: a ``BitMap64`` when
    any is 2^32 or more), not checked, at least one."""
    v = np.asarray(ascending)
    wide = v.dtype == np.uint64 and int(v[-1]) >= 2**32
    new, follows = _marks(v)
    starts = np.flatnonzero(new)
    del new
    runs = None
    if follows.any():
        runs = _continued(follows, starts)
    del follows
    new_bucket = _new_buckets(v, starts) if wide else np.zeros(0, dtype=bool)
    cards = _lengths_in_place(starts.astype(np.int64, copy=False), v.size)
    del starts
    if runs is not None:
        np.subtract(cards, runs, out=runs)
    plain_payload, run_payload, is_run = _payloads(cards, runs)
    n = cards.size
    if not wide:
        plain = 4 + 4 + 8 * n + plain_payload
        with_runs = plain if is_run is None else int(_run_header(n)) + run_payload
        return Sizes(cards, None, plain, with_runs)
    b = int(np.count_nonzero(new_bucket))
    plain = 8 + 12 * b + 8 * n + plain_payload  # per bucket: 4 B key, 8 B header, 8 B a container
    if is_run is None:
        return Sizes(cards, b, plain, plain)
    first = np.flatnonzero(new_bucket)
    per_bucket = np.diff(first, append=n)
    has_run = np.logical_or.reduceat(is_run, first)
    headers = np.where(has_run, _run_header(per_bucket), 8 + 8 * per_bucket)
    return Sizes(cards, b, plain, int(8 + (4 + headers).sum()) + run_payload)
