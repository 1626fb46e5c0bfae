"""Redis Cluster's key → slot → node mapping, as pure computation (no Redis needed).

A cluster splits the keyspace into 16384 hash slots; a key's slot is ``CRC16(key) mod 16384``
(CRC-16/XMODEM, ``src/crc16.c`` and ``keyHashSlot`` in ``src/cluster.c``), where only the part
inside the first non-empty ``{…}`` counts when the key has one (a *hash tag*). Every command on a
key goes to the one master owning its slot — so a hot key is a hot node, whatever the cluster size.

:func:`commands_per_node` simulates the routing; :class:`setlab.lab.cluster.LocalCluster` runs a
real cluster, and the live tests check that it routes exactly as simulated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

SLOTS = 16384


def _crc16_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _crc16_table()


def crc16(data: bytes) -> int:
    """CRC-16/XMODEM (polynomial 0x1021, initial value 0), as Redis Cluster uses it."""
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def hash_tag(key: str | bytes) -> bytes:
    """The part of ``key`` that is hashed: inside the first ``{…}`` if it is non-empty."""
    raw = key.encode() if isinstance(key, str) else bytes(key)
    start = raw.find(b"{")
    if start != -1:
        end = raw.find(b"}", start + 1)
        if end > start + 1:
            return raw[start + 1 : end]
    return raw


def key_slot(key: str | bytes) -> int:
    """The hash slot (0…16383) of ``key``, equal to ``CLUSTER KEYSLOT key``."""
    if not isinstance(key, str | bytes | bytearray):
        raise ValueError(f"key must be str or bytes, got {type(key).__name__}")
    return crc16(hash_tag(key)) % SLOTS


def slot_ranges(masters: int) -> list[tuple[int, int]]:
    """Equal contiguous slot ranges ``(first, last)`` for ``masters`` nodes, as redis-cli does."""
    if not isinstance(masters, int) or not 1 <= masters <= 64:
        raise ValueError(f"masters must be an int from 1 to 64, got {masters!r}")
    bounds = [round(i * SLOTS / masters) for i in range(masters + 1)]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(masters)]


def node_of_slot(slot: int, ranges: list[tuple[int, int]]) -> int:
    """Index of the node whose range holds ``slot``."""
    for index, (first, last) in enumerate(ranges):
        if first <= slot <= last:
            return index
    raise ValueError(f"slot {slot} is in no range")


def commands_per_node(keys: Iterable[str | bytes], masters: int) -> list[int]:
    """How many commands each of ``masters`` nodes receives when one command is sent per key.

    A pure simulation of the routing (no Redis): the live cluster must agree with it exactly.
    """
    ranges = slot_ranges(masters)
    counts = Counter(node_of_slot(key_slot(k), ranges) for k in keys)
    return [counts.get(i, 0) for i in range(masters)]
