"""One package per chapter of the book, each of the same shape.

- ``__init__``: the chapter's seed constants, figures (``FIGURES``), tables and experiments;
  a page imports it as ``chapter``.
- ``claims``: every claim it judges, its own and those of single seed sentences, in the order
  the seeds make them (registered on ``FIGURES`` by the last line of ``__init__``).
- ``plots``, ``widget``: the pictures only it draws and its in-page calculator, where it has them
  (and ``walls``, ``full_scale``: a split-off experiment).

No chapter imports another (an import-linter contract in pyproject.toml): inputs that several
chapters quote live in :mod:`setlab.models.seeds`, and what reads every chapter lives above
them, in :mod:`setlab.site`.
"""
