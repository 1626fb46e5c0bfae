"""The Bloom-filter diagram of the chapter bloom-basics: a bit array, items and a query.

Drawn with matplotlib on an axes the caller provides (so a chapter can stack two of them); the
bits come from :class:`setlab.models.bloom_sim.BloomLayout`, nothing here computes a position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from setlab.core.validate import check_int
from setlab.render.plots import MAX_WIDTH

#: a cell's height in data units (its width is 1): room for the index above the bit
CELL = 1.6


def draw_filter(
    ax: Any,
    m: int,
    items: dict[str, Sequence[int]],
    query: tuple[str, Sequence[int]] | None = None,
) -> Any:
    """Draw an ``m``-bit array, arrows from each item to the bits it sets, and optionally a query.

    ``items`` maps a label to its bit positions; ``query`` is ``(label, positions)``, drawn below
    the array with its arrows green where the bit is set and red where it is not. Returns ``ax``.
    """
    m = check_int("m", m, 1, 256)
    colours = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9"]
    set_bits = {p for positions in items.values() for p in positions}
    for i in range(m):  # a cell: its index small at the top, its bit below it
        ax.add_patch(
            Rectangle((i, 0), 1, CELL, facecolor="#dddddd" if i in set_bits else "white",
                      edgecolor="black", linewidth=0.8)
        )  # fmt: skip
        ax.text(i + 0.5, 0.45, "1" if i in set_bits else "0", ha="center", va="center",
                fontsize=10)  # fmt: skip
        # 8.5 pt: 11 px on screen at the column's width, the site's smallest figure text
        ax.text(i + 0.5, 1.2, str(i), ha="center", va="center", fontsize=8.5, color="#555555")
    spread = max(1, len(items) - 1)
    # arrows end on the cell's edge (no shrinking): the head touches the bit it means
    arrow = {"arrowstyle": "->", "shrinkA": 2, "shrinkB": 0}
    for j, (label, positions) in enumerate(items.items()):
        x0 = m * (0.1 + 0.8 * j / spread) if len(items) > 1 else m / 2
        colour = colours[j % len(colours)]
        ax.text(x0, 3.2, label, ha="center", va="bottom", color=colour, fontsize=9)
        for p in positions:
            ax.annotate("", xy=(p + 0.5, CELL), xytext=(x0, 3.15),
                        arrowprops={**arrow, "color": colour, "lw": 1})  # fmt: skip
    if query is not None:
        label, positions = query
        x0 = m / 2
        ax.text(x0, -2.4, label, ha="center", va="top", fontsize=9)
        for p in positions:
            hit = p in set_bits
            ax.annotate("", xy=(p + 0.5, 0), xytext=(x0, -2.35),
                        arrowprops={**arrow, "color": "#009E73" if hit else "#D55E00",
                                    "lw": 1.2, "linestyle": "-" if hit else "--"})  # fmt: skip
    ax.set_xlim(-0.5, m + 0.5)
    ax.set_ylim(-3.2 if query else -0.3, 3.9)
    ax.set_axis_off()
    return ax


def filter_figure(
    m: int,
    items: dict[str, Sequence[int]],
    queries: Sequence[tuple[str, Sequence[int]]],
    title: str = "",
) -> Figure:
    """The same ``m``-bit filter drawn once per query, stacked (see :func:`draw_filter`).

    ``title`` goes above the first panel. Returns the figure.
    """
    if not queries:
        raise ValueError("queries must name at least one (label, positions) query")
    fig, axes = plt.subplots(
        len(queries), 1, figsize=(MAX_WIDTH, 2.6 * len(queries)), layout="constrained"
    )
    axes = [axes] if len(queries) == 1 else list(axes)
    for ax, query in zip(axes, queries, strict=True):
        draw_filter(ax, m, items, query=query)
    if title:
        axes[0].set_title(title)
    return fig
