"""A Bloom filter split over many Redis keys: per-shard sizing, the spread of shard loads, and the
rate of the fullest shard.

Seed 002 shards one filter over 2^17 keys and routes each item by its hash; seed 003 reserves one
filter per campaign. Either way every shard is sized for a *capacity* ``c`` at a rate ``p``
(``m = -c ln p / (ln 2)^2`` bits, the best whole ``k``: :func:`setlab.models.bloom.size_for`),
while the items it receives are Binomial(n, 1/shards): some shards get more than their share, and
a shard's rate is convex in its load, so the fullest shard errs most. :func:`shard_filter` gives,
for ``n`` items over ``shards`` shards of capacity ``c`` at ``p``:

* the mean load ``n / shards`` and the fullest shard's load (the median over routings,
  :func:`setlab.models.bloom.worst_shard_load`);
* the rate at the mean load, the mean rate over shards (:func:`setlab.models.bloom.sharded_fpr`)
  and the fullest shard's rate (:func:`setlab.models.bloom.fpr` at its load);
* the memory of all shards (bytes).

``setlab calc sharded-bloom`` and the interactive figure of chapter sharded-bloom read it; the
figure's browser formula is the same ``(1 - e^(-k x / m))^k`` of :func:`setlab.models.bloom.fpr`,
over worst loads precomputed here (:func:`worst_load_table`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from setlab.core.validate import check_int, check_probability
from setlab.models import bloom


@dataclass(frozen=True)
class ShardedFilter:
    """``shards`` Bloom filters of ``m`` bits and ``k`` hashes, each sized for ``capacity`` items at
    ``p``, holding ``items`` items routed by hash."""

    items: int
    shards: int
    capacity: int  #: items each shard was sized for
    p: float  #: the design rate of a shard at its capacity (a fraction)
    m: int  #: bits per shard
    k: int  #: hashes
    worst_load: int  #: the fullest shard's load (median over routings)

    @property
    def mean_load(self) -> float:
        """Items per shard on average: ``items / shards``."""
        return self.items / self.shards

    @property
    def shard_bytes(self) -> int:
        """Bytes of one shard's bit array: ``ceil(m / 8)``."""
        return -(-self.m // 8)

    @property
    def total_bytes(self) -> int:
        """Bytes of all shards' bit arrays."""
        return self.shards * self.shard_bytes

    @property
    def worst_fpr(self) -> float:
        """False-positive rate of the fullest shard (a fraction)."""
        return float(bloom.fpr(self.worst_load, self.m, self.k))

    @property
    def fpr_at_mean(self) -> float:
        """False-positive rate of a shard at the mean load (a fraction)."""
        return float(bloom.fpr(self.mean_load, self.m, self.k))

    @property
    def mean_fpr(self) -> float:
        """Mean false-positive rate over shards, loads Binomial(items, 1/shards) (a fraction)."""
        return bloom.sharded_fpr(self.items, self.shards, self.m, self.k)

    @property
    def worst_over_capacity(self) -> float:
        """The fullest shard's load over the capacity it was sized for (1 = exactly full)."""
        return self.worst_load / self.capacity


def shard_filter(items: int, shards: int, capacity: int, p: float) -> ShardedFilter:
    """``items`` items routed by hash over ``shards`` shards, each a Bloom filter sized for
    ``capacity`` items at rate ``p`` (:func:`setlab.models.bloom.size_for`).

    ``items`` ≥ 1, ``shards`` in 1 … 2^32, ``capacity`` ≥ 1 with at most 2^32 bits per shard (one
    Redis string), ``p`` in (0, 1).
    """
    items = check_int("items", items, 1, 10**13)
    shards = check_int("shards", shards, 1, 2**32)
    capacity = check_int("capacity", capacity, 1)
    p = check_probability("p", p)
    sizing = bloom.size_for(capacity, p)
    if sizing.m > bloom.MAX_BITS_PER_KEY:
        raise ValueError(f"capacity must fit one Redis string (2^32 bits) at p = {p:g}; got "
                         f"{capacity:,} items, which need {sizing.m:,} bits")  # fmt: skip
    return ShardedFilter(items, shards, capacity, p, sizing.m, sizing.k,
                         bloom.worst_shard_load(items, shards))  # fmt: skip


def worst_load_table(items: tuple[int, ...], log_shards: tuple[int, ...]) -> list[dict[str, int]]:
    """The fullest shard's load for every ``items`` × ``2^log_shards`` (rows of ``items``,
    ``log_shards``, ``worst_load``): what the browser cannot compute (a binomial quantile)."""
    return [
        {"items": check_int("items", n, 1), "log_shards": ls,
         "worst_load": bloom.worst_shard_load(n, 2 ** check_int("log_shards", ls, 0, 32))}
        for n in items
        for ls in log_shards
    ]  # fmt: skip


def sizing_table(capacities: tuple[int, ...], rates: tuple[float, ...]) -> list[dict[str, float]]:
    """``m`` (bits) and ``k`` of a shard for every capacity × rate (rows of ``capacity``, ``p``,
    ``m``, ``k``), as :func:`setlab.models.bloom.size_for` sizes it."""
    rows = []
    for c in capacities:
        for p in rates:
            s = bloom.size_for(check_int("capacity", c, 1), check_probability("p", p))
            rows.append({"capacity": c, "p": p, "m": s.m, "k": s.k})
    return rows


def one_two_five(low: int, high: int) -> tuple[int, ...]:
    """1, 2, 5 × powers of ten from ``low`` to ``high`` (both powers of ten, inclusive)."""
    lo = round(math.log10(check_int("low", low, 1)))
    hi = round(math.log10(check_int("high", high, low)))
    values = [m * 10**e for e in range(lo, hi + 1) for m in (1, 2, 5)]
    return tuple(v for v in values if low <= v <= high)
