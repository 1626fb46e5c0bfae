"""``setlab audit --rdb dump.rdb``: a snapshot audited in a private ``redis-server``.

The snapshot is copied into a directory of the private server's own, which loads the copy at
start (with RedisBloom, so Bloom and cuckoo filters load too) and never saves: the reader's file
is only read. A snapshot written by a newer Redis than this machine's ``redis-server`` can load
is refused before anything starts, with both versions named: the RDB format's version is the
number after ``REDIS`` in the file's first nine bytes (``rdb.h``'s ``RDB_VERSION``).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: RDB format → the Redis versions that write it (rdb.h ``RDB_VERSION``).
RDB_WRITERS = {7: "4.0", 8: "5.0", 9: "6.0 and 6.2", 10: "7.0", 11: "7.2", 12: "7.4 and 8"}
#: Loading speed assumed for the start timeout, bytes a second (generous: a slow disk).
LOAD_BYTES_PER_S = 20 << 20


def rdb_version(path: Path) -> int:
    """The RDB format version of the file at ``path``; ``ValueError`` if it is not an RDB."""
    with path.open("rb") as f:
        magic = f.read(9)
    if len(magic) < 9 or not magic.startswith(b"REDIS") or not magic[5:].isdigit():
        raise ValueError(f"{path} is not a Redis RDB snapshot (it does not start with REDIS0…)")
    return int(magic[5:])


def loadable_version(server: tuple[int, ...]) -> int:
    """The newest RDB format a redis-server of version ``server`` loads."""
    major, minor = (*server, 0, 0)[:2]
    if (major, minor) >= (7, 4):
        return 12
    return {(7, 2): 11, (7, 0): 10}.get((major, minor), 9 if major == 6 else 8)


def check_loadable(path: Path, server: tuple[int, ...]) -> int:
    """The snapshot's format; ``ValueError`` naming both versions when ``server`` cannot load it."""
    found, most = rdb_version(path), loadable_version(server)
    if found > most:
        writer = RDB_WRITERS.get(found, "a newer Redis")
        reader = ".".join(map(str, server))
        raise ValueError(
            f"{path} is an RDB of format {found}, written by Redis {writer}; this machine's "
            f"redis-server {reader} loads format {most} at most (Redis "
            f"{RDB_WRITERS.get(most, '?')}): audit it with a newer redis-server "
            "(SETLAB_REDIS_SERVER names one), or audit the live server with REDIS_URL"
        )
    return found


@contextlib.contextmanager
def loaded(path: str | Path) -> Iterator[str]:
    """A private server holding a copy of the snapshot at ``path``: yields its URL; stops it
    and removes the copy afterwards."""
    from setlab.lab.server import RedisServer, binary_version

    source = Path(path)
    if not source.is_file():
        raise ValueError(f"{path}: no such file")
    check_loadable(source, binary_version())
    work = Path(tempfile.mkdtemp(prefix="setlab-rdb-"))
    try:
        shutil.copyfile(source, work / "dump.rdb")
        timeout = max(30.0, source.stat().st_size / LOAD_BYTES_PER_S)
        server = RedisServer.start(
            extra_args=["--dir", str(work), "--dbfilename", "dump.rdb"], timeout=timeout
        )
        try:
            yield server.url
        finally:
            server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
