"""The ``setlab`` command: the book's calculators, its advisor and its audit at a terminal, and
what a workshop needs (a readiness check, a Redis for a class).

- :mod:`~setlab.cli.main`: the parser and the entry point (``setlab``, ``python -m setlab``)
  with its subcommands ``calc``, ``advise``, ``audit``, ``backend``, ``cleanup``, ``doctor`` and
  ``classroom``; bad input exits with code 2 and one line on stderr, never a traceback;
- :mod:`~setlab.cli.calculators`: every calculator of ``setlab calc`` in one table (its options,
  its help and the engine it runs), which the book's widgets are checked against;
- :mod:`~setlab.cli.options`: what every subcommand shares: argument types read by setlab's own
  parsers, ``--json``, and printing a report as text or JSON;
- :mod:`~setlab.cli.doctor`: ``setlab doctor``, whether this machine is ready for the book, one
  line per check with its fix and every secret redacted;
- :mod:`~setlab.cli.classroom`: ``setlab classroom``, a Redis for a class with one ACL-confined
  user per participant (the logic is :mod:`setlab.lab.classroom`; this is its command line).

The top layer (``cli → site → chapters → tools → lab | render → models → core``, import-linter
contracts in pyproject.toml): it may import any other, and only ``setlab.__main__`` imports it.
A subcommand imports what it needs when it runs, so ``setlab calc`` starts without loading a
Redis client or matplotlib.
"""
