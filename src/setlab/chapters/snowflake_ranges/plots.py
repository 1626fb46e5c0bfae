"""Pictures of snowflake IDs against a bitmap (chapter "Snowflake IDs vs a 2^32 offset space").

:func:`layout_figure` draws the 64 bits of a layout, :func:`range_figure` IDs over time against
2^32, 2^53 and 2^63, :func:`offsets_figure` hashed against dense offsets, and :func:`leaf_figure`
what a Leaf segment step trades. The numbers come from :mod:`setlab.models.snowflake`; each
function returns the figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from setlab.core.formats import format_count
from setlab.models.snowflake import Layout, LeafRun, utc
from setlab.render.plots import PALETTE, new_figure


def layout_figure(layouts: Iterable[Layout], snowflake: int | None = None) -> Figure:
    """The 64 bits of each layout as a bar, bit 63 on the left; with ``snowflake`` given, each
    field shows that ID's value."""
    layouts = list(layouts)
    if not layouts:
        raise ValueError("layouts must name at least one layout")
    fig, ax = new_figure(width=9, height=1.0 + 1.1 * len(layouts))
    for row, layout in enumerate(reversed(layouts)):
        values = layout.decode(snowflake) if snowflake is not None else {}
        cells = [("sign", 64 - layout.total_bits, 0)]
        cells += [(name, bits, values.get(name)) for name, bits in layout.fields]
        left = 64
        for i, (name, bits, value) in enumerate(cells):
            left -= bits
            colour = "#dddddd" if name == "sign" else PALETTE[(i - 1) % len(PALETTE)]
            ax.add_patch(Rectangle((left, row), bits, 0.8, facecolor=colour, edgecolor="k"))
            label = "0" if name == "sign" else f"{name}\n{bits} bits"
            if value is not None and name != "sign":
                label += f"\n= {value:,}"
            ax.text(left + bits / 2, row + 0.4, label, ha="center", va="center", fontsize=9)
    ax.set_xlim(64, 0)
    ax.set_ylim(-0.2, len(layouts))
    ax.set_xticks([63, *sorted({s for lay in layouts for s in lay.shifts.values()})])
    ax.set_xlabel("lowest bit of each field (bit 63, always 0, is the sign bit of a Java long)")
    ax.set_yticks([row + 0.4 for row in range(len(layouts))])
    ax.set_yticklabels([layout.name for layout in reversed(layouts)], fontsize=9)
    ax.grid(False)
    title = "What a snowflake ID is made of"
    ax.set_title(title + (f": {snowflake}" if snowflake is not None else ""))
    return fig


def range_figure(layout: Layout, marks: Mapping[str, int]) -> Figure:
    """The smallest ID of each day from the layout's epoch to its end, on a log axis, against
    2^32 (bitmap offsets), 2^53 (JavaScript) and 2^63 (Java ``long``); ``marks`` labels IDs."""
    days = np.linspace(1, (layout.last_unix_ms - layout.epoch_ms) / 86_400_000, 400)
    ms = (days * 86_400_000).astype(np.int64)
    smallest = ms.astype(float) * 2.0 ** layout.shifts["timestamp"]
    when = [utc(layout.epoch_ms + int(m)) for m in ms]
    fig, ax = new_figure(height=3.8)
    ax.semilogy(when, smallest, label="smallest ID minted that day")
    for value, text, colour in (
        (2**32, "2³²: end of a Redis bitmap's offsets", PALETTE[3]),
        (2**53, "2⁵³: JavaScript numbers stop being exact", PALETTE[2]),
        (2**63, "2⁶³: end of a Java long", PALETTE[7]),
    ):
        ax.axhline(value, color=colour, lw=1, ls="--")
        ax.text(when[5], value * 1.6, text, fontsize=9, color=colour)
    for i, (text, snowflake) in enumerate(marks.items()):
        ax.plot([layout.minted_at(snowflake)], [snowflake], "o", color=PALETTE[1 + i % 2])
        ax.annotate(text, (layout.minted_at(snowflake), snowflake), fontsize=9,
                    xytext=(8, -14 - 12 * i), textcoords="offset points")  # fmt: skip
    ax.set(
        xlabel="date the ID is minted (UTC)",
        ylabel="ID value",
        ylim=(2.0**28, 2.0**66),
        title=f"Snowflake IDs against three limits ({layout.name})",
    )
    ax.legend(loc="lower right")
    return fig


def offsets_figure(likers: np.ndarray, hashed: np.ndarray, dense: np.ndarray) -> Figure:
    """Each liker's bit offset against the rank of its ID among the likers, log scale: the
    hashed offset (``hashed``, up to 2^32) and the dense int (``dense``, below the user count).

    ``likers``, ``hashed`` and ``dense`` are parallel arrays; at most about 2,000 points are drawn.
    """
    likers, hashed, dense = np.asarray(likers), np.asarray(hashed), np.asarray(dense)
    if not likers.size or likers.shape != hashed.shape or likers.shape != dense.shape:
        raise ValueError("likers, hashed and dense must be non-empty arrays of the same shape")
    order = np.argsort(likers, kind="stable")
    ranks = np.arange(0, likers.size, max(1, likers.size // 2_000))
    fig, ax = new_figure(height=3.6)
    ax.semilogy(ranks, hashed[order][ranks] + 1, ".", ms=2, label="hash64 low 32 bits")
    ax.semilogy(ranks, dense[order][ranks] + 1, ".", ms=2, label="dense int from the Lua map")
    ax.axhline(2**32, color=PALETTE[3], ls="--", lw=1, label="2³²: no offset beyond")
    ax.set(
        xlabel="rank of the user's snowflake ID among the likers",
        ylabel="bit offset + 1",
        title="Hashed offsets spread up to 2³²; dense ones stay below the user count",
    )
    fig.legend(loc="outside lower center", ncols=3, markerscale=4)
    return fig


def leaf_figure(runs: Mapping[int, LeafRun], requests: int) -> Figure:
    """Left: database round trips against the Leaf step; right: IDs lost per restart, with the
    bound of two segments. ``runs`` maps each step to its run of ``requests`` IDs."""
    if not runs:
        raise ValueError("runs must hold at least one Leaf run")
    steps = sorted(runs)
    fig, (ax_db, ax_lost) = new_figure(ncols=2, width=9, height=3.4)
    ax_db.loglog(steps, [runs[s].db_fetches for s in steps], "o-")
    ax_db.set(
        xlabel="step (IDs per segment)",
        ylabel="database round trips",
        title=f"Fetches for {format_count(requests)} IDs",
    )
    lost = [max(runs[s].lost, 1) / max(runs[s].restarts, 1) for s in steps]
    ax_lost.loglog(steps, lost, "o-", label="simulated")
    ax_lost.loglog(steps, [2 * s for s in steps], "--", lw=1, label="bound: 2 × step")
    ax_lost.set(
        xlabel="step (IDs per segment)",
        ylabel="IDs lost per restart",
        title="Gaps a restart leaves",
    )
    ax_lost.legend()
    return fig
