"""The one place that decides which Redis the book talks to.

``connect()`` returns a :class:`Lab`: a redis-py client plus everything a chapter must know
about it — whether it is a real server, which version and allocator, which modules, whether the lab
started it (and so may allocate freely) — and the namespace every key of the book lives under.

Choice order (``SETLAB_BACKEND=auto``, the default):

1. ``REDIS_URL``: the reader's own server. Never flushed; big allocations need an opt-in.
2. A private ``redis-server`` that setlab starts (see :mod:`setlab.lab.server`), when one is installed.
3. Embedded fakeredis, with its Bloom/Cuckoo support: runs everywhere, measures nothing.

``SETLAB_BACKEND=live`` or ``=fake`` forces a choice; ``live`` fails clearly if there is no server.
"""

from __future__ import annotations

import getpass
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

import fakeredis
import redis

from setlab.lab.server import RedisServer, ServerError, find_redis_server

BACKEND_ENV = "SETLAB_BACKEND"
USER_ENV = "SETLAB_USER"
ALLOW_BIG_ENV = "SETLAB_ALLOW_BIG"
URL_ENV = "REDIS_URL"
ROOT = "setlab"
DEFAULT_BIG_BYTES = 64 * 1024 * 1024

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_TRUE = {"1", "true", "yes", "on"}

Kind = Literal["live", "fake"]


class BigAllocationRefused(RuntimeError):
    """An experiment would allocate more on a server than the lab is allowed to."""


def _check_name(what: str, value: str) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(
            f"{what} must be 1-64 characters of letters, digits, '_', '.', '-' starting with a "
            f"letter or digit (it becomes part of every key name); got {value!r}"
        )
    return value


def namespace_for(chapter: str, user: str | None = None) -> str:
    """The key prefix for one chapter (and optionally one classroom user).

    ``setlab:<chapter>:`` or ``setlab:@<user>:<chapter>:``. The ``@`` keeps a user's space and a
    chapter's space from ever overlapping, and the validated names contain no glob characters, so
    ``SCAN MATCH <namespace>*`` matches exactly the namespace.
    """
    _check_name("chapter", chapter)
    if user is None:
        return f"{ROOT}:{chapter}:"
    return f"{ROOT}:@{_check_name('user', user)}:{chapter}:"


class _LabRedis(redis.Redis):
    """A redis-py client that turns "connection refused" from a dead private server into an
    error that says the server died, with its exit code and last log lines."""

    _lab_server: RedisServer | None = None

    def execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            return super().execute_command(*args, **options)
        except redis.exceptions.ConnectionError as exc:
            server = self._lab_server
            if server is not None and not server.alive:
                raise ServerError(server.death_message()) from exc
            raise

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
        pipe = super().pipeline(transaction=transaction, shard_hint=shard_hint)
        server = self._lab_server
        execute = pipe.execute

        def checked_execute(raise_on_error: bool = True) -> list[Any]:
            try:
                return execute(raise_on_error=raise_on_error)
            except redis.exceptions.ConnectionError as exc:
                if server is not None and not server.alive:
                    raise ServerError(server.death_message()) from exc
                raise

        pipe.execute = checked_execute
        return pipe


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
    def banner(self) -> str:
        """One line saying exactly what this lab talks to."""
        if self.kind == "fake":
            return (
                f"embedded fakeredis {fakeredis.__version__} (Redis {self.version_text} dialect): "
                "timings are Python's, not Redis's"
            )
        extras = [self.allocator or "allocator unknown"]
        extras += [f"{_MODULE_NAMES.get(n, n)} {v}" for n, v in sorted(self.modules.items())]
        whose = (
            "private server started by setlab"
            if self.server
            else "your server: allocations over "
            f"{self.big_bytes // 2**20} MiB need {ALLOW_BIG_ENV}=1"
        )
        return f"live Redis {self.version_text} ({', '.join(extras)}) on {self.address}, {whose}"

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
        removed = 0
        batch: list[bytes] = []
        for key in self.r.scan_iter(match=self.namespace + "*", count=1000):
            batch.append(key)
            if len(batch) >= 500:
                removed += self.r.unlink(*batch)
                batch.clear()
        if batch:
            removed += self.r.unlink(*batch)
        return removed

    # -- safety ---------------------------------------------------------------------------
    def may_allocate(self, nbytes: int) -> bool:
        """Whether :meth:`check_allocation` would let ``nbytes`` through (it never raises)."""
        try:
            self.check_allocation(nbytes)
        except BigAllocationRefused:
            return False
        return True

    def check_allocation(self, nbytes: int, what: str = "this experiment") -> None:
        """Refuse, with a message naming the opt-in, an allocation this lab should not make.

        On a server setlab did not start, anything above ``big_bytes`` (64 MiB by default) needs
        ``SETLAB_ALLOW_BIG=1`` or ``connect(allow_big=True)``. On any real server, an allocation
        that would push ``used_memory`` past ``maxmemory`` is refused outright.
        """
        if not isinstance(nbytes, int) or nbytes < 0:
            raise ValueError(f"nbytes must be a non-negative int, got {nbytes!r}")
        if nbytes > self.big_bytes and not self.owns_server and not self.allow_big:
            raise BigAllocationRefused(
                f"{what} would allocate {nbytes / 2**20:.1f} MiB on {self.address}, a server "
                f"setlab did not start (limit {self.big_bytes / 2**20:.0f} MiB). If that is fine "
                f"for this server, set {ALLOW_BIG_ENV}=1 or use connect(allow_big=True)."
            )
        if self.kind == "live" and nbytes > self.big_bytes // 64:
            memory = self.r.info("memory")
            limit = int(memory.get("maxmemory", 0))
            used = int(memory.get("used_memory", 0))
            if limit and used + nbytes > limit:
                raise BigAllocationRefused(
                    f"{what} would allocate {nbytes / 2**20:.1f} MiB, but {self.address} has "
                    f"maxmemory {limit / 2**20:.1f} MiB with {used / 2**20:.1f} MiB in use"
                )

    # -- more connections -----------------------------------------------------------------
    def new_client(self) -> redis.Redis:
        """Another connection to the same server (for a second client in a thread)."""
        return self._new_client()

    def close(self) -> None:
        """Close this lab's connections. A private server stays up for the rest of the process."""
        self.r.close()

    def __repr__(self) -> str:
        return f"<Lab {self.banner}; namespace {self.namespace!r}>"


_MODULE_NAMES = {"bf": "RedisBloom"}

_private_server: RedisServer | None = None
_fake_server: fakeredis.FakeServer | None = None
_lock = threading.Lock()


def private_server() -> RedisServer:
    """The process's private redis-server, started on first use and shared afterwards."""
    global _private_server
    with _lock:
        if _private_server is None or not _private_server.alive:
            _private_server = RedisServer.start()
        return _private_server


def resolve_backend(choice: str | None = None) -> str:
    """What ``connect()`` would use: ``"url"``, ``"live"`` or ``"fake"``.

    ``choice`` (or ``$SETLAB_BACKEND``) is ``auto``, ``live`` or ``fake``.
    """
    choice = (choice or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in {"auto", "live", "fake"}:
        raise ValueError(f"{BACKEND_ENV} must be auto, live or fake; got {choice!r}")
    if choice == "fake":
        return "fake"
    if os.environ.get(URL_ENV):
        return "url"
    if find_redis_server():
        return "live"
    if choice == "live":
        raise ServerError(
            f"{BACKEND_ENV}=live but there is no {URL_ENV} and no redis-server binary: "
            "install Debian's redis-server or point REDIS_URL at a server"
        )
    return "fake"


def connect(
    chapter: str = "scratch",
    *,
    backend: str | None = None,
    user: str | None = None,
    allow_big: bool | None = None,
    big_bytes: int = DEFAULT_BIG_BYTES,
    quiet: bool = False,
) -> Lab:
    """Connect to the book's Redis and print one line saying which.

    Args:
        chapter: the chapter slug; keys go under ``setlab:<chapter>:``.
        backend: ``auto`` (default, or ``$SETLAB_BACKEND``), ``live`` or ``fake``.
        user: classroom namespace. Defaults to ``$SETLAB_USER``; on a server setlab did not
            start (``REDIS_URL``) it falls back to the login name, so students sharing one
            server never see each other's keys.
        allow_big: allow big allocations on a server setlab did not start (default:
            ``$SETLAB_ALLOW_BIG``).
        big_bytes: what counts as big, in bytes (default 64 MiB).
        quiet: do not print the banner.
    """
    where = resolve_backend(backend)
    if user is None:
        user = default_user(where)
    namespace = namespace_for(chapter, user)
    if allow_big is None:
        allow_big = os.environ.get(ALLOW_BIG_ENV, "").strip().lower() in _TRUE
    if where == "fake":
        lab = _fake_lab(namespace)
    else:
        lab = _live_lab(namespace, os.environ[URL_ENV] if where == "url" else None)
    lab.allow_big = bool(allow_big)
    lab.big_bytes = big_bytes
    if not quiet:
        print(lab.banner)
    return lab


def default_user(where: str) -> str | None:
    """The classroom namespace for a backend: ``$SETLAB_USER``, else the login name on a shared
    server (``where == "url"``), else none (the lab's own server holds nobody else's keys)."""
    return os.environ.get(USER_ENV) or (_login_name() if where == "url" else None)


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


def _live_lab(namespace: str, url: str | None) -> Lab:
    server = None if url else private_server()
    url = url or server.url

    def new_client() -> redis.Redis:
        client = _LabRedis.from_url(url, protocol=2)
        client._lab_server = server
        return client

    client = new_client()
    try:
        info = client.info("server")
    except redis.exceptions.ConnectionError as exc:
        raise ServerError(f"cannot reach Redis at {url}: {exc}") from None
    facts = _probe(client, info)
    kwargs = client.connection_pool.connection_kwargs
    address = f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"
    return Lab(client, "live", namespace, address, server, facts=facts, _new_client=new_client)


def _probe(client: redis.Redis, info: dict[str, Any]) -> dict[str, Any]:
    """Ask the server what it is and what it can do, instead of assuming."""
    version = tuple(int(x) for x in str(info.get("redis_version", "0")).split(".")[:3])
    memory = client.info("memory")
    modules: dict[str, str] = {}
    try:
        for entry in client.module_list():
            entry = {_text(k): v for k, v in entry.items()}
            ver = int(entry.get("ver", 0))
            modules[_text(entry["name"])] = f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"
    except redis.exceptions.ResponseError:
        pass
    try:
        client.memory_usage("setlab:probe:no-such-key")
        has_memory_usage = True
    except redis.exceptions.ResponseError:
        has_memory_usage = False
    return {
        "version": version,
        "allocator": str(memory.get("mem_allocator", "")),
        "modules": modules,
        "has_bloom": "bf" in modules,
        "has_memory_usage": has_memory_usage,
    }


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
