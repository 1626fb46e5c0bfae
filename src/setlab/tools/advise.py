"""``setlab advise``: seed 003's closing advice ("histogram your IDs first") as a tool.

Seed 003 ends with: before choosing a structure, count your IDs, draw a histogram of them, then
decide. The advisor does that for a file of IDs, one per line, in three steps:

* :func:`setlab.models.ids.read_ids` reads the IDs (decimal, hex or UUIDs);
* :func:`setlab.tools.analysis.analyse` reports what the structures care about: count,
  duplicates, range, bit width, density and the per-chunk histogram;
* :mod:`setlab.tools.calc.choice` prices every structure the book discusses for *these* IDs
  (:func:`~setlab.tools.calc.choice.candidates`: a Redis SET, a plain bitmap, Roaring, Bloom and
  cuckoo filters at the chosen error, a HyperLogLog, each with what it cannot do here) and picks
  one (:func:`~setlab.tools.calc.choice.recommend`); :func:`advise` does both, and this module
  prints the result (:class:`Advice`: text for the terminal, JSON, Markdown for the book).

The models are the chapters' models; the advisor only decides which to ask and what to do with
the answers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from setlab.core.formats import format_bytes, format_rate, format_share
from setlab.models.roaring import ARRAY_MAX
from setlab.tools import capacity
from setlab.tools.analysis import Analysis
from setlab.tools.calc.choice import Candidate, Needs, Recommendation, candidates, recommend

#: "chapter <slug>" in a caveat: a link in the book's Markdown
_CHAPTER = re.compile(r"chapter ([a-z]+(?:-[a-z]+)+)")


# -- the advice -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Advice:
    """The analysis, the priced candidates and the recommendation, ready to print."""

    analysis: Analysis
    needs: Needs
    candidates: list[Candidate]
    recommendation: Recommendation

    def scale(self, c: Candidate) -> capacity.Scale:
        """``c`` at the asked number of sets, against one Redis."""
        n = self.needs
        return capacity.Scale(c.memory - c.shared, n.sets, c.shared, n.server, n.server_source)  # type: ignore[operator]

    def text(self) -> str:
        """The advice as the terminal shows it (:func:`render_text`); an advisor for another
        kind of ID overrides it, as :class:`setlab.tools.advise_strings.StringAdvice` does."""
        return render_text(self)

    def as_json(self) -> dict[str, Any]:
        """The analysis, the priced candidates and the pick, for ``--json``; overridden like
        :meth:`text`."""
        a = self.analysis
        return {
            "source": a.source, "kind": a.kind, "bits": a.bits, "ids": a.ids,
            "blank_lines": a.blank_lines, "distinct": a.distinct, "duplicates": a.duplicates,
            "most_repeated": None if a.most_repeated is None else {
                "id": a.most_repeated[0], "times": a.most_repeated[1]},
            "low": str(a.low) if a.bits == 128 else a.low,
            "high": str(a.high) if a.bits == 128 else a.high,
            "bit_width": a.bit_width, "density": a.density, "runs": a.runs,
            "chunks": a.chunks, "bitmap_chunks": a.bitmap_chunks,
            "chunk_histogram": [{"low": lo, "high": hi, "chunks": n}
                                for lo, hi, n in a.chunk_histogram()],
            "range_histogram": {"edges": a.range_edges.tolist(),
                                "counts": a.range_counts.tolist()},
            "notes": list(a.notes), **candidates_json(self),
        }  # fmt: skip

    def candidates_markdown(self) -> str:
        """The candidate table as Markdown (for the book)."""
        lines = [
            "| structure | memory | per ID | error | deletes | where | caveats for these IDs |",
            "|:--|--:|--:|:--|:--|:--|:--|",
        ]
        for c in self.candidates:
            memory = "impossible" if c.memory is None else format_bytes(c.memory)
            per = "" if c.memory is None else _per_id(c.memory / self.analysis.distinct)
            name = f"**{c.name}**" if c is self.recommendation.choice else c.name
            caveats = _CHAPTER.sub(r"{doc}`\1`", "; ".join(c.caveats))
            lines.append(f"| {name} | {memory} | {per} | {c.error} | {c.deletes} | {c.where} "
                         f"| {caveats} |")  # fmt: skip
        return "\n".join(lines)


def candidates_json(advice: Advice) -> dict[str, Any]:
    """What was asked, the priced candidates and the pick, for ``--json`` (any kind of ID)."""
    n, distinct = advice.needs, advice.analysis.distinct
    choice = advice.recommendation.choice
    return {
        "needs": {"error": n.error, "deletes": n.deletes, "count_only": n.count_only,
                  "redis": n.priced_for.release, "sets": n.sets, "server_memory": n.server},
        "priced_for": n.priced_for.as_json(),
        "candidates": [{
            "name": c.name, "memory": c.memory,
            "bytes_per_id": None if c.memory is None else c.memory / distinct,
            "error": c.error, "deletes": c.deletes, "where": c.where,
            "membership": c.membership, "exact": c.exact, "caveats": list(c.caveats),
            "scale": None if c.memory is None else advice.scale(c).as_json(),
        } for c in advice.candidates],
        "recommendation": {"name": choice.name, "reason": advice.recommendation.reason,
                           "scale": advice.scale(choice).as_json(),
                           "scale_notes": advice.scale(choice).notes()},
    }  # fmt: skip


def advise(analysis: Analysis, needs: Needs | None = None) -> Advice:
    """Price every candidate for ``analysis`` and recommend one."""
    needs = needs or Needs()
    options = candidates(analysis, needs)
    return Advice(analysis, needs, options, recommend(analysis, options, needs))


def _per_id(value: float) -> str:
    return f"{value:.3g} B" if value < 1024 else format_bytes(value)


_SPARK = " ▁▂▃▄▅▆▇█"


def sparkline(counts: np.ndarray) -> str:
    """Counts as a row of block characters, highest = █, empty = space."""
    counts = np.asarray(counts, dtype=float)
    if counts.size == 0 or counts.max() <= 0:
        return ""
    levels = np.ceil(counts / counts.max() * (len(_SPARK) - 1)).astype(int)
    return "".join(_SPARK[i] for i in levels)


def _number(value: int) -> str:
    return f"{value:,}" if value < 10**15 else f"{value:,} (≈ 2^{math.log2(value):.1f})"


def render_text(advice: Advice) -> str:
    """The advice as the terminal shows it."""
    a = advice.analysis
    kind = {"decimal": "decimal integers", "hex": "hexadecimal IDs", "uuid": "UUIDs"}[a.kind]
    lines = [f"{a.ids:,} IDs in {a.source}: {kind}, {a.bits}-bit"
             + (f" ({a.blank_lines:,} blank lines skipped)" if a.blank_lines else "")]  # fmt: skip
    repeated = (f"; most repeated: {a.most_repeated[0]} ({a.most_repeated[1]:,} times)"
                if a.most_repeated else "")  # fmt: skip
    rows = [
        ("distinct", f"{a.distinct:,} ({a.duplicates:,} duplicates{repeated})"),
        ("range", f"{_number(a.low)} … {_number(a.high)} ({a.bit_width} bits)"),
        ("density", f"{format_share(a.density)} of the values in that range are IDs"
                    + (f"; {a.runs:,} run{'s' * (a.runs != 1)} of consecutive IDs"
                       if a.bits == 64 else "")),
    ]  # fmt: skip
    if a.chunks is not None:
        rows.append(
            (
                "2^16 chunks",
                f"{a.chunks:,} non-empty; {a.bitmap_chunks:,} hold more than "
                f"{ARRAY_MAX:,} IDs (Roaring bitmap containers)",
            )
        )
    rows.append(("over the range", f"|{sparkline(a.range_counts)}|"))
    width = max(len(label) for label, _ in rows)
    lines += [f"  {label.ljust(width)}  {value}" for label, value in rows]
    lines += [f"  note: {note}" for note in a.notes]
    if a.chunks is not None:
        lines.append("\nIDs per 2^16 chunk (Roaring container):")
        histogram = a.chunk_histogram()
        top = max(n for _, _, n in histogram) or 1
        for lo, hi, n in histogram:
            label = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
            bar = "#" * (0 if n == 0 else max(1, round(40 * n / top)))
            lines.append(f"  {label.rjust(13)}  {n:>10,} chunks  {bar}")
    return "\n".join(lines) + "\n" + render_candidates(advice)


def render_candidates(advice: Advice) -> str:
    """The priced candidates, their caveats and the recommendation, as the terminal shows
    them (for integer and string IDs alike)."""
    a = advice.analysis
    sets = advice.needs.sets
    lines = [f"\nCandidates (filters at {format_rate(advice.needs.error)}; what Redis holds "
             f"priced for {advice.needs.priced_for.text}):"]  # fmt: skip
    table = [("structure", "memory", "per ID", "error", "deletes", "where")]
    if sets > 1:
        table[0] = (*table[0][:2], f"{sets:,} sets", *table[0][2:])
    for c in advice.candidates:
        memory = "impossible" if c.memory is None else format_bytes(c.memory)
        per = "" if c.memory is None else _per_id(c.memory / a.distinct)
        row = (c.name, memory, per, c.error, c.deletes, c.where)
        if sets > 1:
            total = "" if c.memory is None else format_bytes(advice.scale(c).total)
            row = (*row[:2], total, *row[2:])
        table.append(row)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip())  # fmt: skip
    lines.append("\nCaveats for these IDs:")
    for c in advice.candidates:
        for caveat in c.caveats:
            lines.append(f"  {c.name}: {caveat}")
    r = advice.recommendation
    lines.append(f"\nRecommendation: {r.choice.name} — {r.reason}.")
    at_scale = advice.scale(r.choice)
    if sets > 1 or not at_scale.fits:
        width = max(len(label) for label, _ in at_scale.rows())
        lines += [f"  {label.ljust(width)}  {value}" for label, value in at_scale.rows()]
        lines += [f"  note: {note}" for note in at_scale.notes()]
    return "\n".join(lines)
