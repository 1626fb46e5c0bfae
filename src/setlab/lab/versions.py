"""What a Redis server is, whether the book's models describe it, and what it says if not.

:func:`probe` asks a server its version, allocator, modules and capabilities (as far as an ACL
lets it); the rest of this module is the version policy.

The models in :mod:`setlab.models` describe Redis 7.0 with jemalloc: the server the reference runs
were measured on (Debian 12's ``redis-server`` 7.0.15). A Redis 6.x answers every command a chapter
sends, yet differs where the book draws its verdicts:

- **encodings**: small hashes, lists and sorted sets are ``ziplist`` in 6.x (7.0 made them
  ``listpack``), so ``OBJECT ENCODING`` and the per-entry sizes the models compute differ;
- **MEMORY USAGE**: follows from the encodings (and an older jemalloc), so the models' byte counts
  do not match what the server reports;
- **commands**: what 7.0 added is missing (``CLUSTER ADDSLOTSRANGE``, which the local cluster
  needs; ``BITCOUNT``/``BITPOS`` with ``BIT``; functions).

The policy, applied by :func:`setlab.lab.backend.connect`:

- a **private** server (setlab would start it from the installed ``redis-server``) older than 7.0
  is not used: the book runs on the embedded backend and shows the stored reference runs, and
  the banner says why; ``SETLAB_BACKEND=live`` fails with the same reason;
- the **reader's own** server (``REDIS_URL``) older than 7.0 is used, since the reader chose it,
  with a one-line warning naming what will differ.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import redis

from setlab.lab.errors import PermissionDenied
from setlab.lab.server import ServerError, binary_version

#: the oldest Redis the models describe (major, minor)
MINIMUM: tuple[int, int] = (7, 0)

#: a module's version when the ACL hides MODULE LIST but the module answers its commands
HIDDEN_VERSION = "(version hidden by the ACL)"

#: what differs on an older server, in the words of every message below
DIFFERENCES = (
    "encodings (ziplist, not listpack, for small hashes, lists and sorted sets), "
    "MEMORY USAGE (the models' byte counts are 7.0's) and commands added in 7.0 "
    "(CLUSTER ADDSLOTSRANGE, BITCOUNT ... BIT)"
)


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
        f"redis-server {version_text(version)} ({binary}) is not used: the book models Redis "
        f"{version_text(MINIMUM)} or later, and {DIFFERENCES} differ. The chapters show the "
        "stored reference runs; install Redis 7 (Debian 12: apt-get install redis-server) or "
        "point SETLAB_REDIS_SERVER at one for live runs"
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
        f"{version_text(MINIMUM)}, the oldest the book models: {DIFFERENCES} will differ from "
        "the pages; runs on it are labelled with its version"
    )


def probe(client: redis.Redis, namespace: str) -> dict[str, Any]:
    """Ask the server what it is and what it can do, instead of assuming — as far as an ACL lets
    this user ask (INFO, MODULE LIST and MEMORY USAGE may each be denied).

    Returns the lab's facts: ``version`` (a tuple, empty if hidden), ``allocator``, ``modules``
    (name → version; RedisBloom found by ``BF.EXISTS`` when ``MODULE LIST`` is denied, its
    version then :data:`HIDDEN_VERSION`), ``has_bloom`` and ``has_memory_usage``.
    ``namespace`` is where the ``BF.EXISTS`` and ``MEMORY USAGE`` probes look (a key that does
    not exist, so nothing is written).
    """
    try:
        info = client.info("server")
        version_text = str(info.get("redis_version", "0"))
    except PermissionDenied:
        hello = client.execute_command("HELLO", "2")
        fields = dict(zip(hello[::2], hello[1::2], strict=False))
        version_text = _text(fields.get(b"version", fields.get("version", "0")))
    version = tuple(int(x) for x in version_text.split(".")[:3] if x.isdigit())
    try:
        allocator = str(client.info("memory").get("mem_allocator", ""))
    except PermissionDenied:
        allocator = ""
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
        "allocator": allocator,
        "modules": modules,
        "has_bloom": "bf" in modules,
        "has_memory_usage": has_memory_usage,
    }


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
