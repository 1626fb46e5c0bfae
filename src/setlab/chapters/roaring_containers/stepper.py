"""Chapter roaring-containers, step by step: one chunk's container as IDs arrive, changing kind
from array to bitset at the 4,097th value, and to runs when the IDs are consecutive.

Each frame is :func:`setlab.models.roaring.layout` of that step's values with ``run_optimize``
(what pyroaring's ``BitMap(values)`` does): its cardinality, runs and kind, and the payload each
kind would take — an array 2 bytes a value (at most 4,096 values), a bitset 8,192 bytes, runs
2 + 4 bytes a run. The tests check every frame against pyroaring's own statistics.
"""

from __future__ import annotations

import numpy as np

from setlab.models import roaring
from setlab.render.steppers import Bar, Frame, Stepper

#: The steps: (what arrived, the chunk's values after it). Scattered IDs are prefixes of one
#: seeded permutation of the chunk, so each step adds to the last.
_ORDER = np.random.default_rng(3).permutation(roaring.CHUNK)


def steps() -> list[tuple[str, np.ndarray]]:
    """(what arrived, the chunk's values after it), one a frame: scattered IDs up to the
    array's limit and one past it, then consecutive IDs, then every third of them gone."""
    limit = roaring.ARRAY_MAX
    counts = (1, 1_000, limit, limit + 1, 30_000)
    steps, before = [], 0
    for count in counts:
        arrived = (
            "One ID arrives"
            if count == 1
            else (
                "One more ID" if count - before == 1 else f"{count - before:,} more IDs, scattered"
            )
        )
        if count == limit:
            arrived += " (the array now as big as a bitset)"
        steps.append((arrived, np.sort(_ORDER[:count])))
        before = count
    every = np.arange(counts[-1])
    steps.append((f"The same {every.size:,} IDs, but consecutive (0 \u2013 {every[-1]:,})", every))
    kept = every[every % 3 != 2]
    steps.append((f"Every third of them leaves ({_count(kept.size, 'ID')} remain)", kept))
    return steps


def frame(text: str, values: np.ndarray) -> Frame:
    """One step: the model's layout of ``values`` (one chunk) and each kind's payload."""
    lay = roaring.layout(values, run_optimize=True)
    card, runs = int(lay.cardinality[0]), int(lay.runs[0])
    kind = roaring.KINDS[int(lay.kind[0])]
    sizes = {
        "array": 2 * card if card <= roaring.ARRAY_MAX else None,
        "bitset": roaring.BITSET_BYTES,
        "run": 2 + 4 * runs,
    }
    if sizes[kind] != int(lay.container_bytes()[0]):
        raise AssertionError("the bars disagree with the model's container size")
    bars = tuple(
        Bar(name, size, name == kind, "past 4,096 values" if size is None else "")
        for name, size in sizes.items()
    )
    article = "an" if kind == "array" else "a"
    said = (f"{text}: {_count(card, 'value')} in {_count(runs, 'run')}. The container is "
            f"{article} {kind} ({sizes[kind]:,} B).")  # fmt: skip
    return Frame(said, bars=bars)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def stepper() -> Stepper:
    """The chunk's container at each step, from the model."""
    return Stepper(
        "roaring", "Step through one Roaring container", [frame(t, v) for t, v in steps()],
        caption=("One chunk (65,536 IDs) holds one container. The bars are the payload each kind "
                 "would take for the chunk's IDs; the filled one is the kind CRoaring picks "
                 "after run_optimize()."),
        source="setlab.models.roaring.layout(values, run_optimize=True), checked against "
               "pyroaring",
    )  # fmt: skip
