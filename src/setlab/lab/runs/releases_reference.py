"""``releases-reference.json`` read back: the same cases on every release, one column each.

``reference/measure_releases.py`` runs :mod:`setlab.lab.runs.releases` on every server
:func:`setlab.lab.servers.available` lists and stores one labelled block per server (release
name, version, allocator build, ``mem_allocator``, modules, machine, date) and every row, each
naming its server and allocator. :class:`ReleasesReference` reads it; :meth:`~ReleasesReference.
table` builds the "6.2 · 7.0 · 8.2 · Valkey 8.1" table a page shows (header and text cells,
formatted by :mod:`setlab.core.formats`; :func:`setlab.render.tables.markdown_table` draws it).
A release the run did not have is a column the table leaves out: the table says what was
measured, never a blank for a server that was not there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from setlab.core.formats import format_bytes, format_duration
from setlab.lab import reference

NAME = "releases-reference"

#: the labels every row carries (the book's labelling rule: version, allocator; the block of its
#: server adds machine and date)
ROW_LABELS = ("server", "flavour", "version", "allocator", "mem_allocator")


@dataclass(frozen=True)
class ServerRun:
    """One server of the run: what labels its column."""

    server: str  #: the release name, as :mod:`setlab.lab.servers` names it ("8.2")
    flavour: str  #: "Redis" or "Valkey"
    version: str  #: what the server reported ("8.2.3"; Valkey's own version)
    allocator: str  #: the allocator build, as :mod:`setlab.models.allocator` names it
    mem_allocator: str  #: ``INFO memory``'s ``mem_allocator`` ("jemalloc-5.3.0", "libc")
    modules: Mapping[str, int]
    run: reference.RunInfo  #: its date and machine (:attr:`RunInfo.label`)

    @property
    def label(self) -> str:
        """``reference run: Valkey 8.1.8 (libc), <cpu>, 2 cores, measured <date>``."""
        return (
            f"reference run: {self.flavour} {self.version} ({self.mem_allocator}), {self.run.cpu}, "
            f"{self.run.cores} cores, measured {self.run.measured}"
        )

    def module_version(self, name: str) -> str:
        """A loaded module's version as its releases are named (``20802`` → ``"2.8.2"``)."""
        if name not in self.modules:
            raise ValueError(f"module {name!r} was not loaded into {self.flavour} {self.version}")
        number = int(self.modules[name])
        return f"{number // 10000}.{number // 100 % 100}.{number % 100}"

    @property
    def column(self) -> str:
        """The table's header for it: ``Redis 8.2.3 (jemalloc-5.3.0)``."""
        return f"{self.flavour} {self.version} ({self.mem_allocator})"


class Table(NamedTuple):
    """A table of text cells: ``header[0]`` names the rows' first cell, then one column a server
    (``markdown_table(*table)`` draws it)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def _at_most_once(rows: list[Mapping[str, Any]], what: str) -> Mapping[str, Any] | None:
    if len(rows) > 1:
        raise ValueError(f"{what} was measured {len(rows)} times; expected once")
    return rows[0] if rows else None


def _per_member(row: Mapping[str, Any]) -> str:
    return f"{row['allocated'] / row['n']:.1f} B ({row['encoding']})"


def _usage_gap(row: Mapping[str, Any]) -> str:
    gap = row["memory_usage"] / row["allocated"] - 1
    return f"{gap:+.0%}"


def _bitmap(row: Mapping[str, Any]) -> str:
    slack = row["allocated"] - row["strlen"]
    return f"{format_bytes(row['allocated'])} ({slack:+,} B over STRLEN)"


def _hll(row: Mapping[str, Any]) -> str:
    return f"{row['strlen']:,} B {row['encoding']}; {row['allocated']:,} B held"


def _bytes(field: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda row: f"{row[field]:,} B"


def _microseconds(field: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda row: format_duration(row[field] / 1e6)


def _milliseconds(field: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda row: format_duration(row[field] / 1e3)


def _seed_spread(row: Mapping[str, Any]) -> str:
    return f"{row['min']:,}–{row['max']:,} B ({row['starts']} starts)"


_SET_CASES = (
    ("integer ids", 100),
    ("8-byte strings", 100),
    ("16-hex device ids", 129),
    ("integer ids", 100_000),
    ("16-hex device ids", 100_000),
    ("UUIDs", 100_000),
    ("8-byte strings", 100_000),
    ("integer ids", 1_000_000),
    ("16-hex device ids", 1_000_000),
)

#: quantity → (header of the first column, its rows: (label, case, what to match, cell))
_Rows = tuple[tuple[str, str, Mapping[str, Any], Callable[[Mapping[str, Any]], str]], ...]
QUANTITIES: dict[str, tuple[str, _Rows]] = {
    "set bytes per member": (
        "SET (allocated ÷ members, encoding)",
        tuple(
            (f"{n:,} {kind}", "set", {"kind": kind, "n": n}, _per_member) for kind, n in _SET_CASES
        ),
    ),
    "set usage gap": (
        "SET (MEMORY USAGE over allocated)",
        tuple(
            (f"{n:,} {kind}", "set", {"kind": kind, "n": n}, _usage_gap) for kind, n in _SET_CASES
        ),
    ),
    "key": (
        "SET key x (one small string key)",
        (
            ("MEMORY USAGE", "key", {}, _bytes("memory_usage")),
            ("allocated", "key", {}, _bytes("allocated")),
        ),
    ),
    "bitmap": (
        "one bit set (allocated)",
        tuple(
            (f"at offset {offset:,}", "bitmap", {"offset": offset}, _bitmap)
            for offset in (2**20, 2**32 - 1)
        ),
    ),
    "hll": (
        "HyperLogLog of n readers (string, held)",
        tuple((f"{n:,}", "hll", {"n": n}, _hll) for n in (300, 1_000, 1_500, 20_000)),
    ),
    "del": (
        "DEL of a SET of 1,000,000 integer IDs",
        (
            ("inside the server (median of 3)", "del", {}, _microseconds("server_us")),
            ("seen by the client", "del", {}, _microseconds("client_us")),
            ("lazyfree-lazy-user-del", "del", {}, lambda row: row["lazyfree_lazy_user_del"]),
            ("objects pending a background free", "del", {}, lambda row: f"{row['pending_after']}"),
            ("memory freed after", "del", {}, _milliseconds("freed_after_ms")),
        ),
    ),
    "bloom": (
        "BF.RESERVE key 0.01 1000000",
        (
            ("BF.INFO Size", "bloom", {}, _bytes("bf_info_size")),
            ("MEMORY USAGE", "bloom", {}, _bytes("memory_usage")),
            ("allocated", "bloom", {}, _bytes("allocated")),
        ),
    ),
    "hash seed": (
        "129 device IDs, fresh starts (allocated)",
        (("fewest – most bytes", "hash seed", {}, _seed_spread),),
    ),
}


@dataclass(frozen=True)
class ReleasesReference:
    """The stored run: its label, its servers (oldest first) and every row."""

    run: reference.RunInfo
    servers: tuple[ServerRun, ...]
    rows: tuple[Mapping[str, Any], ...]
    missing: tuple[str, ...] = ()  #: one line per release the machine did not have

    @classmethod
    @cache
    def load(cls) -> ReleasesReference:
        """The stored run (read once)."""
        return cls.from_document(reference.load(NAME))

    @classmethod
    def from_document(cls, doc: reference.Document) -> ReleasesReference:
        """The run in a :class:`~setlab.lab.reference.Document` (the stored file, or a test's)."""
        servers = tuple(
            ServerRun(
                server=block["release"],
                flavour=block["flavour"],
                version=block["version"],
                allocator=block["allocator"],
                mem_allocator=block["mem_allocator"],
                modules=dict(block["server"].get("modules", {})),
                run=reference.run_info(NAME, block),
            )
            for block in doc.data["servers"]
        )
        rows = tuple(doc.data["rows"])
        if unlabelled := rows_without_labels(rows):
            raise ValueError(f"rows must name their {', '.join(ROW_LABELS)}; got {unlabelled[0]}")
        return cls(doc.run, servers, rows, tuple(doc.data.get("missing", ())))

    def server(self, name: str) -> ServerRun:
        """The server of release ``name`` ("7.0", "valkey-8.1", …)."""
        for candidate in self.servers:
            if candidate.server == name:
                return candidate
        raise ValueError(f"server must be one of {[s.server for s in self.servers]}; got {name!r}")

    def find(self, server: str, case: str, **match: Any) -> Mapping[str, Any] | None:
        """The one row of ``case`` on ``server`` whose fields equal ``match``, or ``None``."""
        rows = [
            row
            for row in self.rows
            if row["server"] == server
            and row["case"] == case
            and all(row.get(k) == v for k, v in match.items())
        ]
        return _at_most_once(rows, f"{case} {match} on {server}")

    def row(self, server: str, case: str, **match: Any) -> Mapping[str, Any]:
        """:meth:`find`, or a ``ValueError`` naming what was not measured."""
        found = self.find(server, case, **match)
        if found is None:
            raise ValueError(f"no {case} {match} was measured on {server}")
        return found

    def table(self, quantity: str) -> Table:
        """The table of ``quantity`` (one of :data:`QUANTITIES`): a row a case, a column a server
        (a server that did not measure a case shows "not measured")."""
        if quantity not in QUANTITIES:
            raise ValueError(f"quantity must be one of {', '.join(QUANTITIES)}; got {quantity!r}")
        first, specs = QUANTITIES[quantity]
        body = []
        for label, case, match, cell in specs:
            found = [self.find(s.server, case, **match) for s in self.servers]
            body.append((label, *(cell(r) if r else "not measured" for r in found)))
        return Table((first, *(s.column for s in self.servers)), tuple(body))


def releases_table(quantity: str) -> Table:
    """:meth:`ReleasesReference.table` of the stored run."""
    return ReleasesReference.load().table(quantity)


def rows_without_labels(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows that miss one of :data:`ROW_LABELS` (a stored run has none)."""
    return [row for row in rows if any(not row.get(label) for label in ROW_LABELS)]
