"""The calculators of ``setlab calc``, one module each: its engine and its declaration.

Each calculator takes the numbers a reader has (item counts, error rates, sizes typed the way
people type them: ``1.2e8``, ``120M``, ``1%``, ``128MiB``) and answers with the book's models:

* :mod:`~setlab.tools.calc.bloom` (``bloom``) — any two or three of ``n`` (items), ``p``
  (false-positive rate), ``m`` (bits) and ``k`` (hashes) give the rest (:func:`solve_bloom`,
  :mod:`setlab.models.bloom`); :func:`redisbloom_layout` shows the chain ``BF.RESERVE`` builds
  (:mod:`setlab.models.redisbloom`);
* :mod:`~setlab.tools.calc.cuckoo` (``cuckoo``) — a cuckoo filter for ``n`` items at rate ``p``,
  and RedisBloom's ``CF.RESERVE`` with its 8-bit fingerprints (:func:`cuckoo_sizing`);
* :mod:`~setlab.tools.calc.roaring` (``roaring``) — Roaring containers and bytes for a count in
  a range, or for real IDs (:func:`roaring_estimate`, :func:`roaring_from_ids`);
* :mod:`~setlab.tools.calc.redis_set` (``set``) — what a Redis SET costs (:func:`set_estimate`,
  :func:`set_from_ids`, :mod:`setlab.models.redis_memory`);
* :mod:`~setlab.tools.calc.hll` (``hll``) — a HyperLogLog's memory and error
  (:func:`hll_estimate`);
* :mod:`~setlab.tools.calc.cuckoo_load` (``cuckoo-load``) — the load at a cuckoo filter's first
  failed insert, from the stored simulation grid;
* :mod:`~setlab.tools.calc.sharded_bloom` (``sharded-bloom``) — the fullest of many Bloom
  filters sharded by hash, its load and rate against the mean;
* :mod:`~setlab.tools.calc.density` (``density``) — bytes per ID of every structure for IDs
  spread over a range, and the advisor's pick;
* :mod:`~setlab.tools.calc.birthday` (``birthday``) — the chance that IDs hashed into ``2^bits``
  offsets share one (:mod:`setlab.models.birthday`);
* :mod:`~setlab.tools.calc.setbit` (``setbit``) — what a first ``SETBIT`` at an offset
  allocates, and the stored reference run's time for it.

One engine has no subcommand of its own: :mod:`~setlab.tools.calc.choice` prices every
structure for a set of IDs and picks one, for ``density`` here and for ``setlab advise``
(:mod:`setlab.tools.advise`, which reads, analyses and prints).

Every engine returns a :class:`Report`: labelled rows for people, a dict for ``--json``. Each
module also declares its calculator (:class:`~setlab.tools.calc.calculator.Calculator`: name,
help, options, run, the field of one key's bytes), and :data:`CALCULATORS` collects them in the
order ``setlab calc --help`` lists them: the command line (:mod:`setlab.cli.calculators`) and
the book's calculators page (:mod:`setlab.site.calculators`) are made from it. Bad input is a
``ValueError`` whose message names the parameter and the valid range. What people type is read
by :mod:`setlab.core.quantities`; files of IDs by :mod:`setlab.models.ids`. Reference
measurements are read through :mod:`setlab.lab.reference` (package data), so an installed wheel
answers anywhere. Engines import their models when they run, so ``setlab calc`` starts without
loading Redis clients or matplotlib.
"""

from setlab.tools.calc import (
    birthday,
    bloom,
    cuckoo,
    cuckoo_load,
    density,
    hll,
    redis_set,
    roaring,
    setbit,
    sharded_bloom,
)
from setlab.tools.calc.bloom import BloomSolution, bloom_report, redisbloom_layout, solve_bloom
from setlab.tools.calc.calculator import Calculator
from setlab.tools.calc.cuckoo import cuckoo_sizing
from setlab.tools.calc.hll import HLL_DENSE_FROM, hll_estimate, hll_key_cost
from setlab.tools.calc.redis_set import MEMBER_TYPES, set_estimate, set_from_ids
from setlab.tools.calc.report import Report
from setlab.tools.calc.roaring import roaring_estimate, roaring_from_ids

#: Every calculator of ``setlab calc``, in the order its help lists them.
CALCULATORS: tuple[Calculator, ...] = (
    bloom.CALCULATOR, cuckoo.CALCULATOR, roaring.CALCULATOR, redis_set.CALCULATOR,
    hll.CALCULATOR, cuckoo_load.CALCULATOR, sharded_bloom.CALCULATOR, density.CALCULATOR,
    birthday.CALCULATOR, setbit.CALCULATOR,
)  # fmt: skip


def named(name: str) -> Calculator:
    """The calculator ``setlab calc <name>`` runs; a ``ValueError`` lists the names there are."""
    found = [c for c in CALCULATORS if c.name == name]
    if not found:
        names = ", ".join(c.name for c in CALCULATORS)
        raise ValueError(f"calculator must be one of {names}; got {name!r}")
    return found[0]


__all__ = [
    "CALCULATORS", "HLL_DENSE_FROM", "MEMBER_TYPES", "BloomSolution", "Calculator", "Report",
    "bloom_report", "cuckoo_sizing", "hll_estimate", "hll_key_cost", "named",
    "redisbloom_layout", "roaring_estimate", "roaring_from_ids", "set_estimate", "set_from_ids",
    "solve_bloom",
]  # fmt: skip
