"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

from functools import cache

from setlab.core.units import format_duration
from setlab.lab import reference, stalls
from setlab.models import bitmap
from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapter "One slow command stalls everyone" ---------------------------------------------------


@cache
def _stalls_reference() -> dict:
    return reference.load("stalls-reference")


def _stall_row(offset: int) -> dict:
    (row,) = [r for r in _stalls_reference()["rows"] if r["offset"] == offset]
    return row


def _delete_row(kind: str, size: int, command: str) -> dict:
    (row,) = [
        r
        for r in _stalls_reference()["deletes"]
        if (r["kind"], r["size"], r["command"]) == (kind, size, command)
    ]
    return row


CLAIMS += [
    Claim(
        "000-setbit-2e9-2-5s", "000", "§5.1", "one-slow-command",
        "A first SETBIT at offset 2,147,483,648 (256 MB) takes 2–5 seconds.",
        "2–5 s",
        lambda: format_duration(_stall_row(2**31)["setbit_ms"] / 1e3),
        Verdict.DEPENDS,
        "Zeroing 256 MiB takes well under a second on the reference machine; seconds need "
        "a slower or memory-starved host.",
    ),
    Claim(
        "000-node-blocked", "000", "§5.1", "one-slow-command",
        "While the big SETBIT runs, the node answers no other request.",
        "all clients wait",
        lambda: (
            f"worst GET {format_duration(_stall_row(bitmap.MAX_OFFSET)['max_ms'] / 1e3)} behind a "
            f"{format_duration(_stall_row(bitmap.MAX_OFFSET)['setbit_ms'] / 1e3)} SETBIT"
        ),
        Verdict.CORRECT,
        "Other clients' worst latency equals the slow command's duration at every size.",
    ),
    Claim(
        "000-hot-node", "000", "§5.2", "one-slow-command",
        "A viral post sends every SETBIT to one key, so one node, while the others idle.",
        "one node takes the load",
        lambda: f"busiest of 3 nodes: {stalls.skew_shares()['bitmap']:.0%} of the SETBITs",
        Verdict.CORRECT,
        "Under a Zipf(1.1) like workload the hottest post alone is a fifth of all likes.",
    ),
    Claim(
        "000-set-spreads", "000", "§5.5", "one-slow-command",
        "The String + Set design's user-keyed keys spread naturally over the slots.",
        "no skew",
        lambda: (
            f"SADD busiest node {stalls.skew_shares()['set: SADD only']:.0%}, "
            f"INCR busiest node {stalls.skew_shares()['set: INCR only']:.0%}"
        ),
        Verdict.IMPRECISE,
        "The SADDs spread, but the design's content-keyed counter keeps the hot key.",
    ),
    Claim(
        "000-keys-blocks", "000", "§5.3", "one-slow-command",
        "KEYS is O(N) and blocks the node.",
        "O(N), blocks",
        lambda: (
            f"{format_duration(_stalls_reference()['keys'][-1]['keys_ms'] / 1e3)} for "
            f"{_stalls_reference()['keys'][-1]['keys']:,} keys"
        ),
        Verdict.CORRECT,
        "One call walks the whole keyspace; SCAN spreads the same work over short calls.",
    ),
    Claim(
        "000-del-256mb-stall", "000", "§5.4", "one-slow-command",
        "DEL of a 256 MB bitmap may trigger defragmentation and a short stall.",
        "short stall",
        lambda: format_duration(_delete_row("string", 2**28, "del")["server_ms"] / 1e3),
        Verdict.IMPRECISE,
        "Freeing one big string is milliseconds and starts no defragmentation; it is big "
        "collections (one free per member) that stall on DEL.",
    ),
    Claim(
        "000-fork-big-key", "000", "§5.4", "one-slow-command",
        "Big keys make fork() for RDB snapshots take longer.",
        "fork slower",
        lambda: (
            f"{_stalls_reference()['forks'][0]['fork_ms']:.1f} ms → "
            f"{_stalls_reference()['forks'][-1]['fork_ms']:.1f} ms with a 512 MiB key"
        ),
        Verdict.CORRECT,
        "Fork copies page tables, so it grows with used memory, but it is milliseconds per GiB.",
    ),
]  # fmt: skip
