"""Chapter "Birthday collisions: shrinking the offset range" (seed 000 §3.4, seed 004 §3).

The chapter's seed constants (seed 000's collision table, seed 004's two figures), its fixed
experiments (a Monte Carlo per table case, seed 004's 100,000 UUIDs, two colliding users), its
Markdown tables, its figures (:data:`FIGURES`) and its claims. Every number is computed here once,
from :mod:`setlab.models.birthday` and :mod:`setlab.models.hashed_offsets`: the page glues these
figures and the verdict table renders the claims, so prose and table read one value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from setlab.chapters import open_page
from setlab.chapters.birthday_collisions import claims
from setlab.chapters.birthday_collisions.claims import SEED_000_TABLE, SEED_004_SIZED
from setlab.core.figure_cache import kept
from setlab.core.formats import format_bytes, format_probability
from setlab.core.validate import check_int
from setlab.models import bitmap
from setlab.models.birthday import (
    CANDIDATE_FORMULAS,
    SeedCell,
    collision_probability,
    collision_probability_approx,
    expected_colliding_pairs,
    expected_colliding_users,
    expected_lost_bits,
    false_positive_rate,
    format_collision_probability,
    judge_cells,
    log_no_collision,
    lost_bits_sd,
    max_users,
    parse_percent,
)
from setlab.models.hashed_offsets import (
    CollidingPair,
    SimulationResult,
    find_colliding_users,
    seed_004_offsets,
    simulate_collisions,
    uuid4_strings,
)
from setlab.models.snowflake import SEED_000_ID, SEED_MODULUS_INTENDED, TWITTER_EPOCH_MS
from setlab.render.claims import Figures, Verdict

if TYPE_CHECKING:  # the lab is imported where a page opens (open_page), not by setlab calc
    from setlab.lab.backend import Lab

FIGURES = Figures("birthday-collisions")

# -- the seeds' figures ------------------------------------------------------------------------

#: Seed 004 §2–3: 100,000 UUIDs (the two "collision rates" it prints are in claims.py).
SEED_004_N = 100_000
#: The item whose likes the chapter replays: the ID in seed 000 §1 (and §4.1).
ITEM_ID = SEED_000_ID

# -- the chapter's fixed experiments -------------------------------------------------------------

#: Seed of every random draw in the chapter, so a rebuild shows the same book.
SEED = 2026
#: (log2 M, users n) of the Monte Carlo check, the seed's wrong cell among them.
SIMULATION_CASES = ((20, 100), (24, 1000), (20, 1000), (28, 10_000), (24, 10_000))
#: The first ID of the scan for a colliding pair: 2026-05-06 (seed 000's publication date) in
#: Twitter's layout, worker 1, sequence 0.
FIRST_USER = (1_778_025_600_000 - TWITTER_EPOCH_MS) << 22 | 1 << 12


def start() -> Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


@cache
def seed_000_cells() -> tuple[SeedCell, ...]:
    """Seed 000's table, every cell recomputed and judged."""
    return tuple(judge_cells(SEED_000_TABLE))


def _cell(log2_m: int, n: int) -> SeedCell:
    return next(c for c in seed_000_cells() if (c.log2_m, c.n) == (log2_m, n))


@cache
@kept("birthday-simulations")
def simulations(scale: float = 1.0) -> tuple[SimulationResult, ...]:
    """The Monte Carlo check of :data:`SIMULATION_CASES`: ``max(200, 2000 × scale)`` simulated
    items per case, snowflake IDs hashed with murmur3 x64_128 (one generator seeded
    :data:`SEED` for all cases, in order)."""
    trials = max(200, int(2000 * scale))
    rng = np.random.default_rng(SEED)
    return tuple(simulate_collisions(n, 1 << k, trials, rng) for k, n in SIMULATION_CASES)


@cache
@kept("birthday-seed-004-uuids")
def seed_004_uuids() -> tuple[str, ...]:
    """Seed 004's experiment: :data:`SEED_004_N` random UUIDs from a generator seeded
    :data:`SEED`."""
    return tuple(uuid4_strings(np.random.default_rng(SEED), SEED_004_N))


@cache
def seed_004_bitmaps() -> tuple[np.ndarray, np.ndarray]:
    """Seed 004's two offset lists for :func:`seed_004_uuids`: x86_32, and |x64_128[0]| % 100000."""
    return seed_004_offsets(list(seed_004_uuids()))


@cache
@kept("birthday-colliding-pairs")
def colliding_pairs() -> tuple[CollidingPair, CollidingPair]:
    """The first two consecutive IDs from :data:`FIRST_USER` on that share an offset mod 2^20,
    and mod the seed's full 2^32 - 1."""
    small = find_colliding_users(range(FIRST_USER, FIRST_USER + 10**6), 2**20)
    full = find_colliding_users(range(FIRST_USER, FIRST_USER + 10**7), SEED_MODULUS_INTENDED)
    return small, full


# -- Markdown tables -----------------------------------------------------------------------------


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A left-aligned Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(":--" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _power(log2_m: int) -> str:
    return f"2<sup>{log2_m}</sup>"


def seed_000_markdown(cells: Sequence[SeedCell]) -> str:
    """Seed 000's table beside ours: one row per cell, with ratio, difference and verdict."""
    header = ("M", "users n", "seed 000", "exact (ours)", "seed ÷ ours", "seed − ours", "verdict")
    rows = [
        (
            _power(c.log2_m),
            f"{c.n:,}",
            c.printed,
            format_collision_probability(c.n, c.m),
            f"{c.ratio:.3g}",
            f"{c.difference_pp:+.2g} pp",
            Verdict(c.verdict).badge(),
        )
        for c in cells
    ]
    return _markdown_table(header, rows)


def candidates_markdown(cells: Sequence[SeedCell]) -> str:
    """What each of :data:`CANDIDATE_FORMULAS` gives for the given cells; bold where it prints
    as the seed's figure."""
    header = ["formula", *(f"{_power(c.log2_m)} × {c.n:,} (seed: {c.printed})" for c in cells)]
    rows = []
    for name, formula in CANDIDATE_FORMULAS.items():
        row = [name]
        for c in cells:
            text = format_probability(formula(c.n, c.m))
            row.append(f"**{text}**" if name in c.reproduced_by else text)
        rows.append(row)
    return _markdown_table(header, rows)


def simulation_markdown(results: Sequence[SimulationResult]) -> str:
    """Exact, approximate and simulated probability (with its interval), and lost bits."""
    level = f"{results[0].confidence:.0%}" if results else ""
    header = ("M", "users n", "exact", "approximation", f"simulated ({level} interval)",
              "exact inside?", "lost bits: expected vs simulated")  # fmt: skip
    rows = []
    for r in results:
        low, high = r.probability_ci
        lost_low, lost_high = r.lost_bits_ci
        exact = collision_probability(r.n, r.m)
        m = _power(int(math.log2(r.m))) if r.m & (r.m - 1) == 0 else f"{r.m:,}"
        rows.append(
            (
                m,
                f"{r.n:,}",
                format_probability(exact),
                format_probability(collision_probability_approx(r.n, r.m)),
                f"{format_probability(r.probability)} "
                f"({format_probability(low)} – {format_probability(high)})",
                "yes" if r.agrees_with(exact) else "**no**",
                f"{expected_lost_bits(r.n, r.m):.3g} vs {r.mean_lost_bits:.3g} "
                f"({lost_low:.3g} – {lost_high:.3g})",
            )
        )
    return _markdown_table(header, rows)


def capacity_markdown(
    log2_ms: Sequence[int] = (32, 28, 24, 20),
    targets: Sequence[float] = (1e-6, 1e-3, 0.01, 0.5),
    likers: int = 10_000,
) -> str:
    """How many likers each ``M`` can take before P(any collision) passes each target, and how
    often a non-liker reads "liked" at ``likers`` likers."""
    header = (
        "M",
        "full bitmap",
        *(f"max n for P ≤ {p * 100:g}%" for p in targets),
        f"non-likers reading “liked” at n = {likers:,}",
    )
    rows = []
    for log2_m in log2_ms:
        m = 1 << check_int("log2 M", log2_m, 1, 62)
        rows.append(
            (
                _power(log2_m),
                format_bytes(m // 8),
                *(f"{max_users(m, p):,}" for p in targets),
                format_probability(false_positive_rate(likers, m)),
            )
        )
    return _markdown_table(header, rows)


def story_markdown(rows: list[dict[str, object]]) -> str:
    """:func:`collision_story` as a Markdown table; a read that contradicts the truth is bold."""
    header = ["step", "command", "reply", "A sees", "B sees", "BITCOUNT", "who really likes"]
    body = []
    for row in rows:
        likers = str(row["truth"]).split(", ")
        cells = [row["step"], f"`{row['command']}`", row["reply"]]
        for name in ("A", "B"):
            shown = bool(row[f"{name} reads"])
            text = "liked" if shown else "not liked"
            cells.append(text if shown == (name in likers) else f"**{text}** (wrong)")
        cells += [row["BITCOUNT"], row["truth"]]
        body.append(cells)
    return _markdown_table(header, body)


# -- figures -------------------------------------------------------------------------------------


@FIGURES.figure("bd-p-29")
def _p_29() -> str:  # the modulus Java makes of the seed's 2^32 - 1, with 10 likers
    return format_probability(collision_probability(10, 2 ^ 32 - 1))


@FIGURES.figure("bd-minus-one")
def _minus_one() -> str:
    ratio = collision_probability(10**4, 2**32 - 1) / collision_probability(10**4, 2**32)
    return f"{ratio - 1:.1e}"


@FIGURES.figure("bd-right-cells")
def _right_cells() -> str:
    cells = seed_000_cells()
    return f"{sum(c.verdict == 'correct' for c in cells)} of {len(cells)}"


FIGURES.add("bd-wrong-exact", lambda: format_probability(_cell(20, 1000).exact))
FIGURES.add("bd-wrong-ratio", lambda: f"{_cell(20, 1000).ratio:.2f}")
FIGURES.add("bd-wrong-n2m", lambda: format_probability(min(1.0, 1000**2 / 2**20)))
FIGURES.add("bd-wrong-pairs", lambda: f"{expected_colliding_pairs(1000, 2**20):.3f}")
FIGURES.add("bd-rough-exact", lambda: format_probability(_cell(20, 100).exact))
FIGURES.add("bd-rough-n2", lambda: format_probability(100**2 / 2**21))
FIGURES.add("bd-rough-high", lambda: f"{_cell(20, 100).ratio - 1:.1%}")
FIGURES.add("bd-p-10k-2-20", lambda: format_collision_probability(10_000, 2**20))


@FIGURES.figure("bd-sim-inside")
def _sim_inside() -> str:
    sims = simulations()
    inside = sum(s.agrees_with(collision_probability(s.n, s.m)) for s in sims)
    return f"{inside} of {len(sims)}"


FIGURES.add("bd-sim-trials", lambda: f"{simulations()[0].trials:,}")


@FIGURES.figure("bd-sim-wrong")
def _sim_wrong() -> str:  # the seed's wrong cell, 2^20 × 1,000
    low, high = simulations()[SIMULATION_CASES.index((20, 1000))].probability_ci
    return f"{format_probability(low)} – {format_probability(high)}"


# seed 004: the model for 100,000 items, and this chapter's run of its experiment


def _lost_32() -> tuple[float, float]:
    return expected_lost_bits(SEED_004_N, 2**32), lost_bits_sd(SEED_004_N, 2**32)


def _empty() -> tuple[float, float]:
    """Expected fraction of empty slots (= items lost) for n items in n slots, and its sd."""
    n = SEED_004_N
    return expected_lost_bits(n, n) / n, lost_bits_sd(n, n) / n


def _bitcount() -> int:
    """``BITCOUNT`` of seed 004's ``bitMap10w_hash_size`` for our UUIDs: the distinct offsets."""
    return int(np.unique(seed_004_bitmaps()[1]).size)


FIGURES.add("bd-004-lost-raw", lambda: f"{SEED_004_N - np.unique(seed_004_bitmaps()[0]).size}")
FIGURES.add("bd-004-lost32", lambda: f"{_lost_32()[0]:.2f}")
FIGURES.add("bd-004-sd32", lambda: f"{_lost_32()[1]:.2f}")
FIGURES.add("bd-004-rate32", lambda: format_probability(_lost_32()[0] / SEED_004_N))
FIGURES.add("bd-004-pany32", lambda: format_probability(collision_probability(SEED_004_N, 2**32)))
FIGURES.add("bd-004-empty", lambda: f"{_empty()[0]:.3%}")
FIGURES.add("bd-004-inv-e", lambda: f"{math.exp(-1):.3%}")
FIGURES.add("bd-004-sd-empty", lambda: f"{_empty()[1]:.3%}")


@FIGURES.figure("bd-004-z")
def _z() -> str:  # how many standard deviations the seed's 36.84% is from the expectation
    empty, sd = _empty()
    return f"{(parse_percent(SEED_004_SIZED)[0] - empty) / sd:.1f}"


FIGURES.add("bd-004-bitcount", lambda: f"{_bitcount():,}")


def _ours_sized() -> float:
    return (SEED_004_N - _bitcount()) / SEED_004_N


FIGURES.add("bd-004-ours-sized", lambda: f"{_ours_sized():.2%}")


@FIGURES.figure("bd-004-ours-z")
def _ours_z() -> str:
    empty, sd = _empty()
    return f"{(_ours_sized() - empty) / sd:+.1f}"


@FIGURES.figure("bd-004-colliding")
def _colliding() -> str:
    return f"{expected_colliding_users(SEED_004_N, SEED_004_N) / SEED_004_N:.1%}"


@FIGURES.figure("bd-004-pany-digits")
def _pany_digits() -> str:
    return f"{-log_no_collision(SEED_004_N, SEED_004_N) / math.log(10):,.0f}"


# two real users who share a bit


FIGURES.add("bd-pair-small-searched", lambda: f"{colliding_pairs()[0].searched:,}")
FIGURES.add("bd-pair-full-searched", lambda: f"{colliding_pairs()[1].searched:,}")


@FIGURES.figure("bd-pair-small-expect")
def _small_expect() -> str:  # the birthday bound sqrt(pi M / 2)
    return f"{math.sqrt(math.pi * 2**20 / 2):,.0f}"


FIGURES.add("bd-pair-full-expect", lambda: f"{math.sqrt(math.pi * SEED_MODULUS_INTENDED / 2):,.0f}")
FIGURES.add("bd-pair-full-offset", lambda: f"{colliding_pairs()[1].offset:,}")


@FIGURES.figure("bd-pair-full-alloc")
def _full_alloc() -> str:
    return format_bytes(bitmap.bytes_for_offset(colliding_pairs()[1].offset))


# what each range can take


FIGURES.add("bd-size-2-32", lambda: format_bytes(2**32 // 8))


@FIGURES.figure("bd-mean-2-32")
def _mean_2_32() -> str:  # a uniformly hashed first offset allocates half the bitmap on average
    return format_bytes(2**32 // 16)


FIGURES.add("bd-size-2-20", lambda: format_bytes(2**20 // 8))
FIGURES.add("bd-cap-2-32", lambda: f"{max_users(2**32, 0.01):,}")
FIGURES.add("bd-cap-2-20", lambda: f"{max_users(2**20, 0.01):,}")
FIGURES.add("bd-fp-2-20", lambda: format_probability(false_positive_rate(10_000, 2**20)))
FIGURES.add("bd-fp-2-32", lambda: format_probability(false_positive_rate(10_000, 2**32)))
FIGURES.add("bd-ex1-n", lambda: f"{max_users(2**20, 0.5):,}")
FIGURES.add("bd-ex1-rule", lambda: f"{math.sqrt(2 * math.log(2) * 2**20):,.1f}")


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
