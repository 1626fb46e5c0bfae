"""How full a cuckoo filter gets before its first failed insert, over a grid of its three knobs.

No formula gives the load at which a partial-key cuckoo filter first refuses an insert: it depends
on the bucket size ``b``, on the fingerprint length ``f`` (short fingerprints give few distinct
alternate buckets ``i1 xor H(fp)``, so chains loop sooner; Fan et al. 2014, §4) and, slowly, on the
filter's size. So the book simulates it (:func:`setlab.models.cuckoo.first_failure_load`: random
victims, 500 kicks, fresh random values) on a small grid — ``b`` ∈ {1, 2, 4, 8}, ``f`` = 4 … 16
bits, 2^10 … 2^18 slots, a few seeds each — and stores the result in
``setlab/data/grids/cuckoo-first-failure.json`` (``reference/measure_cuckoo_load_grid.py``
regenerates it in a few minutes). :class:`LoadGrid` reads it; :meth:`LoadGrid.cell` answers for one
setting with the bits per item (``f / load``) and the false-positive rate at that load
(:func:`setlab.models.cuckoo.expected_fpr`).

The grid is a model, not a measurement of RedisBloom (whose walls are in the stored RedisBloom
run); ``setlab calc cuckoo-load`` and the interactive figure of chapter cuckoo-kick-chains read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from setlab.core.validate import check_int
from setlab.models import cuckoo

#: The grid's axes: bucket sizes (the paper's), fingerprint bits, log2 of the slots, seeds.
BUCKET_SIZES = (1, 2, 4, 8)
FINGERPRINT_BITS = tuple(range(4, 17))
LOG_SLOTS = (10, 12, 14, 16, 18)
SEEDS = (0, 1, 2)
#: Kicks per insert and victim rule of every simulated fill (the paper's reference setting).
MAX_KICKS, VICTIM = 500, "random"
#: Where the stored grid lives, inside the package (``setlab/data/grids/``).
GRID_FILE = "cuckoo-first-failure.json"


@dataclass(frozen=True)
class LoadCell:
    """The first-failure load of one setting, over the grid's seeds."""

    bucket_size: int
    fingerprint_bits: int
    log_slots: int
    loads: tuple[float, ...]  #: load factor at the first failure, one per seed

    @property
    def slots(self) -> int:
        return 2**self.log_slots

    @property
    def load(self) -> float:
        """Mean load factor at the first failed insert (a fraction of the slots)."""
        return float(np.mean(self.loads))

    @property
    def bits_per_item(self) -> float:
        """Table bits per item held when the first insert fails: ``f / load``."""
        return self.fingerprint_bits / self.load

    @property
    def fpr(self) -> float:
        """False-positive rate of a stranger at that load (a fraction)."""
        return cuckoo.expected_fpr(self.bucket_size, self.fingerprint_bits, self.load)

    def as_json(self) -> dict[str, Any]:
        return {
            "bucket_size": self.bucket_size, "fingerprint_bits": self.fingerprint_bits,
            "slots": self.slots, "log_slots": self.log_slots, "loads": list(self.loads),
            "first_failure_load": self.load, "min_load": min(self.loads),
            "max_load": max(self.loads), "bits_per_item": self.bits_per_item, "fpr": self.fpr,
        }  # fmt: skip


def simulate_cell(bucket_size: int, fingerprint_bits: int, log_slots: int,
                  seeds: tuple[int, ...] = SEEDS) -> LoadCell:  # fmt: skip
    """Fill ``2^log_slots`` slots in buckets of ``bucket_size`` until the first failure, once per
    seed (:func:`setlab.models.cuckoo.first_failure_load`, random victims, 500 kicks)."""
    b = check_int("bucket_size", bucket_size, 1, 64)
    f = check_int("fingerprint_bits", fingerprint_bits, 2, 32)
    log_slots = check_int("log_slots", log_slots, b.bit_length(), 24)
    loads = tuple(
        cuckoo.first_failure_load(
            2**log_slots // b, b, fingerprint_bits=f, max_kicks=MAX_KICKS, victim=VICTIM, seed=s
        )
        for s in seeds
    )
    return LoadCell(b, f, log_slots, loads)


@dataclass(frozen=True)
class LoadGrid:
    """Every cell of the grid, with the axes it was simulated on."""

    cells: tuple[LoadCell, ...]
    seeds: tuple[int, ...]

    @classmethod
    def simulate(
        cls,
        bucket_sizes: tuple[int, ...] = BUCKET_SIZES,
        fingerprint_bits: tuple[int, ...] = FINGERPRINT_BITS,
        log_slots: tuple[int, ...] = LOG_SLOTS,
        seeds: tuple[int, ...] = SEEDS,
    ) -> LoadGrid:
        """Simulate every cell (minutes for the full grid: use the stored one)."""
        cells = tuple(
            simulate_cell(b, f, s, seeds)
            for b in bucket_sizes
            for f in fingerprint_bits
            for s in log_slots
        )
        return cls(cells, tuple(seeds))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LoadGrid:
        cells = tuple(
            LoadCell(c["bucket_size"], c["fingerprint_bits"], c["log_slots"], tuple(c["loads"]))
            for c in data["cells"]
        )
        return cls(cells, tuple(data["seeds"]))

    def as_json(self) -> dict[str, Any]:
        return {
            "what": "load factor at the first failed insert of a partial-key cuckoo filter "
                    "(setlab.models.cuckoo.first_failure_load)",
            "max_kicks": MAX_KICKS, "victim": VICTIM, "seeds": list(self.seeds),
            "cells": [{"bucket_size": c.bucket_size, "fingerprint_bits": c.fingerprint_bits,
                       "log_slots": c.log_slots, "loads": [round(x, 6) for x in c.loads]}
                      for c in self.cells],
        }  # fmt: skip

    @staticmethod
    @cache
    def load() -> LoadGrid:
        """The stored grid (package data, read once)."""
        text = (resources.files("setlab") / "data" / "grids" / GRID_FILE).read_text()
        return LoadGrid.from_json(json.loads(text))

    def axis(self, name: str) -> tuple[int, ...]:
        """The sorted values of one axis: ``bucket_size``, ``fingerprint_bits`` or
        ``log_slots``."""
        if name not in ("bucket_size", "fingerprint_bits", "log_slots"):
            raise ValueError(
                f"axis must be bucket_size, fingerprint_bits or log_slots; got {name!r}"
            )
        return tuple(sorted({getattr(c, name) for c in self.cells}))

    def cell(self, bucket_size: int, fingerprint_bits: int, log_slots: int) -> LoadCell:
        """The cell of one setting; a setting off the grid is a ValueError naming the axis."""
        for name, value in (("bucket_size", bucket_size), ("fingerprint_bits", fingerprint_bits),
                            ("log_slots", log_slots)):  # fmt: skip
            allowed = self.axis(name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(str, allowed))} (the "
                                 f"simulated grid); got {value!r}")  # fmt: skip
        return next(
            c
            for c in self.cells
            if (c.bucket_size, c.fingerprint_bits, c.log_slots)
            == (bucket_size, fingerprint_bits, log_slots)
        )
