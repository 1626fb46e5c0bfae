"""Mechanisms a reader steps through, after *Bloom Filters by Example*: the bits of a Bloom
filter as items are added and queried, a cuckoo insert's kick chain, a Roaring container
changing kind.

A :class:`Stepper` is a trace: a list of :class:`Frame` computed in Python by the models
(``setlab.models``) when the page is executed. The page only shows them: the built book's
``book/_static/setlab-steppers.js`` moves between frames (Back, Next, and a button per "try"
frame, such as a query the reader picks), writing each frame's cells, marks and sentence into
the HTML this module writes. It computes nothing, so the page cannot disagree with the model,
and the tests compare the frames with the models directly.

Every frame's sentence and state are also in the HTML as an ordered list (the text fallback),
for readers without JavaScript, screen readers, JupyterLab and print.

Two shapes of state:

- **cells**: a grid of short strings (a Bloom filter's bits, a cuckoo table's slots), ``columns``
  wide, each row optionally labelled (``row_labels``); ``marks`` colour some cells (see
  :data:`MARKS`);
- **bars**: a few labelled sizes in bytes (a Roaring container as an array, a bitset or runs),
  one of them the model's choice.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from setlab.render.widgets import STATIC_ENV

#: What a mark says about a cell (the page colours each, and says it in the cell's title):
#: ``new`` just written, ``hit`` read and set, ``miss`` read and empty (a query's "no"),
#: ``home`` one of an item's candidate places, ``kick`` a slot whose occupant was evicted.
MARKS = {
    "new": "just written",
    "hit": "read: set",
    "miss": "read: empty",
    "home": "a candidate place",
    "kick": "evicted from here",
}


#: What a cell is: a bit numbered across the grid, or a slot numbered within its row.
CELL_NAMES = ("bit", "slot")


@dataclass(frozen=True)
class Bar:
    """One size beside others: ``label``, ``value`` bytes (None: not allowed here, ``why``),
    written exactly (8,192 B against 8,194 B is the point of a Roaring container's switch)."""

    label: str
    value: int | None
    chosen: bool = False
    why: str = ""

    def text(self) -> str:
        return f"{self.label} {_bar_size(self)}{' (chosen)' if self.chosen else ''}"


@dataclass(frozen=True)
class Frame:
    """One step: ``text`` says what happened; ``cells`` (or ``bars``) is the state after it."""

    text: str
    cells: tuple[str, ...] = ()
    marks: Mapping[int, str] = field(default_factory=dict)
    bars: tuple[Bar, ...] = ()

    def __post_init__(self) -> None:
        unknown = set(self.marks.values()) - set(MARKS)
        if unknown:
            raise ValueError(f"marks must be among {sorted(MARKS)}, got {sorted(unknown)}")
        if any(not 0 <= i < len(self.cells) for i in self.marks):
            raise ValueError(f"a mark names no cell: {sorted(self.marks)} of {len(self.cells)}")

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "cells": list(self.cells),
            "marks": {str(i): m for i, m in self.marks.items()},
            "bars": [
                {"label": b.label, "value": b.value, "chosen": b.chosen, "text": _bar_size(b)}
                for b in self.bars
            ],
        }


@dataclass(frozen=True)
class Stepper:
    """A trace a reader steps through.

    ``frames[:steps]`` are the walk Back and Next move along; each later frame is a "try": a
    button labelled by ``tries`` (label → frame index) shows it, such as one query of the
    reader's choosing. ``columns`` cells make a row; ``row_labels`` name the rows (bucket 0, …).
    ``source`` says which model computed the frames (it is printed under the figure).
    """

    slug: str
    title: str
    frames: Sequence[Frame]
    caption: str
    source: str
    columns: int = 16
    row_labels: Sequence[str] = ()
    cell_name: str = "bit"
    steps: int | None = None
    tries: Mapping[str, int] = field(default_factory=dict)
    tries_label: str = "Try"

    def __post_init__(self) -> None:
        if not re.match(r"^[a-z0-9-]+$", self.slug):
            raise ValueError(f"slug must be lowercase letters, digits and '-', got {self.slug!r}")
        if not self.frames:
            raise ValueError("a stepper needs at least one frame")
        if self.cell_name not in CELL_NAMES:
            raise ValueError(f"cell_name must be one of {CELL_NAMES}, got {self.cell_name!r}")
        rows = -(-len(self.frames[0].cells) // self.columns)
        if (self.cell_name == "slot" or self.row_labels) and len(self.row_labels) != rows:
            raise ValueError(f"row_labels must name each of the {rows} rows, "
                             f"got {len(self.row_labels)}")  # fmt: skip
        shapes = {(len(f.cells), len(f.bars)) for f in self.frames}
        if len(shapes) != 1:
            raise ValueError(f"every frame must have the same cells and bars, got {shapes}")
        walk = self.walk
        if not 1 <= walk <= len(self.frames):
            raise ValueError(f"steps must be in [1, {len(self.frames)}], got {walk}")
        if any(not walk <= i < len(self.frames) for i in self.tries.values()):
            raise ValueError("each try must name a frame after the walk")

    @property
    def walk(self) -> int:
        """How many frames Back and Next step through."""
        return len(self.frames) if self.steps is None else self.steps

    def html(self) -> str:
        """The stepper for the static book: the first frame drawn, the frames as JSON for
        setlab-steppers.js, and every frame as text (the fallback)."""
        sid = f"stepper-{self.slug}"
        first = self.frames[0]
        frames = json.dumps([f.as_json() for f in self.frames], separators=(",", ":"))
        frames = frames.replace("</", "<\\/")  # a frame's text cannot end the script
        tries = "".join(
            f'<button type="button" data-frame="{i}">{html.escape(label)}</button>'
            for label, i in self.tries.items()
        )
        tries_html = (
            f'<div class="setlab-stepper-tries" hidden><span>{html.escape(self.tries_label)}:'
            f"</span> {tries}</div>\n"
            if tries
            else ""
        )
        return (
            f'<figure class="setlab-stepper" id="{sid}" data-stepper="{self.slug}" '
            f'data-walk="{self.walk}" data-marks="{html.escape(json.dumps(MARKS))}">\n'
            f'<div class="setlab-widget-title">{html.escape(self.title)}</div>\n'
            '<div class="setlab-stepper-controls" hidden>'
            '<button type="button" data-go="back">\u25c0 Back</button> '
            f'<span class="setlab-stepper-count" aria-live="polite">step 1 of {self.walk}</span> '
            '<button type="button" data-go="next">Next \u25b6</button></div>\n'
            f"{tries_html}"
            f'<p class="setlab-stepper-text" aria-live="polite">{html.escape(first.text)}</p>\n'
            f"{self._state_html(first)}\n"
            f'<script type="application/json" class="setlab-stepper-frames">'
            f"{frames}</script>\n"
            f"<figcaption>{html.escape(self.caption)} <em>Steps: "
            f"{html.escape(self.source)}.</em></figcaption>\n"
            f"{self.fallback_html()}\n</figure>"
        )

    def _state_html(self, frame: Frame) -> str:
        if frame.bars:
            largest = max(b.value or 0 for b in frame.bars) or 1
            rows = "".join(
                f'<div class="setlab-stepper-bar{" setlab-chosen" if b.chosen else ""}'
                f'{" setlab-refused" if b.value is None else ""}" data-bar="{i}">'
                f'<span class="setlab-stepper-bar-label">{html.escape(b.label)}</span>'
                f'<span class="setlab-stepper-bar-track"><span class="setlab-stepper-bar-fill" '
                f'style="width: {_width(b.value, largest)}%"></span></span>'
                f'<span class="setlab-stepper-bar-size">{html.escape(_bar_size(b))}</span></div>'
                for i, b in enumerate(frame.bars)
            )
            return f'<div class="setlab-stepper-bars">{rows}</div>'
        rows = []
        for r in range(0, len(frame.cells), self.columns):
            label = self.row_labels[r // self.columns] if self.row_labels else ""
            cells = "".join(
                f'<span class="setlab-cell{_mark_class(frame, i)}" data-cell="{i}" '
                f'data-where="{html.escape(self._where(i))}" title="{html.escape(self._where(i))}">'
                f"{html.escape(frame.cells[i])}</span>"
                for i in range(r, min(r + self.columns, len(frame.cells)))
            )
            rows.append(
                f'<div class="setlab-stepper-row"><span class="setlab-stepper-row-label">'
                f"{html.escape(label)}</span>{cells}</div>"
            )
        kind = " setlab-stepper-buckets" if self.cell_name != "bit" else ""
        return f'<div class="setlab-stepper-cells{kind}">{"".join(rows)}</div>'

    def _where(self, i: int) -> str:
        if self.cell_name == "bit":
            return f"bit {i}"
        return f"{self.row_labels[i // self.columns]}, {self.cell_name} {i % self.columns}"

    def state_text(self, frame: Frame) -> str:
        """A frame's state as one line of text."""
        if frame.bars:
            return "; ".join(b.text() for b in frame.bars)
        if self.cell_name != "bit":
            return "  ".join(
                f"{label}: [{' '.join(frame.cells[r * self.columns : (r + 1) * self.columns])}]"
                for r, label in enumerate(self.row_labels)
            )
        return "".join(frame.cells)

    def fallback_html(self) -> str:
        items = []
        for i, frame in enumerate(self.frames):
            head = "" if i < self.walk else f"{html.escape(self._try_label(i))}: "
            items.append(
                f"<li>{head}{html.escape(frame.text)}<br><code>"
                f"{html.escape(self.state_text(frame))}</code></li>"
            )
        return (
            '<details class="setlab-stepper-fallback"><summary>Every step as text</summary>'
            f"<ol>{''.join(items)}</ol></details>"
        )

    def _try_label(self, index: int) -> str:
        return next(label for label, i in self.tries.items() if i == index)

    def text(self) -> str:
        lines = [self.title]
        for i, frame in enumerate(self.frames):
            head = f"{i + 1}." if i < self.walk else f"{self._try_label(i)}:"
            lines.append(f"  {head} {frame.text}\n     {self.state_text(frame)}")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The stepper in the built book; the frames as text and HTML list elsewhere."""
        if os.environ.get(STATIC_ENV) == "static":
            return {"text/html": self.html(), "text/plain": self.text()}
        return {"text/html": self.fallback_html().replace("<details", "<details open"),
                "text/plain": self.text()}  # fmt: skip


def _bar_size(bar: Bar) -> str:
    return f"{bar.value:,} B" if bar.value is not None else f"not allowed: {bar.why}"


def _mark_class(frame: Frame, i: int) -> str:
    return f" setlab-mark-{frame.marks[i]}" if i in frame.marks else ""


def _width(value: int | None, largest: int) -> float:
    """A bar's length in % of the largest (setlab-steppers.js draws the same)."""
    return 0 if value is None else round(max(0.5, 100 * value / largest), 2)
