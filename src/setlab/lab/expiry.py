"""Nothing left behind on a server setlab did not start: the book's keys expire with their run.

On a reader's own Redis (``REDIS_URL``) a run writes under ``setlab:@<user>:<run>:<chapter>:``
and deletes that namespace when its process exits. A kernel killed with SIGKILL (or a machine that
loses power) runs no exit handler, and a run id is never reused, so without more its keys would
stay forever. Three things make them go:

1. **An expiry on every key.** After a write through the lab's client, the keys it wrote get
   ``PEXPIRE`` :func:`key_ttl_s` (:data:`KEY_TTL_S`, an hour) in the same round trip: a single
   command goes out as a two-command pipeline, a pipeline gets one ``PEXPIRE`` per key appended,
   a ``MULTI``/``EXEC`` gets them right after its ``EXEC`` (so they can never abort it). A key
   whose expiry the lab set less than a quarter of the expiry ago is not sent another — unless
   the command replaces the key and so drops its expiry (``SET``, ``MSET``, the ``*STORE``
   commands, …) or a command that may delete it (``DEL``, ``SREM``, a script, …) ran since.
2. **A heartbeat while the run lives.** A daemon thread renews ``setlab:@<user>:<run>:~heartbeat``
   (it lives :func:`heartbeat_ttl_s`, at most 30 s, and is renewed three times per life) and,
   every quarter of the expiry, re-arms the expiry of every key in the lab's namespace (``SCAN`` +
   ``PEXPIRE``): a key a long experiment only reads never expires under it, and a key written
   past the client (the raw-socket loaders of :mod:`setlab.lab.wire.loading`) gets one within that
   time.
3. **Stopped runs removed at once.** :func:`remove_stale_runs` (``connect()`` and
   ``setlab cleanup``) deletes a user's runs whose heartbeat is gone, or older than a given age.

An expiry the book sets on purpose never ends later than the book said: the like service's 5 s
lock (``SET … PX``) keeps it; one longer than the lab's (its 7-day sets, ``EXPIRE``) is cut to the
lab's and re-armed like any other key until the book's own end, so that no key of the book
outlives a killed run by more than :data:`KEY_TTL_S` (an expiry the lab cannot read, such as
``EXPIREAT``, gets ``PEXPIRE … LT``: Redis 7.0 and later). ``PERSIST`` is followed by the lab's
expiry: on a shared server no key of the book lives forever.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

import redis

from setlab.lab.guard import WRITE_COMMANDS

KEY_TTL_ENV = "SETLAB_KEY_TTL_S"
#: seconds a key of the book outlives the last sign of its run (the write or the heartbeat sweep
#: that refreshed it): far longer than any pause of a live run's refresh thread (a busy cell
#: holding the GIL, a slow server), short enough that a killed run's keys are gone within the
#: hour. ``SETLAB_KEY_TTL_S`` overrides it (1 s to 7 days; the tests use a few seconds).
KEY_TTL_S = 3600
KEY_TTL_RANGE_S = (1, 7 * 24 * 3600)
#: the most a heartbeat lives (seconds): a run silent this long is stopped, and its keys go at
#: the next connect of the same user
HEARTBEAT_MAX_S = 30
#: the most a run's end waits for a beat in flight before it deletes the heartbeat (seconds):
#: the lab's socket timeout (setlab.lab.backend.SOCKET_TIMEOUT_S), by which any beat has ended
STOP_WAIT_S = 10.0
HEARTBEAT = "~heartbeat"  # after setlab:@<user>:<run>: — '~' starts no chapter name
#: a run id (see setlab.lab.backend.RUN_ID): a hex timestamp and a 4-hex suffix
RUN = re.compile(rb"[0-9a-f]{8,}-[0-9a-f]{4}")
_FRESH_MAX = 100_000  # keys remembered as freshly expiring (then forgotten: more PEXPIREs)

_SETS_TTL = frozenset({"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "SETEX", "PSETEX"})
_TTL_OPTIONS = frozenset({b"EX", b"PX", b"EXAT", b"PXAT"})
#: writes that replace the key, dropping any expiry it had
_REPLACES = frozenset(
    """SET MSET MSETNX GETSET PERSIST RESTORE COPY BITOP SUNIONSTORE SINTERSTORE SDIFFSTORE
    ZUNIONSTORE ZINTERSTORE ZDIFFSTORE ZRANGESTORE GEOSEARCHSTORE""".split()  # noqa: SIM905
)
#: commands that may delete a key: explicitly, by emptying it, or in a script
_MAY_DELETE = frozenset(
    """DEL UNLINK GETDEL RENAME RENAMENX MOVE SREM SPOP SMOVE LPOP RPOP LREM LTRIM LMPOP BLPOP
    BRPOP BLMPOP LMOVE BLMOVE RPOPLPUSH BRPOPLPUSH HDEL ZREM ZPOPMIN ZPOPMAX BZPOPMIN BZPOPMAX
    ZMPOP BZMPOP ZREMRANGEBYSCORE ZREMRANGEBYLEX ZREMRANGEBYRANK EVAL EVALSHA FCALL""".split()  # noqa: SIM905
)
_DELETES = frozenset({"DEL", "UNLINK", "GETDEL"})
#: where the written key is when it is not the first argument
_DESTINATION = {"SMOVE": 2, "LMOVE": 2, "BLMOVE": 2, "RPOPLPUSH": 2, "BRPOPLPUSH": 2, "COPY": 2,
                "BITOP": 2}  # fmt: skip
_WRITES = WRITE_COMMANDS | _REPLACES | _SETS_TTL | frozenset(_DESTINATION) | {"GEOADD"}


def key_ttl_s() -> float:
    """The expiry of the book's keys on a shared server, in seconds: ``$SETLAB_KEY_TTL_S`` or
    :data:`KEY_TTL_S`. Raises ``ValueError`` naming the variable for a value outside 1 s–7 days."""
    text = os.environ.get(KEY_TTL_ENV, "").strip()
    if not text:
        return float(KEY_TTL_S)
    low, high = KEY_TTL_RANGE_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not low <= value <= high:
        raise ValueError(f"{KEY_TTL_ENV} must be seconds from {low} to {high}; got {text!r}")
    return value


def heartbeat_ttl_s(ttl_s: float) -> float:
    """How long a heartbeat lives (s): a quarter of the keys' expiry, at most 30 s."""
    return min(HEARTBEAT_MAX_S, ttl_s / 4)


def _bytes(arg: object) -> bytes:
    if isinstance(arg, bytes | bytearray | memoryview):
        return bytes(arg)
    return str(arg).encode()


def _written(name: str, args: Sequence[object]) -> Sequence[object]:
    """The keys a write command writes (the command as sent)."""
    if name in {"MSET", "MSETNX"}:
        return args[1::2]
    if name in {"EVAL", "EVALSHA", "EVAL_RO", "FCALL", "FCALL_RO"}:
        count = _bytes(args[2]) if len(args) > 2 else b"0"
        return args[3 : 3 + int(count)] if count.isdigit() else ()
    at = _DESTINATION.get(name, 1)
    return args[at : at + 1]


def _effect(name: str, args: Sequence[object]) -> str:
    """What a write does to its keys' expiry: ``timed`` (sets one the book chose), ``replaced``
    (drops it) or ``kept``."""
    if name in _SETS_TTL:
        return "timed"
    first = 3 if name == "SET" else 2  # SET key value [options]; GETEX key [options]
    options = {_bytes(a).upper() for a in args[first:]} if name in {"SET", "GETEX"} else set()
    if options & _TTL_OPTIONS or (name == "RESTORE" and len(args) > 2 and _bytes(args[2]) != b"0"):
        return "timed"
    if b"KEEPTTL" in options:
        return "kept"
    if name in _REPLACES or b"PERSIST" in options:
        return "replaced"
    return "kept"


def _deadline(name: str, args: Sequence[object], now: float) -> float | None:
    """When the expiry a command of the book sets ends (``time.time()`` seconds), if the command
    says so plainly (a relative ``EX``/``PX``/``EXPIRE``/``SETEX``/``RESTORE`` without flags);
    ``None`` for an absolute one, a flagged one, or one that cannot be read."""
    words = [_bytes(a).upper() for a in args]
    try:
        if name in {"SET", "GETEX"}:
            options = words[3 if name == "SET" else 2 :]
            for option, unit in ((b"EX", 1.0), (b"PX", 1e-3)):
                if option in options:
                    return now + float(options[options.index(option) + 1]) * unit
            return None
        unit = 1e-3 if name in {"PEXPIRE", "PSETEX", "RESTORE"} else 1.0
        plain = len(args) == (4 if name in {"SETEX", "PSETEX"} else 3)
        if (name in {"EXPIRE", "PEXPIRE", "SETEX", "PSETEX"} and plain) or (
            name == "RESTORE" and b"ABSTTL" not in words
        ):
            return now + float(words[2]) * unit
    except (ValueError, IndexError):
        pass
    return None


class Expiry:
    """What a lab's client sends after each write so that the written keys expire (see the
    module docstring). One per lab, shared by all its clients and its heartbeat thread.

    Args:
        namespace: only keys under it ever get an expiry (never a foreign key).
        ttl_s: the expiry, seconds.
        lt: the server takes ``PEXPIRE … LT`` (Redis 7.0 and later).
    """

    def __init__(self, namespace: str, ttl_s: float, *, lt: bool) -> None:
        self.namespace = namespace
        self._prefix = namespace.encode()
        self.ttl_ms = max(1, round(ttl_s * 1000))
        self.refresh_s = ttl_s / 4
        self.lt = lt
        self._fresh: dict[bytes, float] = {}  # key → when the lab last set its expiry
        #: keys whose expiry the book set itself → when it ends (time.time(); None: unknown)
        self._timed: dict[bytes, float | None] = {}

    def follow_ups(self, commands: Iterable[Sequence[object]]) -> list[tuple[object, ...]]:
        """The ``PEXPIRE`` commands to send after ``commands`` (a batch, in order)."""
        now, wall = time.monotonic(), time.time()
        pending: dict[bytes, tuple[object, ...] | None] = {}
        for args in commands:
            name = _bytes(args[0]).decode(errors="replace").upper() if args else ""
            if name in _MAY_DELETE:
                for key in map(_bytes, args[1:]):
                    self._fresh.pop(key, None)
                    if name in _DELETES:
                        self._timed.pop(key, None)
                        pending.pop(key, None)
            if name not in _WRITES:
                continue
            effect = _effect(name, args)
            for key in map(_bytes, _written(name, args)):
                if not key.startswith(self._prefix):
                    continue
                if effect == "timed":
                    self._timed[key] = _deadline(name, args, wall)
                    self._fresh.pop(key, None)
                elif effect == "replaced":
                    self._timed.pop(key, None)
                    pending[key] = ("PEXPIRE", key, self.ttl_ms)
                    continue
                fresh = now - self._fresh.get(key, -math.inf) < self.refresh_s
                if key in self._timed:
                    command = self._book_timed(key, wall)
                    if fresh and command is not None and len(command) == 3:
                        command = None  # re-armed to the lab's full expiry a moment ago
                else:
                    command = None if fresh else ("PEXPIRE", key, self.ttl_ms)
                if command is not None:
                    pending[key] = command
        if len(self._fresh) > _FRESH_MAX:
            self._fresh.clear()
        for key, command in pending.items():
            if command is not None and len(command) == 3:  # the lab's full expiry, just set
                self._fresh[key] = now
        return [command for command in pending.values() if command is not None]

    def _book_timed(self, key: bytes, wall: float) -> tuple[object, ...] | None:
        """The ``PEXPIRE`` for a key whose expiry the book set: never past the book's end, at
        most the lab's expiry from now; ``None`` where only ``LT`` would be safe and the server
        lacks it."""
        end = self._timed[key]
        left_ms = self.ttl_ms if end is None else (end - wall) * 1000
        if left_ms < -1000:  # the book's expiry is over: a key there now is a new one, the lab's
            del self._timed[key]
            return ("PEXPIRE", key, self.ttl_ms)
        if end is not None and left_ms > self.ttl_ms:  # it wants longer: an hour is within it
            return ("PEXPIRE", key, self.ttl_ms)
        return ("PEXPIRE", key, max(1, math.ceil(left_ms)), "LT") if self.lt else None

    # -- sending ------------------------------------------------------------------------------
    def execute(self, client: redis.Redis, args: tuple, options: dict[str, Any]) -> Any:
        """One command through ``client`` (a ``redis.Redis``), its follow-ups in the same round
        trip; returns (or raises) what the command alone would."""
        extra = self.follow_ups([args])
        if not extra:
            return redis.Redis.execute_command(client, *args, **options)
        pipe = redis.Redis.pipeline(client, transaction=False)
        pipe.execute_command(*args, **options)
        for command in extra:
            pipe.execute_command(*command)
        reply = pipe.execute(raise_on_error=False)[0]
        if isinstance(reply, Exception):
            raise reply
        return reply

    def execute_pipeline(
        self, client: redis.Redis, pipe: Any, execute: Any, raise_on_error: bool
    ) -> list[Any]:
        """Run ``pipe`` (its original ``execute``) with the follow-ups of its commands appended
        to it: inside the ``MULTI``/``EXEC`` of a transaction, so the expiry lands atomically
        with the write and a client that ``WATCH``-es the key sees one change, not two (sent
        after ``EXEC``, the ``PEXPIRE`` aborted the other clients' transactions a second time
        and made roaring-containers' optimistic-locking run about 4× slower). Replies and
        errors are the book's commands' only."""
        stack = list(pipe.command_stack)
        extra = self.follow_ups(args for args, _options in stack)
        if not extra:
            return execute(raise_on_error=raise_on_error)
        if pipe.transaction or pipe.explicit_transaction:
            for command in extra:  # PEXPIRE cannot fail inside EXEC: errors stay the book's
                pipe.pipeline_execute_command(*command)
            return execute(raise_on_error=raise_on_error)[: len(stack)]
        for command in extra:
            pipe.pipeline_execute_command(*command)
        replies = execute(raise_on_error=False)[: len(stack)]
        if raise_on_error:
            pipe.raise_first_error(stack, replies)
        return replies

    @staticmethod
    def send(client: redis.Redis, commands: list[tuple[object, ...]]) -> None:
        """Send ``commands`` in one plain pipeline, ignoring their errors (best effort)."""
        pipe = redis.Redis.pipeline(client, transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            pipe.execute(raise_on_error=False)

    def sweep(self, client: redis.Redis) -> None:
        """Re-arm the expiry of every key in the namespace (``SCAN``, 500 ``PEXPIRE`` a round
        trip); an expiry the book set is never lengthened past its end."""
        batch: list[tuple[object, ...]] = []
        for key in client.scan_iter(match=self.namespace + "*", count=1000):
            if key in self._timed:
                command = self._book_timed(key, time.time())
            else:
                command = ("PEXPIRE", key, self.ttl_ms)
                self._fresh[key] = time.monotonic()
            batch += [command] if command else []
            if len(batch) >= 500:
                self.send(client, batch)
                batch = []
        if batch:
            self.send(client, batch)


#: how many heartbeats of this process beat each key: every lab a process connects to one server
#: as one user shares its run, and so its heartbeat key
_BEATING: dict[tuple[Any, ...], int] = {}
_BEATING_LOCK = threading.Lock()


class Heartbeat:
    """Shows a run alive on a shared server and keeps its keys from expiring while it lives.

    Its key, ``<run>~heartbeat`` after the run's prefix ``run`` (``setlab:@<user>:<run id>:``),
    is renewed every third of :func:`heartbeat_ttl_s`; every quarter of the expiry
    :meth:`Expiry.sweep` runs. ``client`` is a plain client to the server (the lab's ``raw()``:
    no guard, no follow-ups). Several labs of one process share the key; the last of them to
    stop deletes it.
    """

    def __init__(self, client: redis.Redis, run: str, expiry: Expiry) -> None:
        self.client = client
        self.key = run + HEARTBEAT
        self.expiry = expiry
        self.ttl_s = heartbeat_ttl_s(expiry.ttl_ms / 1000)
        self._stop = threading.Event()
        #: held by a beat's SET and by stop's DELETE: a beat still in flight when the run ends
        #: (a slow sweep, a loaded machine) would otherwise write the key again after the delete
        self._beating = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"setlab {self.key}", daemon=True)
        #: this heartbeat's place in :data:`_BEATING` (the server's address and the key), None
        #: once stopped
        self._shared: tuple[Any, ...] | None = None

    def start(self) -> None:
        """The first beat (before the run writes anything), then the thread."""
        with _BEATING_LOCK:
            where = self.client.connection_pool.connection_kwargs
            self._shared = (where.get("host"), where.get("port"), where.get("path"), self.key)
            _BEATING[self._shared] = _BEATING.get(self._shared, 0) + 1
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            self._beat()
        self._thread.start()

    def _beat(self) -> None:
        with self._beating:
            if not self._stop.is_set():
                self.client.set(self.key, b"1", px=max(1, round(self.ttl_s * 1000)))

    def _run(self) -> None:
        swept = time.monotonic()
        while not self._stop.wait(self.ttl_s / 3):
            # the server may be away for a while: the next beat tries again
            with contextlib.suppress(redis.exceptions.RedisError, OSError):
                self._beat()
                if time.monotonic() - swept >= self.expiry.refresh_s:
                    self.expiry.sweep(self.client)
                    swept = time.monotonic()

    def stop(self, remove: bool = False) -> None:
        """Stop beating, and delete the heartbeat when no other lab of this process beats it
        (``lab.close()`` of the last one: a closed lab leaves nothing) or when ``remove`` (the
        process ends: its run is over). Stopping twice stops once."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=1.0)
        with _BEATING_LOCK:
            last = False
            if self._shared is not None:
                _BEATING[self._shared] -= 1
                last = _BEATING[self._shared] == 0
                if last:
                    del _BEATING[self._shared]
                self._shared = None
        if remove or last:
            # a beat that has begun ends first (bounded: a frozen server is given up on, and
            # then its heartbeat expires by itself within ttl_s)
            got = self._beating.acquire(timeout=STOP_WAIT_S)
            try:
                with contextlib.suppress(redis.exceptions.RedisError, OSError):
                    self.client.delete(self.key)
            finally:
                if got:
                    self._beating.release()


def unlink_matching(client: redis.Redis, pattern: str) -> int:
    """``SCAN MATCH pattern`` + ``UNLINK``, 500 keys a command; returns the keys removed."""
    return _unlink(client, client.scan_iter(match=pattern, count=1000))


def _unlink(client: redis.Redis, keys: Iterable[bytes]) -> int:
    removed = 0
    batch: list[bytes] = []
    for key in keys:
        batch.append(key)
        if len(batch) >= 500:
            removed += client.unlink(*batch)
            batch.clear()
    if batch:
        removed += client.unlink(*batch)
    return removed


def remove_stale_runs(
    client: redis.Redis, prefix: str, current: str | None, max_age_s: float
) -> int:
    """Delete the runs under one user's ``prefix`` (``setlab:@<user>:``) that have stopped.

    A run (``<prefix><run id>:…``) is stopped when its heartbeat is gone — the process was killed,
    or ran a setlab without heartbeats — or when its run id is older than ``max_age_s`` seconds
    (``0``: every run). ``current`` (this process's run) is never touched, nor any key that is not
    under a run id. Returns the keys removed.
    """
    start = len(prefix.encode())
    runs: dict[bytes, list[bytes]] = {}
    for key in client.scan_iter(match=prefix + "*", count=1000):
        run = key[start:].split(b":", 1)[0]
        if RUN.fullmatch(run) and run.decode() != current:
            runs.setdefault(run, []).append(key)
    if not runs:
        return 0
    pipe = client.pipeline(transaction=False)
    for run in runs:
        pipe.exists(prefix.encode() + run + b":" + HEARTBEAT.encode())
    beating = pipe.execute()
    now = time.time()
    stale = [
        keys
        for (run, keys), alive in zip(runs.items(), beating, strict=True)
        if not alive or max_age_s <= 0 or now - int(run.split(b"-")[0], 16) > max_age_s
    ]
    return _unlink(client, (key for keys in stale for key in keys))
