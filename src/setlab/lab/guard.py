"""The memory budget on a server setlab did not start: the book must never cause an eviction.

On a reader's own Redis (``REDIS_URL``) other people's data lives beside the book's keys. If the
server has ``maxmemory`` and an eviction policy such as ``allkeys-lru``, a write that pushes
``used_memory`` past the limit makes Redis delete *their* keys to make room; under
``noeviction`` it refuses the write instead (theirs too, while the server is full). Three things
keep the book from ever doing either:

1. **Budgets priced by the allocator model.** An experiment asks for what Redis will really
   allocate, not for its payload: :func:`budget` prices new keys with
   :mod:`setlab.models.bitmap`'s sds and jemalloc model (a first ``SETBIT`` at offset 2^32 − 1
   stores 512 MiB of bits in a 640 MiB allocation) plus each key's ``robj``, name and
   ``dictEntry``. Every experiment's request goes through it; no call site adds its own overhead.
2. **Declared budgets.** Before an experiment writes (or reads back) a lot, it calls
   ``lab.check_allocation(guard.budget(...), what, reads=..., scales=...)``.
   :meth:`MemoryGuard.check` compares the sum with the server's headroom — ``maxmemory −
   used_memory −`` :attr:`MemoryState.margin` — and, separately, with the reader's opt-in limit
   (``big_bytes``, 64 MiB by default). ``SETLAB_ALLOW_BIG=1`` lifts only that opt-in limit: the
   headroom holds whatever the reader opts into.
3. **A net under every write.** The lab's client prices what each write command can add
   (:func:`write_cost`, by the same model) and, before sending it, checks the running total
   against the last ``INFO memory`` (refreshed often), so even many small writes cannot creep
   past the limit. Before it refuses an offset write (``SETBIT``, ``SETRANGE``, ``BITFIELD``) it
   asks how long the string already is: a write inside an existing string allocates nothing.

A refusal is one line naming the experiment, the bytes, the limit that refused it and only the
remedies that would help: ``SETLAB_SCALE`` when the experiment grows with it, ``SETLAB_ALLOW_BIG=1``
only when the opt-in limit (not the headroom) is what refused it. An experiment that fails or is
refused deletes what it created at once (``UNLINK`` in a ``finally``), not at ``lab.cleanup()``.

Reply buffers count against ``maxmemory`` too, so experiments declare what they read back and
read big values in chunks.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.core.formats import format_bytes
from setlab.core.scale import SCALE_ENV, scale
from setlab.lab.errors import BigAllocationRefused
from setlab.models import bitmap
from setlab.models.allocator import size_class
from setlab.models.bitmap import DICT_ENTRY_BYTES, ROBJ_BYTES, SdsString, sds_new_alloc
from setlab.models.redis_memory import POINTER_BYTES, KeyCost

ALLOW_BIG_ENV = "SETLAB_ALLOW_BIG"
#: budget when the server will not tell its memory (INFO denied by an ACL)
BLIND_BUDGET = 4 * 2**20
#: a declared budget up to this many bytes is left to the net under each write (bytes)
SMALL_BUDGET = 256 * 2**10
_REFRESH_S = 0.2

#: Commands that store data (the ones the book sends, and their relatives).
WRITE_COMMANDS = frozenset(
    """SET SETNX SETEX PSETEX MSET MSETNX APPEND SETRANGE SETBIT BITFIELD BITOP INCR INCRBY
    INCRBYFLOAT DECR DECRBY GETSET GETEX SADD SMOVE SUNIONSTORE SINTERSTORE SDIFFSTORE HSET HSETNX
    HMSET HINCRBY HINCRBYFLOAT LPUSH RPUSH LPUSHX RPUSHX LINSERT LSET ZADD ZINCRBY ZUNIONSTORE
    ZINTERSTORE ZDIFFSTORE ZRANGESTORE XADD PFADD PFMERGE RESTORE COPY EVAL EVALSHA EVAL_RO
    FCALL BF.ADD BF.MADD BF.INSERT BF.RESERVE BF.LOADCHUNK CF.ADD CF.ADDNX CF.INSERT CF.INSERTNX
    CF.RESERVE CF.LOADCHUNK CMS.INITBYDIM CMS.INITBYPROB CMS.INCRBY TOPK.RESERVE TOPK.ADD
    R.SETBIT R.SETBITARRAY""".split()  # noqa: SIM905 (a word list reads best as text)
)
_PER_ITEM = 64  # bytes of bookkeeping per stored item (dictEntry, robj, sds headers), generous
#: a HyperLogLog key at its largest (dense: 12,304 bytes in a 14 KiB allocation, plus the key)
HLL_MAX_BYTES = 16 * 2**10
#: the largest bit offset a server with the default ``proto-max-bulk-len`` (512 MiB) accepts
MAX_DEFAULT_OFFSET = 2**32 - 1
#: bytes of key name a budget assumes when the call site does not know the name: the book's
#: longest (namespace, user, run id and parts) is under 100
KEY_NAME_BYTES = 128


def _check_bytes(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative int of bytes, got {value!r}")
    return value


def _setbit_peak(offsets: Iterable[int]) -> int:
    """The most the value of ``SETBIT key o 1`` for each ``o`` in order holds at once (bytes).

    Only a write past the end changes the string (:func:`setlab.models.bitmap.bitmap_growth`);
    a growing write may keep the old block while it copies it into the new one (realloc), so
    a step that reallocates counts both."""
    seq = np.asarray(list(offsets), dtype=np.int64)
    if seq.size == 0:
        raise ValueError("setbits must contain at least one offset")
    running = np.maximum.accumulate(seq)
    growing = seq[np.r_[True, running[1:] > running[:-1]]]
    peak, before = 0, 0
    for value in bitmap.bitmap_growth(growing.tolist()):
        moved = value.allocation != before
        peak = max(peak, value.allocation + (before if moved else 0))
        before = value.allocation
    return peak


def budget(
    *,
    string: int | None = None,
    setbits: Iterable[int] | None = None,
    allocated: int | None = None,
    cost: KeyCost | None = None,
    keys: int = 1,
    key_bytes: int = KEY_NAME_BYTES,
) -> int:
    """What ``keys`` new keys take from the server's allocator (``used_memory`` growth, bytes)
    at their peak: the one price in which every experiment asks the guard for memory.

    Give each key's value in exactly one way:

    * ``string``: a string of that many bytes, created at that length (a first ``SETBIT`` at
      bit offset *o* makes *o* // 8 + 1 bytes; ``SETRANGE``; ``SET``). ``sdsnewlen`` allocates
      header + data + NUL, rounded up to jemalloc's size class
      (:func:`setlab.models.bitmap.sds_new_alloc`): 2^29 bytes of bits take 640 MiB.
    * ``setbits``: a bitmap made by ``SETBIT key o 1`` for each offset in order, at its peak:
      greedy growth (:func:`setlab.models.bitmap.bitmap_growth`), both blocks while a growing
      write reallocates.
    * ``allocated``: the bytes the allocator hands out for the value, as a model gives them (a
      RedisBloom chain's :meth:`~setlab.models.redisbloom.ChainLayout.allocated`).
    * ``cost``: a whole key priced by :mod:`setlab.models.redis_memory` (its ``allocated``, the
      key's own parts included; a hashtable set also its old bucket array, which an
      incremental rehash holds beside the new one).

    The first three add, per key, what :class:`setlab.models.redis_memory.Ledger` counts beside
    the value — the ``robj`` (16 B), the name's sds string (``key_bytes`` long), the keyspace
    ``dictEntry`` (24 B, in jemalloc's 32-byte class) — and the key's share of the keyspace
    bucket table (8 B a bucket, two a key at most as the table doubles). Sizes are Debian's
    jemalloc classes, never smaller than the bundled build's (:mod:`setlab.models.allocator`),
    so the price bounds both. Not priced: clients' buffers and the table doubling over the keys
    already there (8 B each) — the safety margin (:attr:`MemoryState.margin`) is kept for them.
    """
    given = [v is not None for v in (string, setbits, allocated, cost)]
    if sum(given) != 1:
        raise ValueError("budget needs exactly one of string=, setbits=, allocated= or cost=")
    keys = _check_bytes("keys", keys)
    if cost is not None:
        if not isinstance(cost, KeyCost):
            raise ValueError(f"cost must be a redis_memory.KeyCost, got {cost!r}")
        # a hashtable set that grew by SADD held its old bucket array too while it rehashed
        rehash = cost.allocated_parts.get("bucket array", 0) // 2 if cost.kind == "set" else 0
        return keys * (cost.allocated + rehash)
    key_bytes = _check_bytes("key_bytes", key_bytes)
    key_parts = (
        ROBJ_BYTES + sds_new_alloc(key_bytes) + size_class(DICT_ENTRY_BYTES) + 2 * POINTER_BYTES
    )
    if string is not None:
        value = sds_new_alloc(_check_bytes("string", string))
    elif setbits is not None:
        value = _setbit_peak(setbits)
    else:
        value = _check_bytes("allocated", allocated)
    return keys * (value + key_parts)


@dataclass(frozen=True)
class MemoryState:
    """What ``INFO memory`` says about a server's limit."""

    maxmemory: int  #: bytes; 0 means no limit
    used: int  #: used_memory, bytes
    policy: str  #: maxmemory-policy

    @property
    def evicts(self) -> bool:
        """Whether a full server deletes keys to make room (every policy but ``noeviction``)."""
        return self.policy != "noeviction"

    @property
    def margin(self) -> int:
        """Bytes setlab keeps free below maxmemory, whatever the reader opts into.

        On a server that evicts (``allkeys-lru``, ``volatile-ttl``, …): 5 % of maxmemory, at
        least 2 MiB (51 MiB of 1 GiB). Under ``noeviction``: 2 %, at least 1 MiB. It holds what
        :func:`budget` does not price — the keyspace table doubling when a key is added,
        clients' query and reply buffers, and the other clients' writes meanwhile — so the
        book's writes never bring ``used_memory`` to the limit where Redis starts evicting.
        """
        if self.evicts:
            return max(2 * 2**20, self.maxmemory // 20)
        return max(2**20, self.maxmemory // 50)

    @property
    def headroom(self) -> int:
        """Bytes setlab may still add: ``maxmemory − used − margin`` (never negative)."""
        return max(0, self.maxmemory - self.used - self.margin)

    def describe(self) -> str:
        """How the headroom is made, and why the margin is kept, in one clause."""
        why = (
            "which evicts other keys when the server is full"
            if self.evicts
            else "under which a full server refuses everyone's writes"
        )
        return (
            f"maxmemory {format_bytes(self.maxmemory)}, used {format_bytes(self.used)}, less a "
            f"safety margin of {format_bytes(self.margin)} that setlab always keeps free, policy "
            f"{self.policy}, {why}"
        )


def _text(arg: object) -> str:
    return arg.decode(errors="replace") if isinstance(arg, bytes | bytearray) else str(arg)


def _int(arg: object) -> int:
    try:
        return int(_text(arg))
    except ValueError:
        return 0


def _size(arg: object) -> int:
    return len(arg) if isinstance(arg, bytes | bytearray | str) else 8


def _option(args: Sequence[object], name: str) -> str | None:
    texts = [_text(a).upper() for a in args]
    if name in texts and texts.index(name) + 1 < len(args):
        return _text(args[texts.index(name) + 1])
    return None


def _bloom_bytes(capacity: int, error: float) -> int:
    if capacity <= 0 or not 0 < error < 1:
        return 0
    return int(capacity * -math.log(error) / math.log(2) ** 2 / 8) + 256


_BY_OFFSET = frozenset({"SETBIT", "SETRANGE", "BITFIELD"})


def _needed_length(name: str, args: Sequence[object]) -> int | None:
    """Bytes the string must have after an offset write (None: Redis refuses it, or no key)."""
    if len(args) < 2:
        return None
    if name == "SETBIT" and len(args) >= 3:
        offset = _int(args[2])
        # beyond it a server with the default proto-max-bulk-len (512 MiB) refuses the write
        return offset // 8 + 1 if 0 <= offset <= MAX_DEFAULT_OFFSET else None
    if name == "SETRANGE" and len(args) >= 4:
        return _int(args[2]) + _size(args[3])
    if name == "BITFIELD":
        offsets = [_int(a.lstrip("#")) for a in map(_text, args[2:]) if a.lstrip("#").isdigit()]
        return (max(offsets, default=0) + 64) // 8
    return None


def write_cost(args: Sequence[object]) -> int:
    """An upper estimate of the bytes one command can add to a server (0 for a read).

    Args are the command as sent (``("SETBIT", key, offset, 1)``). Commands whose cost is set by
    an argument rather than their size are priced by it: ``SETBIT`` at offset *n* as a new
    string of *n*/8 bytes (:func:`budget`: 640 MiB at 2^32 − 1), ``SETRANGE`` as offset +
    length, ``BF.RESERVE``/``CF.RESERVE`` their filter, everything else the bytes it carries
    plus bookkeeping per item.
    """
    if not args:
        return 0
    name = _text(args[0]).upper()
    if name not in WRITE_COMMANDS:
        return 0
    if name in _BY_OFFSET:
        needed = _needed_length(name, args)
        return 0 if needed is None else budget(string=needed, key_bytes=_size(args[1]))
    carried = sum(_size(a) for a in args[1:]) + _PER_ITEM * max(1, len(args) - 2)
    if name == "BF.RESERVE" and len(args) >= 4:
        return _bloom_bytes(_int(args[3]), float(_text(args[2])))
    if name == "CF.RESERVE" and len(args) >= 3:
        return 2 * _int(args[2]) + 256
    if name in {"BF.INSERT", "CF.INSERT", "CF.INSERTNX"}:
        capacity = _int(_option(args, "CAPACITY") or 0)
        error = float(_option(args, "ERROR") or 0.01)
        return carried + (_bloom_bytes(capacity, error) if name == "BF.INSERT" else 2 * capacity)
    if name in {"PFADD", "PFMERGE"}:
        return min(carried, HLL_MAX_BYTES)  # a sketch never outgrows its dense form
    if name in {"RESTORE", "COPY", "BITOP", "SUNIONSTORE", "SINTERSTORE"}:
        return 2 * carried + 16 * 2**10
    return carried


def _growth(key: object, needed: int, length: int) -> int:
    """Bytes an offset write needing ``needed`` bytes adds to a string now ``length`` long."""
    if length <= 0:
        return budget(string=needed, key_bytes=_size(key))
    if needed <= length:
        return 0  # inside the string: nothing is allocated
    # past the end: sdsMakeRoomFor reallocates greedily (within the spare capacity it does not)
    # and copies; the old block is already counted in used_memory while the new one is filled
    old = SdsString.new(length)
    grown = old.grow_zero(needed)
    return 0 if grown.allocation == old.allocation else grown.allocation


def batch_cost(
    commands: Iterable[Sequence[object]],
    lengths: Callable[[list[object]], Sequence[int]] | None = None,
) -> int:
    """:func:`write_cost` of a batch (a pipeline): commands that size a string by an offset
    count once per key, at their largest offset, since they all write into the same string.

    ``lengths`` (optional) returns the current ``STRLEN`` of each key it is given; with it, an
    offset write into a string that exists is priced by what it adds (nothing inside the
    string, the greedy reallocation past its end) instead of as a new string.
    """
    by_key: dict[object, int] = {}
    total = 0
    for args in commands:
        name = _text(args[0]).upper() if args else ""
        if name in _BY_OFFSET:
            needed = _needed_length(name, args)
            if needed is not None:
                by_key[args[1]] = max(by_key.get(args[1], 0), needed)
        else:
            total += write_cost(args)
    if not by_key:
        return total
    keys = list(by_key)
    have = list(lengths(keys)) if lengths is not None else [0] * len(keys)
    return total + sum(_growth(k, by_key[k], n) for k, n in zip(keys, have, strict=True))


def string_lengths(raw: Callable[[], Any]) -> Callable[[list[object]], list[int]]:
    """The ``lengths`` a :class:`MemoryGuard` asks before it refuses an offset write: ``STRLEN``
    of each key in one pipeline, on ``raw()`` (a client that bypasses the guard); 0 for a key
    that is absent (or not a string, which the write itself will then be refused for)."""

    def lengths(keys: list[object]) -> list[int]:
        pipe = raw().pipeline(transaction=False)
        for key in keys:
            pipe.strlen(key)
        return [n if isinstance(n, int) else 0 for n in pipe.execute(raise_on_error=False)]

    return lengths


def fitting_scale(nbytes: int, headroom: int) -> float | None:
    """The ``SETLAB_SCALE`` at which an experiment needing ``nbytes`` at today's scale would
    fit in ``headroom`` (assuming it grows in proportion), rounded down; None if below 0.01."""
    if nbytes <= 0:
        return None
    fit = scale() * headroom / nbytes
    if fit < 0.01:
        return None
    digits = 10 ** math.floor(math.log10(fit))
    return round(math.floor(fit / digits + 1e-9) * digits, 12)


class MemoryGuard:
    """Keeps the book's writes on one server inside its headroom (see the module docstring).

    Args:
        read_state: reads ``INFO memory`` (returns None when the ACL denies it).
        footprint: measures what the lab's own keys hold now (``MEMORY USAGE`` of each key in
            its namespace), used instead when INFO is denied.
        lengths: returns the ``STRLEN`` of each key given (one round trip), so that the net
            under each write prices an offset write into an existing string by what it adds.
        where: the server, for messages (host:port, never a password).
        owned: setlab started the server (nobody else's data): no limit applies.
        allow_big: the reader's opt-in to allocations above ``big_bytes`` (it lifts nothing else).
        big_bytes: what counts as big on somebody else's server.
    """

    def __init__(
        self,
        read_state: Callable[[], MemoryState | None],
        where: str,
        *,
        footprint: Callable[[], int] | None = None,
        lengths: Callable[[list[object]], Sequence[int]] | None = None,
        owned: bool,
        allow_big: bool,
        big_bytes: int,
    ) -> None:
        self._read_state = read_state
        self._footprint = footprint
        self._lengths = lengths
        self.where = where
        self.owned = owned
        self.allow_big = allow_big
        self.big_bytes = big_bytes
        self._state: MemoryState | None = None
        self._read_at = -math.inf
        self._pending = 0  # estimated bytes written since the last INFO
        self._blind_total = 0  # estimated bytes written in all, when INFO is denied

    def state(self, refresh: bool = True) -> MemoryState | None:
        """The server's memory state (refreshed unless ``refresh`` is False and one is known)."""
        if refresh or self._state is None:
            self._state = self._read_state()
            self._read_at = time.monotonic()
            self._pending = 0
        return self._state

    # -- declared budgets -------------------------------------------------------------------
    def check(
        self, nbytes: int, what: str = "this experiment", reads: int = 0, *, scales: bool = False
    ) -> None:
        """Refuse (BigAllocationRefused) unless ``nbytes`` written + ``reads`` read back fit.

        ``nbytes`` is :func:`budget`'s price of what the experiment creates at its peak. On a
        server setlab did not start two limits apply, in this order: the server's headroom
        (``maxmemory − used −`` :attr:`MemoryState.margin`; :data:`BLIND_BUDGET` for the book's
        keys when INFO is denied), which nothing lifts; then the reader's opt-in limit
        (``big_bytes``), which ``SETLAB_ALLOW_BIG=1`` lifts. ``scales``: the experiment's size
        follows ``SETLAB_SCALE``, so a scale that fits is offered as a remedy (never otherwise).
        """
        nbytes, reads = _check_bytes("nbytes", nbytes), _check_bytes("reads", reads)
        total = nbytes + reads
        need = f"{format_bytes(total)}" + (
            f" ({format_bytes(nbytes)} written + {format_bytes(reads)} read back)" if reads else ""
        )
        if self.owned or (total <= SMALL_BUDGET and self._state is not None):
            return  # a server setlab started holds nobody's data; small: the net covers it
        state = self.state()
        if state is None:
            if self._footprint is not None:
                self._blind_total = self._footprint()
            room = max(0, BLIND_BUDGET - self._blind_total)
            if total > room:
                raise BigAllocationRefused(
                    f"{what} needs {need}, but Redis at {self.where} does not let this user read "
                    "INFO memory, so setlab cannot see its headroom and keeps the book's keys "
                    f"there under {format_bytes(BLIND_BUDGET)} ({format_bytes(room)} left). "
                    "Remedies: " + self._scale_hint(scales, total, room)
                    + "a private server (unset REDIS_URL), or +info for this user."
                )  # fmt: skip
        elif state.maxmemory and total > state.headroom:
            raise BigAllocationRefused(
                f"{what} needs {need}, but Redis at {self.where} has "
                f"{format_bytes(state.headroom)} of headroom ({state.describe()}; "
                f"{ALLOW_BIG_ENV} does not lift it). Remedies: "
                + self._scale_hint(scales, total, state.headroom)
                + "free memory on that server, or a private server (unset REDIS_URL)."
            )  # fmt: skip
        if total > self.big_bytes and not self.allow_big:
            room = ""
            if state is not None:
                room = (
                    f"; its headroom, {format_bytes(state.headroom)}, would hold it"
                    if state.maxmemory
                    else "; it sets no maxmemory"
                )
            raise BigAllocationRefused(
                f"{what} needs {need} on Redis at {self.where}, a server setlab did not start: "
                f"more than the {format_bytes(self.big_bytes)} it takes there without the "
                f"reader's opt-in{room}. Remedies: {ALLOW_BIG_ENV}=1 if this server may hold "
                "it; " + self._scale_hint(scales, total, self.big_bytes)
                + "or a private server (unset REDIS_URL)."
            )  # fmt: skip

    @staticmethod
    def _scale_hint(scales: bool, total: int, room: int) -> str:
        fit = fitting_scale(total, room) if scales else None
        return f"{SCALE_ENV}={fit:g} fits; " if fit else ""

    # -- the net under every write -------------------------------------------------------------
    def before(self, commands: Iterable[Sequence[object]]) -> None:
        """Check a batch of commands (one command, or a pipeline) before it is sent."""
        commands = list(commands)
        cost = batch_cost(commands)
        if cost == 0:
            return
        state = self._state
        stale = time.monotonic() - self._read_at > _REFRESH_S
        if state is None or stale or self._pending + cost > state.headroom // 4:
            state = self.state()
        if state is None:
            if self.owned:
                return
            if self._blind_total + cost > BLIND_BUDGET and self._footprint is not None:
                self._blind_total = self._footprint()  # what is really there now
            if self._blind_total + cost > BLIND_BUDGET and self._lengths is not None:
                cost = batch_cost(commands, self._lengths)
            if self._blind_total + cost > BLIND_BUDGET:
                raise BigAllocationRefused(
                    f"this write would bring the book's keys on Redis at {self.where} to about "
                    f"{format_bytes(self._blind_total + cost)}; this user may not read INFO "
                    "memory, so setlab cannot see the server's headroom and keeps its own keys "
                    f"under {format_bytes(BLIND_BUDGET)} there. Remedies: a private server "
                    "(unset REDIS_URL), or +info for this user."
                )
            self._blind_total += cost
            return
        if state.maxmemory and self._pending + cost > state.headroom and self._lengths:
            cost = batch_cost(commands, self._lengths)  # a write into an existing string?
        if state.maxmemory and self._pending + cost > state.headroom:
            raise BigAllocationRefused(
                f"this write would add up to {format_bytes(cost)} to Redis at {self.where}, "
                f"which has {format_bytes(max(0, state.headroom - self._pending))} of headroom "
                f"left ({state.describe()}); setlab stops here rather than push the server "
                "toward its limit. Remedies: free memory on that server, or a private server "
                "(unset REDIS_URL)."
            )
        self._pending += cost
