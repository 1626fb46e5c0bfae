"""What a reader sees: the book's plot style and shared plots, pictures of mechanisms, figures a
reader moves or steps through, and the one Claim/Verdict type.

- :mod:`~setlab.render.claims`: :class:`~setlab.render.claims.Claim`,
  :class:`~setlab.render.claims.Verdict`, and a chapter's
  :class:`~setlab.render.claims.Figures` (named strings, each computed once, that the prose,
  the verdict tables and the errata all read): every number has one source;
- :mod:`~setlab.render.glue`: a value kept in the executing notebook for ``{glue:text}``, as
  MyST-NB's ``glue`` writes it, without that module's slow imports;
- :mod:`~setlab.render.plots`: the matplotlib style (a colour-blind-safe palette, SVG, alt text,
  a maximum width and a minimum font size) and the axis and legend helpers every chapter shares;
- :mod:`~setlab.render.diagrams`: pictures that explain a mechanism (what a first ``SETBIT``
  allocates, what ``MEMORY USAGE`` is made of, two clients racing on one like);
- :mod:`~setlab.render.widgets`: figures a reader moves: an Altair chart with controls and
  readouts, each readout a Vega expression and the Python model it must equal, and a text
  fallback; :mod:`~setlab.render.widget_controls`: their inputs and the lines to copy, refusing
  what ``setlab calc`` refuses;
- :mod:`~setlab.render.vega_lite`: Altair, imported for every widget in one place without the
  grammar jsonschema builds on import;
- :mod:`~setlab.render.steppers`: mechanisms a reader steps through (a Bloom filter's bits, a
  cuckoo kick chain, a Roaring container changing kind): frames the models compute when the page
  runs, which the page only shows.

Imports point down only: ``models`` and ``core`` (import-linter contracts in pyproject.toml), and
never ``lab``: ``lab`` and ``render`` do not import each other, so drawing needs no Redis.
``tools``, ``chapters`` and ``site`` use it.
"""
