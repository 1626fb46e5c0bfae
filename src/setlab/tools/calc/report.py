"""The answer every ``setlab calc`` calculator returns: labelled rows for people, data for
``--json``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from setlab.core.formats import format_bytes


@dataclass
class Report:
    """A calculator's answer: a title, labelled rows for people, notes, and data for JSON."""

    title: str
    rows: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        width = max((len(label) for label, _ in self.rows), default=0)
        lines = [self.title]
        lines += [f"  {label.ljust(width)}  {value}" for label, value in self.rows]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, **self.data, "notes": self.notes}


def rate_text(p: float) -> str:
    """A false-positive rate as the calculators print it (``0.1%``, ``1.2e-07``)."""
    from setlab.core.formats import format_rate

    return format_rate(p)


def size_text(bits: float) -> str:
    """``bits`` as bits, binary units and bytes (``9,585,059 bits = 1.14 MiB (…)``)."""
    nbytes = math.ceil(bits / 8)
    return f"{math.ceil(bits):,} bits = {format_bytes(nbytes)} ({nbytes:,} bytes)"
