"""What every layer above needs and nothing of the book's subject: number formats, parsing,
argument checks, hashing, and the small machinery of files, threads and caches.

- :mod:`~setlab.core.formats`: every number format of the book, in one home: sizes (binary
  units, as Redis's ``INFO`` prints them), durations and hours, counts, rates and probabilities
  for prose and tables, and the calculators' readouts (mirrored by ``setlab-widgets.js``);
- :mod:`~setlab.core.quantities`: numbers as people type them (``120M``, ``1%``, ``128MiB``,
  ``0:2^32``), read exactly, for ``setlab calc`` and the command line;
- :mod:`~setlab.core.validate`: argument checks: a bad argument is a ``ValueError`` naming the
  parameter, the value and the valid range;
- :mod:`~setlab.core.hashing`: the hash functions the Redis structures use (MurmurHash64A,
  MurmurHash3, scalar and vectorised) and SplitMix64's constants, each written once;
- :mod:`~setlab.core.interpolation`: reading between stored measurements (piecewise linear, in
  log–log space when they span decades);
- :mod:`~setlab.core.columns`: a numpy array grown in place, for the IDs of a file or a pipe of
  unknown length;
- :mod:`~setlab.core.parallel`: a call on a second thread, for numpy work that releases the
  interpreter lock;
- :mod:`~setlab.core.progress`: a one-line progress report on stderr for long loops;
- :mod:`~setlab.core.outputs`: opening a file the user named for writing, refusing a symbolic
  link, private (mode 0600) when it holds secrets;
- :mod:`~setlab.core.secrets`: passwords kept out of everything setlab prints;
- :mod:`~setlab.core.scale`: ``SETLAB_SCALE``, how big the chapters' simulations and runs are,
  read in one place;
- :mod:`~setlab.core.fingerprint`: one hash of the package, its Python and its libraries, which
  the caches key on; :mod:`~setlab.core.figure_cache`: each chapter's computed figures (and
  seeded simulations) kept on disk under it.

The bottom layer (import-linter contracts in pyproject.toml): it imports nothing of setlab
outside this folder, and of other libraries only the standard library, numpy and mmh3, so every
layer may import it.
"""
