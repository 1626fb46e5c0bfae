"""Every claim of chapter audit, in the order the seeds make them.

The audit judges no seed sentence of its own: what it checks on a reader's keys are claims other
chapters measure (a first SETBIT's stall, a DEL's, a Bloom filter past its capacity, the intset
limit), and their verdict tables name this chapter in ``also`` so its table shows them beside
the findings that apply them.
"""

from __future__ import annotations

from setlab.render.claims import Figures


def register(figures: Figures) -> None:
    """Register this chapter's own claims on its ``FIGURES``: it has none (see the module's
    docstring), so nothing is registered."""
