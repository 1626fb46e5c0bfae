"""One package per chapter of the book, each of the same shape.

- ``__init__``: the chapter's seed constants, figures (``FIGURES``), tables and experiments;
  a page imports it as ``chapter``.
- ``claims``: every claim it judges, its own and those of single seed sentences, in the order
  the seeds make them (registered on ``FIGURES`` by the last line of ``__init__``).
- ``notes``: its :class:`InstructorNotes` (what to demo live, where learners stumble), which the
  instructor guide and the deck's speaker notes read.
- ``plots``, ``widget``: the pictures only it draws and its in-page calculator, where it has them
  (and ``walls``, ``full_scale``: a split-off experiment).

No chapter imports another (an import-linter contract in pyproject.toml): inputs that several
chapters quote live in :mod:`setlab.models.seeds`, and what reads every chapter lives above
them, in :mod:`setlab.site`.

A page opens with ``lab = chapter.start()``: each chapter's ``start`` calls :func:`open_page`
with what its reader must know before the first number (the stored run its figures come from).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from setlab.lab.backend import Lab
    from setlab.render.claims import Figures


@dataclass(frozen=True)
class InstructorNotes:
    """What an instructor needs beside a chapter (Carpentries' instructor notes): its timing
    checkpoints are not written here but estimated from the page (:mod:`setlab.site.lessons`)."""

    demo: str  #: what to run live, in front of the room
    stumbles: tuple[str, ...]  #: where learners go wrong, and what to say


def open_page(figures: Figures, *notes: str) -> Lab:
    """Open a chapter's page: the book's plot style, the lab for the chapter ``figures`` belongs
    to (its one-line banner: which Redis, and whether it measures), one line per note, a line
    for a ``SETLAB_SCALE`` other than 1, and every figure glued for the prose's
    ``{glue:text}``. Returns the :class:`~setlab.lab.backend.Lab` the page's cells use.

    Imports are made here, not at the top of the module: ``setlab calc`` and the site's tables
    import the chapter packages without a Redis client or matplotlib.
    """
    from setlab.core.scale import SCALE_ENV, scale
    from setlab.lab.backend import connect
    from setlab.render.plots import use_book_style

    use_book_style()
    lab = connect(figures.chapter)
    for note in notes:
        print(note)
    if (size := scale()) != 1:
        print(f"{SCALE_ENV}={size:g}: the page's simulations and runs are {size:g}× their size")
    figures.glue()
    return lab
