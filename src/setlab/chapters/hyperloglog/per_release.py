"""Sparse HyperLogLogs on every release measured (the stored per-release run,
:mod:`setlab.lab.runs.releases_reference`): the string is the same everywhere, the bytes the
server holds for it are not. Up to 7.0 ``sdsMakeRoomFor`` grows the sparse string greedily (about
twice what it needs); from 7.2 it grows less and never past ``hll-sparse-max-bytes``
(redis/redis#11438).
"""

from __future__ import annotations

from setlab.lab.runs.releases_reference import ReleasesReference
from setlab.render.claims import Figures
from setlab.render.tables import markdown_table

#: the sparse sizes the page compares (readers), and the one its sentence quotes
SPARSE = (300, 1_000, 1_500)
QUOTED = 1_000


def run() -> ReleasesReference:
    """The stored per-release run."""
    return ReleasesReference.load()


def markdown() -> str:
    """Each HyperLogLog: its string (length, encoding) and the bytes held, a column a release."""
    return markdown_table(*run().table("hll"))


def _held(server: str, n: int) -> int | None:
    row = run().find(server, "hll", n=n)
    return row["allocated"] if row else None


def held(server: str, n: int = QUOTED) -> str:
    """The bytes a HyperLogLog of ``n`` readers held on ``server``."""
    value = _held(server, n)
    return f"{value:,} B" if value is not None else "not measured"


def strlen(n: int = QUOTED) -> str:
    """The sparse string's length for ``n`` readers (one figure when every server agrees)."""
    found = {row["strlen"] for s in run().servers if (row := run().find(s.server, "hll", n=n))}
    return " / ".join(f"{v:,} B" for v in sorted(found)) or "not measured"


def shrink(old: str = "7.0", new: str = "8.2") -> str:
    """How much less ``new`` held than ``old`` for the :data:`SPARSE` sizes, least to most."""
    pairs = [(_held(old, n), _held(new, n)) for n in SPARSE]
    cuts = [1 - b / a for a, b in pairs if a and b]
    return f"{min(cuts):.0%} to {max(cuts):.0%}" if cuts else "not measured"


def register(figures: Figures) -> None:
    """The page's figures from the per-release run."""
    figures.add("hll-rel-strlen", strlen)
    figures.add("hll-rel-70", lambda: held("7.0"))
    figures.add("hll-rel-82", lambda: held("8.2"))
    figures.add("hll-rel-shrink", shrink)
