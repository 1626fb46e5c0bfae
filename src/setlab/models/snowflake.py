"""Snowflake IDs against a Redis bitmap: bit layouts, value ranges, hash-mod offsets, re-mapping.

A snowflake ID is a 64-bit integer: a sign bit that stays 0, then a millisecond timestamp counted
from a custom epoch, then node bits (machine, or datacenter + worker), then a per-millisecond
sequence. Twitter's original layout (2010) is 41 / 5 + 5 / 12 with epoch 1288834974657
(2010-11-04 01:42:54.657 UTC); Hutool's ``Snowflake`` and MyBatis-Plus's ``Sequence``, common in
Chinese Java services, keep that epoch. Seed 000 §4 draws the same layout as 41 / 10 / 12.

What this module models, for the seed's "like" bitmap keyed by content with one bit per user:

* :class:`Layout`: encode and decode IDs for any layout, and when IDs cross a limit (2^32 bit
  offsets in a Redis string, JavaScript's 2^53).
* :class:`Generator` and :func:`simulate_stream`: realistic ID streams (machines, bursts that
  overflow the sequence and borrow the next millisecond).
* :func:`java_offset`, :func:`abs_mod_bias`: the seed's ``Math.abs(hash64(userId)) % (2^32 - 1)``
  with Java's semantics (``^`` is XOR there, and ``Math.abs(Long.MIN_VALUE)`` is negative);
  ``hash64`` is :func:`setlab.core.hashing.java_long_hash64`.
* :func:`first_seen_ranks`: the dense ints a map id → 0, 1, 2, … hands out in first-seen order
  (the Redis side of it, a Lua script, is :class:`setlab.lab.runs.dense_map.DenseMap`).
* :class:`LeafSegments`: a simulated Leaf-segment allocator (Meituan's ``SegmentIDGenImpl``):
  a step-sized range per database round trip, a second buffer fetched after 10 % of the current
  one is used, and the ranges a restart throws away.
* :func:`js_number_string`: what JavaScript prints for a float64, for the frontend precision loss.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from setlab.core.hashing import LONG_MAX, LONG_MIN, java_long_hash64
from setlab.core.validate import check_int

#: Twitter's snowflake epoch, Unix milliseconds (2010-11-04 01:42:54.657 UTC).
TWITTER_EPOCH_MS = 1288834974657
#: ``Number.MAX_SAFE_INTEGER`` in JavaScript: the largest n with every integer up to n exact.
JS_MAX_SAFE_INTEGER = 2**53 - 1
#: What Java (and Python, and C) make of the seed's ``2^32 - 1``: ``-`` binds tighter than the
#: bitwise XOR ``^``, so it is ``2 ^ 31`` = 29 (JLS §15.18 additive before §15.22 bitwise).
SEED_MODULUS_AS_PRINTED = 2 ^ 32 - 1
#: What the seed meant: 2^32 - 1 = 4294967295.
SEED_MODULUS_INTENDED = 2**32 - 1


# -- layouts ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """A snowflake bit layout: fields from the highest bit down, below a sign bit that stays 0.

    ``fields`` is a tuple of ``(name, bits)``; the first must be ``"timestamp"`` (milliseconds
    since ``epoch_ms``) and the last ``"sequence"``; the ones between are node bits. The bits
    add up to at most 63, so every ID is a non-negative Java ``long``.
    """

    name: str
    epoch_ms: int
    fields: tuple[tuple[str, int], ...]

    def __post_init__(self) -> None:
        check_int("epoch_ms", self.epoch_ms, 0)
        names = [name for name, _ in self.fields]
        if len(names) < 2 or names[0] != "timestamp" or names[-1] != "sequence":
            raise ValueError(
                f"fields must start with 'timestamp' and end with 'sequence'; got {names}"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"field names must be unique; got {names}")
        for name, bits in self.fields:
            check_int(f"bits of field {name!r}", bits, 1, 63)
        total = sum(bits for _, bits in self.fields)
        if total > 63:
            raise ValueError(
                f"fields must add up to at most 63 bits (sign bit stays 0); got {total}"
            )

    @property
    def total_bits(self) -> int:
        """Bits below the sign bit that the fields use."""
        return sum(bits for _, bits in self.fields)

    @property
    def shifts(self) -> dict[str, int]:
        """How far each field is shifted left, in bits (the sequence's shift is 0)."""
        out, shift = {}, 0
        for name, bits in reversed(self.fields):
            out[name] = shift
            shift += bits
        return out

    @property
    def node_bits(self) -> int:
        """Bits between the timestamp and the sequence (machine, or datacenter + worker)."""
        return self.total_bits - self.fields[0][1] - self.fields[-1][1]

    def max_value(self, name: str) -> int:
        """Largest value field ``name`` holds: ``2**bits - 1``."""
        bits = dict(self.fields).get(name)
        if bits is None:
            raise ValueError(f"name must be one of {[n for n, _ in self.fields]}; got {name!r}")
        return (1 << bits) - 1

    def encode(self, **values: int) -> int:
        """The ID for the given field values (missing fields are 0; ``timestamp`` in ms since
        ``epoch_ms``). A value outside ``0 .. 2**bits - 1`` raises ``ValueError``."""
        unknown = set(values) - {name for name, _ in self.fields}
        if unknown:
            raise ValueError(
                f"unknown field(s) {sorted(unknown)}; this layout has {[n for n, _ in self.fields]}"
            )
        snowflake = 0
        for name, shift in self.shifts.items():
            value = check_int(name, values.get(name, 0), 0, self.max_value(name))
            snowflake |= value << shift
        return snowflake

    def decode(self, snowflake: int) -> dict[str, int]:
        """Field values of ``snowflake``, highest field first (``timestamp`` in ms since epoch)."""
        snowflake = check_int("snowflake", snowflake, 0, (1 << self.total_bits) - 1)
        return {
            name: (snowflake >> self.shifts[name]) & self.max_value(name) for name, _ in self.fields
        }

    def id_at(self, unix_ms: int, **values: int) -> int:
        """The ID minted at Unix time ``unix_ms`` (ms) with the other fields given (default 0)."""
        unix_ms = check_int("unix_ms", unix_ms, 0)
        if unix_ms < self.epoch_ms:
            raise ValueError(
                f"unix_ms {unix_ms:,} is before this layout's epoch {self.epoch_ms:,}: "
                "a snowflake cannot encode a time before its epoch"
            )
        return self.encode(timestamp=unix_ms - self.epoch_ms, **values)

    def unix_ms(self, snowflake: int) -> int:
        """When ``snowflake`` was minted, Unix milliseconds."""
        return self.decode(snowflake)["timestamp"] + self.epoch_ms

    def minted_at(self, snowflake: int) -> dt.datetime:
        """When ``snowflake`` was minted, as an aware UTC datetime (millisecond resolution)."""
        return utc(self.unix_ms(snowflake))

    @property
    def last_unix_ms(self) -> int:
        """The last millisecond the timestamp field can hold (Unix ms): the layout's end of life."""
        return self.epoch_ms + self.max_value("timestamp")

    def ms_until_above(self, limit: int) -> int:
        """Milliseconds after the epoch from which every ID is >= ``limit``.

        Even the smallest ID of millisecond ``t`` (other fields 0) is ``t << shift``, so this is
        ``ceil(limit / 2**shift)`` with ``shift`` the timestamp's shift.
        """
        limit = check_int("limit", limit, 0)
        step = 1 << self.shifts["timestamp"]
        ms = -(-limit // step)
        if ms > self.max_value("timestamp"):
            raise ValueError(f"limit {limit:,} is above every ID this layout can mint")
        return ms


TWITTER = Layout(
    "Twitter 2010 (41/5/5/12)",
    TWITTER_EPOCH_MS,
    (("timestamp", 41), ("datacenter", 5), ("worker", 5), ("sequence", 12)),
)
#: Seed 000 §4's drawing: 41-bit timestamp, 10-bit machine, 12-bit sequence. The seed names no
#: epoch; its example ID decodes to a plausible date with Twitter's, so that is the one used.
SEED_000 = Layout(
    "seed 000 §4 (41/10/12)",
    TWITTER_EPOCH_MS,
    (("timestamp", 41), ("machine", 10), ("sequence", 12)),
)
#: Seed 000 §4's example snowflake ID (a post or user ID of the like service)
SEED_000_ID = 2_051_776_854_918_803_458


# -- streams ----------------------------------------------------------------------------------


class Generator:
    """One machine's snowflake generator, as Twitter's and Hutool's work.

    Within one millisecond the sequence counts up; when it overflows the generator waits for the
    next millisecond (here: borrows it). A clock reading behind the last one used is treated as
    the last one (Hutool does the same for up to 2 s of clock going back, and refuses beyond).
    """

    def __init__(self, layout: Layout, node: int) -> None:
        self.layout = layout
        self.node = check_int("node", node, 0, (1 << layout.node_bits) - 1)
        self._last_ms = -1
        self._sequence = 0
        self._seq_max = layout.max_value("sequence")
        self._node_part = self.node << layout.fields[-1][1]  # node bits sit on the sequence

    def next_id(self, unix_ms: int) -> int:
        """The next ID at clock reading ``unix_ms`` (Unix milliseconds)."""
        ms = max(unix_ms - self.layout.epoch_ms, self._last_ms)
        if ms == self._last_ms:
            self._sequence += 1
            if self._sequence > self._seq_max:
                ms, self._sequence = ms + 1, 0
        else:
            self._sequence = 0
        if ms < 0:
            raise ValueError(f"unix_ms {unix_ms:,} is before the epoch {self.layout.epoch_ms:,}")
        if ms > self.layout.max_value("timestamp"):
            raise ValueError(f"unix_ms {unix_ms:,} is after the layout's last millisecond")
        self._last_ms = ms
        return (ms << self.layout.shifts["timestamp"]) | self._node_part | self._sequence


def simulate_stream(
    layout: Layout = TWITTER,
    *,
    start_unix_ms: int,
    span_s: float,
    machines: int = 8,
    rate_per_s: float = 2_000.0,
    bursts: int = 2,
    burst_size: int = 50_000,
    seed: int = 0,
) -> np.ndarray:
    """IDs minted by ``machines`` generators over ``span_s`` seconds, in the order they were minted.

    Requests arrive as a Poisson process (``rate_per_s`` in total, each to a random machine),
    plus ``bursts`` spikes of ``burst_size`` requests inside one millisecond each (a sign-up
    campaign), enough to overflow a 12-bit sequence. Returns an ``int64`` array.
    """
    machines = check_int("machines", machines, 1, (1 << layout.node_bits) - 1)
    bursts = check_int("bursts", bursts, 0)
    burst_size = check_int("burst_size", burst_size, 0)
    check_int("start_unix_ms", start_unix_ms, layout.epoch_ms, layout.last_unix_ms)
    if not (math.isfinite(span_s) and span_s > 0):
        raise ValueError(f"span_s must be a positive number of seconds; got {span_s!r}")
    if not (math.isfinite(rate_per_s) and rate_per_s >= 0):
        raise ValueError(f"rate_per_s must be >= 0 requests per second; got {rate_per_s!r}")
    rng = np.random.default_rng(seed)
    span_ms = span_s * 1e3
    times = rng.uniform(0, span_ms, rng.poisson(rate_per_s * span_s))
    spikes = np.repeat(rng.uniform(0, span_ms, bursts), burst_size)
    times = np.floor(np.concatenate([times, spikes])).astype(np.int64) + start_unix_ms
    where = rng.integers(0, machines, times.size)
    order = np.argsort(times, kind="stable")  # requests inside one ms: in random machine order
    generators = [Generator(layout, node) for node in range(machines)]
    ids = [
        generators[m].next_id(t)
        for t, m in zip(times[order].tolist(), where[order].tolist(), strict=True)
    ]
    return np.asarray(ids, dtype=np.int64)


# -- the seed's hash-mod mapping -----------------------------------------------------------------


def java_abs(value: int) -> int:
    """Java's ``Math.abs(long)``: ``Math.abs(Long.MIN_VALUE)`` is ``Long.MIN_VALUE`` (negative)."""
    value = check_int("value", value, LONG_MIN, LONG_MAX)
    return value if value == LONG_MIN else abs(value)


def java_rem(dividend: int, divisor: int) -> int:
    """Java's ``%`` on ``long``: truncating division, so the result has the dividend's sign."""
    dividend = check_int("dividend", dividend, LONG_MIN, LONG_MAX)
    divisor = check_int("divisor", divisor, 1, LONG_MAX)
    remainder = abs(dividend) % divisor
    return -remainder if dividend < 0 else remainder


def java_offset(user_id: int, modulus: int = SEED_MODULUS_AS_PRINTED) -> int:
    """The seed's ``toOffset``: ``Math.abs(hash64(userId)) % modulus`` evaluated as Java would.

    The default modulus is what Java makes of the printed ``(2^32 - 1)``: 29. The result is
    negative for the one hash value ``Long.MIN_VALUE`` unless ``modulus`` divides 2^63.
    """
    user_id = check_int("user_id", user_id, LONG_MIN, LONG_MAX)
    return java_rem(java_abs(java_long_hash64(user_id)), check_int("modulus", modulus, 1, LONG_MAX))


def unsigned_offset(user_id: int, bits: int = 32) -> int:
    """The mapping the seed wanted: the low ``bits`` of ``hash64`` as an unsigned number.

    In Java ``hash64(id) & ((1L << 32) - 1)`` (or ``Math.floorMod(hash, 1L << 32)``): every
    offset in ``0 .. 2**bits - 1`` is equally likely and none is negative.
    """
    user_id = check_int("user_id", user_id, LONG_MIN, LONG_MAX)
    bits = check_int("bits", bits, 1, 63)
    return java_long_hash64(user_id) & ((1 << bits) - 1)


@dataclass(frozen=True)
class ModBias:
    """How ``Math.abs(h) % modulus`` spreads all 2^``hash_bits`` values of a signed hash ``h``."""

    modulus: int
    hash_bits: int
    most: int  #: hash values landing on the likeliest offset in 0 .. modulus - 1
    least: int  #: hash values landing on the least likely one
    min_value_result: int  #: what ``Math.abs(MIN) % modulus`` gives (negative unless 0)

    @property
    def excess(self) -> float:
        """``most / least - 1``: how much likelier the likeliest offset is than the least."""
        return (self.most - self.least) / self.least


def abs_mod_bias(modulus: int, hash_bits: int = 64) -> ModBias:
    """Count exactly how Java's ``Math.abs(h) % modulus`` spreads every ``hash_bits``-bit ``h``.

    With ``half = 2^(b-1)``: the ``h >= 0`` give each ``a`` in ``0 .. half - 1`` once, the
    ``h < 0`` except the minimum give each ``a`` in ``1 .. half - 1`` once more, so residue ``r``
    is hit ``2 (half // m + [r < half % m]) - [r = 0]`` times. ``Math.abs(MIN)`` is ``MIN`` and
    Java's truncating ``MIN % m`` is ``-(half % m)``: negative unless ``m`` divides ``half``
    (then it adds one hit to residue 0). ``modulus`` may be at most ``half``.
    """
    hash_bits = check_int("hash_bits", hash_bits, 2, 64)
    half = 1 << (hash_bits - 1)
    modulus = check_int("modulus", modulus, 1, half)
    full, extra = divmod(half, modulus)
    hits = [2 * (full + (extra > 0)) - 1 + (extra == 0)]  # residue 0
    if extra > 1:
        hits.append(2 * (full + 1))  # residues 1 .. extra - 1
    if modulus > max(extra, 1):
        hits.append(2 * full)  # residues max(extra, 1) .. modulus - 1
    return ModBias(modulus, hash_bits, max(hits), min(hits), -extra)


# -- dense ints: a map in first-seen order, and a Leaf-style segment allocator (simulated) -----


def first_seen_ranks(ids: Iterable[int]) -> np.ndarray:
    """The dense int each entry of ``ids`` gets from a map id → 0, 1, 2, … that assigns the next
    int to every ID it has not seen before (in order): what
    :class:`setlab.lab.runs.dense_map.DenseMap` hands out, computed without Redis.

    The ints are bitmap offsets that grow with the number of distinct users, not with the
    IDs' values: the largest is ``distinct - 1``. Returns an ``int64`` array like ``ids``.
    """
    values = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids)
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    rank_of_unique = np.empty(first.size, dtype=np.int64)
    rank_of_unique[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank_of_unique[inverse.ravel()]


@dataclass
class _Server:
    current: list[int] = field(default_factory=list)  # [next id, last id] of the range in use
    buffered: list[int] | None = None  # the prefetched next range


@dataclass(frozen=True)
class LeafRun:
    """What :meth:`LeafSegments.run` produced."""

    ids: np.ndarray  #: IDs in the order they were issued
    db_fetches: int  #: database round trips (one per segment)
    restarts: int
    lost: int  #: IDs taken from the database that no one will ever issue (gaps)
    unused: int  #: IDs live servers still hold in memory (they will be issued later)
    max_id: int  #: the database's max_id at the end: the highest bitmap offset in play


class LeafSegments:
    """Meituan Leaf's segment mode, simulated: several servers share one ``max_id`` row.

    A server takes ``step`` IDs per database round trip (``UPDATE ... SET max_id = max_id +
    step``) and hands them out from memory. When less than ``prefetch_below`` of the current
    segment is left idle (Leaf: ``idle < 0.9 * step``, i.e. after 10 % is used) it fetches the
    next segment into a second buffer, so the switch never waits for the database. A restart
    loses the rest of the current segment and all of the buffered one. Leaf also adapts the
    step to the consumption rate (15-minute target); this simulation keeps it fixed.
    """

    def __init__(self, step: int = 1_000, servers: int = 4, prefetch_below: float = 0.9) -> None:
        self.step = check_int("step", step, 1)
        self.servers = check_int("servers", servers, 1)
        if not 0 < prefetch_below <= 1:
            raise ValueError(f"prefetch_below must be in (0, 1]; got {prefetch_below!r}")
        self.prefetch_below = prefetch_below

    def run(self, requests: int, restarts: int = 0, seed: int = 0) -> LeafRun:
        """Issue ``requests`` IDs through randomly chosen servers, restarting one of them at
        ``restarts`` random moments."""
        requests = check_int("requests", requests, 0)
        restarts = check_int("restarts", restarts, 0)
        rng = np.random.default_rng(seed)
        pick = rng.integers(0, self.servers, requests)
        restart_at = Counter(rng.integers(0, max(requests, 1), restarts).tolist())
        restart_who = iter(rng.integers(0, self.servers, restarts).tolist())
        max_id = fetches = lost = 0
        servers = [_Server() for _ in range(self.servers)]
        ids = np.empty(requests, dtype=np.int64)

        def fetch() -> list[int]:
            nonlocal max_id, fetches
            fetches += 1
            max_id += self.step
            return [max_id - self.step + 1, max_id]

        for i, who in enumerate(pick.tolist()):
            for _ in range(restart_at.get(i, 0)):
                server = servers[next(restart_who)]
                if server.current:
                    lost += server.current[1] - server.current[0] + 1
                if server.buffered:
                    lost += server.buffered[1] - server.buffered[0] + 1
                server.current, server.buffered = [], None
            server = servers[who]
            if not server.current or server.current[0] > server.current[1]:
                server.current, server.buffered = server.buffered or fetch(), None
            ids[i] = server.current[0]
            server.current[0] += 1
            idle = server.current[1] - server.current[0] + 1
            if server.buffered is None and idle < self.prefetch_below * self.step:
                server.buffered = fetch()
        unused = sum(
            (s.current[1] - s.current[0] + 1 if s.current else 0)
            + (s.buffered[1] - s.buffered[0] + 1 if s.buffered else 0)
            for s in servers
        )
        return LeafRun(ids, fetches, restarts, lost, unused, max_id)


# -- JavaScript numbers -----------------------------------------------------------------------


def js_number_string(value: float) -> str:
    """What JavaScript's ``String(x)`` prints for the float64 ``value`` (ECMAScript
    Number::toString, radix 10: the shortest digits that round-trip, as Python's ``repr``).

    ``js_number_string(float(1234567890123456789))`` is ``'1234567890123456800'``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"value must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k, n = len(digits), len(digits) + exponent  # value = 0.digits × 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + text


def float64_spacing(value: int) -> int:
    """Gap between adjacent float64 values around the integer ``value`` (``math.ulp``), so a
    JavaScript ``Number`` holding it is off by up to half of this."""
    value = check_int("value", value, 0)
    return int(math.ulp(float(value)))


def utc(unix_ms: int) -> dt.datetime:
    """Unix milliseconds as an aware UTC datetime."""
    return dt.datetime.fromtimestamp(unix_ms / 1000, dt.UTC)
