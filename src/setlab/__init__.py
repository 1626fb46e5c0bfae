"""setlab: the package behind the book "Huge sets of IDs in Redis, and when each structure breaks".

Chapters call it; tests check it. Start with :func:`setlab.connect`.

The package is layered (imports only point down)::

    cli  →  site  →  chapters  →  tools  →  lab | render  →  models  →  core

(no chapter imports another).

``setlab.models`` is pure computation: importing it loads neither redis, fakeredis nor
matplotlib. That is why the names below are resolved lazily: ``import setlab.models.bloom``
runs this file, and must not start a Redis client on the way.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["BigAllocationRefused", "Lab", "ServerError", "connect"]
__version__ = "0.1.0"

_LAZY = {
    "BigAllocationRefused": "setlab.lab.backend",
    "Lab": "setlab.lab.backend",
    "connect": "setlab.lab.backend",
    "ServerError": "setlab.lab.server",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'setlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
