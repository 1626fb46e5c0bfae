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
    database,
    no_touch,
    scan,
    server_facts,
    server_profile,
)
from setlab.tools.audit.report import Audit, Grouper

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
) -> Audit:  # fmt: skip
    """Audit the server at ``url`` (or behind ``client``): every key, or the first ``sample``
    SCAN returns, read at most ``rate`` keys a second, each command answered within ``timeout``
    seconds or the audit stops. ``label`` names the server in the report (default: its
    address, without credentials); ``snapshot`` says what wrote the snapshot the server loaded
    and which server loaded it (:meth:`setlab.tools.audit.snapshot.Loaded.as_json`).

    The alternatives each finding prices are priced for the server's own release and allocator
    (its :class:`~setlab.lab.versions.ServerProfile`), the book's reference build when the
    models know neither."""
    from setlab.core.progress import Progress

    if client is None and url is None:
        raise ValueError("audit needs a URL (REDIS_URL) or a client")
    db = ReadOnly(client) if client is not None else ReadOnly.connect(url, timeout)
    try:
        db.reach(_address(url) if url else "the server", bool(url and url.startswith("rediss:")))
        untouched = no_touch(db)
        facts, refused = server_facts(db)
        profile = server_profile(db)
        facts.update(_profile_json(profile))
        facts["address"] = label or (_address(url) if url else "the server")
        if snapshot is not None:
            facts["snapshot"] = snapshot
        can = Permissions(refused=set(refused))
        report = Progress(facts.get("keys"), "auditing", progress, unit="keys")
        cluster = str(facts.get("cluster_enabled", "0")) == "1"
        grouper = Grouper(Context.of(profile, facts.get("config"), cluster))
        found = scan(db, can, grouper, match=match, sample=sample, rate=rate, progress=report)
        if progress and found.scanned > 1000:
            report.close()
        # a sample of the keys matching a pattern cannot be scaled by DBSIZE, which counts all
        groups = grouper.result(found, None if match else facts.get("keys"))
        return Audit(facts, found, groups, _notes(facts, can, untouched), profile, grouper.context)
    except redis.exceptions.ConnectionError as err:
        if isinstance(err, SetlabError):  # worded already: reach(), or ReadOnly's "lost"
            raise
        raise ServerUnavailable(f"lost the server during the audit: {err}") from None
    finally:
        if client is None:  # a client given is its owner's to close
            db.close()


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
