"""Pictures that explain a mechanism (as opposed to plots of measurements).

Each function draws one idea and returns the matplotlib figure; the chapter shows it.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from setlab.core.units import format_bytes
from setlab.models import bitmap
from setlab.render.plots import PALETTE, new_figure


def setbit_first_write(offset: int = 8 * 1_000_000 + 5) -> Figure:
    """A first ``SETBIT key offset 1``: the whole prefix is allocated and zeroed for one bit."""
    length = bitmap.bytes_for_offset(offset)
    fig, ax = new_figure(height=2.6)
    ax.set_xlim(0, 20)
    ax.set_ylim(-1.2, 2.4)
    ax.axis("off")
    ax.text(0, 2.1, "before: the key does not exist (0 bytes)", fontsize=10, va="center")
    ax.text(
        0, 1.35, f"after SETBIT key {offset:,} 1 (bytes numbered below):", fontsize=10, va="center"
    )
    cells = [*range(4), None, *range(length - 3, length)]
    x = 0.0
    for byte in cells:
        if byte is None:
            ax.text(x + 0.6, 0.5, "…", fontsize=16, ha="center", va="center")
            x += 1.2
            continue
        last = byte == length - 1
        ax.add_patch(
            Rectangle((x, 0), 2.2, 1, facecolor=PALETTE[1] if last else "#dddddd", edgecolor="k")
        )
        label = f"{1 << (7 - offset % 8):08b}" if last else "00000000"
        ax.text(x + 1.1, 0.5, label, fontsize=9, ha="center", va="center", family="monospace")
        ax.text(x + 1.1, -0.3, f"{byte:,}", fontsize=9, ha="center", va="center")
        x += 2.3
    ax.annotate(
        "",
        xy=(0, -0.8),
        xytext=(x - 0.1, -0.8),
        arrowprops={"arrowstyle": "<->", "color": PALETTE[0]},
    )
    ax.text(
        x / 2,
        -1.05,
        f"{length:,} bytes ({format_bytes(length)}) allocated and zeroed "
        "on Redis's only thread, to store one bit",
        ha="center",
        fontsize=9,
        color=PALETTE[0],
    )
    ax.set_title("A first SETBIT is O(offset): it creates every byte up to the bit")
    return fig


def memory_usage_breakdown(offsets: list[int], key: str = "k") -> Figure:
    """Stacked bars: what ``MEMORY USAGE`` of a first SETBIT is made of, per offset."""
    fig, ax = new_figure(height=3.2)
    parts = [bitmap.memory_breakdown(o, key) for o in offsets]
    names = list(parts[0])
    labels = [f"{o:,}" for o in offsets]
    left = [0.0] * len(offsets)
    for i, name in enumerate(names):
        widths = [
            p[name] / bitmap.first_setbit_memory_usage(o, key)
            for p, o in zip(parts, offsets, strict=True)
        ]
        ax.barh(labels, widths, left=left, color=PALETTE[i], label=name)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    for row, offset in enumerate(offsets):
        total = bitmap.first_setbit_memory_usage(offset, key)
        ax.text(1.01, row, format_bytes(total), va="center", fontsize=9)
    ax.set_xlim(0, 1.18)
    ax.set_xlabel("share of MEMORY USAGE")
    ax.set_ylabel("offset of the first SETBIT")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=4, fontsize=9)
    ax.set_title("What MEMORY USAGE counts (Redis 7.0, jemalloc 5.3)")
    return fig
