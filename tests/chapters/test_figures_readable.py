"""Figures whose reading once failed (issue 29), each checked for what went wrong: a legend that
covered a panel's curves (redis-set-memory's growth), query arrows whose heads stopped on the
index numbers instead of their bits (bloom-basics' filter), and the one GET that waited for a
SETBIT drawn as a dot under the legend (setbit-offset's stall). Measured on the drawn figure,
in display coordinates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.text import Annotation

from setlab.chapters import bloom_basics, redis_set_memory, setbit_offset
from setlab.chapters.bloom_basics.plots import CELL
from setlab.lab.reference import Measurement
from setlab.lab.runs.setbit import SetbitReference


@pytest.fixture(autouse=True)
def _close_figures():
    """Each test draws a whole figure: closed after it (pyplot keeps every figure it opened)."""
    yield
    plt.close("all")


def _covered(fig) -> list[str]:
    """Data points of any panel that lie under a legend (the figure's or a panel's)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    found = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            for line in ax.get_lines():
                xy = ax.transData.transform(np.column_stack(line.get_data()).astype(float))
                inside = [box.contains(x, y) for x, y in xy if np.isfinite([x, y]).all()]
                if any(inside):
                    found.append(f"{line.get_label()!r} ({ax.get_title()!r}) under the legend")
    return found


def test_the_set_growth_legend_covers_no_curve():
    rows = redis_set_memory.reference().growth
    fig = redis_set_memory.growth_figure(rows, "reference run")
    assert _covered(fig) == []


def test_the_stall_figure_shows_the_waiting_get_from_sent_to_answered_clear_of_the_legend():
    timeline = SetbitReference.load().timeline
    fig = setbit_offset.plot_stall(Measurement(timeline, False, "reference run"))
    assert _covered(fig) == []
    (ax,) = fig.axes
    worst = int(np.argmax(timeline.latency_ms))
    start, wait = timeline.starts_ms[worst], timeline.latency_ms[worst]
    bars = [line for line in ax.get_lines() if len(line.get_xdata()) == 2]
    assert [list(b.get_xdata()) for b in bars] == [[start, start + wait]]
    low, high = ax.get_ylim()
    assert low < wait / 1e3 < high / 2  # inside the frame, with room above it


@pytest.mark.parametrize("panel", [0, 1])
def test_every_arrow_of_the_filter_picture_ends_on_its_bit_and_on_no_label(panel):
    demo = bloom_basics.demo()
    fig = bloom_basics.demo_figure()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[panel]
    arrows = [a for a in ax.texts if isinstance(a, Annotation) and a.arrow_patch is not None]
    labels = [t for t in ax.texts if not isinstance(t, Annotation) and t.get_text()]
    queried = demo.query(demo.stranger if panel == 0 else demo.liar)
    assert len(arrows) == sum(map(len, demo.positions.values())) + len(queried)
    bits = {*queried, *(p for positions in demo.positions.values() for p in positions)}
    for arrow in arrows:
        x, y = arrow.xy
        assert y in (0, CELL) and x - 0.5 in bits
        assert arrow.arrow_patch.shrinkB == 0  # the head reaches the cell's edge
        head = ax.transData.transform((x, y))
        for text in labels:  # no arrowhead sits on an index number or a bit
            box = text.get_window_extent(renderer)
            assert not box.contains(*head), (text.get_text(), arrow.xy)
