"""What a Redis server is, how the book's models fit it, and what it says if they do not.

:func:`probe` asks a server its version (Valkey's own, too), allocator, modules and
capabilities (as far as an ACL lets it); :func:`profile` turns that into the
:class:`ServerProfile` the banner and the audit's header print: Redis or Valkey, the version, the
allocator, and whether the book's models are *exact* for it (Debian's 7.0.15, where every model
was measured), *modelled* (a release of :mod:`setlab.models.builds`: 6.2, 7.2/7.4, 8.0/8.2,
Valkey 8.1) or *unknown*.

The chapters are written for Redis 7.0 or later. A Redis 6.x answers every command a chapter
sends, yet differs where the book draws its verdicts:

- **encodings**: small hashes, lists and sorted sets are ``ziplist`` in 6.x (7.0 made them
  ``listpack``), so ``OBJECT ENCODING`` and the per-entry sizes differ;
- **MEMORY USAGE**: the models price 6.2 (``setlab calc --redis 6.2``), not older releases;
- **commands**: what 7.0 added is missing (``CLUSTER ADDSLOTSRANGE``, which the local cluster
  needs; ``BITCOUNT``/``BITPOS`` with ``BIT``; functions).

The policy, applied by :func:`setlab.lab.backend.connect`:

- a **private** server found as ``redis-server`` on ``PATH`` (or named by path) older than 7.0
  is not used: the book runs on the embedded backend and shows the stored reference runs, and
  the banner says why; ``SETLAB_BACKEND=live`` fails with the same reason. A release named by
  its name (``SETLAB_REDIS_SERVER=6.2``, :mod:`setlab.lab.servers`) is used, with the warning;
- the **reader's own** server (``REDIS_URL``) older than 7.0 is used, since the reader chose it,
  with a one-line warning naming what will differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import redis

from setlab.lab.errors import PermissionDenied
from setlab.lab.server import ServerError, binary_version
from setlab.models import builds
from setlab.models.allocator import QUANTUM

#: the oldest Redis the models describe (major, minor)
MINIMUM: tuple[int, int] = (7, 0)

#: a module's version when the ACL hides MODULE LIST but the module answers its commands
HIDDEN_VERSION = "(version hidden by the ACL)"

#: what differs on an older server, in the words of every message below
DIFFERENCES = (
    "encodings (ziplist, not listpack, for small hashes, lists and sorted sets), "
    "MEMORY USAGE (the models price 6.2 and 7.0 on) and commands added in 7.0 "
    "(CLUSTER ADDSLOTSRANGE, BITCOUNT ... BIT)"
)
#: what differs on a 6.2, whose memory the models price (``setlab calc --redis 6.2``)
DIFFERENCES_6_2 = (
    "encodings (ziplist, not listpack, for small hashes, lists and sorted sets) and commands "
    "added in 7.0 (CLUSTER ADDSLOTSRANGE, BITCOUNT ... BIT)"
)


def differences(version: tuple[int, ...]) -> str:
    """What differs from the pages on a server of ``version`` older than :data:`MINIMUM`."""
    return DIFFERENCES_6_2 if builds.release_of(version) == "6.2" else DIFFERENCES


def version_text(version: tuple[int, ...]) -> str:
    """``(6, 2, 5)`` → ``"6.2.5"``."""
    return ".".join(map(str, version))


def is_supported(version: tuple[int, ...]) -> bool:
    """Whether the models describe a server of this version (7.0 or later).

    An empty tuple (the version is unknown: an ACL hid ``INFO`` and ``HELLO``) counts as
    supported: nothing says otherwise, and the banner already says the version is hidden.
    """
    if not isinstance(version, tuple) or not all(isinstance(p, int) for p in version):
        raise ValueError(f"version must be a tuple of ints such as (7, 0, 15); got {version!r}")
    return not version or version >= MINIMUM


def private_refusal(binary: str) -> str | None:
    """Why setlab will not start ``binary`` as its private server, or ``None`` if it will.

    Reads ``redis-server --version`` (once per binary and modification time). A binary that does
    not say its version is refused too: setlab cannot tell what it would be measuring.
    """
    if not isinstance(binary, str) or not binary:
        raise ValueError(f"binary must be the path of a redis-server; got {binary!r}")
    path = Path(binary)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = 0
    return _private_refusal(str(path), stamp)


@lru_cache(maxsize=16)
def _private_refusal(binary: str, _stamp: int) -> str | None:
    try:
        version = binary_version(binary)
    except (ServerError, OSError) as exc:
        return f"{binary} is not used: it does not say its Redis version ({exc})"
    if is_supported(version):
        return None
    return (
        f"redis-server {version_text(version)} ({binary}) is not used: the chapters are written "
        f"for Redis {version_text(MINIMUM)} or later, and {differences(version)} differ. The "
        "chapters show the stored reference runs; install Redis 7 (Debian 12: apt-get install "
        "redis-server) or point SETLAB_REDIS_SERVER at one for live runs (a release name, "
        "SETLAB_REDIS_SERVER=6.2, runs them on the book's 6.2 all the same)"
    )


def foreign_warning(version: tuple[int, ...], where: str) -> str | None:
    """The one-line warning for the reader's own server at ``where``, or ``None`` if it is 7.0+.

    The server is used all the same (the reader chose it); the warning names what will differ
    from the book's models, so a surprising number on the page has its explanation beside it.
    """
    if is_supported(version):
        return None
    return (
        f"warning: Redis {version_text(version)} at {where} is older than "
        f"{version_text(MINIMUM)}, the oldest the chapters are written for: "
        f"{differences(version)} will "
        "differ from the pages; runs on it are labelled with its version"
    )


#: the build the book's models were measured exact on (Debian's redis-server 7.0.15)
EXACT_BUILD = builds.Build("7.0", "debian")


@dataclass(frozen=True)
class ServerProfile:
    """What a server is, as the banner, the pages and the audit's header name it.

    Built from what :func:`probe` read (``INFO server``/``memory``, ``MEMORY MALLOC-STATS``).
    ``build`` is the :class:`~setlab.models.builds.Build` the models price for, ``None`` when
    they know no layout for this release (a Redis 5, a Valkey 9): then :attr:`models` is
    ``"unknown"`` and :attr:`warning` says what may differ.
    """

    flavour: str  #: "Redis" or "Valkey"; "" when an ACL hid INFO
    version: tuple[int, ...]  #: the flavour's own version (Valkey's, not its redis_version)
    mem_allocator: str  #: as INFO says it: "jemalloc-5.3.0", "libc"
    quantum: int | None  #: jemalloc's quantum from MEMORY MALLOC-STATS (None: unknown)
    build: builds.Build | None

    @property
    def name(self) -> str:
        """``"Redis 8.2.3"``, ``"Valkey 8.1.8"`` (``"Redis (version hidden by the ACL)"``)."""
        if not self.version:
            return f"{self.flavour or 'Redis'} (version hidden by the ACL)"
        return f"{self.flavour} {version_text(self.version)}"

    @property
    def models(self) -> str:
        """``"exact"`` (the build the models were measured on), ``"modelled"`` (a layout the
        models price from the source, checked on a server of that release) or ``"unknown"``."""
        if self.build is None:
            return "unknown"
        return "exact" if self.build == EXACT_BUILD else "modelled"

    @property
    def allocator_text(self) -> str:
        """``"jemalloc-5.3.0, 8-byte quantum"``, ``"libc"``, ``"allocator unknown"``."""
        if not self.mem_allocator:
            return "allocator unknown"
        return self.mem_allocator + (f", {self.quantum}-byte quantum" if self.quantum else "")

    @property
    def summary(self) -> str:
        """One phrase for banners and headers: name, allocator and how the models fit."""
        if self.build is None:
            return f"{self.name} ({self.allocator_text}; the book's models: unknown)"
        return f"{self.name} ({self.allocator_text}; the book's models: {self.models})"

    @property
    def warning(self) -> str | None:
        """One line naming what may differ on a release the models do not know."""
        if self.build is not None or not self.version:
            return None
        known = ", ".join(builds.RELEASES)
        return (
            f"warning: the book's models know {known}, not {self.name}: MEMORY USAGE, the "
            "allocation per member, encodings and thresholds may differ from the pages"
        )


def profile(facts: dict[str, Any]) -> ServerProfile:
    """The :class:`ServerProfile` of what :func:`probe` found."""
    flavour = facts.get("flavour", "Redis" if facts.get("version") else "")
    version = facts.get("valkey_version") or facts.get("version", ())
    mem_allocator = facts.get("allocator", "")
    quantum = facts.get("quantum")
    release = builds.release_of(facts.get("version", ()), facts.get("valkey_version", ()))
    build = None
    if release is not None:
        if mem_allocator.startswith("libc"):
            allocator = "libc"
        elif mem_allocator.startswith("jemalloc"):
            by_quantum = {q: name for name, q in QUANTUM.items()}
            allocator = by_quantum.get(quantum, builds.USUAL_ALLOCATOR[builds.family(release)])
            if allocator == "libc":  # a jemalloc whose quantum was hidden: the usual jemalloc
                allocator = "bundled"
        else:
            allocator = ""
        build = builds.Build(release, allocator) if allocator else None
    return ServerProfile(flavour, version, mem_allocator, quantum, build)


def probe(client: redis.Redis, namespace: str) -> dict[str, Any]:
    """Ask the server what it is and what it can do, instead of assuming — as far as an ACL lets
    this user ask (INFO, MODULE LIST and MEMORY USAGE may each be denied).

    Returns the lab's facts: ``version`` (``redis_version`` as a tuple, empty if hidden),
    ``flavour`` ("Redis" or "Valkey", from ``server_name``), ``valkey_version`` (a tuple, empty
    on Redis), ``allocator`` (``mem_allocator``), ``quantum`` (jemalloc's, from ``MEMORY
    MALLOC-STATS``; ``None`` when denied or not jemalloc), ``modules`` (name → version;
    RedisBloom found by ``BF.EXISTS`` when ``MODULE LIST`` is denied, its version then
    :data:`HIDDEN_VERSION`), ``has_bloom`` and ``has_memory_usage``.
    ``namespace`` is where the ``BF.EXISTS`` and ``MEMORY USAGE`` probes look (a key that does
    not exist, so nothing is written).
    """
    valkey_text = ""
    try:
        info = client.info("server")
        version_text = str(info.get("redis_version", "0"))
        if str(info.get("server_name", "")).lower() == "valkey":
            valkey_text = str(info.get("valkey_version", ""))
    except PermissionDenied:
        hello = client.execute_command("HELLO", "2")
        fields = {_text(k): v for k, v in zip(hello[::2], hello[1::2], strict=False)}
        version_text = _text(fields.get("version", "0"))
        if _text(fields.get("server", "")).lower() == "valkey":  # HELLO names the server
            valkey_text = version_text
    version = _version_tuple(version_text)
    try:
        allocator = str(client.info("memory").get("mem_allocator", ""))
    except PermissionDenied:
        allocator = ""
    quantum = None
    if allocator.startswith("jemalloc"):
        try:
            stats = _text(client.execute_command("MEMORY", "MALLOC-STATS"))
            found = re.search(r"Quantum size: (\d+)", stats)
            quantum = int(found.group(1)) if found else None
        except (PermissionDenied, redis.exceptions.ResponseError):
            pass
    modules: dict[str, str] = {}
    try:
        for entry in client.module_list():
            entry = {_text(k): v for k, v in entry.items()}
            ver = int(entry.get("ver", 0))
            modules[_text(entry["name"])] = f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"
    except PermissionDenied:  # MODULE LIST is @dangerous: ask RedisBloom itself instead
        try:
            client.execute_command("BF.EXISTS", namespace + "probe:no-such-key", "x")
            modules["bf"] = HIDDEN_VERSION
        except redis.exceptions.ResponseError:  # unknown command: no RedisBloom
            pass
    except redis.exceptions.ResponseError:
        pass
    try:
        client.memory_usage(namespace + "probe:no-such-key")
        has_memory_usage = True
    except redis.exceptions.ResponseError:
        has_memory_usage = False
    return {
        "version": version,
        "flavour": "Valkey" if valkey_text else "Redis",
        "valkey_version": _version_tuple(valkey_text),
        "allocator": allocator,
        "quantum": quantum,
        "modules": modules,
        "has_bloom": "bf" in modules,
        "has_memory_usage": has_memory_usage,
    }


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(".")[:3] if x.isdigit())


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
