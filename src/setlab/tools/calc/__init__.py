"""The calculators behind ``setlab calc``: Bloom, cuckoo, Roaring, Redis SET and HyperLogLog.

Each calculator takes the numbers a reader has (item counts, error rates, sizes typed the way
people type them: ``1.2e8``, ``120M``, ``1%``, ``128MiB``) and answers with the book's models:

* :func:`solve_bloom` — any two or three of ``n`` (items), ``p`` (false-positive rate), ``m``
  (bits) and ``k`` (hashes) give the rest (:mod:`setlab.models.bloom`); :func:`redisbloom_layout`
  shows the chain ``BF.RESERVE`` builds (:mod:`setlab.models.redisbloom`);
* :func:`cuckoo_sizing` — a cuckoo filter for ``n`` items at rate ``p``, and RedisBloom's
  ``CF.RESERVE`` with its 8-bit fingerprints (:mod:`setlab.models.cuckoo`);
* :func:`roaring_estimate` / :func:`roaring_from_ids` — Roaring containers and bytes for a count
  in a range, or for real IDs (:mod:`setlab.models.roaring`);
* :func:`set_estimate` / :func:`set_from_ids` — what a Redis SET costs
  (:mod:`setlab.models.redis_memory`);
* :func:`hll_estimate` — a HyperLogLog's memory and error.

Every calculator returns a :class:`Report`: labelled rows for people, a dict for ``--json``.
Bad input is a ``ValueError`` whose message names the parameter and the valid range. What people
type (``1.2e8``, ``1%``, ``128MiB``) is read by :mod:`setlab.core.quantities`; files of IDs by
:mod:`setlab.models.ids`. Reference measurements are read through :mod:`setlab.lab.reference`
(package data), so an installed wheel answers anywhere.
"""

from setlab.tools.calc.bloom import BloomSolution, bloom_report, redisbloom_layout, solve_bloom
from setlab.tools.calc.cuckoo import cuckoo_sizing
from setlab.tools.calc.hll import HLL_DENSE_FROM, hll_estimate, hll_key_cost
from setlab.tools.calc.redis_set import MEMBER_TYPES, set_estimate, set_from_ids
from setlab.tools.calc.report import Report
from setlab.tools.calc.roaring import roaring_estimate, roaring_from_ids

__all__ = [
    "HLL_DENSE_FROM", "MEMBER_TYPES", "BloomSolution", "Report", "bloom_report", "cuckoo_sizing",
    "hll_estimate", "hll_key_cost", "redisbloom_layout", "roaring_estimate", "roaring_from_ids",
    "set_estimate", "set_from_ids", "solve_bloom",
]  # fmt: skip
