"""Tables a page shows: text cells in rows, drawn as Markdown (which MyST renders as HTML).

A table's cells arrive formatted (:mod:`setlab.core.formats`); this module only lays them out,
so the same rows read the same in a built page, a downloaded notebook and a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

_RULE = {"l": ":--", "r": "--:", "c": ":-:"}


def _cell(text: object) -> str:
    """A cell's text, with the characters that would end or break a Markdown cell escaped."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None
) -> str:
    """A Markdown table of ``header`` and ``rows``; ``align`` has one character a column, "l",
    "r" or "c" (default: the first column left, the others right, as numbers read best)."""
    if align is None:
        align = "l" + "r" * (len(header) - 1)
    if len(align) != len(header) or set(align) - set(_RULE):
        raise ValueError(
            f"align must have one of l, r, c for each of the {len(header)} columns; got {align!r}"
        )
    for i, row in enumerate(rows):
        if len(row) != len(header):
            raise ValueError(f"row {i} has {len(row)} cells; the header has {len(header)}")
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |"]
    lines.append("|" + "|".join(_RULE[a] for a in align) + "|")
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
