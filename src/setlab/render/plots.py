"""The book's matplotlib style and the few plot helpers every chapter shares.

Helpers return the figure; the chapter decides whether to show it. Colours come from the
colour-blind-safe Okabe–Ito palette and read on both the light and the dark theme.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, LogLocator

from setlab.core.units import format_bytes, format_duration

PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


def use_book_style() -> None:
    """Apply the book's plot style (call once per chapter)."""
    mpl.rcParams.update(
        {
            "figure.figsize": (7.0, 4.0),
            "figure.dpi": 110,
            "figure.facecolor": "white",
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.prop_cycle": mpl.cycler(color=PALETTE),
            "legend.frameon": False,
            "font.size": 10,
        }
    )


def bytes_axis(ax: Axes, axis: str = "y") -> None:
    """Label ticks of ``axis`` ("x" or "y") as sizes (B, KiB, MiB, …).

    On a log axis the ticks sit at powers of 8 bytes (1 B, 8 B, 64 B, 1 KiB, 8 KiB, …), so
    every label is a round binary size.
    """
    target = ax.yaxis if axis == "y" else ax.xaxis
    if target.get_scale() == "log":
        target.set_major_locator(LogLocator(base=1024, subs=(1.0, 8.0, 64.0), numticks=30))
    target.set_major_formatter(FuncFormatter(lambda v, _pos: format_bytes(v) if v > 0 else "0"))


def seconds_axis(ax: Axes, axis: str = "y") -> None:
    """Label ticks of ``axis`` ("x" or "y") as durations (µs, ms, s), values in seconds."""
    formatter = FuncFormatter(lambda v, _pos: format_duration(v) if v > 0 else "0")
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(formatter)


def new_figure(ncols: int = 1, width: float = 7.0, height: float = 4.0):
    """A figure with ``ncols`` side-by-side axes (returns ``fig, axes``)."""
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), layout="constrained")
    return fig, axes
