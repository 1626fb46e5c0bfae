"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

import statistics
from functools import cache

from setlab.core.units import format_bytes, format_duration
from setlab.lab import reference
from setlab.models import bitmap
from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapter "SETBIT is O(offset)" ---------------------------------------------------------------


@cache
def _setbit_reference() -> dict:
    return reference.load("setbit-reference")


def _reference_median(offset: int, field: str) -> float:
    rows = [r[field] for r in _setbit_reference()["rows"] if r["offset"] == offset]
    if not rows:
        raise KeyError(f"no reference row for offset {offset}")
    return statistics.median(rows)


def _memory(offset: int) -> str:
    return format_bytes(bitmap.first_setbit_memory_usage(offset))


def _memory_and_strlen(offset: int) -> str:
    return f"{format_bytes(bitmap.bytes_for_offset(offset))} string, {_memory(offset)} MEMORY USAGE"


def _server_time(offset: int) -> str:
    return format_duration(_reference_median(offset, "server_us") / 1e6) + " inside Redis"


SEED_INCIDENT_OFFSET = 1_823_456_789

CLAIMS: list[Claim] = [
    Claim(
        "000-first-setbit-1500ms", "000", "§1", "setbit-offset",
        "The first favourite (SETBIT at offset 1,823,456,789 on a new key) took 1.5 s.",
        "1500 ms",
        lambda: _server_time(SEED_INCIDENT_OFFSET),
        Verdict.DEPENDS,
        "Same order of magnitude: zeroing ~220 MiB costs hundreds of ms; the exact figure depends "
        "on the machine, page faults and the allocator.",
    ),
    Claim(
        "000-later-setbit-20ms", "000", "§1", "setbit-offset",
        "Later favourites on the same key took 18–20 ms.",
        "20 ms",
        lambda: format_duration(_reference_median(SEED_INCIDENT_OFFSET, "second_client_ms") / 1e3)
        + " round trip",
        Verdict.WRONG,
        "A SETBIT inside an existing string is O(1) and takes microseconds; 20 ms is the "
        "application's own path, not Redis.",
    ),
    Claim(
        "000-memory-256kb", "000", "§1", "setbit-offset",
        "The first favourite made Redis grow by 256 KB.",
        "256 KB",
        lambda: _memory(SEED_INCIDENT_OFFSET),
        Verdict.WRONG,
        "Offset 1,823,456,789 needs a 228-million-byte string: about 900× more than 256 KB.",
    ),
    Claim(
        "000-alloc-1e6", "000", "§3.2", "setbit-offset",
        "A first SETBIT at offset 1 million allocates about 125 KB.",
        "~125 KB",
        lambda: _memory_and_strlen(10**6),
        Verdict.CORRECT,
        "125,001 bytes; jemalloc rounds the allocation up to the next size class.",
    ),
    Claim(
        "000-alloc-1e8", "000", "§3.2", "setbit-offset",
        "A first SETBIT at offset 100 million allocates about 12 MB.",
        "~12 MB",
        lambda: _memory_and_strlen(10**8),
        Verdict.CORRECT,
        "12.5 million bytes, which is also exactly a jemalloc size class (12 MiB).",
    ),
    Claim(
        "000-alloc-1e9", "000", "§3.2", "setbit-offset",
        "A first SETBIT at offset 1 billion allocates about 120 MB.",
        "~120 MB",
        lambda: _memory_and_strlen(10**9),
        Verdict.IMPRECISE,
        "The string is 119 MiB, but jemalloc hands out 128 MiB, and MEMORY USAGE says so.",
    ),
    Claim(
        "000-alloc-2e9", "000", "§3.2", "setbit-offset",
        "At the expected hashed offset (2.14 billion) a first SETBIT allocates about 256 MB.",
        "~256 MB",
        lambda: _memory_and_strlen(2_147_483_648),
        Verdict.IMPRECISE,
        "The string is 256 MiB plus one byte, which falls into jemalloc's 320 MiB class.",
    ),
    Claim(
        "000-alloc-4e9", "000", "§3.2", "setbit-offset",
        "At the worst offset (4.29 billion) a first SETBIT allocates about 512 MB.",
        "~512 MB",
        lambda: _memory_and_strlen(bitmap.MAX_OFFSET),
        Verdict.IMPRECISE,
        "512 MiB of data plus a 10-byte header is just over 2^29, so jemalloc's next class, "
        "640 MiB, is what MEMORY USAGE reports (the untouched tail is never faulted into RSS).",
    ),
    Claim(
        "000-setbit-complexity", "000", "§3.1", "setbit-offset",
        "SETBIT is O(offset) when it creates the key and O(1) inside an existing string.",
        "O(offset) / O(1)",
        lambda: (
            f"{format_duration(_reference_median(bitmap.MAX_OFFSET, 'server_us') / 1e6)} vs "
            f"{format_duration(_reference_median(bitmap.MAX_OFFSET, 'second_client_ms') / 1e3)}"
        ),
        Verdict.CORRECT,
        "Also O(growth) when a write lands past the end of an existing string, which then "
        "grows greedily (doubling below 1 MiB).",
    ),
    Claim(
        "002-1e9-bits-128m", "002", "§2", "setbit-offset",
        "SETBIT at bit 1 billion instantly allocates about 128 MB.",
        "128M",
        lambda: _memory(10**9),
        Verdict.OTHER_REASON,
        "10^9 bits are 119 MiB; it is jemalloc's rounding to the 128 MiB size class that makes "
        "the figure exact.",
    ),
    Claim(
        "002-max-2-32", "002", "§1", "setbit-offset",
        "One Redis string bitmap holds at most 2^32 bits (4.29 billion).",
        "2^32",
        lambda: f"offsets 0…{bitmap.MAX_OFFSET:,}",
        Verdict.CORRECT,
        "With the default proto-max-bulk-len of 512 MiB; raising that config raises the limit.",
    ),
]  # fmt: skip
