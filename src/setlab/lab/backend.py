"""The one place that decides which Redis the book talks to.

``connect()`` returns a :class:`Lab`: a redis-py client plus everything a chapter must know
about it — whether it is a real server, which version and allocator, which modules, whether the lab
started it (and so may allocate freely) — and the namespace every key of the book lives under.

Choice order (``SETLAB_BACKEND=auto``, the default):

1. ``REDIS_URL``: the reader's own server. Never flushed; big allocations need an opt-in.
2. A private ``redis-server`` that setlab starts (:mod:`setlab.lab.server`), when one is
   installed.
3. Embedded fakeredis, with its Bloom/Cuckoo support: runs everywhere, measures nothing.

``SETLAB_BACKEND=live`` or ``=fake`` forces a choice; ``live`` fails clearly if there is no server.
"""

from __future__ import annotations

import atexit
import contextlib
import getpass
import os
import re
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Literal

import fakeredis
import redis

from setlab.core.scale import scale
from setlab.core.secrets import check_url, redact, redact_url, url_secrets
from setlab.lab import expiry, versions
from setlab.lab.client import LabRedis
from setlab.lab.errors import (
    BigAllocationRefused,
    ConfigurationError,
    ServerTimeout,
    ServerUnavailable,
    SetlabError,
    install_notebook_handler,
)
from setlab.lab.guard import ALLOW_BIG_ENV, MemoryGuard, MemoryState, string_lengths
from setlab.lab.server import RedisServer, ServerError, chosen_server, find_redis_server

BACKEND_ENV = "SETLAB_BACKEND"
USER_ENV = "SETLAB_USER"
URL_ENV = "REDIS_URL"
ROOT = "setlab"
DEFAULT_BIG_BYTES = 64 * 1024 * 1024
#: on a server setlab did not start, no command waits longer than this for an answer (seconds)
SOCKET_TIMEOUT_S = 10.0
CONNECT_TIMEOUT_S = 4.0
#: runs on a shared server older than this are "stale" (see Lab.cleanup_stale)
STALE_AFTER_S = 24 * 3600

#: this process's run id: a hex timestamp and a random suffix, so two runs of one chapter under
#: one user (two tabs, two students sharing a login) never share keys
RUN_ID = f"{int(time.time()):x}-{secrets.token_hex(2)}"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
_TRUE = {"1", "true", "yes", "on"}

Kind = Literal["live", "fake"]


def _check_name(what: str, value: str) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(
            f"{what} must be 1-64 characters of letters, digits, '_', '.', '-' starting with a "
            f"letter or digit (it becomes part of every key name); got {value!r}"
        )
    return value


def namespace_for(chapter: str, user: str | None = None, run: str | None = None) -> str:
    """The key prefix for one chapter (and optionally one classroom user and one run).

    ``setlab:<chapter>:``, ``setlab:@<user>:<chapter>:`` or, on a server shared with others,
    ``setlab:@<user>:<run>:<chapter>:``. The ``@`` keeps a user's space and a chapter's space
    from ever overlapping; the run id keeps two simultaneous runs under one user apart; and the
    validated names contain no glob characters, so ``SCAN MATCH <namespace>*`` matches exactly
    the namespace.
    """
    _check_name("chapter", chapter)
    if user is None:
        if run is not None:
            raise ValueError("a run id needs a user (runs live under setlab:@<user>:)")
        return f"{ROOT}:{chapter}:"
    _check_name("user", user)
    if run is None:
        return f"{ROOT}:@{user}:{chapter}:"
    return f"{ROOT}:@{user}:{_check_name('run', run)}:{chapter}:"


def user_prefix(user: str) -> str:
    """Everything one classroom user's runs write: ``setlab:@<user>:``."""
    return f"{ROOT}:@{_check_name('user', user)}:"


@dataclass
class Lab:
    """A connection to the book's Redis, with the facts chapters need and a private namespace.

    Attributes:
        r: the redis-py client (RESP2, bytes replies).
        kind: ``"live"`` (a real redis-server) or ``"fake"`` (embedded fakeredis).
        namespace: prefix of every key this lab writes, e.g. ``setlab:setbit-offset:``.
        server: the private server when setlab started it, else ``None``.
        allow_big: whether allocations above ``big_bytes`` are allowed on a server setlab did
            not start (the reader's opt-in).
    """

    r: redis.Redis
    kind: Kind
    namespace: str
    address: str
    server: RedisServer | None = None
    allow_big: bool = False
    big_bytes: int = DEFAULT_BIG_BYTES
    facts: dict[str, Any] = field(default_factory=dict)
    _new_client: Any = None
    user: str | None = None
    guard: MemoryGuard | None = field(default=None, repr=False)
    heartbeat: expiry.Heartbeat | None = field(default=None, repr=False)
    #: keys of this user's stopped runs that connect() removed (see cleanup_stale)
    stale_removed: int = 0

    # -- what it is -----------------------------------------------------------------------
    @property
    def is_real(self) -> bool:
        """A real redis-server: its timings and MEMORY USAGE mean something."""
        return self.kind == "live"

    @property
    def owns_server(self) -> bool:
        """The lab started this server itself (or it is the embedded fake): nobody else's data."""
        return self.server is not None or self.kind == "fake"

    @property
    def version(self) -> tuple[int, ...]:
        return self.facts.get("version", ())

    @property
    def version_text(self) -> str:
        return ".".join(map(str, self.version))

    @property
    def allocator(self) -> str:
        return self.facts.get("allocator", "")

    @property
    def modules(self) -> dict[str, str]:
        return self.facts.get("modules", {})

    @property
    def has_bloom(self) -> bool:
        """BF.* and CF.* commands answer (RedisBloom, or fakeredis's emulation)."""
        return self.facts.get("has_bloom", False)

    @property
    def has_redisbloom(self) -> bool:
        """The real RedisBloom module is loaded (its sizing and layout are what we model)."""
        return "bf" in self.modules

    @property
    def has_memory_usage(self) -> bool:
        return self.facts.get("has_memory_usage", False)

    @property
    def version_warning(self) -> str | None:
        """What will differ from the book's models: on your own server older than Redis 7.0, or
        on a live release the models do not know (one line, or ``None``)."""
        if self.kind == "live" and self.facts.get("warning") is None:
            return self.profile.warning
        return self.facts.get("warning")

    @property
    def banner(self) -> str:
        """One line saying exactly what this lab talks to."""
        if self.kind == "fake":
            refused = self.facts.get("refused")  # an installed redis-server too old to use
            return (
                f"embedded fakeredis {fakeredis.__version__} (Redis {self.version_text} dialect): "
                "timings are Python's, not Redis's" + (f"; {refused}" if refused else "")
            )
        if not self.version:
            return f"live Redis (version hidden by the ACL) on {self.address}, your server"
        profile = self.profile
        extras = [profile.allocator_text]
        extras += [f"{_MODULE_NAMES.get(n, n)} {v}" for n, v in sorted(self.modules.items())]
        extras.append(f"the book's models: {profile.models}")
        said = f"live {profile.name} ({'; '.join(extras)}) on {self.where}"
        if self.server:  # its port is a free one, gone with the kernel: a page would keep it
            return said
        big = self.big_bytes // 2**20
        if self.allow_big:
            return f"{said}, your server: allocations over {big} MiB allowed ({ALLOW_BIG_ENV}=1)"
        return f"{said}, your server: allocations over {big} MiB need {ALLOW_BIG_ENV}=1"

    @property
    def profile(self) -> versions.ServerProfile:
        """What the server is (Redis or Valkey, version, allocator) and how the models fit it."""
        return versions.profile(self.facts)

    @property
    def where(self) -> str:
        """Where the server is, as a page may print it: a private server setlab started is
        "a private server started by setlab" (its port is gone with the kernel, and a built page
        would keep it), the reader's own server its ``host:port``."""
        return "a private server started by setlab" if self.server else self.address

    # -- keys -----------------------------------------------------------------------------
    def key(self, *parts: object) -> str:
        """A key inside this lab's namespace: ``lab.key("bm", 7)`` → ``setlab:<chapter>:bm:7``."""
        if not parts:
            raise ValueError("key() needs at least one part")
        return self.namespace + ":".join(str(p) for p in parts)

    def keys(self) -> list[bytes]:
        """Every key currently in the namespace (SCAN, never KEYS)."""
        return list(self.r.scan_iter(match=self.namespace + "*", count=1000))

    def cleanup(self) -> int:
        """Delete every key in this lab's namespace (SCAN + UNLINK) and nothing else.

        Returns the number of keys removed. Never FLUSHDB: the server may hold other data.
        """
        return expiry.unlink_matching(self.r, self.namespace + "*")

    def cleanup_stale(self, max_age_s: float = STALE_AFTER_S) -> int:
        """Delete what earlier runs of this user left behind on a shared server: every run
        under ``setlab:@<user>:<run>:`` whose heartbeat has stopped (a killed kernel; see
        :mod:`setlab.lab.expiry`) or whose run id is older than ``max_age_s`` (a day by
        default; 0: every run). Never touches other users, other prefixes, or this run."""
        if self.user is None:
            return 0
        return expiry.remove_stale_runs(self.r, user_prefix(self.user), RUN_ID, max_age_s)

    # -- safety ---------------------------------------------------------------------------
    def may_allocate(self, nbytes: int, reads: int = 0) -> bool:
        """Whether :meth:`check_allocation` would let ``nbytes`` through (it never raises)."""
        try:
            self.check_allocation(nbytes, reads=reads)
        except BigAllocationRefused:
            return False
        return True

    def check_allocation(
        self, nbytes: int, what: str = "this experiment", *, reads: int = 0, scales: bool = False
    ) -> None:
        """Refuse, with a message naming the remedies, memory this lab should not use.

        ``nbytes``: :func:`setlab.lab.guard.budget` of what the experiment creates at its peak;
        ``reads``: what it reads back at once (reply buffers count against maxmemory too);
        ``scales``: it grows with ``SETLAB_SCALE`` (a refusal then offers one that fits). On a
        server setlab did not start, nothing may exceed the headroom below ``maxmemory``, and
        above ``big_bytes`` (64 MiB) needs ``SETLAB_ALLOW_BIG=1`` too (see :mod:`setlab.lab.guard`).
        """
        if self.guard is None:  # the embedded fakeredis: validate the arguments only
            MemoryGuard(lambda: None, self.address, owned=True, allow_big=True,
                        big_bytes=self.big_bytes).check(nbytes, what, reads)  # fmt: skip
            return
        self.guard.allow_big = self.allow_big
        self.guard.big_bytes = self.big_bytes
        self.guard.check(nbytes, what, reads, scales=scales)

    def memory_state(self) -> MemoryState | None:
        """``INFO memory``'s limit, usage and policy (None on fakeredis or if the ACL denies)."""
        return None if self.guard is None else self.guard.state()

    # -- more connections -----------------------------------------------------------------
    def new_client(self) -> redis.Redis:
        """Another connection to the same server (for a second client in a thread)."""
        return self._new_client()

    def close(self) -> None:
        """Close this lab's connections (a private server stays up; heartbeat: Heartbeat.stop)."""
        if self.heartbeat is not None:
            self.heartbeat.stop()
        self.r.close()

    def __repr__(self) -> str:
        return f"<Lab {self.banner}; namespace {self.namespace!r}>"  # address: no password


_MODULE_NAMES = {"bf": "RedisBloom"}

_private_server: RedisServer | None = None
_fake_server: fakeredis.FakeServer | None = None
_lock = threading.Lock()


def private_server(server: str | None = None) -> RedisServer:
    """The process's private server, started on first use and shared afterwards: the release or
    path ``server`` names (or ``$SETLAB_REDIS_SERVER``, else ``redis-server`` on ``PATH``). Asked
    for another binary, it starts that one and shares it from then on."""
    global _private_server
    binary = find_redis_server(server)
    with _lock:
        current = _private_server
        if current is None or not current.alive or (binary and current.binary != binary):
            _private_server = RedisServer.start(binary=binary)
        return _private_server


def resolve_backend(choice: str | None = None, server: str | None = None) -> str:
    """What ``connect()`` would use: ``"url"``, ``"live"`` or ``"fake"``.

    ``choice`` (or ``$SETLAB_BACKEND``) is ``auto``, ``live`` or ``fake``; ``server`` (or
    ``$SETLAB_REDIS_SERVER``) names the release or binary of the private server. A binary
    older than 7.0 is not used (:func:`setlab.lab.versions.private_refusal`), except a release
    of :mod:`setlab.lab.servers` named by its name (``6.2``): the book measures and prices it.
    """
    choice = _choice(choice)
    if choice == "fake":
        return "fake"
    if os.environ.get(URL_ENV):
        return "url"
    binary = find_redis_server(server)
    named = chosen_server(server)
    by_release = named is not None and "/" not in named
    refusal = versions.private_refusal(binary) if binary and not by_release else None
    if binary and refusal is None:
        return "live"
    if choice == "live":
        raise ServerError(
            f"{BACKEND_ENV}=live, but {refusal}"
            if refusal
            else f"{BACKEND_ENV}=live but there is no {URL_ENV} and no redis-server binary: "
            "install Debian's redis-server or point REDIS_URL at a server"
        )
    return "fake"


def _choice(choice: str | None) -> str:
    choice = (choice or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in {"auto", "live", "fake"}:
        raise ValueError(f"{BACKEND_ENV} must be auto, live or fake; got {choice!r}")
    return choice


def connect(
    chapter: str = "scratch",
    *,
    backend: str | None = None,
    user: str | None = None,
    allow_big: bool | None = None,
    big_bytes: int = DEFAULT_BIG_BYTES,
    quiet: bool = False,
    server: str | None = None,
) -> Lab:
    """Connect to the book's Redis and print one line saying which.

    Args:
        chapter: the chapter slug; keys go under ``setlab:<chapter>:``.
        backend: ``auto`` (default, or ``$SETLAB_BACKEND``), ``live`` or ``fake``.
        server: the private server's release (``"8.2"``, ``"valkey-8.1"``, ``"6.2"``; see
            ``setlab doctor``) or binary path (default: ``$SETLAB_REDIS_SERVER``, else
            ``redis-server`` on ``PATH``). Ignored with ``REDIS_URL``.
        user: classroom namespace. Defaults to ``$SETLAB_USER``; on a server setlab did not
            start (``REDIS_URL``) it falls back to the ACL user name in the URL, then to the
            login name, so students sharing one server never see each other's keys.
        allow_big: allow big allocations on a server setlab did not start (default:
            ``$SETLAB_ALLOW_BIG``).
        big_bytes: what counts as big, in bytes (default 64 MiB).
        quiet: do not print the banner.
    """
    install_notebook_handler()  # from here on a setlab error is one line in a notebook
    try:
        scale()  # SETLAB_SCALE is read by the chapter's cells: refuse a bad one here, once
        expiry.key_ttl_s()  # and SETLAB_KEY_TTL_S
        where = resolve_backend(backend, server)
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from None
    if user is None:
        user = default_user(where)
    shared = where == "url"
    namespace = namespace_for(chapter, user, RUN_ID if shared and user else None)
    if allow_big is None:
        allow_big = os.environ.get(ALLOW_BIG_ENV, "").strip().lower() in _TRUE
    if where == "fake":
        lab = _fake_lab(namespace)
        binary = find_redis_server() if _choice(backend) == "auto" else None
        lab.facts["refused"] = versions.private_refusal(binary) if binary else None
    else:
        lab = _live_lab(namespace, os.environ[URL_ENV] if shared else None, server)
    lab.user = user
    if shared:  # a run killed midway leaves keys that expire; connect() removes them at once
        run = f"{user_prefix(user)}{RUN_ID}:"
        lab.heartbeat = expiry.Heartbeat(lab.r.raw(), run, lab.r._lab_expiry)
        lab.heartbeat.start()  # before the first write: from here on this run counts as alive
        with contextlib.suppress(redis.exceptions.RedisError, SetlabError, OSError):
            lab.stale_removed = lab.cleanup_stale()
        atexit.register(_cleanup_quietly, lab)  # a run stopped midway leaves nothing behind
    lab.allow_big = bool(allow_big)
    lab.big_bytes = big_bytes
    if lab.guard is not None:
        lab.guard.allow_big, lab.guard.big_bytes = lab.allow_big, big_bytes
    if not quiet:
        print(lab.banner)
        if lab.stale_removed:
            print(f"removed {lab.stale_removed} keys that stopped runs of {user} left there")
        if lab.version_warning:
            print(lab.version_warning)
        state = lab.memory_state() if shared else None
        if state is not None and state.maxmemory and state.evicts:
            print(
                f"note: this server evicts keys when full (maxmemory-policy {state.policy}); "
                f"setlab keeps its writes inside {state.headroom / 2**20:.1f} MiB of headroom"
            )
    return lab


def _cleanup_quietly(lab: Lab) -> None:
    # the server may be gone or refuse: then there is nothing more this process can do
    with contextlib.suppress(redis.exceptions.RedisError, SetlabError, OSError):
        lab.cleanup()
        if lab.heartbeat is not None:  # the process ends, and with it its run
            lab.heartbeat.stop(remove=True)


def default_user(where: str) -> str | None:
    """The classroom namespace for a backend: ``$SETLAB_USER``; else, on a shared server
    (``where == "url"``), the ACL user name in ``REDIS_URL`` (``redis://ana:…@host`` → ``ana``,
    the name a classroom's key pattern ``~setlab:@ana:*`` is written for) or the login name;
    else none (the lab's own server holds nobody else's keys)."""
    if os.environ.get(USER_ENV):
        try:  # one setlab line naming the variable, not a ValueError from deep inside
            return _check_name(USER_ENV, os.environ[USER_ENV])
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from None
    if where != "url":
        return None
    return url_user(os.environ.get(URL_ENV, "")) or _login_name()


def url_user(url: str) -> str | None:
    """The ACL user name in a Redis URL, if it names one that can be a namespace: not
    ``default`` (Redis's password-only user) and 1-64 letters, digits, ``_ . -``."""
    try:
        name = urllib.parse.urlsplit(url).username
    except ValueError:
        return None
    name = urllib.parse.unquote(name or "")
    return name if name != "default" and _NAME.match(name) else None


def _login_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = "student"
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "-", name).strip("-.") or "student"
    return cleaned[:64]


def _fake_lab(namespace: str) -> Lab:
    global _fake_server
    with _lock:
        if _fake_server is None:
            _fake_server = fakeredis.FakeServer(version=(7, 0))
        server = _fake_server

    def new_client() -> redis.Redis:
        return fakeredis.FakeRedis(server=server, protocol=2)

    facts = {"version": (7, 0), "allocator": "", "modules": {}, "has_bloom": True}
    facts["has_memory_usage"] = False
    return Lab(new_client(), "fake", namespace, "in-process", facts=facts, _new_client=new_client)


def _live_lab(namespace: str, url: str | None, named: str | None = None) -> Lab:
    server = None if url else private_server(named)
    url = url or server.url
    shown = redact_url(url)
    hidden = tuple(url_secrets(url))
    timeouts = (
        {}
        if server
        else {"socket_timeout": SOCKET_TIMEOUT_S, "socket_connect_timeout": CONNECT_TIMEOUT_S}
    )

    def new_client() -> redis.Redis:
        try:
            check_url(url)  # a password with '/', '?' or '#' as typed would name another host
            client = LabRedis.from_url(url, protocol=2, **timeouts)
        except ValueError as exc:
            raise ConfigurationError(
                redact(f"REDIS_URL {shown} is not a Redis URL: {exc}", hidden)
            ) from None
        client._lab_server = server
        client._lab_namespace = namespace
        client._lab_secrets = hidden
        kwargs = client.connection_pool.connection_kwargs
        client._lab_where = (
            f"{kwargs['host']}:{kwargs.get('port', 6379)}" if "host" in kwargs else shown
        )
        return client

    client = new_client()
    try:
        facts = versions.probe(client, namespace)
    except (ServerUnavailable, ServerTimeout) as exc:
        reason = str(exc).split("(", 1)[-1].split(")", 1)[0]
        raise ServerError(
            f"cannot reach Redis at {shown} ({reason}). Is the server running, and is the URL "
            "right? Check with setlab doctor, or unset REDIS_URL to use a private server or the "
            "embedded backend."
        ) from None
    except SetlabError as exc:
        raise ServerError(f"cannot use Redis at {shown}: {exc}") from None
    except (redis.exceptions.RedisError, OSError) as exc:
        raise ServerError(redact(f"cannot use Redis at {shown}: {exc}", hidden)) from None
    guard = None
    # the reader's own server, or a private one the reader named, is used even if older than
    # 7.0: with a warning
    where = client._lab_where if server is None else "a private server started by setlab"
    facts["warning"] = versions.foreign_warning(facts["version"], where)
    if server is None:

        def read_state() -> MemoryState | None:
            try:
                info = client.raw().info("memory")
            except redis.exceptions.NoPermissionError:
                return None
            return MemoryState(
                int(info.get("maxmemory", 0)),
                int(info.get("used_memory", 0)),
                str(info.get("maxmemory_policy", "noeviction")),
            )

        def footprint() -> int:
            raw = client.raw()
            keys = list(raw.scan_iter(match=namespace + "*", count=1000))
            pipe = raw.pipeline(transaction=False)
            for key in keys:
                pipe.memory_usage(key, samples=0)
            return sum(n or 0 for n in pipe.execute()) if keys else 0

        guard = MemoryGuard(
            read_state, client._lab_where, footprint=footprint, lengths=string_lengths(client.raw),
            owned=False, allow_big=False, big_bytes=DEFAULT_BIG_BYTES,
        )  # fmt: skip
        client._lab_guard = guard
        ttl = expiry.key_ttl_s()
        client._lab_expiry = expiry.Expiry(namespace, ttl, lt=facts["version"] >= (7, 0))
    else:
        guard = MemoryGuard(
            lambda: None, client._lab_where, owned=True, allow_big=True,
            big_bytes=DEFAULT_BIG_BYTES,
        )  # fmt: skip

    def guarded_client() -> redis.Redis:
        other = new_client()
        other._lab_guard = client._lab_guard  # every connection shares the one budget
        other._lab_expiry = client._lab_expiry  # and the one record of expiries set
        return other

    lab = Lab(
        client, "live", namespace, client._lab_where, server, facts=facts,
        _new_client=guarded_client,
    )  # fmt: skip
    lab.guard = guard
    return lab
