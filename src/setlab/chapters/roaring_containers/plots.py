"""Figures of the chapter "Roaring containers": the two-level structure, and bytes per ID.

Plot helpers return the figure; the chapter decides whether to show it. The numbers come from
:mod:`setlab.models.roaring` (the chapter passes the curves in).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from setlab.models import roaring as ro
from setlab.render.plots import PALETTE, new_figure


def density_figure(densities: Sequence[float], curves: Mapping[str, np.ndarray]) -> Figure:
    """Bytes per ID against density over the 32-bit ID space, one line per structure.

    ``curves`` maps a structure's name to its bytes per ID at each of ``densities``, as
    :func:`setlab.models.roaring.bytes_per_id` returns them (its five names get fixed styles).
    """
    fig, ax = new_figure(height=4.2)
    styles = {
        "roaring": "-",
        "roaring (run-optimized)": "--",
        "plain bitmap": ":",
        "Redis SET": "-.",
        "Bloom filter, 1%": "-",
    }
    for i, (name, values) in enumerate(curves.items()):
        ax.loglog(densities, values, styles.get(name, "-"), color=PALETTE[i], label=name)
    ax.axvline(ro.ARRAY_MAX / ro.CHUNK, color="grey", lw=0.8)
    ax.text(
        ro.ARRAY_MAX / ro.CHUNK * 1.1, 2e3, "4,096 per chunk:\narrays become bitsets", fontsize=9
    )
    ax.set(
        xlabel="density: IDs present / 2^32",
        ylabel="bytes per ID (log scale)",
        title="What one ID costs in the 32-bit ID space",
    )
    top = ax.secondary_xaxis("top", functions=(lambda d: d * 2**32, lambda n: n / 2**32))
    top.set_xlabel("IDs stored")
    ax.legend(loc="lower left")
    return fig


def structure_figure() -> Figure:
    """The two-level structure: a sorted array of chunk keys pointing at three containers."""
    fig, ax = new_figure(width=8.5, height=3.8)
    ax.set_xlim(0, 24)
    ax.set_ylim(0, 10)
    ax.axis("off")

    def box(x, y, w, h, text, colour, size=9):
        ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor="k", alpha=0.9))
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size)

    ax.text(
        0.2,
        9.4,
        "value 2,000,000,000 = 0x7735 9400 →  key (high 16 bits) 0x7735 = 30,517, "
        "low 16 bits 0x9400 = 37,888",
        fontsize=9,
    )
    keys = [("0", "array"), ("5", "run"), ("17", "bitset"), ("30,517", "array")]
    for i, (key, _) in enumerate(keys):
        box(0.5 + i * 2.2, 6.4, 2.0, 1.4, f"key {key}", "#dddddd")
    ax.text(0.5, 8.1, "keys: sorted 16-bit chunk numbers (2 B each)", fontsize=9)
    shapes = [
        (
            "array container\nsorted uint16s, 2 B each\n≤ 4,096 values\n[1, 2, 3, 70]",
            PALETTE[5],
            "8 B",
        ),
        (
            "run container\n(start, length−1) pairs\n4 B each + 2 B\n[(100, 4900)]",
            PALETTE[2],
            "6 B",
        ),
        ("bitset container\n65,536 bits\n> 4,096 values\n", PALETTE[1], "8,192 B"),
        ("array container\n[37,888]\n(one value)\n", PALETTE[5], "2 B"),
    ]
    for i, (text, colour, size) in enumerate(shapes):
        x = 0.3 + i * 6.0
        box(x, 0.8, 5.4, 3.6, text, colour)
        ax.text(x + 2.7, 0.3, f"payload {size}", ha="center", fontsize=9)
        ax.annotate(
            "",
            xy=(x + 2.7, 4.4),
            xytext=(1.5 + i * 2.2, 6.4),
            arrowprops={"arrowstyle": "->", "color": "k"},
        )
    ax.set_title("A Roaring bitmap: chunk keys, and one container per non-empty chunk")
    return fig
