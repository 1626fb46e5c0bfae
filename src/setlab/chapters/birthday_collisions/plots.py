"""Pictures of hashed offsets colliding (chapter "Birthday collisions").

:func:`collision_diagram` draws the mechanism (two users, one bit); :func:`plot_collision_curves`
the exact probability against users per item for several offset ranges, with a printed table's
cells on it; :func:`plot_simulation_check` a Monte Carlo run against the formula; and
:func:`plot_lost_fraction` how much one run of seed 004's experiment varies. Every number comes
from :mod:`setlab.models.birthday` and :mod:`setlab.models.hashed_offsets`; each function returns
the figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from setlab.core.validate import check_int
from setlab.models.birthday import (
    SeedCell,
    collision_probabilities,
    collision_probability,
    collision_probability_approx,
    expected_lost_bits,
    parse_percent,
)
from setlab.models.hashed_offsets import SimulationResult
from setlab.render.plots import PALETTE, new_figure


def collision_diagram(m: int = 16) -> Figure:
    """Three users hashed into ``m`` bits; two of them land on the same bit."""
    if isinstance(m, bool) or not isinstance(m, int) or not 8 <= m <= 32:
        raise ValueError(f"m must be an integer from 8 to 32 (bits drawn); got {m!r}")
    fig, ax = new_figure(height=2.8)
    ax.set_xlim(-1, m + 1)
    ax.set_ylim(-1.6, 3.4)
    ax.axis("off")
    shared, alone = m // 3, (2 * m) // 3 + 1
    for i in range(m):
        colour = PALETTE[3] if i == shared else (PALETTE[2] if i == alone else "#eeeeee")
        ax.add_patch(Rectangle((i, 0), 1, 1, facecolor=colour, edgecolor="k", linewidth=0.6))
        ax.text(i + 0.5, -0.35, str(i), ha="center", va="center", fontsize=9)
        ax.text(i + 0.5, 0.5, "1" if i in (shared, alone) else "0", ha="center", va="center")
    users = [("user A", 1.5, shared), ("user B", m / 2 - 0.5, shared), ("user C", m - 2.5, alone)]
    box = {"boxstyle": "round", "facecolor": "white", "edgecolor": PALETTE[0]}
    for name, x, target in users:
        ax.text(x, 2.9, name, ha="center", va="center", fontsize=9, bbox=box)
        colour = PALETTE[3] if target == shared else PALETTE[0]
        arrow = FancyArrowPatch(
            (x, 2.6), (target + 0.5, 1.05), arrowstyle="-|>", mutation_scale=12, color=colour
        )
        ax.add_patch(arrow)
    formula = "offset = |hash64(user id)| mod M"
    plain = {"facecolor": "white", "edgecolor": "none"}
    ax.text(m / 2, 1.9, formula, ha="center", fontsize=9, family="monospace", bbox=plain)
    caption = (
        f"one item's bitmap, M = {m} bits: A and B share bit {shared}, "
        "so GETBIT cannot tell them apart"
    )
    ax.text(m / 2, -1.0, caption, ha="center", fontsize=9)
    return fig


def plot_collision_curves(
    log2_ms: Sequence[int] = (32, 28, 24, 20),
    n_max: int = 10**6,
    cells: Sequence[SeedCell] = (),
) -> Figure:
    """Exact P(at least one collision) against users per item, one curve per ``M = 2^k``.

    Log-log axes; the approximation as a dotted line; seed 000's cells as crosses (red
    circles around those judged wrong).
    """
    n_max = check_int("n_max", n_max, 10)
    ns = np.unique(np.logspace(0.3, math.log10(n_max), 160).astype(np.int64))
    fig, ax = new_figure()
    for colour, log2_m in zip(PALETTE, log2_ms, strict=False):
        m = 1 << check_int("log2 M", log2_m, 1, 62)
        exact = collision_probabilities(ns, m)
        approx = [collision_probability_approx(int(n), m) for n in ns]
        keep = exact > 1e-12
        ax.plot(ns[keep], exact[keep], color=colour, label=f"M = 2^{log2_m}")
        ax.plot(ns[keep], np.asarray(approx)[keep], color=colour, linestyle=":", linewidth=1)
        mine = [c for c in cells if c.log2_m == log2_m]
        ax.scatter([c.n for c in mine], [c.seed_value for c in mine], marker="x", color=colour)
        for c in mine:
            if c.verdict == "wrong":
                ax.scatter(c.n, c.seed_value, s=160, facecolors="none", edgecolors=PALETTE[3])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-8, 2)
    ax.set_xlabel("users who liked one item, n")
    ax.set_ylabel("P(at least two share an offset)")
    ax.set_title("Birthday collisions: exact (solid), approximation (dotted), seed 000 (×)")
    ax.legend(loc="lower right")
    return fig


def plot_simulation_check(results: Sequence[SimulationResult]) -> Figure:
    """Simulated probability with its confidence interval against the exact value, per case."""
    if not results:
        raise ValueError("results must contain at least one SimulationResult")
    fig, ax = new_figure()
    exact = np.array([collision_probability(r.n, r.m) for r in results])
    est = np.array([r.probability for r in results])
    ci = np.array([r.probability_ci for r in results])
    x = np.arange(len(results))
    ax.scatter(x, exact, marker="_", s=400, color=PALETTE[0], label="exact", zorder=3)
    ax.errorbar(
        x,
        est,
        yerr=[est - ci[:, 0], ci[:, 1] - est],
        fmt="o",
        color=PALETTE[1],
        capsize=4,
        label=f"simulated ({results[0].confidence:.0%} Wilson interval)",
    )
    ax.set_xticks(x, [f"M=2^{int(math.log2(r.m))}\nn={r.n:,}" for r in results], fontsize=9)
    ax.set_yscale("log")
    ax.set_ylabel("P(at least one collision)")
    ax.set_title("murmur3 on realistic IDs vs the exact formula")
    ax.legend(loc="lower right")
    return fig


def plot_lost_fraction(result: SimulationResult, printed: str | None = None) -> Figure:
    """Histogram of the lost fraction ``(n - BITCOUNT) / n`` over the simulated trials, with
    the exact expectation and, if given, a seed's printed figure."""
    fig, ax = new_figure(height=3.4)
    fractions = result.lost_bits / result.n * 100
    ax.hist(
        fractions,
        bins=min(30, max(5, result.trials // 3)),
        color=PALETTE[5],
        edgecolor="white",
        label=f"{result.trials} simulated runs",
    )
    expected = expected_lost_bits(result.n, result.m) / result.n * 100
    ax.axvline(expected, color=PALETTE[0], linewidth=2, label=f"expected {expected:.3f}%")
    if printed is not None:
        value, _ = parse_percent(printed)
        ax.axvline(value * 100, color=PALETTE[3], linestyle="--", label=f"seed: {printed}")
    ax.set_xlabel(f"items lost, % of n = {result.n:,} (M = {result.m:,} offsets)")
    ax.set_ylabel("runs")
    ax.set_title("How much one run of seed 004's experiment varies")
    ax.legend(loc="upper right")
    return fig
