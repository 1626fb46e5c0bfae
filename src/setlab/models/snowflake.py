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
* :func:`hash64`, :func:`java_offset`, :func:`abs_mod_bias`: the seed's
  ``Math.abs(hash64(userId)) % (2^32 - 1)`` with Java's semantics (``^`` is XOR there, and
  ``Math.abs(Long.MIN_VALUE)`` is negative).
* :class:`DenseMap`: a Redis hash id → dense int made atomic by a Lua script (HGET / INCR /
  HSETNX), and :func:`lookup_without_script`, the same steps from the client, which leaves gaps.
* :class:`LeafSegments`: a simulated Leaf-segment allocator (Meituan's ``SegmentIDGenImpl``):
  a step-sized range per database round trip, a second buffer fetched after 10 % of the current
  one is used, and the ranges a restart throws away.
* :func:`js_number_string`: what JavaScript prints for a float64, for the frontend precision loss.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import math
import numbers
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import mmh3
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from setlab.core.validate import check_int as _check_int
from setlab.render.plots import PALETTE, new_figure

if TYPE_CHECKING:
    import redis

    from setlab.lab.backend import Lab

#: Twitter's snowflake epoch, Unix milliseconds (2010-11-04 01:42:54.657 UTC).
TWITTER_EPOCH_MS = 1288834974657
#: ``Number.MAX_SAFE_INTEGER`` in JavaScript: the largest n with every integer up to n exact.
JS_MAX_SAFE_INTEGER = 2**53 - 1
#: What Java (and Python, and C) make of the seed's ``2^32 - 1``: ``-`` binds tighter than the
#: bitwise XOR ``^``, so it is ``2 ^ 31`` = 29 (JLS §15.18 additive before §15.22 bitwise).
SEED_MODULUS_AS_PRINTED = 2 ^ 32 - 1
#: What the seed meant: 2^32 - 1 = 4294967295.
SEED_MODULUS_INTENDED = 2**32 - 1

_LONG_MIN = -(2**63)
_LONG_MAX = 2**63 - 1


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
        _check_int("epoch_ms", self.epoch_ms, 0)
        names = [name for name, _ in self.fields]
        if len(names) < 2 or names[0] != "timestamp" or names[-1] != "sequence":
            raise ValueError(
                f"fields must start with 'timestamp' and end with 'sequence'; got {names}"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"field names must be unique; got {names}")
        for name, bits in self.fields:
            _check_int(f"bits of field {name!r}", bits, 1, 63)
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
            value = _check_int(name, values.get(name, 0), 0, self.max_value(name))
            snowflake |= value << shift
        return snowflake

    def decode(self, snowflake: int) -> dict[str, int]:
        """Field values of ``snowflake``, highest field first (``timestamp`` in ms since epoch)."""
        snowflake = _check_int("snowflake", snowflake, 0, (1 << self.total_bits) - 1)
        return {
            name: (snowflake >> self.shifts[name]) & self.max_value(name) for name, _ in self.fields
        }

    def id_at(self, unix_ms: int, **values: int) -> int:
        """The ID minted at Unix time ``unix_ms`` (ms) with the other fields given (default 0)."""
        unix_ms = _check_int("unix_ms", unix_ms, 0)
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
        limit = _check_int("limit", limit, 0)
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


# -- streams ----------------------------------------------------------------------------------


class Generator:
    """One machine's snowflake generator, as Twitter's and Hutool's work.

    Within one millisecond the sequence counts up; when it overflows the generator waits for the
    next millisecond (here: borrows it). A clock reading behind the last one used is treated as
    the last one (Hutool does the same for up to 2 s of clock going back, and refuses beyond).
    """

    def __init__(self, layout: Layout, node: int) -> None:
        self.layout = layout
        self.node = _check_int("node", node, 0, (1 << layout.node_bits) - 1)
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
    machines = _check_int("machines", machines, 1, (1 << layout.node_bits) - 1)
    bursts = _check_int("bursts", bursts, 0)
    burst_size = _check_int("burst_size", burst_size, 0)
    _check_int("start_unix_ms", start_unix_ms, layout.epoch_ms, layout.last_unix_ms)
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


def hash64(user_id: int) -> int:
    """A signed 64-bit MurmurHash3 of a Java ``long``, as the seed's ``hash64()`` stands for.

    The first half of MurmurHash3 x64-128 (seed 0) over the 8 little-endian bytes of the ID,
    the value Guava's ``Hashing.murmur3_128().hashLong(id).asLong()`` returns.
    """
    user_id = _check_int("user_id", user_id, _LONG_MIN, _LONG_MAX)
    return mmh3.hash64(user_id.to_bytes(8, "little", signed=True))[0]


def java_abs(value: int) -> int:
    """Java's ``Math.abs(long)``: ``Math.abs(Long.MIN_VALUE)`` is ``Long.MIN_VALUE`` (negative)."""
    value = _check_int("value", value, _LONG_MIN, _LONG_MAX)
    return value if value == _LONG_MIN else abs(value)


def java_rem(dividend: int, divisor: int) -> int:
    """Java's ``%`` on ``long``: truncating division, so the result has the dividend's sign."""
    dividend = _check_int("dividend", dividend, _LONG_MIN, _LONG_MAX)
    divisor = _check_int("divisor", divisor, 1, _LONG_MAX)
    remainder = abs(dividend) % divisor
    return -remainder if dividend < 0 else remainder


def java_offset(user_id: int, modulus: int = SEED_MODULUS_AS_PRINTED) -> int:
    """The seed's ``toOffset``: ``Math.abs(hash64(userId)) % modulus`` evaluated as Java would.

    The default modulus is what Java makes of the printed ``(2^32 - 1)``: 29. The result is
    negative for the one hash value ``Long.MIN_VALUE`` unless ``modulus`` divides 2^63.
    """
    return java_rem(java_abs(hash64(user_id)), _check_int("modulus", modulus, 1, _LONG_MAX))


def unsigned_offset(user_id: int, bits: int = 32) -> int:
    """The mapping the seed wanted: the low ``bits`` of ``hash64`` as an unsigned number.

    In Java ``hash64(id) & ((1L << 32) - 1)`` (or ``Math.floorMod(hash, 1L << 32)``): every
    offset in ``0 .. 2**bits - 1`` is equally likely and none is negative.
    """
    bits = _check_int("bits", bits, 1, 63)
    return hash64(user_id) & ((1 << bits) - 1)


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
    hash_bits = _check_int("hash_bits", hash_bits, 2, 64)
    half = 1 << (hash_bits - 1)
    modulus = _check_int("modulus", modulus, 1, half)
    full, extra = divmod(half, modulus)
    hits = [2 * (full + (extra > 0)) - 1 + (extra == 0)]  # residue 0
    if extra > 1:
        hits.append(2 * (full + 1))  # residues 1 .. extra - 1
    if modulus > max(extra, 1):
        hits.append(2 * full)  # residues max(extra, 1) .. modulus - 1
    return ModBias(modulus, hash_bits, max(hits), min(hits), -extra)


def colliding_fraction(offsets: Iterable[int]) -> float:
    """Share of the entries whose value some other entry has too: users who share a bit."""
    values = np.asarray(list(offsets))
    if values.size == 0:
        raise ValueError("offsets must contain at least one value")
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return float((counts[inverse] > 1).mean())


# -- dense re-mapping on Redis ----------------------------------------------------------------

#: The Lua script behind :class:`DenseMap`. KEYS[1]: hash id → dense int; KEYS[2]: the counter;
#: ARGV[1]: the ID. Redis runs a script atomically, so two clients can never both miss and
#: both INCR for the same ID: the ints come out distinct and consecutive from 0.
DENSE_MAP_LUA = """
local dense = redis.call('HGET', KEYS[1], ARGV[1])
if dense then return tonumber(dense) end
dense = redis.call('INCR', KEYS[2]) - 1
redis.call('HSETNX', KEYS[1], ARGV[1], dense)
return dense
"""


class DenseMap:
    """A Redis-side map from (sparse) IDs to dense ints 0, 1, 2, ..., one per distinct ID.

    The ints are bitmap offsets that grow with the number of users, not with the ID's value.
    Two keys: ``<name>:map`` (a hash) and ``<name>:next`` (the counter). One round trip per
    lookup (EVALSHA; the first call also loads the script).
    """

    def __init__(self, client: redis.Redis, map_key: str, counter_key: str) -> None:
        self.client = client
        self.map_key = map_key
        self.counter_key = counter_key
        self._script = client.register_script(DENSE_MAP_LUA)

    @classmethod
    def for_lab(cls, lab: Lab, name: str = "dense", client: redis.Redis | None = None) -> DenseMap:
        """A map whose keys live in ``lab``'s namespace (``client``: another connection)."""
        return cls(client or lab.r, lab.key(name, "map"), lab.key(name, "next"))

    def lookup(self, snowflake: int) -> int:
        """The dense int of ``snowflake``, assigning the next free one if it has none."""
        snowflake = _check_int("snowflake", snowflake, 0, _LONG_MAX)
        return int(self._script(keys=[self.map_key, self.counter_key], args=[snowflake]))

    def lookup_many(self, snowflakes: Iterable[int], batch: int = 1_000) -> list[int]:
        """:meth:`lookup` for many IDs, ``batch`` script calls per pipelined round trip."""
        batch = _check_int("batch", batch, 1)
        ids = [_check_int("snowflake", s, 0, _LONG_MAX) for s in snowflakes]
        out: list[int] = []
        keys = [self.map_key, self.counter_key]
        for start in range(0, len(ids), batch):
            pipe = self.client.pipeline(transaction=False)
            for snowflake in ids[start : start + batch]:
                self._script(keys=keys, args=[snowflake], client=pipe)
            out.extend(int(v) for v in pipe.execute())
        return out

    def size(self) -> int:
        """How many IDs have a dense int (HLEN)."""
        return int(self.client.hlen(self.map_key))

    def issued(self) -> int:
        """How many dense ints the counter has handed out (gaps included)."""
        return int(self.client.get(self.counter_key) or 0)


def lookup_without_script(
    client: redis.Redis, map_key: str, counter_key: str, snowflake: int
) -> int:
    """The same map driven from the client: HGET, then on a miss INCR + HSETNX (+ HGET if lost).

    Still correct (HSETNX lets exactly one writer bind an ID), but a writer that loses the race
    has already taken a number from the counter, which nobody will ever use: a gap, one more
    bit of every bitmap that stays 0. A new ID costs 3 or 4 round trips instead of 1.
    """
    snowflake = _check_int("snowflake", snowflake, 0, _LONG_MAX)
    dense = client.hget(map_key, snowflake)
    if dense is not None:
        return int(dense)
    mine = int(client.incr(counter_key)) - 1
    if client.hsetnx(map_key, snowflake, mine):
        return mine
    return int(client.hget(map_key, snowflake))


@contextlib.contextmanager
def count_commands(client: redis.Redis) -> Iterator[Counter]:
    """Count the commands ``client`` sends (one round trip each, outside pipelines) by name.

    >>> with count_commands(lab.r) as sent:
    ...     lab.r.ping()
    >>> sent  # Counter({'PING': 1})
    """
    sent: Counter = Counter()
    shadowed = vars(client).get("execute_command")
    original = client.execute_command

    def counting(*args: Any, **options: Any) -> Any:
        sent[str(args[0]).upper()] += 1
        return original(*args, **options)

    client.execute_command = counting
    try:
        yield sent
    finally:
        if shadowed is None:
            del client.execute_command
        else:
            client.execute_command = shadowed


# -- a Leaf-style segment allocator (simulated) ---------------------------------------------------


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
        self.step = _check_int("step", step, 1)
        self.servers = _check_int("servers", servers, 1)
        if not 0 < prefetch_below <= 1:
            raise ValueError(f"prefetch_below must be in (0, 1]; got {prefetch_below!r}")
        self.prefetch_below = prefetch_below

    def run(self, requests: int, restarts: int = 0, seed: int = 0) -> LeafRun:
        """Issue ``requests`` IDs through randomly chosen servers, restarting one of them at
        ``restarts`` random moments."""
        requests = _check_int("requests", requests, 0)
        restarts = _check_int("restarts", restarts, 0)
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
    value = _check_int("value", value, 0)
    return int(math.ulp(float(value)))


# -- pictures ---------------------------------------------------------------------------------


def layout_figure(layouts: Iterable[Layout], snowflake: int | None = None) -> Figure:
    """The 64 bits of each layout as a bar, bit 63 on the left; with ``snowflake`` given, each
    field shows that ID's value."""
    layouts = list(layouts)
    if not layouts:
        raise ValueError("layouts must name at least one layout")
    fig, ax = new_figure(width=9, height=1.0 + 1.1 * len(layouts))
    for row, layout in enumerate(reversed(layouts)):
        values = layout.decode(snowflake) if snowflake is not None else {}
        cells = [("sign", 64 - layout.total_bits, 0)]
        cells += [(name, bits, values.get(name)) for name, bits in layout.fields]
        left = 64
        for i, (name, bits, value) in enumerate(cells):
            left -= bits
            colour = "#dddddd" if name == "sign" else PALETTE[(i - 1) % len(PALETTE)]
            ax.add_patch(Rectangle((left, row), bits, 0.8, facecolor=colour, edgecolor="k"))
            label = "0" if name == "sign" else f"{name}\n{bits} bits"
            if value is not None and name != "sign":
                label += f"\n= {value:,}"
            ax.text(left + bits / 2, row + 0.4, label, ha="center", va="center", fontsize=7)
    ax.set_xlim(64, 0)
    ax.set_ylim(-0.2, len(layouts))
    ax.set_xticks([63, *sorted({s for lay in layouts for s in lay.shifts.values()})])
    ax.set_xlabel("lowest bit of each field (bit 63, always 0, is the sign bit of a Java long)")
    ax.set_yticks([row + 0.4 for row in range(len(layouts))])
    ax.set_yticklabels([layout.name for layout in reversed(layouts)], fontsize=8)
    ax.grid(False)
    title = "What a snowflake ID is made of"
    ax.set_title(title + (f": {snowflake}" if snowflake is not None else ""))
    return fig


def range_figure(layout: Layout, marks: Mapping[str, int]) -> Figure:
    """The smallest ID of each day from the layout's epoch to its end, on a log axis, against
    2^32 (bitmap offsets), 2^53 (JavaScript) and 2^63 (Java ``long``); ``marks`` labels IDs."""
    days = np.linspace(1, (layout.last_unix_ms - layout.epoch_ms) / 86_400_000, 400)
    ms = (days * 86_400_000).astype(np.int64)
    smallest = ms.astype(float) * 2.0 ** layout.shifts["timestamp"]
    when = [utc(layout.epoch_ms + int(m)) for m in ms]
    fig, ax = new_figure(height=3.8)
    ax.semilogy(when, smallest, label="smallest ID minted that day")
    for value, text, colour in (
        (2**32, "$2^{32}$: end of a Redis bitmap's offsets", PALETTE[3]),
        (2**53, "$2^{53}$: JavaScript numbers stop being exact", PALETTE[2]),
        (2**63, "$2^{63}$: end of a Java long", PALETTE[7]),
    ):
        ax.axhline(value, color=colour, lw=1, ls="--")
        ax.text(when[5], value * 1.6, text, fontsize=8, color=colour)
    for i, (text, snowflake) in enumerate(marks.items()):
        ax.plot([layout.minted_at(snowflake)], [snowflake], "o", color=PALETTE[1 + i % 2])
        ax.annotate(text, (layout.minted_at(snowflake), snowflake), fontsize=8,
                    xytext=(8, -14 - 12 * i), textcoords="offset points")  # fmt: skip
    ax.set(
        xlabel="date the ID is minted (UTC)",
        ylabel="ID value",
        ylim=(2.0**28, 2.0**66),
        title=f"Snowflake IDs against three limits ({layout.name})",
    )
    ax.legend(loc="lower right")
    return fig


def utc(unix_ms: int) -> dt.datetime:
    """Unix milliseconds as an aware UTC datetime."""
    return dt.datetime.fromtimestamp(unix_ms / 1000, dt.UTC)


# -- the field report's claims (the figures setlab.chapters.claims checks them against) --------------------

#: Seed 000 §4.1's "typical" ID.
SEED_ID = 2051776854918803458
#: Seed 000 §4.3's example rows: user ID → (the hash it prints, the offset it prints).
SEED_ROWS = {
    1: (0x7A3B2C1D4E5F6A7B, 1_823_456_789),
    2: (0x1234567890ABCDEF, 3_456_789_012),
    100: (0xFEDCBA0987654321, 987_654_321),
}
#: Seed 000 §7.6's example of a number JavaScript cannot hold.
SEED_JS_NUMBER = 1234567890123456789
#: The chapter's simulated stream at scale 1: from the seed's ID, 30 s, 4 machines, 2,000
#: requests a second plus two sign-up bursts of 20,000.
CLAIM_STREAM = {"span_s": 30.0, "machines": 4, "rate_per_s": 2_000.0, "bursts": 2,
                "burst_size": 20_000, "seed": 7}  # fmt: skip
#: The chapter's Leaf run at scale 1: step 1,000, 4 servers, 200,000 IDs, 8 restarts.
CLAIM_LEAF = {"step": 1_000, "servers": 4, "requests": 200_000, "restarts": 8, "seed": 3}
#: New users mapped by the Lua dense map for the registry's figure.
CLAIM_DENSE_USERS = 2_000


@functools.cache
def claim_figures() -> dict[str, Any]:
    """The numbers behind the verdicts on seed 000 §4 and §7.6: the seed's ID decoded, the Java
    arithmetic of its offset mapping, a fixed simulated stream (:data:`CLAIM_STREAM`) and Leaf run
    (:data:`CLAIM_LEAF`), and JavaScript's doubles. Deterministic: no clock, no Redis (cached)."""
    from scipy.stats import spearmanr

    from setlab.models import bitmap

    fields = SEED_000.decode(SEED_ID)
    ids = simulate_stream(start_unix_ms=SEED_000.unix_ms(SEED_ID), **CLAIM_STREAM)
    hashed = np.array([unsigned_offset(int(i)) for i in ids], dtype=np.int64)
    leaf = LeafSegments(CLAIM_LEAF["step"], CLAIM_LEAF["servers"]).run(
        CLAIM_LEAF["requests"], CLAIM_LEAF["restarts"], seed=CLAIM_LEAF["seed"]
    )
    bias = abs_mod_bias(SEED_MODULUS_INTENDED)
    two_billion = TWITTER_EPOCH_MS + TWITTER.ms_until_above(2_000_000_000 * 2**32)
    as_double = float(SEED_JS_NUMBER)
    wire = json.dumps({"id": str(SEED_JS_NUMBER)})
    return {
        "fields": fields,
        "minted": SEED_000.minted_at(SEED_ID),
        "digits": len(str(SEED_ID)),
        "log2": math.log2(SEED_ID),
        "ratio_range": 2**63 / 2**32,
        "ratio_seed": SEED_ID / 2**32,
        "two_billion_year": utc(two_billion).year,
        "printed_max": SEED_MODULUS_AS_PRINTED - 1,
        "printed_bytes": bitmap.bytes_for_offset(SEED_MODULUS_AS_PRINTED - 1),
        "bias_excess": bias.excess,
        "min_value_result": bias.min_value_result,
        "expected_offset": (SEED_MODULUS_INTENDED - 1) // 2,
        "example_remainders": [h % 2**32 for h, _ in SEED_ROWS.values()],
        "stream_ids": int(ids.size),
        "rho": float(spearmanr(ids, hashed).statistic),
        "low32_share": colliding_fraction(ids & 0xFFFFFFFF),
        "hash_colliding_users": round(colliding_fraction(hashed) * ids.size),
        "crossing_32_s": TWITTER.ms_until_above(2**32) / 1000,
        "leaf_max": leaf.max_id,
        "js_prints": js_number_string(as_double),
        "js_holds": int(as_double),
        "js_string_round_trip": json.loads(wire)["id"] == str(SEED_JS_NUMBER),
    }


def claim_redis_figures(lab: Lab) -> dict[str, Any]:
    """The two figures that need a Redis: the reply to ``SETBIT`` at the seed's ID, and the
    largest int the Lua dense map hands :data:`CLAIM_DENSE_USERS` new users (one ``EVALSHA``
    each). Give it an embedded lab for an answer that is the same on every machine."""
    import redis

    try:
        lab.r.setbit(lab.key("claims", "likes"), SEED_ID, 1)
        error = None
    except redis.ResponseError as err:
        error = f"{err.status_code} {err}"
    dense = DenseMap.for_lab(lab, "claims-dense")
    ints = dense.lookup_many(range(SEED_ID, SEED_ID + CLAIM_DENSE_USERS))
    return {"setbit_error": error, "dense_max": max(ints), "dense_issued": dense.issued()}
