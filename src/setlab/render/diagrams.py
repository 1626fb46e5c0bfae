"""Pictures that explain a mechanism (as opposed to plots of measurements).

Each function draws one idea and returns the matplotlib figure; the chapter shows it.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from setlab.core.formats import format_bytes
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


def race_timeline(seed_steps: list, fixed_steps: list) -> Figure:
    """Two clients' likes of one post, step by step: the seed's check-then-act beside the gate.

    ``seed_steps`` and ``fixed_steps`` are :class:`setlab.lab.runs.like_service.RaceStep` lists.
    Each command is a box in its client's lane, labelled with its reply; under the lanes, what Redis
    holds after it (set members, counter), red where the counter counts more than the set holds.
    """
    from setlab.render.plots import describe

    fig, axes = new_figure(nrows=2, height=4.6)
    for ax, steps, title in (
        (axes[0], seed_steps, "as the seed wrote it: check, then act"),
        (axes[1], fixed_steps, "the fix: INCR only when SADD replies 1"),
    ):
        ax.set_xlim(-0.2, 6.2)
        ax.set_ylim(-1.3, 2.0)
        ax.axis("off")
        ax.set_title(title, loc="left")
        for lane, client in ((1.2, "A"), (0.2, "B")):
            ax.text(-0.15, lane + 0.3, f"client {client}", ha="right", va="center", fontsize=9)
        for x, step in enumerate(steps):
            lane = 1.2 if step.client == "A" else 0.2
            colour = PALETTE[0] if step.client == "A" else PALETTE[1]
            ax.add_patch(Rectangle((x + 0.05, lane), 0.9, 0.6, facecolor=colour, alpha=0.25,
                                   edgecolor=colour))  # fmt: skip
            ax.text(x + 0.5, lane + 0.3, f"{step.command}\n→ {step.reply}", ha="center",
                    va="center", fontsize=8.5, family="monospace")  # fmt: skip
            wrong = step.counter > step.members  # counted more likes than the set holds
            ax.text(x + 0.5, -0.55, f"set: {step.members}\ncount: {step.counter}", ha="center",
                    va="center", fontsize=8.5, color=PALETTE[3] if wrong else "black")  # fmt: skip
        ax.text(-0.15, -0.55, "Redis holds", ha="right", va="center", fontsize=9)
    final_seed, final_fixed = seed_steps[-1], fixed_steps[-1]
    return describe(fig, (
        f"With the seed's code both clients pass the check before either adds, so one like is "
        f"counted {final_seed.counter} times while the set holds {final_seed.members}; with the "
        f"gate the second SADD replies 0 and the counter ends at {final_fixed.counter}."
    ))  # fmt: skip
