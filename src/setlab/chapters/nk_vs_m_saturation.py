"""Chapter nk-vs-m-saturation: hash count, fill ratio and overfill (seed 002 §6–7, seed 003 坑一).

The seed constants of seed 002's container plan and fix and of seed 003's sizing, the chapter's
figures (formulas of :mod:`setlab.models.bloom` and seeded simulations of
:mod:`setlab.models.bloom_sim`, the same on every backend) and its claims. The page glues the
figures; its cells call the simulation functions here with the reader's ``SETLAB_SCALE``, and
at scale 1 print exactly the figures the prose shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from setlab.core.units import format_bytes, format_count
from setlab.lab.bulk_load import SEED_002_ITEMS as SEED_002_REAL
from setlab.lab.bulk_load import SEED_002_K as SEED_002_FIX_K
from setlab.models import bloom, bloom_sim
from setlab.models.bloom import LN2, format_rate
from setlab.render.claims import Figures, Verdict

FIGURES = Figures("nk-vs-m-saturation")

# -- seed 002: the containers (§6) and the fix (§7) ------------------------------------------------

#: Bits per container (Redis key), in the plan and in the fix.
SEED_002_BITS = 2**17
#: Items the layout was planned for ("to leave room"); the real population of openids is
#: :data:`SEED_002_REAL` (the load the bulk-load benchmark extrapolates to, too).
SEED_002_PLANNED = 2e9
#: The plan: 2^16 containers and the 15 hashes ChatGPT proposed.
SEED_002_PLAN_CONTAINERS, SEED_002_PLAN_K = 2**16, 15
#: The fix: 2^17 containers and 10 hashes.
SEED_002_FIX_CONTAINERS = 2**17
#: Seed 002's target error rate.
SEED_002_TARGET = 0.001

# -- seed 003: one filter, sized, then overfilled (坑一) ----------------------------------------

#: Items and rate of seed 003's sizing; the capacity of its first version and the load it got.
SEED_003_ITEMS, SEED_003_P = 1.2e8, 0.01
SEED_003_SIZED, SEED_003_FILLED, SEED_003_K = 1e8, 2e8, 7

#: Containers simulated out of seed 002's layout (2^6 = 64 keys, each item routed by its top
#: hash bits, as in the real thing).
SIM_SHARD_BITS = 6


def per_plan_container() -> int:
    """Items per container in seed 002's plan: 2 × 10^9 over 2^16 containers (about 30 thousand)."""
    return round(SEED_002_PLANNED / SEED_002_PLAN_CONTAINERS)


# -- the simulations (the page calls them with its scale; the figures use the defaults) -----------


@dataclass(frozen=True)
class Plan:
    """Seed 002's plan in one container: load, fill, rates by the formula and by simulation."""

    per_container: int
    fill: float  #: fraction of bits set
    formula: float  #: mean false-positive rate over the containers (a fraction)
    simulated: float  #: measured on a 64-container slice
    best_k: int  #: the whole k with the lowest rate at this load


@cache
def plan(queries: int = 200_000) -> Plan:
    """Seed 002's plan (2^17-bit containers, k = 15, 2 × 10^9 items over 2^16 of them), on a
    slice of 64 containers filled to the planned load; ``queries`` fresh non-members."""
    m, k, per = SEED_002_BITS, SEED_002_PLAN_K, per_plan_container()
    layout = bloom_sim.BloomLayout(m, k, shard_bits=SIM_SHARD_BITS)
    total = per * layout.shards
    simulated = bloom_sim.simulate_fpr(m, k, total, queries, seed=1, shard_bits=SIM_SHARD_BITS)
    return Plan(
        per, float(bloom.fill_ratio(per, m, k)), layout.expected_fpr(total), simulated,
        bloom.optimal_k(m, per),
    )  # fmt: skip


@dataclass(frozen=True)
class FixRow:
    """Seed 002's fix (2^17 containers, k = 10) at one total load."""

    total: float  #: items over all 2^17 containers
    per_container: float
    formula: float  #: mean rate over the containers (binomial loads; a fraction)
    simulated: float  #: measured on a 64-container slice
    best_k: int  #: the best whole k for this load


@cache
def fix(queries: int = 2_000_000) -> tuple[FixRow, FixRow]:
    """The fix at the planned 2 × 10^9 and at the real 8 × 10^8 items (in that order)."""
    m, k = SEED_002_BITS, SEED_002_FIX_K
    rows = []
    for total in (SEED_002_PLANNED, SEED_002_REAL):
        per = total / SEED_002_FIX_CONTAINERS
        items = round(per * 2**SIM_SHARD_BITS)
        simulated = bloom_sim.simulate_fpr(m, k, items, queries, seed=7, shard_bits=SIM_SHARD_BITS)
        formula = bloom.sharded_fpr(total, SEED_002_FIX_CONTAINERS, m, k)
        rows.append(FixRow(total, per, formula, simulated, bloom.optimal_k(m, per)))
    return rows[0], rows[1]


@dataclass(frozen=True)
class Overfill:
    """Seed 003's overfill simulated at a smaller scale (the rate depends on n/m and k only)."""

    capacity: int  #: items the small filter is sized for at 1%
    bits: int  #: its m
    simulated: float  #: measured rate after twice its capacity


@cache
def overfill(capacity: int = 1_000_000, queries: int = 200_000) -> Overfill:
    """A filter sized for ``capacity`` items at 1%, filled with twice that, k = 7: measured."""
    m = bloom.optimal_m(capacity, SEED_003_P)
    simulated = bloom_sim.simulate_fpr(m, SEED_003_K, 2 * capacity, queries, seed=3)
    return Overfill(capacity, m, simulated)


def seed_003_sizing() -> bloom.Sizing:
    """Seed 003's filter: 1.2 × 10^8 items at 1%."""
    return bloom.size_for(SEED_003_ITEMS, SEED_003_P)


def overfill_bits() -> int:
    """Bits of seed 003's first version, sized for 10^8 items at 1%."""
    return bloom.optimal_m(SEED_003_SIZED, SEED_003_P)


# -- figures: the rule of thumb ------------------------------------------------------------------

_RULE_FILL = -math.expm1(-1.0)  # the fill at load k·n/m = 1

FIGURES.add("nk-fill-at-rule", lambda: format_rate(_RULE_FILL))
FIGURES.add("nk-rule-p10", lambda: format_rate(_RULE_FILL**10))
FIGURES.add("nk-rule-p15", lambda: format_rate(_RULE_FILL**15))
FIGURES.add("nk-best-load", lambda: f"{LN2:.2f}")

# -- figures: seed 002's plan --------------------------------------------------------------------

FIGURES.add("nk-plan-n", lambda: format_count(plan().per_container))
FIGURES.add("nk-plan-fill", lambda: format_rate(plan().fill))
FIGURES.add("nk-plan-fpr", lambda: format_rate(plan().formula))
FIGURES.add("nk-plan-sim", lambda: format_rate(plan().simulated))
FIGURES.add("nk-plan-bestk", lambda: str(plan().best_k))
FIGURES.add("nk-plan-ratio", lambda: f"{SEED_002_BITS / plan().per_container:.1f}")
FIGURES.add("nk-plan-load", lambda: f"{SEED_002_PLAN_K * plan().per_container / SEED_002_BITS:.1f}")
FIGURES.add(
    "nk-plan-bestp",
    lambda: format_rate(bloom.fpr(plan().per_container, SEED_002_BITS, plan().best_k)),
)
FIGURES.add(
    "nk-bits-needed",
    lambda: format_count(bloom.optimal_m(plan().per_container, SEED_002_TARGET)),
)
FIGURES.add(
    "nk-k-for-8e8",
    lambda: str(bloom.optimal_k(SEED_002_FIX_CONTAINERS * SEED_002_BITS, SEED_002_REAL)),
)
FIGURES.add(
    "nk-old-layout-8e8",
    lambda: format_rate(
        bloom.sharded_fpr(SEED_002_REAL, SEED_002_PLAN_CONTAINERS, SEED_002_BITS, SEED_002_PLAN_K)
    ),
)

# -- figures: seed 002's fix ---------------------------------------------------------------------

FIGURES.add("nk-fix-bytes", lambda: format_bytes(SEED_002_FIX_CONTAINERS * SEED_002_BITS / 8))
FIGURES.add("nk-fix-2e9", lambda: format_rate(fix()[0].formula))
FIGURES.add("nk-fix-2e9-sim", lambda: format_rate(fix()[0].simulated))
FIGURES.add("nk-fix-8e8", lambda: format_rate(fix()[1].formula))
FIGURES.add("nk-fix-8e8-sim", lambda: format_rate(fix()[1].simulated))
FIGURES.add("nk-fix-2e9-over", lambda: f"{fix()[0].formula / SEED_002_TARGET:.0f}×")
FIGURES.add("nk-fix-8e8-better", lambda: f"{SEED_002_TARGET / fix()[1].formula:.0f}×")
FIGURES.add("nk-fix-2e9-bestk", lambda: str(fix()[0].best_k))
FIGURES.add(
    "nk-fix-2e9-bestp",
    lambda: format_rate(bloom.fpr(fix()[0].per_container, SEED_002_BITS, fix()[0].best_k)),
)
FIGURES.add(
    "nk-need-2e9", lambda: format_bytes(bloom.optimal_m(SEED_002_PLANNED, SEED_002_TARGET) / 8)
)

# -- figures: seed 003 ---------------------------------------------------------------------------

FIGURES.add("nk-003-m", lambda: f"{seed_003_sizing().m:.3g}")
FIGURES.add("nk-003-bytes", lambda: format_bytes(seed_003_sizing().bytes, 4))
FIGURES.add("nk-003-bpi", lambda: f"{seed_003_sizing().bits_per_item:.2f}")
FIGURES.add("nk-003-kreal", lambda: f"{seed_003_sizing().m / seed_003_sizing().n * LN2:.2f}")
FIGURES.add("nk-003-k", lambda: str(seed_003_sizing().k))
FIGURES.add("nk-003-p", lambda: format_rate(seed_003_sizing().achieved_fpr))
FIGURES.add("nk-003-lb", lambda: f"{bloom.bits_per_item_lower_bound(SEED_003_P):.2f}")
FIGURES.add(
    "nk-003-over", lambda: format_rate(bloom.fpr(SEED_003_FILLED, overfill_bits(), SEED_003_K))
)
FIGURES.add("nk-003-over-sim", lambda: format_rate(overfill().simulated))
FIGURES.add("nk-003-over-ratio", lambda: f"{overfill_bits() / SEED_003_FILLED:.2f}")
FIGURES.add("nk-003-scale", lambda: format_count(overfill().capacity))
FIGURES.add(
    "nk-over-15",
    lambda: format_rate(bloom.fpr(1.5 * overfill().capacity, overfill().bits, SEED_003_K)),
)

# -- claims ---------------------------------------------------------------------------------------

FIGURES.claim(
    "002-15-hashes-over-50pct", "002", "§6",
    "15 hashes with about 30,000 items in a 2^17-bit container give over 50% false positives.",
    "over 50%",
    "{nk-plan-fpr} ({nk-plan-n} items a container, {nk-plan-fill} of the bits set)",
    Verdict.CORRECT,
    "At k·n/m ≈ {nk-plan-load} the container is nearly full, and every probe finds a set bit.",
)  # fmt: skip
FIGURES.claim(
    "002-15-hashes-0.1pct", "002", "§6",
    "15 hashes give a 0.1% error for that container (the answer ChatGPT gave).",
    "15 hashes → 0.1%",
    "best k is {nk-plan-bestk}, reaching {nk-plan-bestp}; 0.1% needs {nk-bits-needed} bits a "
    "container",
    Verdict.WRONG,
    "No k reaches 0.1% at about {nk-plan-ratio} bits per item: the container is too small, not "
    "the hashes too few.",
)  # fmt: skip
FIGURES.claim(
    "002-nk-le-m", "002", "§6",
    "n·k must not exceed m (or not by much).",
    "n·k ≤ m",
    "at n·k = m the filter is {nk-fill-at-rule} full and the rate is 0.632^k ({nk-rule-p10} at "
    "k = 10); the best load is n·k/m = ln 2 = {nk-best-load}",
    Verdict.IMPRECISE,
    "A ceiling, not a target: at the limit the filter is well past its best fill.",
)  # fmt: skip
FIGURES.claim(
    "002-fix-verified", "002", "§7",
    "2^17 containers with 10 hashes give 0.1%, as the formula says and a test verified.",
    "0.1%",
    "{nk-fix-8e8} at the real 8 × 10^8; {nk-fix-2e9} at the planned 2 × 10^9",
    Verdict.DEPENDS,
    "Right for the load tested, wrong for the load the layout was planned for.",
)  # fmt: skip
FIGURES.claim(
    "003-sizing-137mib", "003", "sizing",
    "For 1.2 × 10^8 items at 1%: m ≈ 1.15 × 10^9 bits ≈ 137 MiB, 9.6 bits per item, k = 7.",
    "137 MiB, 9.6 bits/item, k = 7",
    "{nk-003-bytes}, {nk-003-bpi} bits per item, k = {nk-003-k}",
    Verdict.CORRECT,
    "The textbook formulas, applied correctly.",
)  # fmt: skip
FIGURES.claim(
    "003-overfill-15.7pct", "003", "坑一",
    "Sized for 10^8 items and filled with 2 × 10^8, the filter's rate is 15.7%.",
    "15.7%",
    "{nk-003-over} (m/n = {nk-003-over-ratio}, k = 7)",
    Verdict.CORRECT,
    "Past capacity the rate grows roughly like the load to the power k.",
)  # fmt: skip
