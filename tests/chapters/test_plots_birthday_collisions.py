"""Tests for setlab.chapters.birthday_collisions.plots: each picture draws what its caption says.

References: the exact probabilities of setlab.models.birthday (checked against enumeration and
50-digit products in tests/unit/test_birthday.py), a hand-built judged cell, and the simulation
results the figures are given.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from setlab.chapters.birthday_collisions import plots as collisions
from setlab.models import birthday as bd
from setlab.models import hashed_offsets as ho


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_collision_diagram_draws_the_shared_bit():
    fig = collisions.collision_diagram(16)
    texts = fig.axes[0].texts
    assert "offset = |hash64(user id)| mod M" in [t.get_text() for t in texts]
    bits = [t.get_text() for t in texts if t.get_position()[1] == 0.5]
    assert len(bits) == 16 and bits.count("1") == 2
    with pytest.raises(ValueError, match="bits drawn"):
        collisions.collision_diagram(100)


def test_collision_curves_follow_the_exact_probability_and_circle_wrong_cells():
    cells = bd.judge_cells({(20, 1000): "100%", (20, 100): "0.48%", (24, 1000): "3%"})
    fig = collisions.plot_collision_curves((24, 20), n_max=10**5, cells=cells)
    (ax,) = fig.axes
    solid = ax.lines[0]  # M = 2^24, exact
    for n, p in zip(solid.get_xdata(), solid.get_ydata(), strict=True):
        assert p == pytest.approx(bd.collision_probability(int(n), 2**24), rel=1e-9)
    circled = [
        c for c in ax.collections if c.get_offsets().shape[0] == 1 and c.get_sizes()[0] > 100
    ]
    assert len(circled) == 1  # the one wrong cell
    assert circled[0].get_offsets()[0].tolist() == [1000, 1.0]
    assert ax.get_xscale() == ax.get_yscale() == "log"


def test_simulation_check_plots_exact_values_and_the_estimates_with_their_intervals():
    rng = np.random.default_rng(3)
    results = [ho.simulate_collisions(n, 2**12, 200, rng) for n in (20, 60)]
    fig = collisions.plot_simulation_check(results)
    (ax,) = fig.axes
    exact = ax.collections[0].get_offsets()[:, 1]
    assert exact.tolist() == [bd.collision_probability(n, 2**12) for n in (20, 60)]
    assert "95% Wilson interval" in ax.get_legend().get_texts()[1].get_text()
    with pytest.raises(ValueError, match="at least one SimulationResult"):
        collisions.plot_simulation_check([])


def test_lost_fraction_marks_the_expectation_and_the_printed_figure():
    result = ho.simulate_collisions(1_000, 1_000, 12, np.random.default_rng(4), "uuid")
    fig = collisions.plot_lost_fraction(result, printed="36.84%")
    (ax,) = fig.axes
    expected, printed = (line.get_xdata()[0] for line in ax.lines)
    assert expected == pytest.approx(bd.expected_lost_bits(1_000, 1_000) / 1_000 * 100)
    assert printed == pytest.approx(36.84)
    assert sum(p.get_height() for p in ax.patches) == 12  # one count per simulated run
