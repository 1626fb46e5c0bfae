"""What one bit at the last offset allocates on every release measured (the stored per-release run,
:mod:`setlab.lab.runs.releases_reference`): jemalloc's next size class above 512 MiB is 640 MiB,
while glibc (Valkey 8.1 here) maps a block that big straight from the kernel, rounded to the page.
"""

from __future__ import annotations

from setlab.core.formats import format_bytes
from setlab.lab.runs.releases_reference import ReleasesReference
from setlab.models import bitmap
from setlab.render.claims import Figures
from setlab.render.tables import markdown_table


def run() -> ReleasesReference:
    """The stored per-release run."""
    return ReleasesReference.load()


def markdown() -> str:
    """One bit at 2^20 and at 2^32 - 1: the bytes held, a column a release."""
    return markdown_table(*run().table("bitmap"))


def _last_bits(libc: bool) -> list:
    """The rows of one bit at 2^32 - 1 on the glibc servers, or on the others (jemalloc)."""
    found = (
        run().find(s.server, "bitmap", offset=bitmap.MAX_OFFSET)
        for s in run().servers
        if (s.mem_allocator == "libc") == libc
    )
    return [row for row in found if row]


def held(libc: bool) -> str:
    """What one bit at 2^32 - 1 held on the jemalloc servers (``640 MiB``), or on glibc as the
    string's length plus what the allocator and the key added (``512 MiB + 4,104 B``); one
    figure a value, joined by " / " where servers differ."""
    shown = {
        f"{format_bytes(r['strlen'])} + {r['allocated'] - r['strlen']:,} B"
        if libc
        else format_bytes(r["allocated"])
        for r in _last_bits(libc)
    }
    return " / ".join(sorted(shown)) or "not measured"


def register(figures: Figures) -> None:
    """The page's figures from the per-release run."""
    figures.add("sb-rel-jemalloc", lambda: held(libc=False))
    figures.add("sb-rel-libc", lambda: held(libc=True))
    figures.add(
        "sb-rel-jemalloc-servers",
        lambda: ", ".join(
            f"{s.flavour} {s.version}" for s in run().servers if s.mem_allocator != "libc"
        ),
    )
