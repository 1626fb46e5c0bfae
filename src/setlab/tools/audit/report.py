"""An audit's keys grouped by pattern, with their findings: the terminal's table and ``--json``.

Keys meet in a group when they share a pattern (:func:`setlab.tools.audit.patterns.pattern`)
and a type. A group reports its keys, bytes (``MEMORY USAGE``, when the server lets this user
run it), the share with a TTL, its encodings, and its keys' findings, worst first. When the audit
read a sample of the keyspace, keys and bytes are scaled to the whole (``DBSIZE``) and given with
a 95 % interval. A group of hash table SETs on Redis 7.2 or later (or Valkey) also gives what
its keys allocate by the set model (:func:`setlab.tools.audit.findings.set_allocation`), beside
``MEMORY USAGE``, which there overstates it.

The header names the server as it is (Redis or Valkey, its own version, its allocator), how
the book's models fit it, the build every alternative is priced for, and which databases were
read (each with its keys and bytes; those left out with the keys they hold); for a snapshot, how
many keys its load dropped, their TTL passed. Groups are per database: a group carries its
``db``, and the table shows it when more than one database was read.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from setlab.core.formats import format_bytes
from setlab.tools.audit.findings import Context, Finding, findings, set_allocation
from setlab.tools.audit.patterns import OTHER, PatternTable
from setlab.tools.audit.reader import KeyInfo, Scan

if TYPE_CHECKING:
    from setlab.lab.versions import ServerProfile

#: Findings listed per group in JSON (the rest are counted), and in the terminal's list.
FINDINGS_PER_GROUP, FINDINGS_SHOWN, GROUPS_SHOWN = 20, 15, 25


@dataclass
class Group:
    """Keys of one pattern and type."""

    pattern: str
    type: str
    keys: int = 0
    bytes: int | None = 0
    with_ttl: int = 0
    #: what its hash table SETs allocate by the set model, where MEMORY USAGE does not say it
    #: (None: no such key in the group)
    allocated: int | None = None
    encodings: Counter = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)  #: the worst, at most a few dozen
    findings_total: int = 0
    scale: float = 1.0  #: keys in the keyspace per key read (1: all were read)
    sample: int = 1  #: keys read in all (every group's), when :attr:`scale` is not 1
    #: the database its keys are in: a field, not a ``db2:`` prefix on the pattern, which
    #: would read as part of the key names (keys often begin ``word:``) and could not be
    #: pasted into SCAN MATCH
    db: int = 0

    def add(self, info: KeyInfo, found: list[Finding], allocated: int | None = None) -> None:
        self.keys += 1
        if allocated is not None:
            self.allocated = (self.allocated or 0) + allocated
        self.bytes = None if self.bytes is None or info.bytes is None else self.bytes + info.bytes
        self.with_ttl += info.ttl_ms is not None and info.ttl_ms >= 0
        self.encodings[info.encoding or "?"] += 1
        self.findings_total += len(found)
        self.findings += found
        if len(self.findings) > 2 * FINDINGS_PER_GROUP:  # keep the worst: memory stays bounded
            self.findings = sorted(self.findings, key=lambda f: f.rank)[:FINDINGS_PER_GROUP]

    def absorb(self, other: Group) -> None:
        """Take in ``other``'s keys: the pattern table folds groups into one
        (:class:`setlab.tools.audit.patterns.PatternTable`)."""
        self.keys += other.keys
        self.bytes = None if self.bytes is None or other.bytes is None else self.bytes + other.bytes
        if other.allocated is not None:
            self.allocated = (self.allocated or 0) + other.allocated
        self.with_ttl += other.with_ttl
        self.encodings.update(other.encodings)
        self.findings_total += other.findings_total
        self.findings = sorted(self.findings + other.findings, key=lambda f: f.rank)
        del self.findings[2 * FINDINGS_PER_GROUP :]

    @property
    def encoding(self) -> str:
        return "/".join(e for e, _ in self.encodings.most_common())

    def estimated(self, value: int) -> tuple[int, int, int]:
        """(estimate, low, high) over the whole keyspace of a sum over this group's keys read
        (its keys, its bytes): scaled by keys in all / keys read, within the 95 % Wilson
        interval of the group's share of a simple random sample of ``sample`` keys (the bytes
        take the keys' relative interval)."""
        if self.scale == 1.0:
            return value, value, value
        n, share, z = self.sample, self.keys / self.sample, 1.96
        centre = (share + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
        estimate = value * self.scale
        low, high = estimate * (centre - half) / share, estimate * (centre + half) / share
        return round(estimate), max(0, math.floor(low)), math.ceil(high)

    def as_json(self) -> dict[str, Any]:
        ranked = sorted(self.findings, key=lambda f: f.rank)
        keys, keys_low, keys_high = self.estimated(self.keys)
        out: dict[str, Any] = {
            "db": self.db, "pattern": self.pattern, "type": self.type, "encoding": self.encoding,
            "keys": keys, "bytes": None if self.bytes is None else self.estimated(self.bytes)[0],
            "ttl_share": self.with_ttl / self.keys,
            "findings": [f.as_json() for f in ranked[:FINDINGS_PER_GROUP]],
            "findings_total": self.findings_total,
        }  # fmt: skip
        if self.allocated is not None:
            out["allocated_model"] = self.estimated(self.allocated)[0]
        if self.scale != 1.0:
            out["estimated"] = {"keys_read": self.keys, "keys_95": [keys_low, keys_high]}
        return out


@dataclass
class Database:
    """One database: the keys the server lists in it, and what the audit read of it."""

    keys: int | None  #: what ``INFO keyspace`` (or DBSIZE) lists; None: unknown
    read: int | None = None  #: keys read; None: not audited
    bytes: int | None = None  #: their MEMORY USAGE; None: not read, or not measured
    complete: bool = False  #: SCAN went round the whole database (no sample)

    def as_json(self) -> dict[str, Any]:
        return {"keys": self.keys, "read": self.read, "bytes": self.bytes,
                "complete": self.complete}  # fmt: skip


@dataclass
class Databases:
    """Which databases the server holds and which were read: all those ``INFO keyspace``
    lists, or the one ``--db`` (or the URL) chose."""

    each: dict[int, Database] = field(default_factory=dict)
    chosen_by: str = ""  #: why only one was read ("--db 0", "the URL"); "" when all were
    listed: bool = True  #: the server listed its databases (this user may run INFO)

    @property
    def complete(self) -> bool:
        """Every key of every database the server lists was read."""
        return self.listed and bool(self.each) and all(d.read is not None and d.complete
                                       for d in self.each.values())  # fmt: skip

    def as_json(self) -> dict[str, Any]:
        return {str(n): d.as_json() for n, d in sorted(self.each.items())}


def _keys(n: int) -> str:
    return f"{n:,} key{'s' * (n != 1)}"


def databases_line(dbs: Databases) -> str:
    """What was read, database by database: ``read all 2 databases: db 0 (3 keys, 1.2 KiB), db 2
    (5 keys, …)``, or ``read db 0 only (--db 0); db 2 holds 5 more keys, not read``."""
    read = {n: d for n, d in sorted(dbs.each.items()) if d.read is not None}
    shown = ", ".join(
        f"db {n} ({_keys(d.read or 0)}" + (f", {format_bytes(d.bytes)})" if d.bytes is not None
                                           else ")")
        for n, d in read.items()
    )  # fmt: skip
    if not dbs.chosen_by:
        count = len(read)
        return f"read all {count} database{'s' * (count != 1)}: {shown}"
    only = " and ".join(f"db {n}" for n in read)
    line = f"read {only} only ({dbs.chosen_by}): {shown}"
    skipped = [(n, d) for n, d in sorted(dbs.each.items()) if d.read is None]
    if skipped:
        held = [f"db {n} holds " + ("keys" if d.keys is None else f"{d.keys:,}")
                + f" more key{'s' * (d.keys != 1)}" for n, d in skipped]  # fmt: skip
        line += "; " + ", ".join(held) + ", not read"
    return line


def expired_on_load_line(server: dict[str, Any]) -> str:
    """How many of a snapshot's keys the server dropped as it loaded them, their TTL passed
    (``rdb_last_load_keys_expired``, INFO persistence, Redis 7.0+)."""
    expired = server.get("rdb_last_load_keys_expired")
    if expired is None:
        return "expired on load: not reported by this server"
    loaded = server.get("rdb_last_load_keys_loaded")
    of = f" ({loaded:,} loaded)" if loaded is not None else ""
    return f"expired on load: {_keys(int(expired))}, their TTL passed before the load{of}"


@dataclass
class Audit:
    """What an audit found: the server, how the keyspace was read, the groups, the notes."""

    server: dict[str, Any]
    scan: Scan
    groups: list[Group]
    notes: list[str]
    profile: ServerProfile | None = None
    context: Context = field(default_factory=Context)  #: the build the prices are for
    databases: Databases | None = None  #: which databases were read (None: not recorded)

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for g in self.groups for f in g.findings), key=lambda f: f.rank)

    def as_json(self) -> dict[str, Any]:
        ctx = self.context
        priced = {"release": ctx.build.release, "allocator": ctx.build.allocator,
                  "note": ctx.build_note or None}  # fmt: skip
        return {
            "server": {**self.server, "priced_for": priced},
            "scan": {"keys_read": self.scan.read, "keys_scanned": self.scan.scanned,
                     "complete": self.scan.complete, "seconds": round(self.scan.seconds, 3)},
            "databases": self.databases.as_json() if self.databases else None,
            "groups": [g.as_json() for g in self.groups],
            "notes": self.notes,
        }  # fmt: skip

    def text(self) -> str:
        return render_text(self)


class Grouper:
    """Keys grouped as they are read (:func:`setlab.tools.audit.reader.scan`'s sink)."""

    def __init__(self, context: Context | None = None) -> None:
        self.context = context or Context()
        self.db = 0  #: the database being read (:meth:`select`)
        #: one table a database, each bounded: patterns.GROUPS_HELD groups at most
        self.tables: dict[int, PatternTable[Group]] = {}
        self.groups = self.select(0)
        self.bytes = 0  #: MEMORY USAGE of the keys read in this database
        self.measured = True  #: every key read in this database had its MEMORY USAGE

    def select(self, db: int) -> PatternTable[Group]:
        """Read database ``db`` next: its keys go to groups of their own."""
        self.db, self.bytes, self.measured = db, 0, True
        self.groups = self.tables.setdefault(db, PatternTable(Group))
        return self.groups

    def __call__(self, infos: list[KeyInfo]) -> None:
        for info in infos:
            group = self.groups.group(info.key, info.type)
            group.db = self.db
            group.add(info, findings(info, self.context), set_allocation(info, self.context))
            if info.bytes is None:
                self.measured = False
            else:
                self.bytes += info.bytes

    def result(self, scan: Scan, total_keys: int | None) -> list[Group]:
        """The current database's groups, scaled to ``total_keys`` when the scan read only a
        sample; biggest first (bytes, else keys), the other patterns' group last."""
        scale = total_keys / scan.read if not scan.complete and total_keys and scan.read else 1.0
        groups = self.groups.result()
        for g in groups:
            g.scale, g.sample, g.db = scale, scan.read, self.db
        return groups


def biggest_first(groups: list[Group]) -> list[Group]:
    """Groups of several databases in one list, biggest first as each database's are (bytes,
    else keys; estimated for the whole database where it was sampled, as each database is scaled
    by its own count), the other patterns' groups last."""

    def size(g: Group) -> tuple[int, int, int, str]:
        nbytes = g.estimated(g.bytes)[0] if g.bytes else 0
        return -nbytes, -g.estimated(g.keys)[0], g.db, g.pattern

    named = sorted((g for g in groups if g.pattern != OTHER), key=size)
    return named + [g for g in groups if g.pattern == OTHER]


def _bytes(value: int | None) -> str:
    return "—" if value is None else format_bytes(value)


def header(audit: Audit) -> list[str]:
    """The header's first lines: the server (Redis or Valkey, its own version, allocator, how
    the models fit it), the snapshot it loaded if any, and the build the prices are for."""
    s, ctx = audit.server, audit.context
    where = s.get("address", "the server")
    profile = audit.profile
    lines = [f"setlab audit of {where}" + (f": {profile.summary}" if profile else "")]
    snapshot = s.get("snapshot")
    if snapshot:
        lines.append(f"  RDB format {snapshot['format']}, written by {snapshot['writer']}; "
                     f"loaded by {snapshot['loaded_by']}")  # fmt: skip
    priced = f"  alternatives priced for {ctx.build.label}"
    lines.append(priced + (f" ({ctx.build_note})" if ctx.build_note else ""))
    if profile is not None and profile.warning:
        lines.append(f"  {profile.warning}")
    if audit.databases is not None:
        lines.append(f"  {databases_line(audit.databases)}")
    if snapshot:
        lines.append(f"  {expired_on_load_line(s)}")
    return lines


def render_text(audit: Audit) -> str:
    """The audit as the terminal shows it: the server, the worst findings, the groups."""
    s, scan = audit.server, audit.scan
    head = header(audit)
    read = f"{scan.read:,} key{'s' * (scan.read != 1)} read in {scan.seconds:.1f} s"
    dbs = audit.databases
    read_dbs = [d for d in dbs.each.values() if d.read is not None] if dbs else []
    if not all(d.complete for d in read_dbs) if dbs else not scan.complete:
        read += f", a sample of {s.get('keys', '?'):,} (keys and bytes below are scaled to all)"
    head.append(f"  {read}; nothing written")
    if "used_memory" in s:
        limit = s.get("maxmemory") or 0
        of = f" of maxmemory {format_bytes(limit)}" if limit else ", no maxmemory"
        head.append(f"  used_memory {format_bytes(s['used_memory'])}{of}")
    if any(g.allocated is not None for g in audit.groups):
        head.append(
            f"  note: on {audit.context.server} MEMORY USAGE does not say what a hash table SET "
            'allocates; "allocated" is the set model\'s figure for it'
        )
    head += [f"  note: {note}" for note in audit.notes]
    found = audit.findings
    several = len({g.db for g in audit.groups}) > 1
    where = {id(f): g.db for g in audit.groups for f in g.findings}
    lines = [*head, "", f"Findings, worst first ({len(found):,}):"]
    if not found:
        lines.append("  none")
    for f in found[:FINDINGS_SHOWN]:
        db = f" (db {where[id(f)]})" if several else ""
        lines.append(f"  [{f.severity}] {f.kind} {f.key}{db}")
        lines.append(f"      {f.message} (chapter {f.chapter})")
    if len(found) > FINDINGS_SHOWN:
        lines.append(f"  … and {len(found) - FINDINGS_SHOWN:,} more (--json lists them)")
    lines += ["", "Keys by pattern, biggest first:"]
    table = [(*(("db",) if several else ()),
              "pattern", "type", "encoding", "keys", "bytes", "TTL", "findings")]  # fmt: skip
    for g in audit.groups[:GROUPS_SHOWN]:
        keys = g.estimated(g.keys)[0]
        nbytes = None if g.bytes is None else g.estimated(g.bytes)[0]
        shown = _bytes(nbytes)
        if g.allocated is not None:
            shown += f" ({format_bytes(g.estimated(g.allocated)[0])} allocated)"
        table.append((*((str(g.db),) if several else ()), g.pattern, g.type, g.encoding,
                      f"{keys:,}", shown, f"{g.with_ttl / g.keys:.0%}",
                      f"{g.findings_total:,}"))  # fmt: skip
    widths = [min(48, max(len(row[i]) for row in table)) for i in range(len(table[0]))]
    for row in table:
        cells = [
            (c if len(c) <= w else c[: w - 1] + "…").ljust(w)
            for c, w in zip(row, widths, strict=True)
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    if len(audit.groups) > GROUPS_SHOWN:
        lines.append(f"  … and {len(audit.groups) - GROUPS_SHOWN:,} more patterns (--json)")
    return "\n".join(lines)
