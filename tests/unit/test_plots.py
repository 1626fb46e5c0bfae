"""setlab.render.plots: figures reach the page as titled SVG with human tick labels."""

from __future__ import annotations

import itertools
import re

import matplotlib

matplotlib.use("Agg")

import pytest

from setlab.render import plots


@pytest.fixture(autouse=True)
def _style():
    plots.use_book_style()


@pytest.mark.parametrize(
    ("value", "text"),
    [(1, "1"), (1500, "1.5k"), (2_000_000, "2M"), (8e8, "800M"), (4.3e9, "4.3G"), (0.5, "0.5"),
     (1.75e18, "1.75e18")],  # a snowflake ID: not "1.75e+06T"
)  # fmt: skip
def test_short_count_labels_counts_without_exponents(value, text):
    assert plots.short_count(value) == text


def test_an_axis_of_snowflake_ids_keeps_labels_that_do_not_collide():
    """choosing's histogram of snowflake IDs (about 2 × 10^18) read "1.75e+06T" on every tick,
    the labels running into each other: its ticks keep matplotlib's mantissas, the power once."""
    fig, ax = plots.new_figure(width=4.75, height=3.6)
    ax.bar([1.74e18, 1.87e18], [1, 1], width=1.3e17, align="edge")
    plots.humanize_log_axes(fig)
    fig.canvas.draw()
    labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    assert len(labels) >= 3 and not any("T" in t.get_text() for t in labels)
    assert ax.xaxis.get_offset_text().get_text() == "1e18"
    boxes = sorted((t.get_window_extent() for t in labels), key=lambda b: b.x0)
    assert all(a.x1 <= b.x0 for a, b in itertools.pairwise(boxes)), "labels overlap"


@pytest.mark.parametrize(
    ("p", "text"), [(0.0001, "0.01%"), (0.0003, "0.03%"), (0.01, "1%"), (0.5, "50%"), (1, "100%")]
)
def test_share_labels_probabilities_as_percentages(p, text):
    assert plots.share(p) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(1e-6, "10⁻⁶"), (3e-4, "3×10⁻⁴"), (1e-3, "0.001"), (0.02, "0.02"), (10, "10"), (1e6, "1M")],
)
def test_log_axis_labels_are_full_size_text(value, text):
    assert plots.human_log_label(value) == text


def test_the_svg_is_titled_with_what_the_figure_shows_and_its_takeaway():
    fig, ax = plots.new_figure()
    ax.loglog([1, 10], [1, 100], label="model")
    ax.set(xlabel="offset", ylabel="memory", title="Memory of a key")
    ax.legend()
    plots.describe(fig, "It grows with the offset.")
    svg = plots.svg_of(fig)
    title = re.search(r"<title>(.*?)</title>", svg).group(1)
    assert title == (
        "Figure: Memory of a key: memory against offset (both on log scales); series: model. "
        "It grows with the offset."
    )
    assert "<text" in svg  # text stays text: the site test can measure its size
    assert "Date" not in svg and "dc:date" not in svg  # the same figure, the same file


def test_default_log_labels_become_human_and_small_superscripts_disappear():
    fig, ax = plots.new_figure()
    ax.loglog([1e-5, 1], [1, 1e9])
    svg = plots.svg_of(fig)
    sizes = {float(s) for s in re.findall(r"font-size: ([0-9.]+)px", svg)}
    assert min(sizes) >= plots.MIN_FONT
    assert "100M" in svg and "10⁻⁵" in svg and "e+" not in svg


def test_figures_are_never_wider_than_the_column():
    fig, _ = plots.new_figure(width=12)
    assert fig.get_figwidth() == plots.MAX_WIDTH


def test_a_bytes_axis_ticks_at_round_binary_units():
    fig, ax = plots.new_figure()
    ax.plot([0, 6000], [0, 6000])
    plots.bytes_axis(ax, "y")
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert any(label.endswith("KiB") for label in labels)
    assert all(re.fullmatch(r"0|\d+(\.5)? KiB", label) for label in labels), labels


def test_bad_axis_names_are_refused():
    _fig, ax = plots.new_figure()
    with pytest.raises(ValueError, match="axis must be 'x' or 'y'"):
        plots.count_axis(ax, "z")
