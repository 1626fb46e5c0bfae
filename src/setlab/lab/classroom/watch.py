"""Watching a classroom Redis for what one participant's commands cost everybody.

ACL rules (:mod:`setlab.lab.classroom`) decide which keys and commands a participant may use;
they cannot decide how long a command runs or how much memory it leaves behind. Redis runs one
command, or one script, at a time (a slow one delays every other client), and keys, the script
cache and every connection's buffers share one memory pool. What Redis 7.0 lets an instructor
do about it, and this module does:

- :class:`Watchdog` (run by ``setlab classroom start`` every second): once a script has run
  past ``busy-reply-threshold`` Redis answers everybody ``BUSY`` and accepts ``SCRIPT KILL``;
  the watchdog sends it at once and says whose script it was (the killed ``EVAL`` lands in the
  ``SLOWLOG`` with the client's address). A script that has already written a key cannot be
  killed (``UNKILLABLE``: only ``SHUTDOWN NOSAVE`` stops it); the watchdog says so, once.
- The same watchdog flushes the script cache when it outgrows :data:`SCRIPT_CACHE_LIMIT`:
  Redis 7.0 keeps every script a client sends (``EVAL`` or ``SCRIPT LOAD``) until ``SCRIPT
  FLUSH``, counts it in ``used_memory`` and records no owner, so a flood cannot be traced to
  anyone, only emptied. The book's own code sends its scripts again by itself (``EVAL``
  carries the body; redis-py's ``register_script`` reloads on ``NOSCRIPT``).
- :func:`slow_commands`: the ``SLOWLOG`` entries, each with the participant who sent it, so
  the monitor shows who ran the long commands.

Sources: Redis 7.0 ``script.c`` (``scriptInterrupt``, ``scriptKill``), ``eval.c``
(``luaCreateFunction`` caches every body), ``slowlog.c``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import redis

from setlab.core.formats import format_bytes

#: bytes of cached scripts (``INFO memory`` ``used_memory_scripts_eval``) above which the
#: watchdog flushes the cache: the book's scripts take a few KiB (the classroom tests measure
#: them), a MiB is far above that and far below any class server's ``maxmemory``
SCRIPT_CACHE_LIMIT = 2**20
#: how long the watchdog waits for a killed script's ``SLOWLOG`` entry (s): the script stops at
#: its next interrupt check, every 100,000 Lua instructions (``LUA_MASKCOUNT`` hook)
_KILLED_ENTRY_WAIT_S = 1.0
_SCRIPT_COMMANDS = {"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"}


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is Redis's ``BUSY`` reply: a script has run past
    ``busy-reply-threshold`` and the server answers nothing else until it ends or is killed."""
    return isinstance(exc, redis.exceptions.ResponseError) and str(exc).startswith("BUSY")


@dataclass(frozen=True)
class SlowCommand:
    """One ``SLOWLOG`` entry with the user whose connection sent it."""

    id: int  #: the entry's id (increasing)
    user: str  #: the ACL user of the connection ("?" if it closed before setlab saw it)
    command: str  #: the command's name, lower case (arguments are never shown)
    duration_ms: float  #: how long Redis ran it, in ms (the entry gives µs)
    started: float  #: when it started, Unix time (s)


def connections(admin: redis.Redis) -> dict[str, str]:
    """Every open connection's address (``ip:port``) and ACL user, from ``CLIENT LIST``."""
    return {_text(c["addr"]): _text(c.get("user", "default")) for c in admin.client_list()}


def slow_commands(admin: redis.Redis, who: dict[str, str] | None = None) -> list[SlowCommand]:
    """The server's ``SLOWLOG`` (commands slower than ``slowlog-log-slower-than``, 10 ms by
    default; the newest 128), oldest first, each with its sender's ACL user.

    The log records the client's address, not its user; ``who`` maps addresses to users and is
    updated in place from ``CLIENT LIST`` (keep one across calls to name a client that has since
    disconnected).
    """
    who = {} if who is None else who
    who.update(connections(admin))
    entries = []
    for entry in admin.slowlog_get(128):
        words = _text(entry.get("command", b"")).split()
        entries.append(
            SlowCommand(int(entry["id"]), who.get(_text(entry.get("client_address", "")), "?"),
                        words[0].lower() if words else "?", int(entry["duration"]) / 1000,
                        float(entry["start_time"]))
        )  # fmt: skip
    return sorted(entries, key=lambda e: e.id)


@dataclass
class Watchdog:
    """Stops what one participant does to the whole class server; :meth:`step` once a second.

    ``admin`` is the instructor's connection (every right); it opts out of client eviction
    (``CLIENT NO-EVICT on``) so that ``maxmemory-clients`` never closes it.
    """

    admin: redis.Redis
    script_cache_limit: int = SCRIPT_CACHE_LIMIT
    who: dict[str, str] = field(default_factory=dict)
    _unkillable: bool = False
    _seen: int = -1

    def __post_init__(self) -> None:
        self.admin.client_no_evict("ON")
        self._seen = max((e.id for e in slow_commands(self.admin, self.who)), default=-1)

    def step(self) -> list[str]:
        """One look at the server; returns what it did, one sentence each (often nothing)."""
        try:
            self.admin.ping()  # answered BUSY once a script runs past busy-reply-threshold
        except redis.exceptions.ResponseError as exc:
            if not is_busy(exc):
                raise
            return self._stop_script()
        self._unkillable = False
        self.who.update(connections(self.admin))
        return self._trim_cache()

    def _stop_script(self) -> list[str]:
        try:
            self.admin.script_kill()
        except redis.exceptions.ResponseError as exc:
            if str(exc).startswith("NOTBUSY"):  # it ended on its own meanwhile
                return []
            if not str(exc).startswith("UNKILLABLE"):
                raise
            if self._unkillable:  # said once per script
                return []
            self._unkillable = True
            return [
                "a script that has already written keys is running: Redis cannot kill it "
                "(UNKILLABLE; only SHUTDOWN NOSAVE, which forgets every key and login, stops "
                "it), so every participant waits until it ends"
            ]
        deadline = time.monotonic() + _KILLED_ENTRY_WAIT_S
        while time.monotonic() < deadline:
            try:
                entries = slow_commands(self.admin, self.who)
            except redis.exceptions.ResponseError as exc:  # still BUSY until it stops
                if not is_busy(exc):
                    raise
                entries = []
            killed = [e for e in entries if e.id > self._seen and e.command in _SCRIPT_COMMANDS]
            if killed:
                self._seen = killed[-1].id
                return [
                    f"stopped {killed[-1].user}'s script after {killed[-1].duration_ms:,.0f} ms "
                    f"(SCRIPT KILL): while a script runs, every other command waits"
                ]
            time.sleep(0.05)
        return ["stopped a script (SCRIPT KILL); the slow log did not say whose"]

    def _trim_cache(self) -> list[str]:
        info = self.admin.info("memory")
        size = int(info.get("used_memory_scripts_eval", 0))
        if size <= self.script_cache_limit:
            return []
        self.admin.script_flush()
        return [
            f"flushed the script cache: {int(info.get('number_of_cached_scripts', 0)):,} "
            f"scripts held {format_bytes(size)}, over the {format_bytes(self.script_cache_limit)} "
            f"limit (Redis keeps every script sent until a flush and cannot say whose it was)"
        ]


def _text(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)
