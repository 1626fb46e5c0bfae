"""``setlab audit``'s entry point: :func:`audit` reads a server (or a client already open) and
returns the :class:`~setlab.tools.audit.report.Audit`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import redis

from setlab.lab.errors import ServerUnavailable, SetlabError
from setlab.tools.audit.findings import Context
from setlab.tools.audit.limits import DEFAULT_RATE, TIMEOUT_S
from setlab.tools.audit.reader import (
    Permissions,
    ReadOnly,
    Scan,
    database,
    keyspace,
    named_database,
    no_touch,
    scan,
    server_facts,
    server_profile,
)
from setlab.tools.audit.report import Audit, Database, Databases, Grouper, biggest_first

if TYPE_CHECKING:
    from setlab.lab.versions import ServerProfile


def _address(url: str) -> str:
    """``host:port/db`` of a URL, never its user or password."""
    parts = urlsplit(url)
    return f"{parts.hostname or '?'}:{parts.port or 6379}/{database(url)}"


def audit(
    url: str | None = None, *, client: redis.Redis | None = None, match: str | None = None,
    sample: int | None = None, rate: float = DEFAULT_RATE, timeout: float = TIMEOUT_S,
    progress: bool = False, label: str | None = None, snapshot: dict[str, Any] | None = None,
    db: int | None = None,
) -> Audit:  # fmt: skip
    """Audit the server at ``url`` (or behind ``client``): every key, or the first ``sample``
    SCAN returns, read at most ``rate`` keys a second, each command answered within ``timeout``
    seconds or the audit stops. ``label`` names the server in the report (default: its
    address, without credentials); ``snapshot`` says what wrote the snapshot the server loaded
    and which server loaded it (:meth:`setlab.tools.audit.snapshot.Loaded.as_json`).

    The alternatives each finding prices are priced for the server's own release and allocator
    (its :class:`~setlab.lab.versions.ServerProfile`), the book's reference build when the
    models know neither.

    Every database ``INFO keyspace`` lists is read, one after the other; ``db`` (``--db``), or a
    database other than 0 the URL names (``redis://host/2``), reads that one only (``/0`` is how
    most URLs are written, this tool's own hint among them, and the lab's servers' URLs: it
    chooses nothing; ``--db 0`` does), and the report says what
    the others hold. ``complete`` is true only when every key of every listed database was
    read. A ``sample`` is taken of each database read, and scaled to that database's keys."""
    if client is None and url is None:
        raise ValueError("audit needs a URL (REDIS_URL) or a client")
    own = ReadOnly(client) if client is not None else ReadOnly.connect(url, timeout)
    try:
        return _audit(own, url, match=match, sample=sample, rate=rate, progress=progress,
                      label=label, snapshot=snapshot, only=db)  # fmt: skip
    except redis.exceptions.ConnectionError as err:
        if isinstance(err, SetlabError):  # worded already: reach(), or ReadOnly's "lost"
            raise
        raise ServerUnavailable(f"lost the server during the audit: {err}") from None
    finally:
        if client is None:  # a client given is its owner's to close
            own.close()


def _audit(
    db: ReadOnly, url: str | None, *, match: str | None, sample: int | None, rate: float,
    progress: bool, label: str | None, snapshot: dict[str, Any] | None, only: int | None,
) -> Audit:  # fmt: skip
    """:func:`audit` on a client open: the server's facts, then each database chosen."""
    from setlab.core.progress import Progress

    db.reach(_address(url) if url else "the server", bool(url and url.startswith("rediss:")))
    untouched = no_touch(db)
    facts, refused = server_facts(db)
    profile = server_profile(db)
    facts.update(_profile_json(profile))
    facts["address"] = label or (_address(url) if url else "the server")
    if snapshot is not None:
        facts["snapshot"] = snapshot
    can = Permissions(refused=set(refused))
    mine = int(db.client.connection_pool.connection_kwargs.get("db") or 0)
    dbs = _databases(keyspace(db), mine, facts.get("keys"), only, url)
    chosen = [n for n, d in sorted(dbs.each.items()) if d.read is not None]
    total = sum(dbs.each[n].keys or 0 for n in chosen)
    facts["keys"] = total
    report = Progress(total, "auditing", progress, unit="keys")
    cluster = str(facts.get("cluster_enabled", "0")) == "1"
    grouper = Grouper(Context.of(profile, facts.get("config"), cluster))
    found, groups = Scan(complete=True), []
    for number in chosen:
        handle = db if number == mine else db.on(number)
        try:
            if handle is not db:
                untouched = no_touch(handle) and untouched
            grouper.select(number)
            part = scan(handle, can, grouper, match=match, sample=sample, rate=rate,
                        progress=report)  # fmt: skip
        finally:
            if handle is not db:
                handle.close()
        listed = dbs.each[number].keys
        # a sample of the keys matching a pattern cannot be scaled by the database's count
        groups += grouper.result(part, None if match else listed)
        dbs.each[number] = Database(
            listed, part.read, grouper.bytes if grouper.measured else None, part.complete
        )
        found.read += part.read
        found.scanned += part.scanned
        found.seconds += part.seconds
    if progress and found.scanned > 1000:
        report.close()
    found.complete = dbs.complete
    notes = _notes(facts, can, untouched)
    return Audit(facts, found, biggest_first(groups), notes, profile, grouper.context, dbs)


def _databases(
    listed: dict[int, int] | None, mine: int, dbsize: int | None, only: int | None,
    url: str | None,
) -> Databases:  # fmt: skip
    """The databases the server lists (``INFO keyspace``; the client's own, with DBSIZE's
    count, when this user may not run INFO), each marked to be read (``read=0``) or not: all of
    them, or ``only`` (``--db``), or the one the URL names."""
    each = {n: Database(keys) for n, keys in (listed or {}).items()}
    named = (named_database(url) or None) if url else None  # /0: the usual form, no choice
    if only is not None:
        pick, why = only, f"--db {only}"
    elif named is not None:
        pick, why = named, "the URL names it"
    elif listed is None:
        pick, why = mine, "this user may not run INFO, which lists the others"
    else:
        pick, why = None, ""
    for n in (sorted(each) or [mine]) if pick is None else [pick]:
        unknown = dbsize if n == mine else None
        each.setdefault(n, Database(unknown if listed is None else 0)).read = 0
    return Databases(each, why, listed=listed is not None)


def _profile_json(profile: ServerProfile) -> dict[str, Any]:
    """The server's profile as the JSON ``server`` object gives it: ``name`` ("Valkey 8.1.8"),
    ``flavour``, ``version`` (the flavour's own), ``allocator`` (as ``INFO`` says it, with
    jemalloc's quantum), ``release`` and ``model_allocator`` (the build the models price it as;
    ``None`` when they know no layout for it) and ``models`` (exact, modelled or unknown)."""
    from setlab.lab.versions import version_text

    return {
        "name": profile.name, "flavour": profile.flavour or None,
        "version": version_text(profile.version) or None,
        "allocator": profile.allocator_text, "quantum": profile.quantum,
        "release": profile.build.release if profile.build else None,
        "model_allocator": profile.build.allocator if profile.build else None,
        "models": profile.models,
    }  # fmt: skip


def _notes(facts: dict[str, Any], can: Permissions, untouched: bool) -> list[str]:
    """What the reader should know about how this audit was made."""
    notes = []
    what = {
        "MEMORY USAGE": "bytes per key and group are left out",
        "INFO": "used_memory and maxmemory are unknown",
        "CONFIG GET": "the thresholds are Redis's defaults",
        "BF.INFO": "Bloom filters are listed without their load",
        "CF.INFO": "cuckoo filters are listed without their load",
        "MODULE LIST": "loaded modules are unknown",
    }
    for command in sorted(can.refused):
        notes.append(f"this user may not run {command}: {what.get(command, 'not measured')}")
    if can.unreadable:
        notes.append(
            f"this user may not read {can.unreadable:,} of the keys SCAN listed (its ACL key "
            "patterns): they are left out"
        )
    if not untouched:
        notes.append(
            "reads updated the keys' LRU/LFU clocks, as any client's do (CLIENT NO-TOUCH, which "
            "avoids it, needs Redis 7.2)"
        )
    if str(facts.get("cluster_enabled", "0")) == "1":
        notes.append(
            "this is a Redis Cluster node: only its own keys were read; audit each master "
            "(a key lives on the one that owns its slot)"
        )
    return notes
