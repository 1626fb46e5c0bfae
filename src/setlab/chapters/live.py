"""The sentence a chapter shows beside a reference figure: what this run measured, or why not.

A chapter's figures come from models and stored reference runs (see
:mod:`setlab.render.claims`), so a page reads the same on every backend. What a live server
measured on this run is glued beside them under a ``live-`` name; :func:`beside` writes that
sentence from a :class:`~setlab.lab.reference.Measurement`, with the same wording on every
chapter, and says plainly when nothing was measured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from setlab.lab.reference import Measurement

T = TypeVar("T")


def beside(measurement: Measurement[T], describe: Callable[[T], str]) -> str:
    """``"This run (Redis 7.0.15 … on 127.0.0.1:50123): <describe(value)>."`` when the value
    was measured live, else a sentence saying this run measured nothing, and why."""
    if measurement.live:
        where = measurement.label.removeprefix("this run: ")
        return f"This run ({where}): {describe(measurement.value)}."
    return f"(This run measured none of it: {measurement.why_not_live.rstrip('.')}.)"
