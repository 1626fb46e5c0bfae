"""setlab.chapters.bloom_basics.plots: the chapter bloom-basics' picture of a filter."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from setlab.chapters.bloom_basics import plots as bloom_diagram


def test_draw_filter_draws_one_box_per_bit_and_one_arrow_per_position():
    fig, ax = plt.subplots()
    bloom_diagram.draw_filter(ax, 16, {"x": [1, 5, 9], "y": [2, 5]}, query=("q", [1, 3]))
    assert len(ax.patches) == 16
    assert sum(1 for t in ax.texts if getattr(t, "arrow_patch", None) is not None) == 7
    plt.close(fig)


def test_filter_figure_stacks_one_panel_per_query_and_returns_the_figure():
    fig = bloom_diagram.filter_figure(
        8, {"a": [0, 3]}, [("q1", [0, 1]), ("q2", [3, 0])], title="two queries"
    )
    assert len(fig.axes) == 2
    assert fig.axes[0].get_title() == "two queries"
    assert all(len(ax.patches) == 8 for ax in fig.axes)
    plt.close(fig)


def test_filter_figure_needs_a_query_and_a_drawable_size():
    with pytest.raises(ValueError, match="queries"):
        bloom_diagram.filter_figure(8, {"a": [0]}, [])
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="m"):
        bloom_diagram.draw_filter(ax, 300, {"a": [0]})
    plt.close(fig)
