"""Tests for setlab.chapters.snowflake_ranges.plots: each picture draws what its caption says.

References: the seed's ID decoded by hand (machine 219 = 6 × 32 + 27), the three limits 2^32, 2^53
and 2^63, and Leaf runs whose counts the test reads from the runs themselves.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from setlab.chapters.snowflake_ranges import plots as figures
from setlab.models import snowflake as sf

SEED_ID = 2051776854918803458  # seed 000 §4's "typical" snowflake ID


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_layout_figure_draws_one_cell_per_field_and_the_sign_bit():
    fig = figures.layout_figure([sf.TWITTER, sf.SEED_000], SEED_ID)
    (ax,) = fig.axes
    assert len(ax.patches) == (1 + 4) + (1 + 3)
    assert sum(p.get_width() for p in ax.patches) == 2 * 64
    assert any("= 219" in t.get_text() for t in ax.texts)
    assert "2051776854918803458" in ax.get_title()
    with pytest.raises(ValueError, match="at least one layout"):
        figures.layout_figure([])


def test_range_figure_marks_the_ids_and_the_three_limits():
    fig = figures.range_figure(sf.TWITTER, {"seed": SEED_ID})
    (ax,) = fig.axes
    assert {line.get_ydata()[0] for line in ax.lines[1:4]} == {2**32, 2**53, 2**63}
    assert ax.lines[-1].get_ydata()[0] == SEED_ID
    assert ax.get_yscale() == "log" and ax.get_title()


def test_offsets_figure_plots_each_kind_of_offset_by_rank_below_two_to_the_32():
    likers = np.array([50, 10, 40, 20, 30], dtype=np.int64)
    hashed = np.array([5_000_000, 1_000, 4_000_000_000, 70, 123_456], dtype=np.int64)
    dense = np.arange(5, dtype=np.int64)
    fig = figures.offsets_figure(likers, hashed, dense)
    (ax,) = fig.axes
    by_rank = np.argsort(likers)
    assert ax.lines[0].get_ydata().tolist() == (hashed[by_rank] + 1).tolist()
    assert ax.lines[1].get_ydata().tolist() == (dense[by_rank] + 1).tolist()
    assert ax.lines[2].get_ydata()[0] == 2**32 and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="same shape"):
        figures.offsets_figure(likers, hashed[:3], dense)


def test_offsets_figure_draws_at_most_about_two_thousand_points():
    n = 20_000
    likers = np.arange(n, dtype=np.int64)
    fig = figures.offsets_figure(likers, likers, likers)
    assert len(fig.axes[0].lines[0].get_xdata()) == 2_000


def test_leaf_figure_shows_round_trips_and_losses_per_restart_against_the_bound():
    runs = {step: sf.LeafSegments(step, 2).run(5_000, 4, seed=1) for step in (10, 100, 1_000)}
    fig = figures.leaf_figure(runs, 5_000)
    ax_db, ax_lost = fig.axes
    assert ax_db.lines[0].get_ydata().tolist() == [runs[s].db_fetches for s in (10, 100, 1_000)]
    per_restart = [max(runs[s].lost, 1) / 4 for s in (10, 100, 1_000)]
    assert ax_lost.lines[0].get_ydata().tolist() == per_restart
    assert ax_lost.lines[1].get_ydata().tolist() == [20, 200, 2_000]  # two segments
    assert "5,000" in ax_db.get_title()
    with pytest.raises(ValueError, match="at least one Leaf run"):
        figures.leaf_figure({}, 10)
