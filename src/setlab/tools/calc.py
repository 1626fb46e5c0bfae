"""The calculators behind ``setlab calc``: Bloom, cuckoo, Roaring, Redis SET and HyperLogLog.

Each calculator takes the numbers a reader has (item counts, error rates, sizes typed the way
people type them: ``1.2e8``, ``120M``, ``1%``, ``128MiB``) and answers with the book's models:

* :func:`solve_bloom` — any two or three of ``n`` (items), ``p`` (false-positive rate), ``m``
  (bits) and ``k`` (hashes) give the rest (:mod:`setlab.models.bloom`); :func:`redisbloom_layout`
  shows the chain ``BF.RESERVE`` builds (:mod:`setlab.models.redisbloom`);
* :func:`cuckoo_sizing` — a cuckoo filter for ``n`` items at rate ``p``, and RedisBloom's
  ``CF.RESERVE`` with its 8-bit fingerprints (:mod:`setlab.models.cuckoo`);
* :func:`roaring_estimate` / :func:`roaring_from_ids` — Roaring containers and bytes for a count
  in a range, or for real IDs (:mod:`setlab.models.roaring`);
* :func:`set_estimate` / :func:`set_from_ids` — what a Redis SET costs
  (:mod:`setlab.models.redis_memory`);
* :func:`hll_estimate` — a HyperLogLog's memory and error.

Every calculator returns a :class:`Report`: labelled rows for people, a dict for ``--json``.
Bad input is a ``ValueError`` whose message names the parameter and the valid range. What people
type (``1.2e8``, ``1%``, ``128MiB``) is read by :mod:`setlab.core.quantities`; files of IDs by
:mod:`setlab.models.ids`. Reference measurements are read through :mod:`setlab.lab.reference`
(package data), so an installed wheel answers anywhere.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from setlab.core.units import format_bytes
from setlab.core.validate import check_int, check_probability

if TYPE_CHECKING:
    from setlab.models.ids import IDs
    from setlab.models.redis_memory import Members


# -- reports --------------------------------------------------------------------------------------


@dataclass
class Report:
    """A calculator's answer: a title, labelled rows for people, notes, and data for JSON."""

    title: str
    rows: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        width = max((len(label) for label, _ in self.rows), default=0)
        lines = [self.title]
        lines += [f"  {label.ljust(width)}  {value}" for label, value in self.rows]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, **self.data, "notes": self.notes}


def _rate(p: float) -> str:
    from setlab.models.bloom import format_rate

    return format_rate(p)


def _size(bits: float) -> str:
    nbytes = math.ceil(bits / 8)
    return f"{math.ceil(bits):,} bits = {format_bytes(nbytes)} ({nbytes:,} bytes)"


# -- Bloom ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BloomSolution:
    """A Bloom filter with all four of ``n`` (items), ``p`` (rate at ``n``), ``m`` (bits), ``k``."""

    n: int
    p: float  #: the false-positive rate at ``n`` items, a fraction
    m: int
    k: int
    given: tuple[str, ...]
    target_p: float | None = None  #: the rate asked for, when ``p`` was given

    @property
    def bits_per_item(self) -> float:
        return self.m / self.n

    @property
    def lower_bound(self) -> float:
        """Bits per item any membership structure needs at rate ``p``: ``log2(1/p)``."""
        from setlab.models import bloom

        return bloom.bits_per_item_lower_bound(self.p)

    @property
    def fill(self) -> float:
        from setlab.models import bloom

        return float(bloom.fill_ratio(self.n, self.m, self.k, finite=False))


def _bloom_m_for(n: int, p: float, k: int) -> int:
    """Fewest bits holding ``n`` items at rate ``p`` with ``k`` hashes:
    ``m = -k n / ln(1 - p^(1/k))``, rounded up (the inverse of
    :func:`setlab.models.bloom.capacity`)."""
    return math.ceil(-k * n / math.log1p(-(p ** (1.0 / k))))


def solve_bloom(
    n: int | None = None, p: float | None = None, m: int | None = None, k: int | None = None
) -> BloomSolution:
    """Solve a Bloom filter from any two or three of ``n``, ``p``, ``m`` (bits), ``k``.

    Formulas (:mod:`setlab.models.bloom`, Broder & Mitzenmacher 2004): ``p = (1 - e^(-kn/m))^k``;
    with the best ``k = (m/n) ln 2``, ``m = -n ln p / (ln 2)^2``. What is solved:

    * ``n, p`` → ``m`` and the best ``k``; ``n, p, k`` → the fewest ``m`` for that ``k``;
    * ``m, p`` → the capacity ``n`` and best ``k``; ``m, p, k`` → the capacity with that ``k``;
    * ``n, m`` → best ``k`` and its ``p``; ``n, m, k`` → ``p``;
    * ``n, k`` → the ``m`` for which ``k`` is best (``m = k n / ln 2``); ``m, k`` → the ``n`` for
      which it is best (``n = m ln 2 / k``), and ``p``.

    ``p, k`` alone fix the bits per item but not the size, and all four over-determine the
    filter: both are errors, as is fewer than two.
    """
    from setlab.models import bloom

    given = tuple(name for name, v in (("n", n), ("p", p), ("m", m), ("k", k)) if v is not None)
    if len(given) < 2:
        raise ValueError(f"give two or three of n, p, m, k; got only {', '.join(given) or 'none'}")
    if len(given) == 4:
        raise ValueError("give two or three of n, p, m, k, not all four (drop p to get the rate)")
    if set(given) == {"p", "k"}:
        raise ValueError("p and k fix the bits per item but not the size: also give n or m")
    if n is not None:
        n = check_int("n", n, 1, 2**62)
    if m is not None:
        m = check_int("m", m, 1, 2**64)
    if k is not None:
        k = check_int("k", k, 1, bloom.MAX_K)
    if p is not None:
        p = check_probability("p", p)
    target = p
    if n is not None and p is not None:
        if k is None:
            sizing = bloom.size_for(n, p)
            m, k = sizing.m, sizing.k
        else:
            m = _bloom_m_for(n, p, k)
    elif m is not None and p is not None:
        if k is None:
            capacity = bloom.capacity(m, p)
            k = bloom.optimal_k(m, max(capacity, 1.0))
        n = math.floor(bloom.capacity(m, p, k))
        if n < 1:
            raise ValueError(f"m = {m:,} bits cannot hold even one item at p = {_rate(p)}")
    elif n is not None and m is not None:
        k = bloom.optimal_k(m, n) if k is None else k
    elif n is not None:  # n, k
        m = math.ceil(k * n / bloom.LN2)
    else:  # m, k
        n = max(1, math.floor(m * bloom.LN2 / k))
    achieved = float(bloom.fpr(n, m, k))
    return BloomSolution(int(n), achieved, int(m), int(k), given, target)


def bloom_report(solution: BloomSolution) -> Report:
    """A :class:`Report` of a solved Bloom filter (bits per item against the lower bound)."""
    from setlab.models import bloom

    s = solution
    best_k = bloom.optimal_k(s.m, s.n)
    report = Report(f"Bloom filter (given {', '.join(s.given)})")
    report.rows = [
        ("n (items)", f"{s.n:,}"),
        ("m (size)", _size(s.m)),
        ("k (hashes)", f"{s.k}" + ("" if s.k == best_k else f" (best for this m/n: {best_k})")),
        ("p at n items", _rate(s.p)),
        ("bits per item", f"{s.bits_per_item:.2f}"),
        ("lower bound", f"{s.lower_bound:.2f} bits/item at this p, for any structure "
                        f"(this filter uses {s.bits_per_item / s.lower_bound:.2f}×)"),
        ("fill at n", f"{s.fill:.1%} of the bits set"),
    ]  # fmt: skip
    if s.target_p is not None and s.p > s.target_p * (1 + 1e-9):
        report.notes.append(f"whole hashes and bits miss the asked {_rate(s.target_p)} slightly")
    keys = math.ceil(s.m / bloom.MAX_BITS_PER_KEY)
    if keys > 1:
        report.notes.append(
            f"{s.m:,} bits is more than one Redis string holds (2^32 bits): shard over "
            f"{keys:,} keys or more"
        )
    report.data = {
        "n": s.n, "p": s.p, "m": s.m, "k": s.k, "bytes": math.ceil(s.m / 8),
        "bits_per_item": s.bits_per_item, "lower_bound_bits_per_item": s.lower_bound,
        "best_k": best_k, "fill": s.fill, "given": list(s.given), "redis_keys": keys,
    }  # fmt: skip
    return report


def redisbloom_layout(
    n: int, p: float, *, expansion: int = 2, nonscaling: bool = False, load: int | None = None
) -> Report:
    """The chain ``BF.RESERVE key p n [EXPANSION e | NONSCALING]`` builds, holding ``load`` items
    (default ``n``): sub-filters, ``BF.INFO`` Size, expected rate (RedisBloom 2.8's layout,
    :class:`setlab.models.redisbloom.ChainLayout`)."""
    from setlab.models.redisbloom import MAX_CAPACITY, ChainLayout

    n = check_int("n", n, 1, MAX_CAPACITY)
    layout = ChainLayout(check_probability("p", p), n, expansion, nonscaling)
    load = n if load is None else check_int("load", load, 0)
    filters = layout.filters_for(load)
    first = layout.sub_filter(0)
    command = " ".join(["BF.RESERVE", "key", *map(str, layout.reserve_args())])
    report = Report(f"RedisBloom: {command}")
    report.rows = [
        ("first sub-filter", f"{first.capacity:,} items at {_rate(first.error)}, "
                             f"{first.hashes} hashes, {format_bytes(first.bytes)}"),
        ("holding", f"{load:,} items in {filters} sub-filter{'s' * (filters > 1)}"),
        ("BF.INFO Size", f"{format_bytes(layout.memory(load))} ({layout.memory(load):,} bytes)"),
        ("expected rate", _rate(layout.expected_fpr(load)) if load else "0"),
        ("design rate", f"{_rate(layout.design_fpr(filters))} (all sub-filters full)"),
    ]  # fmt: skip
    if load:
        report.rows.append(("bits per item", f"{layout.bits_per_item(load):.2f}"))
    if not nonscaling and filters == 1:
        report.notes.append(
            f"sub-filter 0 is sized for {_rate(first.error)}: RedisBloom halves "
            "the error so that later sub-filters fit under p; NONSCALING keeps p"
        )
    report.data = {
        "command": command, "sub_filters": filters, "bytes": layout.memory(load),
        "expected_fpr": layout.expected_fpr(load) if load else 0.0,
        "design_fpr": layout.design_fpr(filters), "load": load,
        "first": {"capacity": first.capacity, "error": first.error, "hashes": first.hashes,
                  "bits": first.bits},
    }  # fmt: skip
    return report


# -- cuckoo ---------------------------------------------------------------------------------------


def cuckoo_sizing(
    n: int,
    p: float | None = 0.01,
    *,
    bucket_size: int = 4,
    load: float | None = None,
    fingerprint_bits: int | None = None,
    max_iterations: int = 20,  # RedisBloom's default MAXITERATIONS
) -> Report:
    """A cuckoo filter for ``n`` items: fingerprint bits for rate ``p`` (or given), a power-of-two
    table kept below ``load`` (default: the load the paper reaches with ``bucket_size``), its
    bytes and rate; then RedisBloom's ``CF.RESERVE`` for the same ``n`` (8-bit fingerprints; its
    table and ``CF.INFO`` Size from :mod:`setlab.models.redisbloom_cuckoo`) with the load at which
    the module first reported full in the reference run.

    Fan et al. 2014: fingerprints of ``ceil(log2(2b/p))`` bits; rate ``1 - (1 - 1/(2^f-1))^(2bα)``
    at load α.
    """
    from setlab.models import bloom, cuckoo, redisbloom_cuckoo

    n = check_int("n", n, 1, 2**50)
    b = check_int("bucket_size", bucket_size, 1, redisbloom_cuckoo.RB_MAX_BUCKET_SIZE)
    if load is None:
        if b not in cuckoo.PAPER_LOAD_FACTORS:
            raise ValueError(f"give --load for bucket size {b} (the paper reports b = 1, 2, 4, 8)")
        load = cuckoo.PAPER_LOAD_FACTORS[b]
    if not 0.0 < float(load) <= 1.0:
        raise ValueError(f"load must be in (0, 1], got {load!r}")
    if fingerprint_bits is None:
        if p is None:
            raise ValueError("give p or the fingerprint bits")
        f = cuckoo.fingerprint_bits_for(check_probability("p", p), b)
    else:
        f = check_int("fingerprint_bits", fingerprint_bits, 2, 32)
    buckets = cuckoo.next_pow2(math.ceil(n / (b * load)))
    slots = buckets * b
    alpha = n / slots
    rate = cuckoo.expected_fpr(b, f, alpha)
    bloom_bits = bloom.bits_per_item(rate)
    report = Report(f"Cuckoo filter: {n:,} items, bucket size {b}, {f}-bit fingerprints")
    report.rows = [
        ("table", f"{buckets:,} buckets × {b} slots = {slots:,} slots (a power of two)"),
        ("load", f"{alpha:.1%} (kept at or below {float(load):.0%})"),
        ("size", _size(slots * f)),
        ("bits per item", f"{slots * f / n:.2f} ({f} / load)"),
        ("rate at n", f"{_rate(rate)} (bound 2b/2^f = {_rate(min(1.0, 2 * b / 2**f))})"),
        ("Bloom, same rate", f"{bloom_bits:.2f} bits/item"),
    ]
    rb_buckets = redisbloom_cuckoo.reserve_buckets(n, b)
    rb_slots = rb_buckets * b
    rb_bytes = redisbloom_cuckoo.info_size(rb_slots)
    rb_load = n / rb_slots
    wall = _redisbloom_cuckoo_wall(b, max_iterations)
    rb_rate = cuckoo.expected_fpr(b, 8, min(rb_load, 1.0))
    report.rows += [
        ("RedisBloom", f"CF.RESERVE key {n} BUCKETSIZE {b} MAXITERATIONS {max_iterations}: "
                       f"{rb_buckets:,} buckets, {format_bytes(rb_bytes)}, load {rb_load:.1%}, "
                       f"8-bit fingerprints → rate {_rate(rb_rate)}"),
    ]  # fmt: skip
    if wall is not None:
        report.rows.append(
            (
                "RedisBloom wall",
                f"first 'full' at {wall:.1%} load in the reference run (then it adds a sub-filter)",
            )
        )
        if rb_load > wall:
            report.notes.append(
                f"at {rb_load:.1%} load RedisBloom will run into failed inserts (its wall is "
                f"{wall:.1%} with b = {b}, {max_iterations} iterations): reserve "
                f"{math.ceil(n / wall):,} or more"
            )
    if f > 8:
        report.notes.append(
            f"RedisBloom's fingerprints are 8 bits whatever you need: its rate is "
            f"{_rate(rb_rate)}, not {_rate(rate)}"
        )
    report.data = {
        "n": n, "bucket_size": b, "fingerprint_bits": f, "buckets": buckets, "load": alpha,
        "bytes": math.ceil(slots * f / 8), "bits_per_item": slots * f / n, "fpr": rate,
        "bloom_bits_per_item_same_rate": bloom_bits,
        "redisbloom": {"buckets": rb_buckets, "bytes": rb_bytes, "load": rb_load, "fpr": rb_rate,
                       "wall_load": wall, "max_iterations": max_iterations},
    }  # fmt: skip
    return report


def _redisbloom_cuckoo_wall(bucket_size: int, max_iterations: int) -> float | None:
    """Load at which RedisBloom first answered "full" (``EXPANSION 0``) in the reference run
    (:class:`setlab.lab.redisbloom_reference.RedisBloomReference`, package data)."""
    from setlab.lab.redisbloom_reference import RedisBloomReference

    return RedisBloomReference.load().cuckoo_wall(bucket_size, max_iterations)


# -- Roaring --------------------------------------------------------------------------------------


def _roaring_rows(layout: Any, ids: int, plain_bits: int | None) -> tuple[list, dict]:
    from setlab.models import roaring

    runs = roaring.Layout(layout.keys, layout.cardinality, layout.runs,
                          roaring.choose_kinds(layout.cardinality, layout.runs, True))  # fmt: skip
    counts = layout.counts()
    rows = [
        ("containers", f"{layout.containers:,}: {counts['array']:,} array, "
                       f"{counts['bitset']:,} bitset"),
        ("serialized", f"{format_bytes(layout.serialized_bytes)} "
                       f"({layout.serialized_bytes / ids:.2f} B per ID), added one by one"),
        ("run-optimized", f"{format_bytes(runs.serialized_bytes)} "
                          f"({runs.serialized_bytes / ids:.2f} B per ID), "
                          f"{runs.counts()['run']:,} run containers"),
        ("in RAM (model)", format_bytes(layout.memory_bytes)),
    ]  # fmt: skip
    data = {
        "ids": ids, "containers": layout.containers, "kinds": counts,
        "serialized_bytes": layout.serialized_bytes,
        "run_optimized_bytes": runs.serialized_bytes, "memory_bytes": layout.memory_bytes,
    }  # fmt: skip
    if plain_bits is not None:
        from setlab.models import bitmap

        if plain_bits - 1 <= bitmap.MAX_OFFSET:
            usage = bitmap.first_setbit_memory_usage(plain_bits - 1)
            rows.append(("plain bitmap", f"{format_bytes(usage)} (Redis string, one bit per "
                                         "value of the range)"))  # fmt: skip
            data["plain_bitmap_bytes"] = usage
        else:
            rows.append(("plain bitmap", "impossible: the range is beyond 2^32 bit offsets"))
            data["plain_bitmap_bytes"] = None
    return rows, data


def roaring_estimate(
    count: int,
    low: int = 0,
    high: int = 2**32,
    *,
    dense: bool = False,
    seed: int = 0,
) -> Report:
    """Roaring containers for ``count`` IDs in ``[low, high)``: uniformly random (the default;
    per-chunk counts drawn exactly, nothing materialised) or ``dense`` (``low … low+count-1``).

    The range is taken as if it started on a chunk boundary (2^16); at most 2^32 values wide
    (wider ranges need the IDs: use :func:`roaring_from_ids`).
    """
    from setlab.models import roaring

    low = check_int("low", low, 0)
    high = check_int("high", high, low + 1)
    universe = high - low
    if universe > 2**32:
        raise ValueError(
            f"range must be at most 2^32 values wide for this estimate; got {universe:,} "
            "(for 64-bit IDs pass a file of them)"
        )
    count = check_int("count", count, 1, universe)
    layout = (
        roaring.dense_layout(count)
        if dense
        else roaring.random_layout(count, np.random.default_rng(seed), universe=universe)
    )
    shape = "dense" if dense else "random"
    report = Report(f"Roaring bitmap: {count:,} {shape} IDs in [{low:,}, {high:,})")
    report.rows, report.data = _roaring_rows(layout, count, universe)
    report.data.update({"low": low, "high": high, "dense": dense})
    return report


def roaring_from_ids(ids: IDs) -> Report:
    """Roaring containers for the distinct IDs read from a file (32- or 64-bit Roaring)."""
    from setlab.models import roaring

    if ids.high is not None:
        raise ValueError(f"{ids.source}: {ids.kind} IDs are 128 bits wide; Roaring holds "
                         "integers below 2^64 (map them to dense integers first)")  # fmt: skip
    values = np.unique(ids.values)
    top = int(values[-1])
    if top < 2**32:
        layout = roaring.layout(values)
        report = Report(f"Roaring bitmap of {values.size:,} distinct IDs from {ids.source}")
        report.rows, report.data = _roaring_rows(layout, values.size, top + 1)
    else:
        wide = roaring.layout64(values)
        report = Report(f"Roaring64 bitmap of {values.size:,} distinct IDs from {ids.source}")
        report.rows, report.data = _roaring_rows(wide.layout, values.size, top + 1)
        report.rows[1] = ("serialized", f"{format_bytes(wide.serialized_bytes)} "
                          f"({wide.serialized_bytes / values.size:.2f} B per ID) in "
                          f"{wide.buckets:,} buckets of 2^32")  # fmt: skip
        report.data["serialized_bytes"] = wide.serialized_bytes
        report.data["buckets"] = wide.buckets
        report.notes.append("IDs above 2^32 need Roaring64: a 32-bit bitmap per distinct high "
                            "half, and sparse IDs get a container each")  # fmt: skip
    report.data["duplicates"] = len(ids) - values.size
    return report


# -- Redis SET ------------------------------------------------------------------------------------

MEMBER_TYPES = ("int", "hex", "uuid", "string")
_DEFAULT_LENGTH = {"hex": 16, "uuid": 36}


def _set_report(members: Members, title: str, version: str) -> Report:
    from setlab.models import redis_memory

    cost = redis_memory.set_cost(members, version=version)  # type: ignore[arg-type]
    report = Report(title)
    usage = "not modelled for 7.2" if cost.memory_usage is None else (
        f"{format_bytes(cost.memory_usage)} ({cost.memory_usage:,} bytes, "
        f"{cost.usage_per_member:.1f} B per member)")  # fmt: skip
    report.rows = [
        ("members", f"{cost.size:,}"),
        ("encoding", cost.encoding),
        ("MEMORY USAGE", usage),
        ("allocated", f"{format_bytes(cost.allocated)} ({cost.allocated:,} bytes, "
                      f"{cost.allocated_per_member:.1f} B per member): what used_memory grows"),
    ]  # fmt: skip
    for part, nbytes in cost.allocated_parts.items():
        report.rows.append((f"  {part}", format_bytes(nbytes)))
    if cost.encoding == "hashtable" and members.integers:
        limit = redis_memory.SET_MAX_INTSET_ENTRIES
        report.notes.append(
            f"integers, but more than set-max-intset-entries ({limit}): stored as strings in a "
            "hash table"
        )
    if version == "7.2":
        report.notes.append("Redis 7.2 is modelled from its source, never measured here")
    report.data = {
        "members": cost.size, "encoding": cost.encoding, "memory_usage": cost.memory_usage,
        "allocated": cost.allocated, "allocated_parts": cost.allocated_parts,
        "version": version,
    }  # fmt: skip
    return report


def set_estimate(
    members: int,
    member_type: str = "int",
    *,
    length: int | None = None,
    start: int = 0,
    version: str = "7.0",
) -> Report:
    """What ``SADD key …`` of ``members`` distinct members costs (Redis 7.0 exact, 7.2 modelled).

    ``member_type``: ``int`` (the integers ``start … start+members-1`` in decimal), ``hex``
    (``length`` hex digits, default 16), ``uuid`` (36 characters) or ``string`` (``length``
    bytes, required).
    """
    from setlab.models import redis_memory

    members = check_int("members", members, 1, 2**40)
    if member_type not in MEMBER_TYPES:
        raise ValueError(f"member type must be one of {', '.join(MEMBER_TYPES)}; "
                         f"got {member_type!r}")  # fmt: skip
    if version not in redis_memory.VERSIONS:
        raise ValueError(f"version must be one of {', '.join(redis_memory.VERSIONS)}; "
                         f"got {version!r}")  # fmt: skip
    if member_type == "int":
        if length is not None:
            raise ValueError("--length is for string members; integers have their own digits")
        start = check_int("start", start, -(2**63), 2**63 - members)
        summary = redis_memory.Members.decimal_range(start, start + members)
        what = f"integers {start:,} … {start + members - 1:,}"
    else:
        if length is None:
            if member_type == "string":
                raise ValueError("give --length for string members (bytes each)")
            length = _DEFAULT_LENGTH[member_type]
        length = check_int("length", length, 1, 2**20)
        summary = redis_memory.Members.fixed_length(members, length)
        what = f"{member_type} strings of {length} bytes"
    return _set_report(summary, f"Redis {version} SET of {members:,} {what}", version)


def set_from_ids(ids: IDs, version: str = "7.0") -> Report:
    """What a Redis SET of the distinct IDs read from a file costs, members as written."""
    from setlab.models.ids import set_members

    members = set_members(ids)
    report = _set_report(members, f"Redis {version} SET of the IDs in {ids.source}", version)
    report.data["duplicates"] = len(ids) - members.count
    return report


# -- HyperLogLog ----------------------------------------------------------------------------------


#: Elements after which a default HyperLogLog is certainly dense (it turns dense near 1,500).
HLL_DENSE_FROM = 5_000


def hll_key_cost(n: int) -> Any:
    """The :class:`setlab.models.redis_memory.KeyCost` of a HyperLogLog after ``n`` distinct
    elements (``reader:0`` …, :func:`setlab.models.hyperloglog.sketch_of_readers`): sparse while
    small, dense (12,304-byte string) from a few thousand on."""
    return _hll_key_cost(min(check_int("n", n, 0, 2**63), HLL_DENSE_FROM))


@functools.cache
def _hll_key_cost(n: int) -> Any:
    from setlab.models.hyperloglog import sketch_of_readers

    hll = sketch_of_readers(n)
    if n == HLL_DENSE_FROM and hll.encoding != "dense":
        raise AssertionError(f"a HyperLogLog of {n:,} elements should be dense")
    return hll.cost("k")


def hll_estimate(n: int) -> Report:
    """A HyperLogLog counting ``n`` distinct elements: memory (Redis 7.0), standard error 1.04/√m
    with m = 16384 registers (Flajolet et al. 2007), and an exact SET of ``n`` integers beside."""
    from setlab.models import redis_memory
    from setlab.models.hyperloglog import HLL_STANDARD_ERROR

    n = check_int("n", n, 1, 2**63)
    cost = hll_key_cost(n)
    error = HLL_STANDARD_ERROR
    report = Report(f"HyperLogLog counting {n:,} distinct elements")
    report.rows = [
        ("encoding", cost.encoding),
        ("memory", f"{format_bytes(cost.memory_usage)} MEMORY USAGE, "
                   f"{format_bytes(cost.allocated)} allocated"),
        ("standard error", f"{error:.2%} of the count (±{2 * error:.2%} for 95% of estimates: "
                           f"{n * (1 - 2 * error):,.0f} … {n * (1 + 2 * error):,.0f})"),
        ("answers", "how many (PFCOUNT), not whether one element is in (no membership)"),
    ]  # fmt: skip
    exact = None
    if n <= 2**40:
        exact = redis_memory.set_cost(redis_memory.Members.decimal_range(0, n)).memory_usage
        report.rows.append(("exact SET", f"{format_bytes(exact)} for {n:,} integer IDs"))
    if cost.encoding == "sparse":
        report.notes.append("sparse encoding while small: dense 12 KiB from a few thousand on")
    report.data = {
        "n": n, "encoding": cost.encoding, "memory_usage": cost.memory_usage,
        "allocated": cost.allocated, "standard_error": error, "exact_set_bytes": exact,
    }  # fmt: skip
    return report
