"""What a SET member costs on every release measured, and how far ``MEMORY USAGE`` is from it:
the stored per-release run (:mod:`setlab.lab.runs.releases_reference`), which the page leads with.

From Redis 7.2 ``setDictType`` (``src/server.c``) has ``.no_value = 1`` (redis/redis#11595): a
member alone in its bucket is stored in the bucket, with no ``dictEntry``. ``objectComputeSize``
(``src/object.c``) still adds ``dictEntryMemUsage()`` for every member, so on 8.2.3
``MEMORY USAGE`` of a hashtable set is well above what the server allocates for it.
"""

from __future__ import annotations

from setlab.lab.runs.releases_reference import ReleasesReference
from setlab.render.claims import Figures
from setlab.render.tables import markdown_table

#: the set the page's sentence quotes: seed 003's member kind, a million of them
KIND, MEMBERS = "16-hex device ids", 1_000_000
#: the smallest hashtable sets whose MEMORY USAGE gap the sentence quotes
GAP_FROM = 10_000


def run() -> ReleasesReference:
    """The stored per-release run."""
    return ReleasesReference.load()


def markdown() -> str:
    """Allocated bytes per member, then ``MEMORY USAGE`` over allocated, a column a release."""
    tables = (run().table(q) for q in ("set bytes per member", "set usage gap"))
    return "\n\n".join(markdown_table(*table) for table in tables)


def per_member(server: str) -> str:
    """Allocated bytes per member of the :data:`MEMBERS`-member set of :data:`KIND`."""
    row = run().find(server, "set", kind=KIND, n=MEMBERS)
    return f"{row['allocated'] / row['n']:.1f} B" if row else "not measured"


def usage_gap(server: str) -> str:
    """How far ``MEMORY USAGE`` exceeds the allocation, fewest to most, over the hashtable sets
    of at least :data:`GAP_FROM` members of every kind measured on ``server``."""
    gaps = [
        row["memory_usage"] / row["allocated"] - 1
        for row in run().rows
        if row["server"] == server
        and row["case"] == "set"
        and row["encoding"] == "hashtable"
        and row["n"] >= GAP_FROM
    ]
    return f"{min(gaps):+.0%} to {max(gaps):+.0%}" if gaps else "not measured"


def register(figures: Figures) -> None:
    """The page's figures from the per-release run."""
    for name, server in (
        ("rsm-rel-70", "7.0"),
        ("rsm-rel-82", "8.2"),
        ("rsm-rel-vk", "valkey-8.1"),
    ):
        figures.add(
            name,
            lambda server=server: per_member(server),
            quantity=f"allocated bytes per member of a SET of {MEMBERS:,} {KIND} | "
            f"used_memory freed by DEL | per-release run, {server}",
        )
    figures.add("rsm-rel-gap-82", lambda: usage_gap("8.2"))
