"""Argument checks shared by every module: a bad argument becomes a ValueError that names the
parameter, the value and the valid range, before it can fail deep inside numpy or Redis."""

from __future__ import annotations

import math
import numbers

import numpy as np


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` as an int if it is an integer (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if value < low or (high is not None and value > high):
        upper = "" if high is None else f" and at most {high:,}"
        raise ValueError(f"{name} must be at least {low:,}{upper}; got {value:,}")
    return value


def check_probability(name: str, value: object) -> float:
    """``value`` as a float if it is a real number strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise ValueError(f"{name} must be a probability strictly between 0 and 1; got {value!r}")
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be a probability strictly between 0 and 1; got {value!r}")
    return value


def check_items(items: object) -> np.ndarray:
    """``items`` as a flat ``uint64`` array (no copy when it is one) if it is a numpy array of
    non-negative integers: the loaders' input, hashed or sent as 64-bit values."""
    if not isinstance(items, np.ndarray) or items.dtype.kind not in "ui":
        raise ValueError(f"items must be a numpy integer array, got {type(items).__name__}")
    if items.dtype.kind == "i" and items.size and items.min() < 0:
        raise ValueError(f"items must be >= 0; got {items.min()}")
    return items.astype(np.uint64, copy=False).ravel()
