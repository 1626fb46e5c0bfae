"""``setlab audit``: a read-only analysis of a Redis, or of an RDB snapshot, with the book's
models.

``redis-cli --bigkeys`` and ``--memkeys`` list sizes; RedisInsight groups memory by key pattern;
redis-rdb-tools prices keys from a dump. An audit also says what the chapters would: which
bitmaps are sparse or reach far offsets (and what a SET or Roaring would cost), which Bloom
filters hold more than they were reserved for (and their false-positive rate now), which SETs of
integers left the intset encoding, which keys a DEL would block on (and for how long, from the
stored stall run).

- :mod:`.reader`: the allow-list client, SCAN at a bounded rate, what each key is;
- :mod:`.patterns`: key names folded into patterns;
- :mod:`.findings`: one finding per thing worth changing, with its figures and chapter;
- :mod:`.report`: groups, the terminal table, ``--json``;
- :mod:`.snapshot`: ``--rdb``, the snapshot loaded by a private server (read, never copied
  unless it must be); :mod:`.load_failure`: why a server refused it, in one line;
- :mod:`.limits`: the defaults of ``--rate`` and ``--timeout``; :mod:`.run`: :func:`audit`.

:func:`audit` reads a server at a URL (or through a client already open); nothing it sends
writes (:data:`.reader.ALLOWED`), and what this user may not run is said, not failed on.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Audit", "audit"]


def __getattr__(name: str) -> Any:
    """``audit`` and ``Audit``, imported when first asked for: importing the package (for
    :mod:`.limits`) loads no Redis client."""
    if name == "audit":
        from setlab.tools.audit.run import audit

        return audit
    if name == "Audit":
        from setlab.tools.audit.report import Audit

        return Audit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
