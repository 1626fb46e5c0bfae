"""RedisBloom 2.8's scalable Bloom filter (``BF.*``): the sub-filters it builds, bit for bit.

``BF.RESERVE key error capacity [EXPANSION e] [NONSCALING]`` creates a *chain* of Bloom filters
(``SBChain`` in RedisBloom's ``src/sb.c``). Items go into the newest sub-filter ("link"); when it
holds ``capacity`` items, the next add creates another. :class:`ChainLayout` computes every
sub-filter exactly as the module does, and ``tests/lab/runs/test_live_redisbloom.py`` checks it
against ``BF.INFO`` and ``BF.DEBUG`` of redisbloom.so 2.8.2 for a grid of parameters:

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

This module is pure computation. The experiments that send these items to a server (``BF.RESERVE``,
``BF.MADD``, ``BF.INFO``, the scaling and window runs) live in :mod:`setlab.lab.runs.redisbloom`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from setlab.core.hashing import MASK64, as_uint64, murmur64a_u64
from setlab.core.validate import check_int, check_probability
from setlab.models.allocator import DEFAULT_ALLOCATOR

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
    return -math.log(check_probability("error", error)) / LN2_SQUARED


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
    capacity = check_int("capacity", capacity, 1, MAX_CAPACITY)
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
        check_probability("error", self.error)
        check_int("capacity", self.capacity, 1, MAX_CAPACITY)
        check_int("expansion", self.expansion, 1, MAX_EXPANSION)
        if not isinstance(self.nonscaling, bool):
            raise ValueError(f"nonscaling must be True or False, got {self.nonscaling!r}")

    def sub_filter(self, index: int) -> SubFilter:
        """Sub-filter ``index`` (0 = the one ``BF.RESERVE`` creates)."""
        return self.sub_filters(check_int("index", index, 0) + 1)[-1]

    def sub_filters(self, count: int) -> list[SubFilter]:
        """The first ``count`` sub-filters, oldest first (``count >= 1``)."""
        count = check_int("count", count, 1, 1 if self.nonscaling else 4096)
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

    def allocated(self, items: int = 0, allocator: str = DEFAULT_ALLOCATOR) -> int:
        """Bytes the allocator hands out for the chain holding ``items``: the ``SBChain``
        struct, the array of ``SBLink`` structs (one ``RedisModule_Realloc`` block) and each
        bit array (``RedisModule_Calloc``), every one rounded up to ``allocator``'s size
        (:func:`setlab.models.allocator.size_class`: jemalloc's classes, or glibc's chunks and
        pages on a ``libc`` build such as Valkey 8.1's; sb.c, bloom.c in RedisBloom 2.8).
        ``BF.INFO`` Size (:meth:`memory`, also what ``MEMORY USAGE`` reports) counts the
        requests, not the classes."""
        from setlab.models.allocator import size_class

        links = self.sub_filters(self.filters_for(items))
        structs = size_class(CHAIN_BYTES, allocator) + size_class(
            LINK_BYTES * len(links), allocator
        )
        return structs + sum(size_class(link.bytes, allocator) for link in links)

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
        items = check_int("items", items, 0)
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
    p = check_probability("p", p)
    return 1.0 - (1.0 - p) ** check_int("layers", layers, 1)


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
        return bytes(self.arrays[check_int("index", index, 0, len(self.arrays) - 1)])


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
        self.stream = check_int("stream", stream, 0, 3)
        self.counter = 0

    def take(self, count: int) -> np.ndarray:
        """The next ``count`` values (uint64 array)."""
        count = check_int("count", count, 0)
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


# -- operations: rebuilding a filter ---------------------------------------------------------------


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
    items = check_int("items", items, 1)
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
    items = check_int("items", items, 1)
    if not load_rate > 0:
        raise ValueError(f"load_rate must be > 0 items/s, got {load_rate!r}")
    return query_rate * repeat_share * items / load_rate / 2.0
