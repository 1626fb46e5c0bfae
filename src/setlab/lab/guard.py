"""The memory budget on a server setlab did not start: the book must never cause an eviction.

On a reader's own Redis (``REDIS_URL``) other people's data lives beside the book's keys. If the
server has ``maxmemory`` and an eviction policy such as ``allkeys-lru``, a write that pushes
``used_memory`` past the limit makes Redis delete *their* keys to make room; under
``noeviction`` it refuses the write instead. Two things keep the book from ever doing either:

1. **Declared budgets.** Before an experiment writes (or reads back) a lot, it calls
   ``lab.check_allocation(nbytes, what, reads=...)``. :meth:`MemoryGuard.check` compares the sum
   with the server's headroom — ``maxmemory − used_memory − margin`` — and with the reader's
   opt-in limit, and refuses with a message naming the experiment, the bytes, the headroom and
   the remedies (a ``SETLAB_SCALE`` that fits, ``SETLAB_ALLOW_BIG=1``, a private server).
2. **A net under every write.** The lab's client estimates what each write command can add
   (:func:`write_cost`: a ``SETBIT`` at offset *n* may allocate *n*/8 bytes) and, before sending
   it, checks the running total against the last ``INFO memory`` (refreshed often), so even
   many small writes cannot creep past the limit.

Reply buffers count against ``maxmemory`` too, so experiments declare what they read back and
read big values in chunks. Margins are larger when the policy evicts.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from setlab.core.scale import SCALE_ENV, scale
from setlab.core.units import format_bytes
from setlab.lab.errors import BigAllocationRefused

ALLOW_BIG_ENV = "SETLAB_ALLOW_BIG"
#: budget when the server will not tell its memory (INFO denied by an ACL)
BLIND_BUDGET = 4 * 2**20
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


@dataclass(frozen=True)
class MemoryState:
    """What ``INFO memory`` says about a server's limit."""

    maxmemory: int  #: bytes; 0 means no limit
    used: int  #: used_memory, bytes
    policy: str  #: maxmemory-policy

    @property
    def evicts(self) -> bool:
        return self.policy != "noeviction"

    @property
    def margin(self) -> int:
        """Bytes kept free below maxmemory: 2% (min 1 MiB), 5% (min 2 MiB) if it evicts."""
        if self.evicts:
            return max(2 * 2**20, self.maxmemory // 20)
        return max(2**20, self.maxmemory // 50)

    @property
    def headroom(self) -> int:
        """Bytes setlab may still add (never negative)."""
        return max(0, self.maxmemory - self.used - self.margin)


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


def write_cost(args: Sequence[object]) -> int:
    """An upper estimate of the bytes one command can add to a server (0 for a read).

    Args are the command as sent (``("SETBIT", key, offset, 1)``). Commands whose cost is set by
    an argument rather than their size are priced by it: ``SETBIT`` at offset *n* allocates up
    to *n*/8 bytes, ``SETRANGE`` up to offset + length, ``BF.RESERVE``/``CF.RESERVE`` their
    filter, everything else the bytes it carries plus bookkeeping per item.
    """
    if not args:
        return 0
    name = _text(args[0]).upper()
    if name not in WRITE_COMMANDS:
        return 0
    carried = sum(_size(a) for a in args[1:]) + _PER_ITEM * max(1, len(args) - 2)
    if name == "SETBIT" and len(args) >= 3:
        offset = _int(args[2])
        if offset > MAX_DEFAULT_OFFSET:
            return 0  # refused by a server with the default proto-max-bulk-len (512 MiB)
        return offset // 8 + 1 + _PER_ITEM
    if name == "SETRANGE" and len(args) >= 4:
        return _int(args[2]) + _size(args[3]) + _PER_ITEM
    if name == "BITFIELD":
        offsets = [_int(a.lstrip("#")) for a in map(_text, args[2:]) if a.lstrip("#").isdigit()]
        return (max(offsets, default=0) + 64) // 8 + _PER_ITEM
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


_BY_OFFSET = frozenset({"SETBIT", "SETRANGE", "BITFIELD"})


def batch_cost(commands: Iterable[Sequence[object]]) -> int:
    """:func:`write_cost` of a batch (a pipeline): commands that size a string by an offset
    count once per key, at their largest offset, since they all write into the same string."""
    by_key: dict[object, int] = {}
    total = 0
    for args in commands:
        cost = write_cost(args)
        if cost and len(args) > 1 and _text(args[0]).upper() in _BY_OFFSET:
            by_key[args[1]] = max(by_key.get(args[1], 0), cost)
        else:
            total += cost
    return total + sum(by_key.values())


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
        where: the server, for messages (host:port, never a password).
        owned: setlab started the server (nobody else's data): only the maxmemory check applies.
        allow_big: the reader's opt-in to allocations above ``big_bytes``.
        big_bytes: what counts as big on somebody else's server.
    """

    def __init__(
        self,
        read_state: Callable[[], MemoryState | None],
        where: str,
        *,
        footprint: Callable[[], int] | None = None,
        owned: bool,
        allow_big: bool,
        big_bytes: int,
    ) -> None:
        self._read_state = read_state
        self._footprint = footprint
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
    def check(self, nbytes: int, what: str = "this experiment", reads: int = 0) -> None:
        """Refuse (BigAllocationRefused) unless ``nbytes`` written + ``reads`` read back fit."""
        for name, value in (("nbytes", nbytes), ("reads", reads)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int of bytes, got {value!r}")
        total = nbytes + reads
        need = f"{format_bytes(total)}" + (
            f" ({format_bytes(nbytes)} written + {format_bytes(reads)} read back)" if reads else ""
        )
        if total > self.big_bytes and not self.owned and not self.allow_big:
            fit = fitting_scale(total, self.big_bytes)
            raise BigAllocationRefused(
                f"{what} needs {need} on Redis at {self.where}, a server setlab did not start "
                f"(limit {format_bytes(self.big_bytes)} without opt-in). Remedies: "
                + (f"{SCALE_ENV}={fit:g}; " if fit else "")
                + f"{ALLOW_BIG_ENV}=1 if this server may hold it; or a private server (unset "
                "REDIS_URL)."
            )
        if total <= 256 * 2**10 and (self.owned or self._state is not None):
            return  # small: the net under each write covers it
        state = self.state()
        if state is None:
            if not self.owned and self._footprint is not None:
                self._blind_total = self._footprint()
            if self._blind_total + total > BLIND_BUDGET and not self.owned:
                raise BigAllocationRefused(
                    f"{what} needs {need}, but Redis at {self.where} does not let this user read "
                    "INFO memory, so setlab cannot know its headroom and refuses anything over "
                    f"{format_bytes(BLIND_BUDGET)}. Remedies: "
                    + self._scale_hint(total, BLIND_BUDGET)
                    + "a private server (unset REDIS_URL), or +info for this user."
                )
            return
        if state.maxmemory and total > state.headroom:
            raise BigAllocationRefused(
                f"{what} needs {need}, but Redis at {self.where} has {format_bytes(state.headroom)}"
                f" of headroom (maxmemory {format_bytes(state.maxmemory)}, used "
                f"{format_bytes(state.used)}, safety margin {format_bytes(state.margin)}, policy "
                f"{state.policy}). Remedies: " + self._scale_hint(total, state.headroom)
                + "free memory on the server, or a private server (unset REDIS_URL)."
                + (" This server evicts: setlab never writes past its headroom." if state.evicts
                   else "")
            )  # fmt: skip

    @staticmethod
    def _scale_hint(total: int, room: int) -> str:
        fit = fitting_scale(total, room)
        return f"{SCALE_ENV}={fit:g} fits; " if fit else ""

    # -- the net under every write -------------------------------------------------------------
    def before(self, commands: Iterable[Sequence[object]]) -> None:
        """Check a batch of commands (one command, or a pipeline) before it is sent."""
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
            if self._blind_total + cost > BLIND_BUDGET:
                raise BigAllocationRefused(
                    f"this write would bring the book's keys on Redis at {self.where} to about "
                    f"{format_bytes(self._blind_total + cost)}; this user may not read INFO "
                    "memory, so setlab cannot see the server's headroom and keeps its own keys "
                    f"under {format_bytes(BLIND_BUDGET)} there. Remedies: a smaller {SCALE_ENV}, "
                    "a private server (unset REDIS_URL), or +info for this user."
                )
            self._blind_total += cost
            return
        if state.maxmemory and self._pending + cost > state.headroom:
            raise BigAllocationRefused(
                f"this write would add up to {format_bytes(cost)} to Redis at {self.where}, "
                f"which has {format_bytes(max(0, state.headroom - self._pending))} of headroom "
                f"left (maxmemory {format_bytes(state.maxmemory)}, policy {state.policy}); setlab "
                "stops here rather than push the server toward its limit. Remedies: a smaller "
                f"{SCALE_ENV}, or a private server (unset REDIS_URL)."
            )
        self._pending += cost
