"""Where the figures a failed test names are defined, for its failure report.

116 of the figure names the pages glue are built by f-strings, so a grep for one finds nothing.
Every :class:`~setlab.render.claims.Figures` keeps the line that registered each figure
(``Figures.where``); tests/conftest.py appends, to the report of every failed test, where each
figure name in its failure text is defined.
"""

from __future__ import annotations

import re
from functools import cache

_NAME = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")


@cache
def _locations() -> dict[str, str]:
    """Every figure of every chapter and page: its name → ``setlab/<path>.py:<line>``."""
    from setlab.site import registry

    every = [registry.figures(c) for c in registry.CHAPTERS]
    every += [registry.page_figures(p) for p in registry.PAGES]
    return {name: figures.where(name) for figures in every for name in figures.names()}


def figure_locations(text: str) -> list[str]:
    """``"<name>: setlab/<path>.py:<line>"`` for each figure name in ``text``, in order, once."""
    known = _locations()
    named = dict.fromkeys(m for m in _NAME.findall(text) if m in known)
    return [f"{name}: {known[name]}" for name in named]
