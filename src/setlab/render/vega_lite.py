"""Altair, the Vega-Lite library the book's interactive figures are written in, imported for
all of them in one place: ``from setlab.render.vega_lite import alt``.

Altair imports jsonschema, and jsonschema imports ``rfc3987_syntax`` — its checker of the
``iri`` and ``iri-reference`` formats, installed here by Jupyter's server packages — which builds
a grammar when it is imported: 1.3 s on a quiet 2-core machine and 3 s on a busy one, in every
kernel that shows a widget. Vega-Lite's schema has no ``iri`` format (tests/unit/test_vega_lite.py
checks the schema Altair validates against), so no validation can need it: the module
is hidden while jsonschema is first imported here. In a process that imported jsonschema before,
nothing changes.
"""

from __future__ import annotations

import sys

#: jsonschema's optional IRI checker, hidden from it (see the module docstring)
HIDDEN = "rfc3987_syntax"

if "jsonschema" not in sys.modules and HIDDEN not in sys.modules:
    sys.modules[HIDDEN] = None  # type: ignore[assignment]  # `import` now raises ImportError
    try:
        import jsonschema  # noqa: F401
    finally:
        del sys.modules[HIDDEN]

import altair as alt  # noqa: E402

__all__ = ["alt"]
