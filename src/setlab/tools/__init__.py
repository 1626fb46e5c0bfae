"""The engines of the ``setlab`` command: the calculators, the advisor and the audit, libraries
that the chapters and the site call too.

- :mod:`setlab.tools.calc`: the ``setlab calc`` engines, one module per calculator, and the
  pricing and pick that ``setlab advise`` shares with them (:mod:`~setlab.tools.calc.choice`);
- :mod:`~setlab.tools.analysis`: the first step of ``setlab advise`` (seed 003's "histogram your
  IDs first"): what a set of IDs looks like to the structures that could hold it (count,
  duplicates, range, bit width, density, Roaring's per-chunk histogram), and its two histograms;
- :mod:`~setlab.tools.advise`: the rest of ``setlab advise``: every structure the book discusses
  priced for those IDs with what it cannot do for them, one recommended and why
  (:mod:`~setlab.tools.calc.choice`), printed or as ``--json``;
- :mod:`~setlab.tools.capacity`: sets × IDs: a size per set at the reader's number of sets,
  against one Redis's memory, and the Redis Cluster masters past it (``--sets``);
- :mod:`~setlab.tools.advise_strings`: the same for string IDs (openids, emails, device names),
  with a dense remap (a HASH from string to integer, then a bitmap) among the candidates;
- :mod:`setlab.tools.audit`: ``setlab audit``, a read-only analysis of a Redis or of an RDB
  snapshot: keys grouped by pattern, and what the chapters would say of each group.

Imports point down only: ``lab``, ``render``, ``models`` and ``core`` (import-linter contracts in
pyproject.toml); ``chapters``, ``site`` and ``cli`` call these engines, never the reverse.
"""
