"""``SETLAB_SCALE``: how big the chapters' simulations and experiments are, read in one place.

1 is the default, sized so every chapter runs in well under a minute on a 2-core machine with
the embedded backend. A reader with time (or a big server) goes bigger; a tight server or a
slow laptop goes smaller. Values outside :data:`RANGE` are refused with a message, never
clamped silently.
"""

from __future__ import annotations

import math
import os

SCALE_ENV = "SETLAB_SCALE"
#: the accepted range: below 0.01 most experiments have nothing left to measure; above 100 a
#: chapter runs for an hour and allocates gigabytes.
RANGE = (0.01, 100.0)


def parse_scale(text: str | None) -> float:
    """The scale given as text (``None`` or empty: the default 1). Raises ValueError."""
    if text is None or not text.strip():
        return 1.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    low, high = RANGE
    if not math.isfinite(value) or not low <= value <= high:
        raise ValueError(
            f"{SCALE_ENV} must be a number from {low:g} to {high:g} (1 is the default, sized "
            f"for a 2-core laptop); got {text!r}"
        )
    return value


def scale() -> float:
    """The current ``SETLAB_SCALE`` (default 1), validated."""
    return parse_scale(os.environ.get(SCALE_ENV))


def scaled(n: int | float, minimum: int = 1) -> int:
    """``n`` times the scale, as an int of at least ``minimum``."""
    return max(minimum, round(n * scale()))
