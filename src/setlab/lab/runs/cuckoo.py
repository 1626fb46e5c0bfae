"""RedisBloom's ``CF.*`` on a server: the commands the cuckoo chapter sends, the fill experiment,
and its typed record (which the reference run stores).

The model that predicts every reply is :class:`setlab.models.redisbloom_cuckoo.RedisBloomCuckoo`;
here the same items go to a :class:`~setlab.lab.backend.Lab`. On the embedded fakeredis ``CF.*`` is
pyprobables' cuckoo filter, not RedisBloom's (other sizing, other replies): the chapters use these
helpers on a server with redisbloom.so. Items are 8 little-endian bytes
(:func:`setlab.models.redisbloom.encode`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.core.validate import check_int
from setlab.lab import guard
from setlab.lab.backend import Lab
from setlab.lab.runs.redisbloom import mexists, reply_dict
from setlab.models.redisbloom import FreshValues, encode
from setlab.models.redisbloom_cuckoo import RedisBloomCuckoo


@dataclass(frozen=True)
class CuckooFill:
    """One :func:`cf_fill_run`: a fresh ``CF.RESERVE`` filter given ``attempts`` new items.

    ``first_full_at`` is the index of the first insert the module answered "full" (``-1``; None
    if none did), ``failures`` how many it refused, ``info`` its ``CF.INFO`` at the end (the
    module's field names).
    """

    bucket_size: int
    max_iterations: int
    expansion: int
    capacity: int
    attempts: int
    first_full_at: int | None
    failures: int
    info: Mapping[str, int]

    @property
    def slots(self) -> int:
        """Slots of the first sub-filter: ``Number of buckets × bucket size``."""
        return int(self.info["Number of buckets"]) * self.bucket_size

    @property
    def first_full_load(self) -> float | None:
        """Load factor (items over slots) at the first "full" reply, None if there was none."""
        return None if self.first_full_at is None else self.first_full_at / self.slots

    @property
    def failure_share(self) -> float:
        """Refused inserts over the slots of the first sub-filter."""
        return self.failures / self.slots

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> CuckooFill:
        """A fill as the reference file stores it."""
        return cls(**{**row, "info": dict(row["info"])})


def cf_reserve(lab: Lab, key: str, model: RedisBloomCuckoo) -> None:
    """``CF.RESERVE`` with ``model``'s parameters (checks the allocation first)."""
    # CF.INFO Size: the bucket array (a power of two of buckets × slots, so jemalloc rounds it
    # to itself) and the module's two structs
    lab.check_allocation(guard.budget(allocated=model.memory(), key_bytes=len(key)),
                         f"CF.RESERVE {key}")  # fmt: skip
    lab.r.execute_command("CF.RESERVE", key, *model.reserve_args())


def cf_info(lab: Lab, key: str) -> dict[str, int]:
    """``CF.INFO key`` as a dict with the module's field names."""
    return {k: int(v) for k, v in reply_dict(lab.r.execute_command("CF.INFO", key)).items()}


def cf_insert(lab: Lab, key: str, values: object, batch: int = 500, nx: bool = False) -> np.ndarray:
    """``CF.INSERT`` (``CF.INSERTNX``) the values in pipelined batches: the replies as int8
    (1 added, 0 present, -1 full; -2 for a whole batch refused with "Maximum expansions")."""
    batch = check_int("batch", batch, 1)
    items = encode(values)
    pipe = lab.r.pipeline(transaction=False)
    command = "CF.INSERTNX" if nx else "CF.INSERT"
    sizes = []
    for start in range(0, len(items), batch):
        chunk = items[start : start + batch]
        pipe.execute_command(command, key, "NOCREATE", "ITEMS", *chunk)
        sizes.append(len(chunk))
    out: list[int] = []
    for reply, size in zip(pipe.execute(raise_on_error=False), sizes, strict=True):
        out += [-2] * size if isinstance(reply, Exception) else [int(v) for v in reply]
    return np.array(out, dtype=np.int8)


def cf_exists(lab: Lab, key: str, values: object, batch: int = 1000) -> np.ndarray:
    """``CF.MEXISTS`` in pipelined batches (bool array)."""
    return mexists(lab, "CF.MEXISTS", key, values, batch)


def cf_delete(lab: Lab, key: str, values: object) -> np.ndarray:
    """``CF.DEL`` each value (pipelined): 1 where a fingerprint was removed."""
    pipe = lab.r.pipeline(transaction=False)
    for item in encode(values):
        pipe.execute_command("CF.DEL", key, item)
    return np.array([int(v) for v in pipe.execute()], dtype=np.int8)


def cf_false_delete(
    lab: Lab, name: str, model: RedisBloomCuckoo, members: np.ndarray, strangers: np.ndarray
) -> int:
    """Delete an item that was never added: ``CF.RESERVE`` a filter shaped like ``model``,
    ``CF.INSERT`` the ``members``, ``CF.DEL`` the first of ``strangers`` that ``CF.MEXISTS``
    reports present (a false positive: its fingerprint sits in one of its buckets for a member,
    whose copy the delete removes), and count the members ``CF.MEXISTS`` reports absent
    afterwards (0 if no stranger was a false positive). Seed 003's warning that a cuckoo filter
    may only delete what it was given. The key is ``lab.key(name)``; it is removed at the end."""
    key = lab.key(name)
    lab.r.delete(key)
    cf_reserve(lab, key, model)
    try:
        cf_insert(lab, key, members)
        cf_delete(lab, key, strangers[cf_exists(lab, key, strangers)][:1])
        return int((~cf_exists(lab, key, members)).sum())
    finally:
        lab.r.unlink(key)


def cf_fill_run(
    lab: Lab, name: str, model: RedisBloomCuckoo, values: np.ndarray, batch: int = 500
) -> CuckooFill:
    """Insert ``values`` into a fresh ``CF.RESERVE`` filter shaped like ``model``; report where
    the first ``-1`` (full) came, how many adds failed, and ``CF.INFO`` at the end. The key is
    ``lab.key(name)``; it is removed at the end."""
    key = lab.key(name)
    lab.r.delete(key)
    cf_reserve(lab, key, model)
    replies = cf_insert(lab, key, values, batch)
    info = cf_info(lab, key)
    lab.r.unlink(key)
    full = np.flatnonzero(replies == -1)
    return CuckooFill(
        bucket_size=model.bucket_size,
        max_iterations=model.max_iterations,
        expansion=model.expansion,
        capacity=model.capacity,
        attempts=int(values.size),
        first_full_at=int(full[0]) if full.size else None,
        failures=int(full.size),
        info=info,
    )


def fill_grid(
    lab: Lab, capacity: int, grid: Iterable[tuple[int, int]], name: str = "fill"
) -> list[CuckooFill]:
    """:func:`cf_fill_run` for each ``(bucket_size, max_iterations)`` of ``grid``: filters of
    ``capacity`` with ``EXPANSION 0`` (so the module answers "full" instead of growing), each
    given as many fresh values (:class:`~setlab.models.redisbloom.FreshValues` stream 0) as it
    has slots."""
    fills = []
    for b, iterations in grid:
        model = RedisBloomCuckoo(capacity, b, iterations, expansion=0)
        values = FreshValues(0).take(model.num_buckets * b)
        fills.append(cf_fill_run(lab, f"{name}-{b}-{iterations}", model, values))
    return fills
