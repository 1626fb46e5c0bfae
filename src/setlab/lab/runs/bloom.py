"""Bloom filters on Redis bitmaps: the book's sharded filter, and seed 004's Java filter.

:class:`RedisBloomFilter` keeps a :class:`setlab.models.bloom_sim.BloomLayout` in Redis strings,
one key per shard, and sets or reads all ``k`` bits of an item with one ``BITFIELD``. The hashing
runs in Python, so the bits are the ones :class:`setlab.models.bloom_sim.BloomSimulator` sets,
on a real Redis and on fakeredis alike: only the time differs.

:class:`Seed004BloomFilter` is seed 004's Java ``BloomFilter`` (§3-2) ported line for line, bug
included. Two small experiments the chapter bloom-basics runs (and its figures run on the
embedded backend, where they give the same answers): :func:`openid_lookups` (a filter in front
of MySQL, scaled down) and :func:`seed004_check` (the post's own test).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import mmh3
import numpy as np

from setlab.core.progress import Progress
from setlab.core.validate import check_int, check_probability
from setlab.lab import guard
from setlab.lab.backend import Lab
from setlab.models.bloom import MAX_K
from setlab.models.bloom_sim import BloomLayout, iter_chunks

# -- a Bloom filter on Redis bitmaps --------------------------------------------------------------


class RedisBloomFilter:
    """A Bloom filter stored in Redis strings (bitmaps): one key, or one key per shard.

    Keys are ``lab.key(name)`` (one key) or ``lab.key(name, shard)``. Every item's ``k`` bits live
    in the one key its hash routes it to, so an add or a query is one ``BITFIELD`` command on one
    key (atomic per item, and in Redis Cluster the whole item lives in one slot). Works on a real
    Redis and on fakeredis.
    """

    def __init__(self, lab: Lab, name: str, layout: BloomLayout, *, preallocate: bool = True):
        if not isinstance(layout, BloomLayout):
            raise ValueError(f"layout must be a BloomLayout, got {layout!r}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        lab.check_allocation(
            guard.budget(string=layout.bytes_per_shard, keys=layout.shards),
            f"Bloom filter {name!r}",
        )
        self.lab, self.name, self.layout = lab, name, layout
        if preallocate:
            self.preallocate()

    def key_for(self, shard: int) -> str:
        """The Redis key of one shard."""
        return self.lab.key(self.name, *self.layout.key_suffix(shard))

    def keys(self) -> list[str]:
        return [self.key_for(s) for s in range(self.layout.shards)]

    def preallocate(self, batch: int = 1000) -> None:
        """Grow every shard to its full size now (``BITFIELD … INCRBY u1 <last bit> 0``).

        Adding 0 to the last bit changes nothing but makes Redis allocate the whole string at
        once, instead of growing it (and over-allocating) as bits arrive.
        """
        last = self.layout.bits_per_shard - 1
        pipe = self.lab.r.pipeline(transaction=False)
        for shard in range(self.layout.shards):
            pipe.execute_command("BITFIELD", self.key_for(shard), "INCRBY", "u1", last, 0)
            if len(pipe) >= batch:
                pipe.execute()
        pipe.execute()

    def _commands(self, items: object, op: str) -> Iterator[tuple[str, list[object]]]:
        shard, offsets = self.layout.locate(items)
        tail = ["SET", "u1"] if op == "SET" else ["GET", "u1"]
        for s, row in zip(shard.tolist(), offsets.tolist(), strict=True):
            args: list[object] = []
            for offset in row:
                args += [*tail, offset] + ([1] if op == "SET" else [])
            yield self.key_for(s), args

    def add(self, item: object) -> bool:
        """Add one item; ``True`` if it was new (at least one of its bits was 0)."""
        return bool(self.add_many([item]))

    def add_many(self, items: object, batch: int = 2000, progress: bool = False) -> int:
        """Add items in pipelined batches of ``batch`` BITFIELD commands; returns how many were
        new (had at least one bit unset). Shows progress on stderr when ``progress``."""
        batch = check_int("batch", batch, 1)
        total = items.size if isinstance(items, np.ndarray) else None
        report = Progress(total, f"add to {self.name}", progress)
        new = 0
        for chunk in iter_chunks(items, batch):
            pipe = self.lab.r.pipeline(transaction=False)
            for key, args in self._commands(chunk, "SET"):
                pipe.execute_command("BITFIELD", key, *args)
            replies = pipe.execute()
            new += sum(1 for old in replies if 0 in old)
            report.update(len(replies))
        report.close()
        return new

    def contains(self, item: object) -> bool:
        """Whether the filter says the item is present (it may be a false positive)."""
        return bool(self.contains_many([item])[0])

    def contains_many(self, items: object, batch: int = 2000) -> np.ndarray:
        """``True`` where the filter says present, as a bool array (pipelined BITFIELD GETs)."""
        batch = check_int("batch", batch, 1)
        answers: list[bool] = []
        for chunk in iter_chunks(items, batch):
            pipe = self.lab.r.pipeline(transaction=False)
            for key, args in self._commands(chunk, "GET"):
                pipe.execute_command("BITFIELD", key, *args)
            answers += [all(bits) for bits in pipe.execute()]
        return np.array(answers, dtype=bool)

    def shard_bytes(self, shard: int) -> bytes:
        """The shard's bitmap as Redis holds it, padded with zero bytes to its full size."""
        shard = check_int("shard", shard, 0, self.layout.shards - 1)
        value = self.lab.r.get(self.key_for(shard)) or b""
        return value.ljust(self.layout.bytes_per_shard, b"\x00")

    def bits_set(self) -> int:
        """Number of 1 bits over all shards (``BITCOUNT``)."""
        pipe = self.lab.r.pipeline(transaction=False)
        for key in self.keys():
            pipe.bitcount(key)
        return int(sum(pipe.execute()))

    def fill_ratio(self) -> float:
        """Fraction of the filter's bits that are set."""
        return self.bits_set() / self.layout.total_bits

    def delete(self) -> int:
        """Remove the filter's keys (UNLINK); returns how many existed."""
        keys = self.keys()
        return sum(self.lab.r.unlink(*keys[i : i + 1000]) for i in range(0, len(keys), 1000))


# -- seed 004's filter, faithfully -----------------------------------------------------------------


class Seed004BloomFilter:
    """Seed 004's Java ``BloomFilter`` (§3-2), line for line, on a Redis bitmap — bug included.

    ``initializeHashFunctions`` fills ``hashFunctions`` with ``(int)(Math.random() *
    Integer.MAX_VALUE)``; ``add`` and ``contains`` use ``Math.abs(hashFunction % size)`` as the
    bit index. ``fixed=True`` applies the smallest fix: use each of those numbers as the *seed* of
    a real hash of the element (MurmurHash3 x86_32, as seed 004 §4 suggests).
    """

    def __init__(
        self,
        lab: Lab,
        filter_key: str,
        size: int,
        num_hash_functions: int,
        *,
        rng: np.random.Generator | None = None,
        fixed: bool = False,
    ) -> None:
        self.size = check_int("size", size, 1, 2**31 - 1)
        num = check_int("num_hash_functions", num_hash_functions, 1, MAX_K)
        lab.check_allocation(guard.budget(string=-(-self.size // 8)), f"filter {filter_key!r}")
        self.r, self.filter_key, self.fixed = lab.r, lab.key(filter_key), fixed
        rng = rng if rng is not None else np.random.default_rng()
        # Java: hashFunctions[i] = (int) (Math.random() * Integer.MAX_VALUE);
        self.hash_functions = [int(rng.random() * (2**31 - 1)) for _ in range(num)]

    def _indices(self, element: str) -> list[int]:
        if self.fixed:
            return [mmh3.hash(element, h, signed=False) % self.size for h in self.hash_functions]
        return [abs(h % self.size) for h in self.hash_functions]  # never looks at element

    def add(self, element: str) -> None:
        for index in self._indices(element):
            self.r.setbit(self.filter_key, index, 1)

    def contains(self, element: str) -> bool:
        return all(self.r.getbit(self.filter_key, index) for index in self._indices(element))


@dataclass(frozen=True)
class Seed004Check:
    """Seed 004's own test, run: what its filter answers after ``element1``–``element3``."""

    element4: bool  #: what ``contains("element4")`` answers (the post says ``false``)
    strangers: int  #: never-added strings queried
    strangers_present: int  #: how many of those it calls present
    bits_set: int  #: 1 bits in the filter's bitmap (``BITCOUNT``)


def seed004_check(lab: Lab, strangers: int = 200, name: str = "seed004-check") -> Seed004Check:
    """Seed 004's Java filter as published (size 10,000, 3 "hash functions", seeded
    ``numpy.random.default_rng(4)``, element1–3 added): what ``contains("element4")`` answers,
    how many never-added strings it calls present, and how many bits its adds set. Deletes its
    key afterwards. The answers are the same on every backend."""
    strangers = check_int("strangers", strangers, 1)
    java = Seed004BloomFilter(lab, name, 10_000, 3, rng=np.random.default_rng(4))
    try:
        for element in ("element1", "element2", "element3"):
            java.add(element)
        others = [f"never-added-{i}" for i in range(strangers)]
        return Seed004Check(
            element4=java.contains("element4"),
            strangers=len(others),
            strangers_present=sum(java.contains(s) for s in others),
            bits_set=int(lab.r.bitcount(java.filter_key)),
        )
    finally:
        lab.r.unlink(java.filter_key)


# -- seed 002's filter in front of MySQL, scaled down ---------------------------------------------


@dataclass(frozen=True)
class LookupRun:
    """A day of lookups through a filter of members, scaled down (see :func:`openid_lookups`)."""

    members: int  #: openids in the filter
    lookups: int  #: lookups made
    misses: int  #: lookups for openids that are not members
    members_found: (
        float  #: fraction of member lookups the filter found (always 1: no false negatives)
    )
    misses_through: int  #: miss lookups the filter let through to MySQL (false positives)
    expected_rate: float  #: the filter's false-positive rate by the formula, at its load

    @property
    def through_rate(self) -> float:
        """Fraction of the miss lookups that got through (the measured false-positive rate)."""
        return self.misses_through / self.misses if self.misses else 0.0


def openid_lookups(
    lab: Lab,
    members: int = 8_000,
    lookups: int = 4_000,
    miss_share: float = 0.30,
    p: float = 0.01,
    seed: int = 2,
    name: str = "openids",
) -> LookupRun:
    """Seed 002's motivation, scaled down: a filter at rate ``p`` for ``members`` random openids
    (``o<16 hex digits>``) on the lab's Redis, then ``lookups`` (at most ``members``) lookups of
    which a share ``miss_share`` ask for strangers (``x<16 hex digits>``). Deterministic for a
    ``seed``: the hashing is ours, so a real Redis and fakeredis give the same answers. Deletes
    its keys."""
    members = check_int("members", members, 1)
    lookups = check_int("lookups", lookups, 1, members)
    miss_share = check_probability("miss_share", miss_share)
    rng = np.random.default_rng(seed)
    openids = [f"o{v:016x}" for v in rng.integers(0, 2**63, size=members)]
    filt = RedisBloomFilter(lab, name, BloomLayout.for_items(members, p))
    try:
        filt.add_many(openids)
        is_miss = rng.random(lookups) < miss_share
        strangers = rng.integers(0, 2**63, size=lookups)
        asked = [
            f"x{v:016x}" if miss else openids[i]
            for i, (v, miss) in enumerate(zip(strangers, is_miss, strict=True))
        ]
        answers = filt.contains_many(asked)
    finally:
        filt.delete()
    hits = answers[~is_miss]
    return LookupRun(
        members=members,
        lookups=lookups,
        misses=int(is_miss.sum()),
        members_found=float(hits.mean()) if hits.size else 1.0,
        misses_through=int(answers[is_miss].sum()),
        expected_rate=filt.layout.expected_fpr(members),
    )
