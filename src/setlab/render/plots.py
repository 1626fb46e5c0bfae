"""The book's matplotlib style and the few plot helpers every chapter shares.

Helpers return the figure; the chapter decides whether to show it. Colours come from the
colour-blind-safe Okabe–Ito palette and read on both the light and the dark theme (the site
inverts figures in dark mode, book/_static/setlab.css).

Figures reach the page as SVG (crisp at any zoom) whose text stays text (``svg.fonttype:
none``), each titled with :func:`alt_text` — what the figure shows, from its titles, axis labels
and series, plus the takeaway a plot function gives with :func:`describe`. The site copies that
title into the image's ``alt`` (book/_ext/setlab_site.py). Figures are at most :data:`MAX_WIDTH`
inches wide and no text is smaller than :data:`MIN_FONT` points, so every label is at least
11 CSS pixels on a 1280 px screen (tests/browser/test_site.py measures it).
"""

from __future__ import annotations

import io
import math

import matplotlib as mpl
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import (
    FuncFormatter,
    LogFormatterMathtext,
    LogFormatterSciNotation,
    LogLocator,
    MaxNLocator,
    NullFormatter,
    ScalarFormatter,
)

from setlab.core.formats import format_bytes, format_duration

PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
#: One colour per structure, in every figure and calculator that compares them (the advisor's
#: six, in setlab.tools.calc.density.STRUCTURES order: PALETTE's first six).
STRUCTURE_COLOURS = dict(zip(("Redis SET", "plain bitmap", "Roaring bitmap", "Bloom filter",
                              "cuckoo filter", "HyperLogLog"), PALETTE, strict=False))  # fmt: skip

#: The widest figure, in inches: 720 CSS px, the text column of a chapter at 1280 px.
MAX_WIDTH = 7.5
#: The smallest text in a figure, in points (11.3 CSS px when the figure is shown at full size).
MIN_FONT = 8.5

_ALT = "_setlab_takeaway"


def use_book_style() -> None:
    """Apply the book's plot style, and show figures as titled SVG (call once per chapter)."""
    mpl.rcParams.update(
        {
            "figure.figsize": (7.0, 4.0),
            "figure.dpi": 96,
            "figure.facecolor": "white",
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.prop_cycle": mpl.cycler(color=PALETTE),
            "axes.titlesize": 11,
            "legend.frameon": False,
            "legend.fontsize": 9,
            "font.size": 10,
            "xtick.labelsize": 9.5,
            "ytick.labelsize": 9.5,
            "axes.formatter.useoffset": False,  # no "1e7" offset above an axis
            "svg.fonttype": "none",  # text stays text: selectable, sharp, and measurable
            "svg.hashsalt": "setlab",  # the same figure gives the same file on every build
        }
    )
    _show_as_svg()


def _show_as_svg() -> None:
    """In IPython, display figures as SVG titled with their alt text (no PNG)."""
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # plain Python: nothing displays figures
        return
    shell = get_ipython()
    if shell is None:
        return
    set_matplotlib_formats("svg")
    shell.display_formatter.formatters["image/svg+xml"].for_type(Figure, svg_of)


def svg_of(fig: Figure) -> str:
    """The figure as SVG text, titled with :func:`alt_text` (no date: builds are reproducible).

    Log axes still on matplotlib's default labels (``10^{-3}`` in small superscript) get
    :func:`human_log_label` labels first."""
    humanize_log_axes(fig)
    buffer = io.StringIO()
    fig.savefig(
        buffer, format="svg", bbox_inches="tight",
        metadata={"Title": alt_text(fig), "Date": None},
    )  # fmt: skip
    return buffer.getvalue()


def describe(fig: Figure, takeaway: str) -> Figure:
    """Give ``fig`` its takeaway (one sentence), the end of its alt text; returns ``fig``."""
    setattr(fig, _ALT, takeaway.strip())
    return fig


def _axes_text(ax: Axes) -> str:
    title = ax.get_title() or ax.get_title("left") or ax.get_title("right")
    y, x = ax.get_ylabel(), ax.get_xlabel()
    what = f"{y} against {x}" if x and y else (y or x)
    scales = [n for n, s in (("x", ax.get_xscale()), ("y", ax.get_yscale())) if s == "log"]
    if what and len(scales) == 2:
        what += " (both on log scales)"
    elif what and scales:
        what += f" ({scales[0]} on a log scale)"
    legend = ax.get_legend()
    series = [t.get_text() for t in legend.get_texts()] if legend else []
    parts = [p for p in (title, what) if p]
    text = ": ".join(parts)
    if series:
        text += "; series: " + ", ".join(series)
    return text


def alt_text(fig: Figure) -> str:
    """What ``fig`` shows, in words: its titles, what each panel plots against what, its series,
    and the takeaway given by :func:`describe`."""
    parts = []
    suptitle = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    if suptitle:
        parts.append(suptitle)
    panels = [t for t in (_axes_text(ax) for ax in fig.axes if ax.get_visible()) if t]
    if len(panels) > 1:
        parts.append(f"{len(panels)} panels. " + ". ".join(panels))
    elif panels:
        parts.append(panels[0])
    takeaway = getattr(fig, _ALT, "")
    if takeaway:
        parts.append(takeaway)
    text = ". ".join(p.rstrip(". ") for p in parts if p)
    return ("Figure: " + text + ".") if text else "Figure"


def new_figure(ncols: int = 1, width: float = 7.0, height: float = 4.0, nrows: int = 1):
    """A figure with ``nrows`` × ``ncols`` axes (returns ``fig, axes``), at most
    :data:`MAX_WIDTH` inches wide."""
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(min(width, MAX_WIDTH), height), layout="constrained"
    )
    return fig, axes


# -- human axis ticks --------------------------------------------------------------------------


def _target(ax: Axes, axis: str) -> Axis:
    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    return ax.yaxis if axis == "y" else ax.xaxis


class _BinaryLocator(MaxNLocator):
    """Linear ticks at round multiples of the binary unit (KiB, MiB, …) that fits the range."""

    def tick_values(self, vmin: float, vmax: float):
        top = max(abs(vmin), abs(vmax), 1.0)
        unit = 1024 ** min(4, int(math.log(top, 1024))) if top >= 1024 else 1
        return super().tick_values(vmin / unit, vmax / unit) * unit


def bytes_axis(ax: Axes, axis: str = "y") -> None:
    """Label ticks of ``axis`` ("x" or "y") as sizes (B, KiB, MiB, …).

    On a log axis the ticks sit at powers of 8 bytes (1 B, 8 B, 64 B, 1 KiB, 8 KiB, …); on a
    linear axis at round multiples of one binary unit (2, 4, 6 KiB — not 1.95, 3.91 KiB).
    """
    target = _target(ax, axis)
    if target.get_scale() == "log":
        target.set_major_locator(LogLocator(base=1024, subs=(1.0, 8.0, 64.0), numticks=30))
        target.set_minor_formatter(NullFormatter())
    else:
        target.set_major_locator(_BinaryLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    target.set_major_formatter(FuncFormatter(lambda v, _pos: format_bytes(v) if v > 0 else "0"))


def seconds_axis(ax: Axes, axis: str = "y") -> None:
    """Label ticks of ``axis`` ("x" or "y") as durations (µs, ms, s), values in seconds."""
    target = _target(ax, axis)
    if target.get_scale() == "log":
        target.set_minor_formatter(NullFormatter())
    formatter = FuncFormatter(lambda v, _pos: format_duration(v) if v > 0 else "0")
    target.set_major_formatter(formatter)


#: Counts from here up have no suffix a reader knows (a snowflake ID is ~2 × 10^18): they keep
#: matplotlib's own labels, the mantissa on each tick and the power once at the axis's end.
BEYOND_SUFFIXES = 1e15


def short_count(n: float) -> str:
    """``2_500_000`` → ``'2.5M'``: a count for a tick label (k, M, G, T for 10^3 … 10^12);
    from :data:`BEYOND_SUFFIXES` up, ``'1.75e18'`` (it once read ``'1.75e+06T'``)."""
    if n < 0:
        return "−" + short_count(-n)
    if n >= BEYOND_SUFFIXES:
        return f"{n:.3g}".replace("e+", "e")
    for scale, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.3g}"


def count_axis(ax: Axes, axis: str = "y") -> None:
    """Label ticks of ``axis`` as counts (1k, 10M, 2G) instead of ``1e7`` or ``10^7``."""
    target = _target(ax, axis)
    if target.get_scale() == "log":
        target.set_minor_formatter(NullFormatter())
    target.set_major_formatter(FuncFormatter(lambda v, _pos: short_count(v) if v else "0"))


def share(p: float) -> str:
    """``0.0003`` → ``'0.03%'``: a probability or a share for a tick label, never in exponents."""
    if p == 0:
        return "0"
    percent = p * 100
    digits = max(0, -math.floor(math.log10(abs(percent)))) if percent < 1 else 0
    text = f"{percent:.{digits}f}" if percent < 1 else f"{percent:.3g}"
    return f"{text}%"


def share_axis(ax: Axes, axis: str = "y") -> None:
    """Label ticks of ``axis`` (values 0…1) as percentages: 0.01%, 0.1%, 1%, 10%."""
    target = _target(ax, axis)
    if target.get_scale() == "log":
        target.set_minor_formatter(NullFormatter())
    target.set_major_formatter(FuncFormatter(lambda v, _pos: share(v)))


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def human_log_label(v: float) -> str:
    """A tick label on a log axis: ``1k``, ``10M``, ``0.01``, and ``10⁻⁵`` below a thousandth
    (a Unicode superscript at full size, not matplotlib's small mathtext)."""
    if v < 0:
        return "−" + human_log_label(-v)
    if v == 0:
        return "0"
    if v >= 1:
        return short_count(v)
    if v >= 1e-3:
        return f"{v:g}"
    exponent = math.floor(math.log10(v) + 1e-9)
    mantissa = v / 10**exponent
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if abs(mantissa - 1) < 1e-6 else f"{mantissa:g}×{power}"


def humanize_log_axes(fig: Figure) -> None:
    """Give every log axis of ``fig`` that still has matplotlib's default labels
    :func:`human_log_label` labels (major ticks; minor ticks only where the axis spans less
    than two decades, at 2× and 5×), and every linear axis reaching 100,000 or more counts
    (:func:`short_count`) instead of a ``1e7`` multiplier, below :data:`BEYOND_SUFFIXES`:
    above it matplotlib's mantissas and one ``1e18`` at the axis's end fit where eight
    ``1.75e18`` labels would run into each other."""
    from matplotlib.ticker import LogFormatter

    every = [a for ax in fig.axes for a in (ax, *ax.child_axes)]  # secondary axes too
    for ax in every:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "linear" and type(axis.get_major_formatter()) is ScalarFormatter:
                if 1e5 <= max(abs(v) for v in axis.get_view_interval()) < BEYOND_SUFFIXES:
                    axis.set_major_formatter(FuncFormatter(lambda v, _pos: short_count(v)))
                continue
            if axis.get_scale() not in _LOG_SCALES or type(axis.get_major_formatter()) not in (
                LogFormatterSciNotation, LogFormatter, LogFormatterMathtext,
            ):  # fmt: skip
                continue
            axis.set_major_formatter(FuncFormatter(lambda v, _pos: human_log_label(v)))
            low, high = sorted(axis.get_view_interval())
            narrow = low > 0 and high / low < 100
            minor = FuncFormatter(_minor_label) if narrow else NullFormatter()
            axis.set_minor_formatter(minor)


_LOG_SCALES = ("log", "symlog", "functionlog")


def _minor_label(v: float, _pos: int | None = None) -> str:
    """Minor ticks of a narrow log axis: only the 2× and 5× ones are labelled."""
    if v <= 0:
        return ""
    leading = round(v / 10 ** math.floor(math.log10(v) + 1e-9))
    return human_log_label(v) if leading in (2, 5) else ""


def legend_below(ax: Axes, ncols: int = 2, **kwargs) -> None:
    """A legend under the axes, where it cannot cover data."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=ncols, **kwargs)
