"""``DEL`` of a million-member SET on every release measured (the stored per-release run,
:mod:`setlab.lab.runs.releases_reference`): Redis frees it on the main thread, Valkey 8 ships
``lazyfree-lazy-user-del yes`` and hands it to a background thread."""

from __future__ import annotations

from setlab.core.formats import format_duration
from setlab.lab.runs.releases_reference import ReleasesReference
from setlab.render.claims import Figures
from setlab.render.tables import markdown_table


def run() -> ReleasesReference:
    """The stored per-release run."""
    return ReleasesReference.load()


def markdown() -> str:
    """The ``DEL``: time inside the server and at the client, the setting, the background free."""
    return markdown_table(*run().table("del"))


def _deletes(lazy: bool) -> list:
    """The ``DEL`` rows of the servers that free lazily by default, or of the others."""
    found = (run().find(s.server, "del") for s in run().servers)
    return [row for row in found if row and (row["lazyfree_lazy_user_del"] == "yes") == lazy]


def stall(lazy: bool, field: str = "server_us", versions: bool = True) -> str:
    """The median ``DEL`` time (``field``, µs; or ``freed_after_ms``) of each server that frees
    lazily, or of each that does not, with its version if ``versions``: ``"409 ms (7.0.15)"``."""
    scale = 1e3 if field.endswith("_ms") else 1e6
    shown = [
        format_duration(r[field] / scale) + (f" ({r['version']})" if versions else "")
        for r in _deletes(lazy)
    ]
    return ", ".join(shown) or "not measured"


def register(figures: Figures) -> None:
    """The page's figures from the per-release run."""
    figures.add("osc-rel-del-stall", lambda: stall(lazy=False))
    figures.add("osc-rel-del-lazy", lambda: stall(lazy=True, versions=False))
    figures.add(
        "osc-rel-del-lazy-freed", lambda: stall(lazy=True, field="freed_after_ms", versions=False)
    )
