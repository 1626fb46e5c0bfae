"""The server build a calculator prices Redis memory for: the release and allocator a reader
names (``--redis``, ``--allocator``) or the defaults, and the words every output says it in.

A key's bytes depend on the release (Redis 7.2 dropped the ``dictEntry`` of a member alone in
its bucket, 8.0 moved the key into the object, Valkey 8 has no ``dictEntry`` at all) and on the
allocator's size classes: :class:`setlab.models.builds.Build` names both. A reader who names no
release gets :data:`setlab.models.builds.DEFAULT_RELEASE` (the book's reference, Redis 7.0), and
one who names no allocator gets that release's usual one
(:data:`setlab.models.builds.USUAL_ALLOCATOR`); the output says which of the two it chose, so a
figure is never read as another server's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from setlab.models import builds
from setlab.models.allocator import ALLOCATORS, SHORT_NAME

#: what ``--redis`` takes: every release the models know, as :mod:`setlab.models.builds` names it
RELEASES: tuple[str, ...] = tuple(builds.RELEASES)
#: what ``--allocator`` takes
ALLOCATOR_NAMES: tuple[str, ...] = ALLOCATORS


@dataclass(frozen=True)
class PricedFor:
    """The build a calculation prices for, and whether the reader chose its release and
    allocator or took the defaults."""

    build: builds.Build
    release_given: bool = False  #: the reader named the release (``--redis``)
    allocator_given: bool = False  #: the reader named the allocator (``--allocator``)

    @classmethod
    def of(cls, release: str | None = None, allocator: str | None = None) -> PricedFor:
        """The build for ``release`` (``None``: the default) and ``allocator`` (``None``: that
        release's usual one); a ``ValueError`` names the releases or allocators there are."""
        if release is not None and release not in builds.RELEASES:
            raise ValueError(f"--redis must be one of {', '.join(RELEASES)}; got {release!r}")
        if allocator is not None and allocator not in ALLOCATORS:
            raise ValueError(
                f"--allocator must be one of {', '.join(ALLOCATORS)}; got {allocator!r}"
            )
        build = builds.Build(release or builds.DEFAULT_RELEASE, allocator or "")
        return cls(build, release is not None, allocator is not None)

    @property
    def release(self) -> str:
        return self.build.release

    @property
    def allocator(self) -> str:
        return self.build.allocator

    @property
    def server(self) -> str:
        """``"Redis 8.2"``, ``"Valkey 8.1"``: the release as a reader names the server."""
        if self.build.is_valkey:
            return f"Valkey {self.release.split('-', 1)[1]}"
        return f"Redis {self.release}"

    @property
    def text(self) -> str:
        """``"Redis 7.0 (the default; --redis to choose), jemalloc (16-byte quantum)"`` or
        ``"Redis 8.2, glibc malloc (--allocator)"``: what a report says it priced for."""
        server = self.server + ("" if self.release_given else " (the default; --redis to choose)")
        allocator = SHORT_NAME[self.allocator]
        if self.allocator_given:
            usual = builds.USUAL_ALLOCATOR[self.build.family] == self.allocator
            allocator += " (its usual build)" if usual else " (as --allocator asks)"
        return f"{server}, {allocator}"

    def as_json(self) -> dict[str, Any]:
        """The build, for ``--json``: release, allocator, and which of them were defaults."""
        return {
            "release": self.release, "allocator": self.allocator,
            "release_default": not self.release_given,
            "allocator_default": not self.allocator_given,
        }  # fmt: skip
