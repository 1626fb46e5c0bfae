"""RedisBloom 2.8's scalable Bloom filter (``BF.*``): the sub-filters it builds, bit for bit.

``BF.RESERVE key error capacity [EXPANSION e] [NONSCALING]`` creates a *chain* of Bloom filters
(``SBChain`` in RedisBloom's ``src/sb.c``). Items go into the newest sub-filter ("link"); when it
holds ``capacity`` items, the next add creates another. :class:`ChainLayout` computes every
sub-filter exactly as the module does, and ``tests/test_live_redisbloom.py`` checks it against
``BF.INFO`` and ``BF.DEBUG`` of redisbloom.so 2.8.2 for a grid of parameters:

* sub-filter 0 holds ``capacity`` items at rate ``error × 0.5`` (``ERROR_TIGHTENING_RATIO``;
  ``error`` itself with ``NONSCALING``, which never adds a sub-filter);
* sub-filter ``i + 1`` holds ``expansion`` times as many items as sub-filter ``i``, at half its
  rate. The rates form a geometric series, so a chain of any length stays below ``error``;
* a sub-filter for ``n`` items at rate ``e`` (``deps/bloom/bloom.c``, ``bloom_init`` with
  ``BLOOM_OPT_NOROUND``, which BF.RESERVE always sets) has ``bpe = -ln e / 0.480453013918201``
  bits per entry (ln²2, truncated as in the source), ``floor(n · bpe)`` bits rounded *up* to a
  multiple of 64, and ``ceil(0.693147180559945 · bpe)`` hashes;
* ``BF.INFO`` "Size" is ``sizeof(SBChain)`` (32 bytes) plus, per sub-filter, ``sizeof(SBLink)``
  (64 bytes) and its bit array; "Capacity" is the sum of the sub-filters' capacities.

Hashing (``BLOOM_OPT_FORCE64``): ``a = MurmurHash64A(item, 0xc6a4a7935bd1e995)``,
``b = MurmurHash64A(item, a)``; hash ``i`` sets bit ``(a + i·b) mod 2^64 mod bits``, and bit ``x``
lives in byte ``x // 8`` at mask ``1 << (x % 8)``. :class:`ChainSimulator` replays this for 8-byte
little-endian items and reproduces the module's bit arrays (``BF.SCANDUMP``) byte for byte.

Two behaviours matter for the chapter "Scalable Bloom filters":

* an add first tests *every* sub-filter; an item that looks present (a false positive) is neither
  added nor counted, so "Number of items inserted" falls short of the distinct items sent;
* ``BF.EXISTS`` hashes once and tests the sub-filters newest first, each test stopping at the first
  unset bit: a non-member costs about two bit probes per sub-filter, not ``k``.

fakeredis emulates ``BF.*`` with pyprobables' ``ExpandingBloomFilter``: every layer there has the
capacity and the error rate given to ``BF.RESERVE`` (``EXPANSION`` is accepted and ignored) and
``BF.INFO`` reports the item count as "Size". That is the model seed 003 describes, not RedisBloom.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from setlab.core.hashing import MASK64, as_uint64, murmur64a_u64
from setlab.core.validate import check_int as _int
from setlab.core.validate import check_probability as _probability
from setlab.lab import latency

if TYPE_CHECKING:
    from setlab.lab.backend import Lab

#: ``ERROR_TIGHTENING_RATIO`` in ``src/sb.c``: each sub-filter's rate is half the previous one's.
TIGHTENING = 0.5
#: ln²2 as written in ``calc_bpe`` (``deps/bloom/bloom.c``), not the exact double.
LN2_SQUARED = 0.480453013918201
#: ln 2 as written in ``bloom.c``'s ``LN2`` macro (used for the hash count).
LN2 = 0.693147180559945
#: ``BF_DEFAULT_EXPANSION``.
DEFAULT_EXPANSION = 2
#: ``sizeof(SBChain)`` and ``sizeof(SBLink)`` on a 64-bit build (bytes), as ``BF.INFO`` counts them.
CHAIN_BYTES = 32
LINK_BYTES = 64
#: The expansion is stored as a 32-bit unsigned ``growth``: 2^32 wraps to 0 and breaks the chain.
MAX_EXPANSION = 2**32 - 1
#: Largest capacity the model accepts (items); the module itself crashes on absurd reservations.
MAX_CAPACITY = 2**50
#: MurmurHash64A's multiplier, and the seed RedisBloom uses for the first Bloom hash.
BLOOM_SEED = 0xC6A4A7935BD1E995


# -- the layout -----------------------------------------------------------------------------------


def bits_per_entry(error: float) -> float:
    """``calc_bpe``: bits per entry a RedisBloom sub-filter gets at rate ``error`` (a fraction),
    ``|ln(error)| / 0.480453013918201``."""
    return -math.log(_probability("error", error)) / LN2_SQUARED


@dataclass(frozen=True)
class SubFilter:
    """One link of a chain: what ``BF.DEBUG`` prints for it (``ratio`` is :attr:`error`)."""

    index: int  #: position in the chain, 0 = the first (oldest)
    capacity: int  #: items it takes before the next sub-filter is created
    error: float  #: its design false-positive rate (a fraction)
    bpe: float  #: bits per entry
    bits: int  #: bits in its array, a multiple of 64
    bytes: int  #: ``bits / 8``
    hashes: int  #: hash functions (bit probes per add)

    def fpr(self, items: float) -> float:
        """False-positive rate after ``items`` items, ``(1 - e^(-k·n/bits))^k`` (a fraction)."""
        if items < 0:
            raise ValueError(f"items must be >= 0, got {items!r}")
        return float(-math.expm1(-self.hashes * items / self.bits)) ** self.hashes

    def debug_line(self, size: int) -> str:
        """This sub-filter's line of ``BF.DEBUG`` when it holds ``size`` items."""
        return (
            f"bytes:{self.bytes} bits:{self.bits} hashes:{self.hashes} hashwidth:64 "
            f"capacity:{self.capacity} size:{size} ratio:{self.error:g}"
        )


def sub_filter(capacity: int, error: float, index: int = 0) -> SubFilter:
    """``bloom_init(entries=capacity, error, BLOOM_OPT_NOROUND | BLOOM_OPT_FORCE64)``.

    ``bits = floor(capacity · bpe)`` (at least 1), rounded up to a multiple of 64; ``hashes =
    ceil(0.693147180559945 · bpe)``. ``capacity`` in items, ``error`` a fraction in (0, 1).
    """
    capacity = _int("capacity", capacity, 1, MAX_CAPACITY)
    bpe = bits_per_entry(error)
    raw = max(1, int(capacity * bpe))
    nbytes = (raw // 64 + (1 if raw % 64 else 0)) * 8
    return SubFilter(index, capacity, error, bpe, nbytes * 8, nbytes, math.ceil(LN2 * bpe))


@dataclass(frozen=True)
class ChainLayout:
    """The chain ``BF.RESERVE key error capacity [EXPANSION expansion] [NONSCALING]`` builds.

    Pure arithmetic: ``items`` arguments are the chain's item count, ``BF.INFO``'s "Number of
    items inserted" (adds that found the item already present are not counted).
    """

    error: float
    capacity: int
    expansion: int = DEFAULT_EXPANSION
    nonscaling: bool = False

    def __post_init__(self) -> None:
        _probability("error", self.error)
        _int("capacity", self.capacity, 1, MAX_CAPACITY)
        _int("expansion", self.expansion, 1, MAX_EXPANSION)
        if not isinstance(self.nonscaling, bool):
            raise ValueError(f"nonscaling must be True or False, got {self.nonscaling!r}")

    def sub_filter(self, index: int) -> SubFilter:
        """Sub-filter ``index`` (0 = the one ``BF.RESERVE`` creates)."""
        return self.sub_filters(_int("index", index, 0) + 1)[-1]

    def sub_filters(self, count: int) -> list[SubFilter]:
        """The first ``count`` sub-filters, oldest first (``count >= 1``)."""
        count = _int("count", count, 1, 1 if self.nonscaling else 4096)
        error = self.error if self.nonscaling else self.error * TIGHTENING
        capacity = self.capacity
        links = []
        for index in range(count):
            if capacity > MAX_CAPACITY:
                raise ValueError(
                    f"sub-filter {index} would hold {capacity:,} items, over the model's "
                    f"{MAX_CAPACITY:,}: the server could not allocate it either"
                )
            links.append(sub_filter(capacity, error, index))
            capacity, error = capacity * self.expansion, error * TIGHTENING
        return links

    def items_for(self, filters: int) -> int:
        """Items the first ``filters`` sub-filters hold together (the chain's capacity then)."""
        return sum(link.capacity for link in self.sub_filters(filters))

    def filters_for(self, items: int) -> int:
        """Sub-filters that exist once the chain holds ``items`` items.

        A sub-filter is added by the add that finds the newest one full, so a chain holding
        exactly ``items_for(n)`` items still has ``n`` sub-filters.
        """
        items = self._items(items)
        if self.expansion == 1:
            return max(1, -(-items // self.capacity))
        filters, total, capacity = 1, self.capacity, self.capacity
        while items > total:
            capacity *= self.expansion
            filters, total = filters + 1, total + capacity
        return filters

    def sizes(self, items: int) -> list[int]:
        """Items in each sub-filter, oldest first, when the chain holds ``items``."""
        items = self._items(items)
        sizes = []
        for link in self.sub_filters(self.filters_for(items)):
            sizes.append(min(items, link.capacity))
            items -= sizes[-1]
        return sizes

    def memory(self, items: int = 0) -> int:
        """``BF.INFO`` "Size" in bytes: 32 + Σ (64 + the sub-filter's bytes)."""
        links = self.sub_filters(self.filters_for(items))
        return CHAIN_BYTES + sum(LINK_BYTES + link.bytes for link in links)

    def info(self, items: int = 0) -> dict[str, int | None]:
        """What ``BF.INFO`` returns when the chain holds ``items`` items (same field names)."""
        links = self.sub_filters(self.filters_for(items))
        return {
            "Capacity": sum(link.capacity for link in links),
            "Size": self.memory(items),
            "Number of filters": len(links),
            "Number of items inserted": self._items(items),
            "Expansion rate": None if self.nonscaling else self.expansion,
        }

    def debug(self, items: int = 0) -> list[str]:
        """What ``BF.DEBUG`` returns when the chain holds ``items`` items, line by line."""
        sizes = self.sizes(items)
        links = self.sub_filters(len(sizes))
        return [f"size:{sum(sizes)}"] + [
            link.debug_line(size) for link, size in zip(links, sizes, strict=True)
        ]

    def expected_fpr(self, items: float) -> float:
        """False-positive rate of the chain holding ``items``: ``1 - Π (1 - fpr_i(n_i))``.

        Each sub-filter's rate comes from :meth:`SubFilter.fpr` at its own load; a query is a
        false positive if any sub-filter says yes. A fraction.
        """
        sizes = self.sizes(math.ceil(items))
        links = self.sub_filters(len(sizes))
        miss = math.prod(1.0 - link.fpr(n) for link, n in zip(links, sizes, strict=True))
        return 1.0 - miss

    def stranger_probes(self, items: int) -> float:
        """Expected bits a ``BF.EXISTS`` of a non-member reads when the chain holds ``items``.

        Each sub-filter's test stops at the first unset bit: with a share ``f`` of its bits set
        and ``k`` hashes that is ``1 + f + … + f^(k-1) = (1 - f^k) / (1 - f)`` reads (about 2 for
        a sub-filter at its design point, half full), summed over the sub-filters. The two
        MurmurHash64A calls that produce every position are computed once per query.
        """
        sizes = self.sizes(items)
        total = 0.0
        for link, n in zip(self.sub_filters(len(sizes)), sizes, strict=True):
            fill = -math.expm1(-link.hashes * n / link.bits)
            total += float(link.hashes) if fill >= 1.0 else (1.0 - fill**link.hashes) / (1.0 - fill)
        return total

    def design_fpr(self, filters: int) -> float:
        """``1 - Π (1 - error_i)`` over the first ``filters`` sub-filters: the chain's design rate
        when they are all full. Below ``error`` for any number of sub-filters (the rates halve)."""
        return 1.0 - math.prod(1.0 - link.error for link in self.sub_filters(filters))

    def bits_per_item(self, items: int) -> float:
        """Bits of all sub-filters per item held (``BF.INFO`` Size × 8 / items)."""
        items = self._items(items)
        if items == 0:
            raise ValueError("bits_per_item needs at least one item")
        return self.memory(items) * 8 / items

    def reserve_args(self) -> list[object]:
        """The arguments after the key of the ``BF.RESERVE`` that creates this chain."""
        args: list[object] = [repr(self.error), self.capacity]
        if self.nonscaling:
            return [*args, "NONSCALING"]
        return [*args, "EXPANSION", self.expansion]

    def _items(self, items: object) -> int:
        """``items`` checked: a whole number >= 0, at most the capacity of a NONSCALING chain."""
        items = _int("items", items, 0)
        if self.nonscaling and items > self.capacity:
            raise ValueError(
                f"items must be at most {self.capacity:,} for a NONSCALING filter (the module "
                f"answers 'non scaling filter is full'); got {items:,}"
            )
        return items


def seed_compound_fpr(p: float, layers: int) -> float:
    """Seed 003's formula: ``1 - (1 - p)^layers``, every layer at rate ``p`` (a fraction).

    This is what pyprobables (hence fakeredis) does: layers of equal capacity and equal rate.
    """
    p = _probability("p", p)
    return 1.0 - (1.0 - p) ** _int("layers", layers, 1)


def any_of_fpr(rates: Iterable[float]) -> float:
    """Rate of "present" in at least one of several independent filters: ``1 - Π (1 - r)``.

    A 7-day window queried as seven daily filters ORed together; rates are fractions in [0, 1].
    """
    rates = list(rates)
    if not rates or any(not 0.0 <= float(r) <= 1.0 for r in rates):
        raise ValueError(f"rates must be a non-empty list of probabilities in [0, 1]; got {rates}")
    return 1.0 - math.prod(1.0 - float(r) for r in rates)


# -- RedisBloom's hashing -------------------------------------------------------------------------


def encode(values: object) -> list[bytes]:
    """The bytes the book sends to Redis for each value: 8 bytes, little-endian."""
    return [int(v).to_bytes(8, "little") for v in as_uint64(values).tolist()]


def bloom_hashes(values: object) -> tuple[np.ndarray, np.ndarray]:
    """RedisBloom's two 64-bit Bloom hashes ``(a, b)`` of each 8-byte value (uint64 arrays)."""
    a = murmur64a_u64(values, BLOOM_SEED)
    return a, murmur64a_u64(values, a)


def bit_positions(a: np.ndarray, b: np.ndarray, link: SubFilter) -> np.ndarray:
    """Bits the item with hashes ``(a, b)`` probes in ``link``: ``(a + i·b) mod 2^64 mod bits``,
    shape ``(hashes, n)`` (uint64)."""
    i = np.arange(link.hashes, dtype=np.uint64)[:, None]
    return (a[None, :] + i * b[None, :]) % np.uint64(link.bits)


class ChainSimulator:
    """A RedisBloom chain in process memory, bit for bit, for 8-byte little-endian items.

    :meth:`add` follows ``SBChain_Add`` one item at a time (test every sub-filter, skip items that
    look present, open a sub-filter when the newest is full); :meth:`exists` follows
    ``SBChain_Check``. Its bit arrays equal ``BF.SCANDUMP``'s (:meth:`dump`).
    """

    def __init__(self, layout: ChainLayout) -> None:
        if not isinstance(layout, ChainLayout):
            raise ValueError(f"layout must be a ChainLayout, got {layout!r}")
        self.layout = layout
        self.links: list[SubFilter] = []
        self.arrays: list[bytearray] = []
        self.sizes: list[int] = []
        self._open()

    def _open(self) -> None:
        link = self.layout.sub_filter(len(self.links))
        self.links.append(link)
        self.arrays.append(bytearray(link.bytes))
        self.sizes.append(0)

    @property
    def size(self) -> int:
        """Items counted (``BF.INFO`` "Number of items inserted")."""
        return sum(self.sizes)

    def add(self, values: object) -> np.ndarray:
        """Add values in order; one reply per value like ``BF.ADD``: 1 added, 0 looked present,
        -2 refused because a ``NONSCALING`` chain is full (int8 array)."""
        a_arr, b_arr = bloom_hashes(values)
        replies = np.zeros(a_arr.size, dtype=np.int8)
        for j, (a, b) in enumerate(zip(a_arr.tolist(), b_arr.tolist(), strict=True)):
            if any(self._probe(i, a, b) for i in range(len(self.links) - 1, -1, -1)):
                continue
            if self.sizes[-1] >= self.links[-1].capacity:
                if self.layout.nonscaling:
                    replies[j] = -2
                    continue
                self._open()
            link, array = self.links[-1], self.arrays[-1]
            for i in range(link.hashes):
                x = ((a + i * b) & MASK64) % link.bits
                array[x >> 3] |= 1 << (x & 7)
            self.sizes[-1] += 1
            replies[j] = 1
        return replies

    def _probe(self, index: int, a: int, b: int) -> bool:
        link, array = self.links[index], self.arrays[index]
        for i in range(link.hashes):
            x = ((a + i * b) & MASK64) % link.bits
            if not array[x >> 3] >> (x & 7) & 1:
                return False
        return True

    def exists(self, values: object) -> np.ndarray:
        """``BF.EXISTS`` for each value (bool array), vectorised over values."""
        a, b = bloom_hashes(values)
        found = np.zeros(a.size, dtype=bool)
        for link, array in zip(self.links, self.arrays, strict=True):
            bits = np.unpackbits(np.frombuffer(bytes(array), dtype=np.uint8), bitorder="little")
            found |= bits[bit_positions(a, b, link).astype(np.int64)].all(axis=0)
        return found

    def info(self) -> dict[str, int | None]:
        """``BF.INFO`` of this chain (from :class:`ChainLayout`)."""
        return self.layout.info(self.size)

    def dump(self, index: int) -> bytes:
        """Sub-filter ``index``'s bit array, as ``BF.SCANDUMP`` returns it."""
        return bytes(self.arrays[_int("index", index, 0, len(self.arrays) - 1)])


# -- talking to the module ------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def reply_dict(reply: Any) -> dict[str, Any]:
    """A flat RESP2 ``[name, value, …]`` reply (``BF.INFO``, ``CF.INFO``; or a dict) as
    ``{name: value}`` with text names."""
    if isinstance(reply, dict):
        return {_text(k): v for k, v in reply.items()}
    return {_text(reply[i]): reply[i + 1] for i in range(0, len(reply), 2)}


def reserve(lab: Lab, key: str, layout: ChainLayout) -> None:
    """``BF.RESERVE key …`` for ``layout`` (the key must not exist). Checks the allocation of the
    first sub-filter with ``lab.check_allocation``."""
    lab.check_allocation(layout.memory(0), f"BF.RESERVE {key}")
    lab.r.execute_command("BF.RESERVE", key, *layout.reserve_args())


def read_info(lab: Lab, key: str) -> dict[str, int | None]:
    """``BF.INFO key`` as a dict with the module's field names."""
    return {
        k: (None if v is None else int(v))
        for k, v in reply_dict(lab.r.execute_command("BF.INFO", key)).items()
    }


def read_debug(lab: Lab, key: str) -> list[str]:
    """``BF.DEBUG key`` as text lines (real RedisBloom only; fakeredis has no BF.DEBUG)."""
    return [_text(line) for line in lab.r.execute_command("BF.DEBUG", key)]


def read_dump(lab: Lab, key: str) -> list[bytes]:
    """The chain's bit arrays as ``BF.SCANDUMP`` returns them, concatenated then split per
    sub-filter using ``BF.DEBUG``'s byte counts (real RedisBloom only)."""
    sizes = [int(line.split()[0].split(":")[1]) for line in read_debug(lab, key)[1:]]
    cursor, _header = lab.r.execute_command("BF.SCANDUMP", key, 0)
    data = b""
    while True:
        cursor, chunk = lab.r.execute_command("BF.SCANDUMP", key, cursor)
        if not cursor:
            break
        data += chunk
    out, start = [], 0
    for size in sizes:
        out.append(data[start : start + size])
        start += size
    return out


def add_items(lab: Lab, key: str, values: object, batch: int = 1000) -> np.ndarray:
    """``BF.MADD`` the values (8-byte encoding) in pipelined batches; the replies (int8 array:
    1 added, 0 looked present)."""
    batch = _int("batch", batch, 1)
    items = encode(values)
    replies: list[int] = []
    pipe = lab.r.pipeline(transaction=False)
    for start in range(0, len(items), batch):
        pipe.execute_command("BF.MADD", key, *items[start : start + batch])
        if len(pipe) >= 16:
            replies += [int(v) for reply in pipe.execute() for v in reply]
    replies += [int(v) for reply in pipe.execute() for v in reply]
    return np.array(replies, dtype=np.int8)


def mexists(lab: Lab, command: str, key: str, values: object, batch: int = 1000) -> np.ndarray:
    """``BF.MEXISTS`` or ``CF.MEXISTS`` for the values, in pipelined batches (bool array)."""
    batch = _int("batch", batch, 1)
    items = encode(values)
    pipe = lab.r.pipeline(transaction=False)
    for start in range(0, len(items), batch):
        pipe.execute_command(command, key, *items[start : start + batch])
    return np.array([bool(v) for reply in pipe.execute() for v in reply], dtype=bool)


def exists_items(lab: Lab, key: str, values: object, batch: int = 1000) -> np.ndarray:
    """``BF.MEXISTS`` for the values in pipelined batches (bool array)."""
    return mexists(lab, "BF.MEXISTS", key, values, batch)


class FreshValues:
    """Distinct 64-bit values that look like hashed device IDs, never repeated.

    Value ``c`` of stream ``s`` is ``s · 2^62 + mix(c)``, where ``mix`` is a bijection of
    ``[0, 2^62)`` (odd multipliers and xor-shifts modulo 2^62): distinct counters give distinct
    values, and streams never overlap. The chapters add stream 0 and query stream 1, so every
    "present" answer for stream 1 is a false positive. (Scrambling matters: pyprobables, behind
    fakeredis's BF.*, hashes consecutive integers badly.)
    """

    _MASK62 = (1 << 62) - 1

    def __init__(self, stream: int = 0) -> None:
        self.stream = _int("stream", stream, 0, 3)
        self.counter = 0

    def take(self, count: int) -> np.ndarray:
        """The next ``count`` values (uint64 array)."""
        count = _int("count", count, 0)
        x = np.arange(self.counter, self.counter + count, dtype=np.uint64)
        self.counter += count
        mask = np.uint64(self._MASK62)
        x = (x * np.uint64(0x9E3779B97F4A7C15)) & mask
        x ^= x >> np.uint64(31)
        x = (x * np.uint64(0xBF58476D1CE4E5B9)) & mask
        x ^= x >> np.uint64(29)
        return x | np.uint64(self.stream << 62)

    def first(self, count: int) -> np.ndarray:
        """The first ``count`` values of this stream again (the oldest members)."""
        return FreshValues(self.stream).take(count)


def fill_to(lab: Lab, key: str, target: int, values: FreshValues, batch: int = 1000) -> int:
    """Add fresh values until ``BF.INFO`` counts ``target`` items; returns how many were sent.

    Values that look present are not counted by the module, so more values than ``target`` are
    sent; the last batch is cut so the chain holds exactly ``target`` (and no sub-filter beyond).
    """
    target = _int("target", target, 0)
    counted = int(read_info(lab, key)["Number of items inserted"] or 0)
    sent = 0
    while counted < target:
        replies = add_items(lab, key, values.take(target - counted), batch)
        counted += int(np.count_nonzero(replies == 1))
        sent += replies.size
    return sent


def time_exists(lab: Lab, key: str, values: np.ndarray) -> dict[str, float]:
    """Time one ``BF.EXISTS`` per value, one round trip each.

    Returns the client-side round trip's median and 99th percentile (seconds), and the mean
    time inside Redis per call from ``INFO commandstats`` (seconds; real Redis only, else NaN).
    """
    items = encode(values)
    rtts = np.empty(len(items))
    before = latency.server_usec(lab, "bf.exists") if lab.is_real else math.nan
    for i, item in enumerate(items):
        t0 = time.perf_counter()
        lab.r.execute_command("BF.EXISTS", key, item)
        rtts[i] = time.perf_counter() - t0
    after = latency.server_usec(lab, "bf.exists") if lab.is_real else math.nan
    return {
        "rtt_p50": float(np.percentile(rtts, 50)),
        "rtt_p99": float(np.percentile(rtts, 99)),
        "server": (after - before) / 1e6 / max(1, len(items)),
    }


def scaling_run(
    lab: Lab,
    name: str,
    layout: ChainLayout,
    filters: int,
    queries: int = 100_000,
    timed: int = 2_000,
) -> list[dict[str, Any]]:
    """Grow one chain sub-filter by sub-filter; after each is full, measure it.

    For ``n = 1 … filters`` full sub-filters: ``BF.INFO``, the false-positive rate on ``queries``
    fresh non-members (with the model's expected rate, the design rate and seed 003's formula
    beside it), and ``BF.EXISTS`` timings for ``timed`` non-members and ``timed`` members (the
    oldest ones, which a query finds last). Works on fakeredis too (pyprobables' filter, no
    server timings). The key is ``lab.key(name)``; it is removed at the end.
    """
    filters = _int("filters", filters, 1, 1 if layout.nonscaling else 64)
    queries, timed = _int("queries", queries, 1), _int("timed", timed, 0)
    key = lab.key(name)
    lab.r.delete(key)
    lab.check_allocation(layout.memory(layout.items_for(filters)), f"chain {name!r}")
    reserve(lab, key, layout)
    members, strangers = FreshValues(0), FreshValues(1)
    rows, sent = [], 0
    for n in range(1, filters + 1):
        target = layout.items_for(n)
        t0 = time.perf_counter()
        added = fill_to(lab, key, target, members)
        load_seconds = time.perf_counter() - t0
        sent += added
        hits = int(np.count_nonzero(exists_items(lab, key, strangers.take(queries))))
        info = read_info(lab, key)
        row: dict[str, Any] = {
            "filters_full": n,
            "info": info,
            "items_sent": sent,
            "load_items_per_second": added / load_seconds if load_seconds > 0 else math.nan,
            "queries": queries,
            "false_positives": hits,
            "fpr_measured": hits / queries,
            "fpr_model": layout.expected_fpr(target),
            "fpr_design": layout.design_fpr(n),
            "fpr_seed_formula": seed_compound_fpr(layout.error, n),
        }
        if timed:
            stranger_t = time_exists(lab, key, strangers.take(timed))
            member_t = time_exists(lab, key, members.first(timed))
            row.update({f"stranger_{k}": v for k, v in stranger_t.items()})
            row.update({f"member_{k}": v for k, v in member_t.items()})
        rows.append(row)
    lab.r.unlink(key)
    return rows


# -- operations: rebuilding a filter, and time windows ------------------------------------------


@dataclass(frozen=True)
class RebuildOutcome:
    """What a rebuild of a filter of ``items`` costs under one strategy."""

    strategy: str
    window_seconds: float  #: how long the rebuild takes at the load rate
    repeat_queries: int  #: queries for already-seen items during the window
    passed: int  #: of those, how many the filter wrongly let through (duplicates delivered)
    extra_reads: int  #: filter reads beyond the normal one per query
    extra_writes: int  #: filter writes beyond the normal ones (the reload itself included)
    peak_filters: int  #: filters held at the same time


REBUILD_STRATEGIES = ("delete-and-rebuild", "dual-write-shadow-read")


def simulate_rebuild(
    items: int,
    load_rate: float,
    query_rate: float,
    repeat_share: float,
    strategy: str,
    rng: np.random.Generator,
) -> RebuildOutcome:
    """Simulate rebuilding a deduplication filter of ``items`` items at ``load_rate`` items/s.

    Queries arrive as a Poisson process at ``query_rate`` per second; a share ``repeat_share``
    of them ask about an item already in the filter (a device already reached today), chosen
    uniformly. The rebuild reloads the items in random order, so each has a uniform reload time
    in the window ``W = items / load_rate``.

    ``delete-and-rebuild`` (seed 003's first version): the key is deleted, then reloaded; a
    repeat query passes if its item has not been reloaded yet (the live write path then adds
    it, so each item passes at most once). Expected passes: ``query_rate · repeat_share · W / 2``.
    ``dual-write-shadow-read`` (seed 003's fix): the new filter is loaded beside the old one,
    writes go to both and reads ask both until the switch: nothing passes; it costs a second
    read per query and a second write per new item during ``W``, and two filters at once.
    """
    items = _int("items", items, 1)
    if not load_rate > 0 or not query_rate >= 0:
        raise ValueError(
            f"load_rate must be > 0 and query_rate >= 0 (per second); got {load_rate}, {query_rate}"
        )
    if not 0.0 <= repeat_share <= 1.0:
        raise ValueError(f"repeat_share must be in [0, 1], got {repeat_share!r}")
    if strategy not in REBUILD_STRATEGIES:
        raise ValueError(f"strategy must be one of {REBUILD_STRATEGIES}, got {strategy!r}")
    window = items / load_rate
    repeats = int(rng.poisson(query_rate * repeat_share * window))
    new_items = int(rng.poisson(query_rate * (1.0 - repeat_share) * window))
    if strategy == "dual-write-shadow-read":
        return RebuildOutcome(
            strategy, window, repeats, 0, repeats + new_items, items + new_items, 2
        )
    asked = rng.integers(0, items, size=repeats)
    at = rng.uniform(0.0, window, size=repeats)
    order = np.argsort(at, kind="stable")
    asked, at = asked[order], at[order]
    first = np.unique(asked, return_index=True)[1]  # each item passes at most once
    reloaded_at = rng.uniform(0.0, window, size=first.size)
    passed = int(np.count_nonzero(reloaded_at > at[first]))
    return RebuildOutcome(strategy, window, repeats, passed, 0, items, 1)


def expected_rebuild_passes(
    items: int, load_rate: float, query_rate: float, repeat_share: float
) -> float:
    """Closed form for ``delete-and-rebuild``: ``query_rate · repeat_share · (items/load_rate) / 2``
    (ignores an item being asked twice in the window, which only lowers the count)."""
    items = _int("items", items, 1)
    if not load_rate > 0:
        raise ValueError(f"load_rate must be > 0 items/s, got {load_rate!r}")
    return query_rate * repeat_share * items / load_rate / 2.0


def time_window_queries(
    lab: Lab, keys: Sequence[str], values: np.ndarray, pipelined: bool
) -> dict[str, float]:
    """Time "is the value in any of these daily filters?" for each value (seconds).

    ``pipelined=False``: one ``BF.EXISTS`` round trip per key, stopping at the first yes, as a
    loop over seven day keys does. ``pipelined=True``: all keys' ``BF.EXISTS`` in one round trip.
    Returns the median and 99th percentile per query.
    """
    if not keys:
        raise ValueError("keys must name at least one filter")
    items = encode(values)
    times = np.empty(len(items))
    for i, item in enumerate(items):
        t0 = time.perf_counter()
        if pipelined:
            pipe = lab.r.pipeline(transaction=False)
            for key in keys:
                pipe.execute_command("BF.EXISTS", key, item)
            any(pipe.execute())
        else:
            any(lab.r.execute_command("BF.EXISTS", key, item) for key in keys)
        times[i] = time.perf_counter() - t0
    return {"p50": float(np.percentile(times, 50)), "p99": float(np.percentile(times, 99))}


def window_run(
    lab: Lab,
    name: str,
    layout: ChainLayout,
    days: int = 7,
    queries: int = 50_000,
    timed: int = 2000,
) -> dict[str, Any]:
    """Seven daily filters (``days`` of them), each reserved with ``layout`` and filled to its
    capacity with different items, queried as "seen on any day?".

    Returns the measured rate of the OR on ``queries`` strangers beside :func:`any_of_fpr` of the
    model's per-day rate, and per-query times (seconds) for one filter, for ``days`` round trips
    and for one pipelined round trip. Keys are ``lab.key(name, day)``, removed at the end.
    """
    days = _int("days", days, 1, 31)
    keys = [lab.key(name, day) for day in range(days)]
    lab.check_allocation(days * layout.memory(layout.capacity), f"{days} daily filters")
    members = FreshValues(0)
    for key in keys:
        lab.r.delete(key)
        reserve(lab, key, layout)
        fill_to(lab, key, layout.capacity, members)
    strangers = FreshValues(1)
    sample = strangers.take(_int("queries", queries, 1))
    hit = np.zeros(sample.size, dtype=bool)
    for key in keys:
        hit |= exists_items(lab, key, sample)
    timed_values = strangers.take(_int("timed", timed, 1))
    out = {
        "days": days,
        "queries": int(sample.size),
        "false_positives": int(hit.sum()),
        "fpr_measured": float(hit.mean()),
        "fpr_day_model": layout.expected_fpr(layout.capacity),
        "fpr_model": any_of_fpr([layout.expected_fpr(layout.capacity)] * days),
        "one_filter": time_window_queries(lab, keys[:1], timed_values, pipelined=False),
        "round_trips": time_window_queries(lab, keys, timed_values, pipelined=False),
        "pipelined": time_window_queries(lab, keys, timed_values, pipelined=True),
    }
    lab.r.unlink(*keys)
    return out


def roaring_window_costs(
    days: int = 7, per_day: int = 100_000, queries: int = 20_000, seed: int = 0
) -> dict[str, Any]:
    """The same question answered in process with pyroaring: ``days`` bitmaps of ``per_day``
    random 32-bit IDs, asked "seen on any day?" for ``queries`` IDs.

    Roaring needs the IDs to be (or map to) 32-bit integers, and answers exactly. Returns the
    per-query time (seconds) of testing each day's bitmap in turn and of one precomputed union,
    the time to build that union, and the serialized bytes of the day bitmaps and of the union.
    """
    from pyroaring import BitMap

    days, per_day = _int("days", days, 1, 31), _int("per_day", per_day, 1)
    rng = np.random.default_rng(seed)
    bitmaps = [BitMap(rng.integers(0, 2**32, size=per_day, dtype=np.uint32)) for _ in range(days)]
    asked = rng.integers(0, 2**32, size=_int("queries", queries, 1), dtype=np.uint64).tolist()
    t0 = time.perf_counter()
    each = [any(x in bm for bm in bitmaps) for x in asked]
    t1 = time.perf_counter()
    union = BitMap.union(*bitmaps)
    t2 = time.perf_counter()
    once = [x in union for x in asked]
    t3 = time.perf_counter()
    if each != once:
        raise AssertionError("the union and the per-day loop disagree")  # cannot happen
    return {
        "days": days,
        "per_day": per_day,
        "per_query_each_day": (t1 - t0) / len(asked),
        "per_query_union": (t3 - t2) / len(asked),
        "union_build": t2 - t1,
        "day_bytes": sum(len(bm.serialize()) for bm in bitmaps),
        "union_bytes": len(union.serialize()),
        "hits": int(sum(once)),
    }


# -- the field report's claims (the figures setlab.chapters.claims checks them against) --------------------

#: Seed 003's rebuild: items reloaded, its window (3 minutes), devices a day, and the share of
#: checks assumed to be for a device already reached that day (the scalable-bloom chapter's).
SEED_003_REBUILD = {"items": 2 * 10**7, "window_s": 180.0, "checks_per_s": 1.2e8 / 86_400,
                    "repeat_share": 0.3, "seed": 3}  # fmt: skip


@functools.cache
def claim_figures() -> dict[str, Any]:
    """The numbers behind the verdicts on seed 003's scaling, latency, window and rebuild claims,
    from the layout model and the stored reference run of RedisBloom 2.8
    (``src/setlab/data/redisbloom-reference.json``): the same on every machine (cached)."""
    from setlab.lab import reference

    ref = reference.load("redisbloom-reference")
    demo = ChainLayout(0.01, 1000)
    fixed = ChainLayout(0.01, 1000, 1)
    large = ChainLayout(0.01, 10**6)
    r = SEED_003_REBUILD
    rate = ref["load_items_per_second"]
    rng = np.random.default_rng(r["seed"])
    outcomes = {
        (strategy, label): simulate_rebuild(r["items"], load, r["checks_per_s"],
                                            r["repeat_share"], strategy, rng)
        for strategy in REBUILD_STRATEGIES
        for label, load in (("seed", r["items"] / r["window_s"]), ("ours", rate))
    }  # fmt: skip
    rows = ref["rows"]
    return {
        "default_expansion": DEFAULT_EXPANSION,
        "demo_links": [(link.capacity, link.error) for link in demo.sub_filters(3)],
        "three_measured": ref["small"][2]["fpr_measured"],
        "three_model": ref["small"][2]["fpr_model"],
        "three_equal_layers": seed_compound_fpr(0.01, 3),
        "five_fixed_measured": ref["fixed"][4]["fpr_measured"],
        "five_fixed_bits_per_item": fixed.bits_per_item(fixed.items_for(5)),
        "five_equal_layers": seed_compound_fpr(0.01, 5),
        "rtt_one": rows[0]["stranger_rtt_p50"],
        "rtt_three": rows[2]["stranger_rtt_p50"],
        "rtt_three_p99": rows[2]["stranger_rtt_p99"],
        "server_one": rows[0]["stranger_server"],
        "server_three": rows[2]["stranger_server"],
        "probes_three": large.stranger_probes(large.items_for(3)),
        "window_round_trips": ref["window"]["round_trips"]["p50"],
        "window_one": ref["window"]["one_filter"]["p50"],
        "window_pipelined": ref["window"]["pipelined"]["p50"],
        "load_rate": rate,
        "rebuild_window_s": outcomes["delete-and-rebuild", "ours"].window_seconds,
        "rebuild_passed_seed": outcomes["delete-and-rebuild", "seed"].passed,
        "rebuild_expected_seed": expected_rebuild_passes(
            r["items"], r["items"] / r["window_s"], r["checks_per_s"], r["repeat_share"]
        ),
        "dual_passed": outcomes["dual-write-shadow-read", "ours"].passed,
        "dual_extra_reads": outcomes["dual-write-shadow-read", "ours"].extra_reads,
        "dual_filters": outcomes["dual-write-shadow-read", "ours"].peak_filters,
        "measured": ref["measured"],
    }
