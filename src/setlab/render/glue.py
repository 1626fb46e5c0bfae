"""``glue``: keep a value in the executing notebook for ``{glue:text}``, in MyST-NB's format.

This is :func:`myst_nb.glue` (MyST-NB 1.x, ``myst_nb/ext/glue/__init__.py``) without its
module's imports: that module imports ``nbformat`` for a type, nbformat imports ``jsonschema``,
and jsonschema imports ``rfc3987_syntax``, which builds a grammar when imported — 1.3 s of every
kernel's start on a quiet 2-core machine, 3–4 s on a busy one, before a chapter computes
anything. What is displayed is byte for byte what MyST-NB's glue displays
(``tests/unit/test_glue.py`` compares the two), so MyST-NB reads it the same way.
"""

from __future__ import annotations

from typing import Any

#: MyST-NB's (and papermill's) prefix for a glued value that is kept but not shown
GLUE_PREFIX = "application/papermill.record/"


def _display(bundle: dict, raw: bool, metadata: dict) -> None:
    from IPython.display import display

    display(bundle, raw=raw, metadata=metadata)


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Glue ``variable``'s display (its text/plain, and any richer form) under ``name``; shown
    in the cell's output too when ``display``."""
    from IPython.core.formatters import format_display_data

    mimebundle, metadata = format_display_data(variable)
    mime_prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=mime_prefix)
    _display({mime_prefix + k: v for k, v in mimebundle.items()}, raw=True, metadata=metadata)
