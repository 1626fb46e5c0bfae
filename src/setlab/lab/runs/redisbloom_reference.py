"""The stored RedisBloom run (``setlab/data/redisbloom-reference.json``) as typed records.

``reference/measure_redisbloom.py`` measures RedisBloom 2.8's scalable Bloom filters and cuckoo
filters on a private redis-server with redisbloom.so and writes that file; the chapters
"Scalable Bloom filters" and "Cuckoo filters and kick chains", their claims and ``setlab calc
cuckoo`` read it through :meth:`RedisBloomReference.load`, never through raw dict paths. Its
:attr:`~RedisBloomReference.run` says where and when it was measured (``run.label``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from setlab.lab import reference
from setlab.lab.runs.cuckoo import CuckooFill
from setlab.lab.runs.redisbloom import RoaringWindow, ScalingRow, WindowRun
from setlab.models.redisbloom import ChainLayout

#: The reference file's name (``setlab/data/<NAME>.json``).
NAME = "redisbloom-reference"


@dataclass(frozen=True)
class RedisBloomReference:
    """Everything the stored RedisBloom run measured (times in seconds, rates as fractions).

    Attributes:
        run: where and when (its ``label`` goes beside every figure taken from here).
        large: a chain grown from :attr:`layouts` ``["large"]`` (``BF.RESERVE key 0.01 1000000``)
            through five sub-filters, with ``BF.EXISTS`` timings after each (latency).
        small: the same for ``layouts["small"]`` (``EXPANSION 2``), the chapter's live size.
        fixed: the same for ``layouts["fixed"]`` (``EXPANSION 1``, seed 003's "SCALING 1").
        layouts: the chains measured, by name (``large``, ``small``, ``fixed``, ``window``).
        window: seven daily filters of ``layouts["window"]`` asked "seen on any day?".
        roaring: the same question answered in process with pyroaring, one day = as many
            IDs as a daily filter's capacity.
        cuckoo: ``CF.RESERVE`` filters of :attr:`cuckoo_capacity` with ``EXPANSION 0``, one per
            ``(BUCKETSIZE, MAXITERATIONS)``, each given as many fresh items as it has slots.
        cuckoo_default: a default ``CF.RESERVE`` (``BUCKETSIZE 2``, ``MAXITERATIONS 20``,
            ``EXPANSION 1``) of the same capacity given as many items.
        cuckoo_capacity: the capacity given to those ``CF.RESERVE`` (items).
        load_items_per_second: median rate of pipelined ``BF.MADD`` over the large chain's
            sub-filters (items per second, one Python client).
    """

    run: reference.RunInfo
    large: tuple[ScalingRow, ...]
    small: tuple[ScalingRow, ...]
    fixed: tuple[ScalingRow, ...]
    layouts: Mapping[str, ChainLayout]
    window: WindowRun
    roaring: RoaringWindow
    cuckoo: tuple[CuckooFill, ...]
    cuckoo_default: CuckooFill
    cuckoo_capacity: int
    load_items_per_second: float

    @classmethod
    def load(cls) -> RedisBloomReference:
        """Read the stored run from the package data."""
        document = reference.load(NAME)
        data = document.data

        def rows(name: str) -> tuple[ScalingRow, ...]:
            return tuple(ScalingRow.from_dict(row) for row in data[name])

        return cls(
            run=document.run,
            large=rows("rows"),
            small=rows("small"),
            fixed=rows("fixed"),
            layouts={name: ChainLayout(**args) for name, args in data["layouts"].items()},
            window=WindowRun.from_dict(data["window"]),
            roaring=RoaringWindow(**data["roaring"]),
            cuckoo=tuple(CuckooFill.from_dict(row) for row in data["cuckoo"]),
            cuckoo_default=CuckooFill.from_dict(data["cuckoo_default"]),
            cuckoo_capacity=int(data["cuckoo_capacity"]),
            load_items_per_second=float(data["load_items_per_second"]),
        )

    def cuckoo_fill(self, bucket_size: int, max_iterations: int) -> CuckooFill:
        """The stored ``EXPANSION 0`` fill with this ``BUCKETSIZE`` and ``MAXITERATIONS``."""
        for fill in self.cuckoo:
            if (fill.bucket_size, fill.max_iterations) == (bucket_size, max_iterations):
                return fill
        measured = sorted((f.bucket_size, f.max_iterations) for f in self.cuckoo)
        raise ValueError(
            f"the reference run has no cuckoo fill with bucket_size={bucket_size}, "
            f"max_iterations={max_iterations}; it measured (b, iterations) in {measured}"
        )
