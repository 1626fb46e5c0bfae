"""Reading a Redis without changing it: an allow-list client, SCAN at a bounded rate, and what
each key is (type, encoding, bytes, TTL, size, and the few bytes that tell a bitmap or a
HyperLogLog from text).

Every command goes through :class:`ReadOnly`, which refuses anything not on :data:`ALLOWED`
before it reaches the socket: no key is created, changed or deleted, no ``CONFIG SET``. Reads
that take time in proportion to a value are avoided or bounded: ``MEMORY USAGE`` keeps its default
sampling (five elements, not ``SAMPLES 0``, which walks a whole set), ``BITCOUNT`` runs whole only
on strings up to :data:`BITCOUNT_WHOLE` bytes and otherwise on :data:`WINDOWS` windows of
:data:`WINDOW_BYTES`, ``SRANDMEMBER`` takes :data:`MEMBER_SAMPLE` members. ``PFCOUNT`` is never
sent: it may rewrite a HyperLogLog's cached cardinality; the header is read with ``GETRANGE``.
Keys are read in ``SCAN`` batches at no more than ``rate`` keys a second, and each batch is handed
on and dropped; a command that gets no answer within ``timeout`` seconds stops the audit
(:class:`~setlab.lab.errors.ServerTimeout`).

A read does update a key's LRU/LFU clock like any client's; on Redis 7.2 and later the client
asks ``CLIENT NO-TOUCH ON`` first, which turns that off.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

import redis

from setlab.core.secrets import check_url
from setlab.lab.errors import PermissionDenied, ServerTimeout, ServerUnavailable, translate
from setlab.tools.audit.limits import DEFAULT_RATE, HEAD_BYTES, TIMEOUT_S

if TYPE_CHECKING:
    from setlab.lab.versions import ServerProfile

#: The commands an audit may send, and for those with subcommands, which ones.
ALLOWED: dict[str, frozenset[str] | None] = {
    "PING": None, "INFO": None, "DBSIZE": None, "SCAN": None, "TYPE": None, "PTTL": None,
    "STRLEN": None, "SCARD": None, "HLEN": None, "LLEN": None, "ZCARD": None, "XLEN": None,
    "GETRANGE": None, "BITCOUNT": None, "SRANDMEMBER": None, "BF.INFO": None, "CF.INFO": None,
    "OBJECT": frozenset({"ENCODING"}), "MEMORY": frozenset({"USAGE", "MALLOC-STATS"}),
    "CONFIG": frozenset({"GET"}), "CLIENT": frozenset({"NO-TOUCH"}),
    "MODULE": frozenset({"LIST"}), "CLUSTER": frozenset({"INFO"}),
    # what the server profile asks (setlab.lab.versions.probe): HELLO 2 when INFO is refused
    # (the protocol this client already speaks), BF.EXISTS of a key that does not exist when
    # MODULE LIST is refused
    "HELLO": frozenset({"2"}), "BF.EXISTS": None,
    # each database in turn (it changes which keyspace this connection reads, nothing stored)
    "SELECT": None,
}  # fmt: skip
#: Strings up to this many bytes are counted whole with BITCOUNT (1 MiB: about a tenth of a
#: millisecond); longer ones are sampled in windows that never overlap (16 × 4 KiB < 1 MiB).
BITCOUNT_WHOLE = 1 << 20
#: Longer ones are sampled: this many windows of this many bytes (evenly spaced, first and last).
WINDOWS, WINDOW_BYTES = 16, 4096
#: Members of a set sampled to see whether they are integers, and their range.
MEMBER_SAMPLE = 64
#: What the report keeps of INFO.
FACTS = ("redis_version", "server_name", "valkey_version", "mem_allocator", "used_memory",
         "maxmemory", "maxmemory_policy", "cluster_enabled", "role",
         "total_system_memory",
         # what loading the snapshot did (INFO persistence, Redis 7.0+): keys loaded, and keys
         # dropped because their TTL had passed (rdb.c, rdbLoadRioWithLoadingCtx)
         "rdb_last_load_keys_expired", "rdb_last_load_keys_loaded")  # fmt: skip
#: The configuration read: the limits (``*max-*``) and whether DEL frees in the background.
CONFIG_PATTERNS = ("*max-*", "lazyfree-lazy-user-del")
#: Where the server profile's probes look: a key that does not exist (nothing is written).
PROBE_NAMESPACE = "setlab:audit:"
#: Keys asked for per SCAN call.
SCAN_COUNT = 200
#: What TYPE says of RedisBloom's filters.
BLOOM_TYPE, CUCKOO_TYPE = "MBbloom--", "MBbloomCF"
_SIZE_COMMAND = {
    "string": "STRLEN", "set": "SCARD", "hash": "HLEN", "list": "LLEN", "zset": "ZCARD",
    "stream": "XLEN", BLOOM_TYPE: "BF.INFO", CUCKOO_TYPE: "CF.INFO",
}  # fmt: skip


class WriteRefused(RuntimeError):
    """A command outside :data:`ALLOWED`: the audit has a bug; nothing was sent."""


class ReadOnly:
    """A redis-py client that sends only :data:`ALLOWED` commands (RESP2, bytes replies)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client

    @classmethod
    def connect(cls, url: str, timeout: float = TIMEOUT_S) -> ReadOnly:
        """A client for ``url``; a password that would make the URL name another server, or a
        database that is not a number, is a ``ValueError`` first
        (:func:`setlab.core.secrets.check_url`, :func:`database`)."""
        check_url(url)
        database(url)
        client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, protocol=2,
            decode_responses=False,
        )  # fmt: skip
        return cls(client)

    @staticmethod
    def check(args: Sequence[Any]) -> None:
        """:class:`WriteRefused` unless ``args`` is an allowed command; a name redis-py sends
        as one word with its subcommand (``"MEMORY USAGE"``) is checked as the two words."""
        words = [*_text(args[0]).split(), *args[1:]]
        name = str(words[0]).upper()
        if name not in ALLOWED:
            raise WriteRefused(f"setlab audit does not send {name}")
        sub = ALLOWED[name]
        if sub is not None and (len(words) < 2 or _text(words[1]).upper() not in sub):
            raise WriteRefused(f"setlab audit does not send {name} {words[1:2]}")

    def on(self, number: int) -> ReadOnly:
        """A client like this one on database ``number``: a connection of its own that redis-py
        SELECTs on connecting (and again if it reconnects), so a lost connection cannot fall back
        to another database."""
        self.check(["SELECT", number])
        pool = self.client.connection_pool
        kwargs = {**pool.connection_kwargs, "db": number}
        return ReadOnly(redis.Redis(connection_pool=type(pool)(
            connection_class=pool.connection_class, **kwargs)))  # fmt: skip

    def reach(self, where: str, tls: bool = False) -> None:
        """PING, the audit's first command, its failures worded for what they mean before
        anything was read: a refused login (as :func:`setlab.lab.errors.translate` words it),
        no server at ``where``, a plain server reached with ``rediss://`` (it waits for a
        command while the client waits for a TLS handshake: a timeout, or TLS errors when the
        server answers the handshake's bytes), a server that does not answer, no such database.
        """
        self.check(["PING"])
        try:
            self.client.execute_command("PING")
        except redis.exceptions.AuthenticationError as err:
            if "required" in str(err).lower():  # no password given; the server asks for one
                raise PermissionDenied(
                    f"Redis at {where} asks for a password: give the user name and password "
                    "in REDIS_URL"
                ) from None
            raise translate(err, where, "PING", "") from None
        except redis.exceptions.TimeoutError:
            seconds = self.client.connection_pool.connection_kwargs.get("socket_timeout")
            if tls:
                raise ServerTimeout(
                    f"Redis at {where} completed no TLS handshake within {seconds:g} s: if it "
                    "does not speak TLS, use redis:// instead of rediss://"
                ) from None
            raise ServerTimeout(
                f"Redis at {where} did not answer within {seconds:g} s: unreachable (a firewall "
                "dropping packets?), or busy, blocked or frozen; or raise --timeout"
            ) from None
        except redis.exceptions.ConnectionError as err:
            said = " ".join(str(err).split())
            if tls and ("ssl" in said.lower() or "tls" in said.lower()):
                raise ServerUnavailable(
                    f"Redis at {where} did not complete a TLS handshake ({said}): if it does "
                    "not speak TLS, use redis:// instead of rediss://"
                ) from None
            if not tls and ("closed" in said or "reset" in said):  # a TLS-only port hangs up
                said += "; if it takes TLS only, use rediss://"
            raise ServerUnavailable(
                f"cannot reach Redis at {where} ({said}): is it running, and are the host and "
                "port in REDIS_URL right?"
            ) from None
        except redis.exceptions.ResponseError as err:
            if "NOAUTH" in str(err) or "NOPERM" in str(err):
                raise PermissionDenied(f"Redis at {where} refused this user: {err}") from None
            if "DB index" in str(err):
                raise ValueError(
                    f"Redis at {where} has no database {where.rsplit('/', 1)[-1]} ({err}): "
                    "its databases are numbered from 0 to its 'databases' setting (16) less one"
                ) from None
            raise

    def run(self, *args: Any) -> Any:
        """One command; a missing answer within the timeout is :class:`ServerTimeout`."""
        self.check(args)
        try:
            return self.client.execute_command(*args)
        except redis.exceptions.TimeoutError:
            raise ServerTimeout(_timeout_message(self.client)) from None
        except redis.exceptions.ConnectionError as err:
            raise ServerUnavailable(f"lost the server: {err}") from None

    def batch(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Several commands in one round trip; a command's error is returned, not raised."""
        for args in commands:
            self.check(args)
        pipe = self.client.pipeline(transaction=False)
        for args in commands:
            pipe.execute_command(*args)
        try:
            return pipe.execute(raise_on_error=False)
        except redis.exceptions.TimeoutError:
            raise ServerTimeout(_timeout_message(self.client)) from None
        except redis.exceptions.ConnectionError as err:
            raise ServerUnavailable(f"lost the server: {err}") from None

    def close(self) -> None:
        self.client.close()


def database(url: str) -> int:
    """The database ``url`` names (its path, else ``?db=``, else 0); a ``ValueError`` in one
    line for one that is not a whole number (redis-py would quietly use database 0)."""
    named = named_database(url)
    return 0 if named is None else named


def named_database(url: str) -> int | None:
    """The database ``url`` names (its path, else ``?db=``), ``None`` when it names none."""
    parts = urlsplit(url)
    named = unquote(parts.path).strip("/") or parse_qs(parts.query).get("db", [""])[0]
    if not named:
        return None
    if not named.isdigit():
        raise ValueError(
            f"REDIS_URL names the database {named!r}: a database is a number from 0 "
            "(redis://host:port/0)"
        )
    return int(named)


def _timeout_message(client: redis.Redis) -> str:
    timeout = client.connection_pool.connection_kwargs.get("socket_timeout")
    return (
        f"the server did not answer within {timeout:g} s (busy, blocked or frozen): the audit "
        "stopped; try again later, or raise --timeout"
    )


@dataclass
class KeyInfo:
    """What the audit learnt of one key. ``None``: not measured (not allowed, or gone)."""

    key: bytes
    type: str
    encoding: str | None = None
    bytes: int | None = None  #: MEMORY USAGE (default sampling)
    ttl_ms: int | None = None  #: PTTL: −1 none
    size: int | None = None  #: STRLEN, SCARD, HLEN, LLEN, ZCARD or XLEN
    info: dict[str, Any] = field(default_factory=dict)  #: BF.INFO / CF.INFO
    head: bytes = b""  #: a string's first 16 bytes (HYLL header)
    bits_set: int | None = None  #: BITCOUNT of the whole string (None: sampled, or not a string)
    windows: list[int] = field(default_factory=list)  #: BITCOUNT of each sampled window
    members: list[bytes] = field(default_factory=list)  #: a sample of a set's members


@dataclass
class Permissions:
    """What the server lets this user run; what it refuses is said in the report."""

    memory: bool = True
    bloom: bool = True
    refused: set[str] = field(default_factory=set)
    unreadable: int = 0  #: keys SCAN listed whose TYPE this user may not ask


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _refused(value: Any) -> bool:
    return isinstance(value, redis.exceptions.ResponseError)


def _pairs(reply: Any) -> dict[str, Any]:
    """``BF.INFO``/``CF.INFO`` (RESP2: name, value, name, value …) as a dict."""
    if not isinstance(reply, list):
        return {}
    return {_text(k): v for k, v in zip(reply[0::2], reply[1::2], strict=False)}


def probe(db: ReadOnly, keys: list[bytes], can: Permissions) -> list[KeyInfo]:
    """What ``keys`` are, in three round trips (see the module's doc); keys gone since SCAN
    are left out."""
    if not keys:
        return []
    first: list[list[Any]] = []
    memory = can.memory  # asked in this batch (a refusal below stops asking in the next)
    for key in keys:
        first += [["TYPE", key], ["OBJECT", "ENCODING", key], ["PTTL", key]]
        if memory:
            first.append(["MEMORY", "USAGE", key])
    replies = iter(db.batch(first))
    found = []
    for key in keys:
        kind, encoding, ttl = next(replies), next(replies), next(replies)
        usage = next(replies) if memory else None
        if _refused(usage):
            can.memory = False
            can.refused.add("MEMORY USAGE")
            usage = None
        if isinstance(kind, redis.exceptions.NoPermissionError):
            can.unreadable += 1
            continue
        kind = _text(kind) if not _refused(kind) else "none"
        if kind == "none":
            continue  # gone since SCAN
        found.append(KeyInfo(
            key, kind, None if _refused(encoding) or encoding is None else _text(encoding),
            None if usage is None else int(usage), None if _refused(ttl) else int(ttl),
        ))  # fmt: skip
    _sizes(db, found, can)
    _samples(db, found)
    return found


def _sizes(db: ReadOnly, found: list[KeyInfo], can: Permissions) -> None:
    asked = [k for k in found if k.type in _SIZE_COMMAND]
    asked = [k for k in asked if can.bloom or k.type not in (BLOOM_TYPE, CUCKOO_TYPE)]
    replies = db.batch([[_SIZE_COMMAND[k.type], k.key] for k in asked])
    for info, reply in zip(asked, replies, strict=True):
        if _refused(reply):
            if info.type in (BLOOM_TYPE, CUCKOO_TYPE):  # not asked again
                can.refused.add(_SIZE_COMMAND[info.type])
                can.bloom = False
            continue
        if info.type in (BLOOM_TYPE, CUCKOO_TYPE):
            info.info = _pairs(reply)
        else:
            info.size = int(reply)


def windows(strlen: int) -> list[tuple[int, int]]:
    """Byte ranges (inclusive) sampled of a long string: evenly spaced, first and last (a
    bitmap's last byte holds its highest set bit: that window is counted apart)."""
    last = strlen - WINDOW_BYTES
    starts = sorted({round(last * i / (WINDOWS - 1)) for i in range(WINDOWS)})
    return [(s, s + WINDOW_BYTES - 1) for s in starts]


def _samples(db: ReadOnly, found: list[KeyInfo]) -> None:
    commands: list[list[Any]] = []
    owners: list[tuple[KeyInfo, str, int]] = []
    for info in found:
        if info.type == "string" and (info.size or 0) >= HEAD_BYTES:
            commands.append(["GETRANGE", info.key, 0, HEAD_BYTES - 1])
            owners.append((info, "head", 0))
            if info.encoding == "raw" and info.size <= BITCOUNT_WHOLE:
                commands.append(["BITCOUNT", info.key])
                owners.append((info, "bits", 0))
            elif info.encoding == "raw":
                for start, end in windows(info.size):
                    commands.append(["BITCOUNT", info.key, start, end])
                    owners.append((info, "window", 0))
        elif info.type == "set" and info.size:
            commands.append(["SRANDMEMBER", info.key, MEMBER_SAMPLE])
            owners.append((info, "members", 0))
    for (info, what, _), reply in zip(owners, db.batch(commands), strict=True):
        if _refused(reply):
            continue
        if what == "head":
            info.head = bytes(reply)
        elif what == "bits":
            info.bits_set = int(reply)
        elif what == "window":
            info.windows.append(int(reply))
        else:
            info.members = list(reply)


@dataclass
class Scan:
    """How the keyspace was read: how many keys, all or a sample, how fast."""

    read: int = 0  #: keys read (those SCAN listed, less those gone or unreadable)
    scanned: int = 0  #: keys SCAN returned
    complete: bool = False  #: SCAN went round the whole keyspace
    seconds: float = 0.0


def scan(
    db: ReadOnly, can: Permissions, sink: Callable[[list[KeyInfo]], None], *,
    match: str | None = None, sample: int | None = None, rate: float = DEFAULT_RATE,
    progress: Any = None,
) -> Scan:  # fmt: skip
    """Read every key (or the first ``sample`` SCAN returns) at most ``rate`` keys a second
    (0: no limit), handing each batch to ``sink`` and keeping none: memory does not grow with
    the keyspace. ``progress`` has ``update(count)``, told the keys read."""
    result, start = Scan(), time.perf_counter()
    for batch in _scan_batches(db, match):
        if sample is not None:
            batch = batch[: sample - result.scanned]
        infos = probe(db, batch, can)
        sink(infos)
        result.read += len(infos)
        result.scanned += len(batch)
        if progress is not None:
            progress.update(len(batch))
        if rate:
            ahead = result.scanned / rate - (time.perf_counter() - start)
            if ahead > 0:
                time.sleep(ahead)
        if sample is not None and result.scanned >= sample:
            break
    else:
        result.complete = True
    result.seconds = time.perf_counter() - start
    return result


def _scan_batches(db: ReadOnly, match: str | None) -> Iterator[list[bytes]]:
    cursor = 0
    while True:
        args: list[Any] = ["SCAN", cursor, "COUNT", SCAN_COUNT]
        if match:
            args[2:2] = ["MATCH", match]
        cursor, keys = db.run(*args)
        cursor = int(cursor)
        if keys:
            yield list(keys)
        if cursor == 0:
            return


def server_facts(db: ReadOnly) -> tuple[dict[str, Any], set[str]]:
    """What the server says of itself (INFO, CONFIG GET, MODULE LIST), and which of those
    commands this user may not run. redis-py answers ``INFO`` with a dict (its reply parser);
    a client without one gets the ``name:value`` text, read the same."""
    facts: dict[str, Any] = {}
    refused: set[str] = set()
    info, *configs, modules, dbsize = db.batch([
        ["INFO"], *(["CONFIG", "GET", p] for p in CONFIG_PATTERNS), ["MODULE", "LIST"],
        ["DBSIZE"],
    ])  # fmt: skip
    if _refused(info):
        refused.add("INFO")
    else:
        parsed = info if isinstance(info, dict) else _parse_info(_text(info))
        facts.update({name: parsed[name] for name in FACTS if name in parsed})
    if any(_refused(c) for c in configs):
        refused.add("CONFIG GET")
    else:
        facts["config"] = {_text(k): _text(v) for c in configs
                           for k, v in zip(c[0::2], c[1::2], strict=False)}  # fmt: skip
    if _refused(modules):
        refused.add("MODULE LIST")
    else:
        facts["modules"] = {
            _text(m.get(b"name", b"")): m.get(b"ver") for m in map(_module, modules)
        }
    if not _refused(dbsize):
        facts["keys"] = int(dbsize)
    return facts, refused


def keyspace(db: ReadOnly) -> dict[int, int] | None:
    """The databases ``INFO keyspace`` lists (those holding keys), each with its key count;
    ``None`` when this user may not run INFO. redis-py parses ``db0:keys=3,expires=0,…`` into a
    dict; a client without that parser gets the text, read the same."""
    reply = db.batch([["INFO", "keyspace"]])[0]
    if _refused(reply):
        return None
    if not isinstance(reply, dict):
        reply = {
            name: dict(pair.split("=", 1) for pair in str(value).split(","))
            for name, value in _parse_info(_text(reply)).items()
        }
    return {
        int(name[2:]): int(value["keys"])
        for name, value in reply.items()
        if name.startswith("db") and name[2:].isdigit() and isinstance(value, dict)
    }


def _module(reply: Any) -> dict[bytes, Any]:
    return dict(zip(reply[0::2], reply[1::2], strict=False)) if isinstance(reply, list) else {}


def _parse_info(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            name, value = line.split(":", 1)
            out[name] = int(value) if value.isdigit() else value
    return out


class ProbeClient:
    """The few ``redis.Redis`` methods :func:`setlab.lab.versions.probe` calls, each sent
    through :class:`ReadOnly` (so through :data:`ALLOWED`), with a refusal raised as the lab's
    :class:`~setlab.lab.errors.PermissionDenied`, which the probe expects of a denied command."""

    def __init__(self, db: ReadOnly) -> None:
        self.db = db

    def execute_command(self, *args: Any) -> Any:
        try:
            return self.db.run(*args)
        except redis.exceptions.NoPermissionError as err:
            raise PermissionDenied(str(err)) from None

    def info(self, section: str | None = None) -> Any:
        return self.execute_command("INFO", *([section] if section else []))

    def module_list(self) -> Any:
        return self.execute_command("MODULE LIST")

    def memory_usage(self, key: str) -> Any:
        return self.execute_command("MEMORY USAGE", key)


def server_profile(db: ReadOnly) -> ServerProfile:
    """What the server is (:func:`setlab.lab.versions.profile` of what
    :func:`~setlab.lab.versions.probe` reads through :class:`ProbeClient`): Redis or Valkey,
    its version and allocator, the build the models price it as."""
    from setlab.lab import versions

    return versions.profile(versions.probe(ProbeClient(db), PROBE_NAMESPACE))  # type: ignore[arg-type]


def no_touch(db: ReadOnly) -> bool:
    """Ask the server not to update keys' LRU/LFU clocks for this client (Redis 7.2+)."""
    return not _refused(db.batch([["CLIENT", "NO-TOUCH", "ON"]])[0])
