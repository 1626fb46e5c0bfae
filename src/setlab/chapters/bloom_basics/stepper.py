"""Chapter bloom-basics, step by step: the chapter's 32-bit filter (k = 3) as alice, bob and carol
are added, then any of a dozen queries the reader picks, one of which is a false positive.

Every frame comes from the simulator (:class:`setlab.models.bloom_sim.BloomSimulator`, the
picture's own filter, :func:`setlab.chapters.bloom_basics.demo`): an item's bits are the
layout's ``locate``, a query's answer is the simulator's ``contains``. The page only shows them.
"""

from __future__ import annotations

from setlab.chapters.bloom_basics import DEMO_K, DEMO_NAMES, demo
from setlab.models.bloom_sim import BloomSimulator
from setlab.render.steppers import Frame, Stepper

#: The queries the reader may pick: a member, and strangers user-0 … user-11 (among them the
#: picture's false positive, user-2).
QUERIES = ("alice", *(f"user-{i}" for i in range(12)))


def _cells(bits: list[int]) -> tuple[str, ...]:
    return tuple(str(b) for b in bits)


def _positions(items: list[int]) -> str:
    return ", ".join(str(p) for p in items)


def stepper() -> Stepper:
    """Adds, then the reader's queries, all computed by the simulator."""
    d = demo()
    sim = BloomSimulator(d.layout)
    m = d.layout.total_bits
    bits = [0] * m
    frames = [Frame(f"An empty filter: {m} bits, all 0. Each item will set k = {DEMO_K} of them.",
                    _cells(bits))]  # fmt: skip
    for name in DEMO_NAMES:
        where = d.query(name)
        sim.add([name])
        flipped = [p for p in where if not bits[p]]
        bits = [int(b) for b in sim.bits]
        shared = [p for p in where if p not in flipped]
        text = f"Add {name!r}: its {DEMO_K} hashes pick bits {_positions(where)}; "
        text += f"{len(flipped)} flip from 0 to 1" if flipped else "all were already 1"
        if shared and flipped:
            text += f", bit {_positions(shared)} was already 1 (shared with an earlier item)"
        marks = {p: "new" if p in flipped else "hit" for p in where}
        frames.append(Frame(text + ".", _cells(bits), marks))
    walk = len(frames)
    tries = {}
    for name in QUERIES:
        where = d.query(name)
        maybe = bool(sim.contains([name])[0])
        zeros = [p for p in where if not bits[p]]
        if not maybe:
            text = (f"Query {name!r}: bits {_positions(where)}; bit {zeros[0]} is 0, so "
                    f"{name!r} was never added. The answer is \u201cno\u201d, and it is "
                    "certain.")  # fmt: skip
        elif name in DEMO_NAMES:
            text = (f"Query {name!r}: bits {_positions(where)} are all 1: \u201cmaybe\u201d, and "
                    f"{name!r} was added.")  # fmt: skip
        else:
            text = (f"Query {name!r}: bits {_positions(where)} are all 1, though nobody added "
                    f"{name!r}: a false positive, found. Other items set those bits.")  # fmt: skip
        tries[name] = len(frames)
        frames.append(Frame(text, _cells(bits), {p: "hit" if bits[p] else "miss" for p in where}))
    return Stepper(
        "bloom", "Step through a Bloom filter: add three items, then query", frames,
        caption=("Next adds alice, bob and carol; then pick queries until one answers "
                 "\u201cmaybe\u201d for a name nobody added."),
        source="the chapter's BloomSimulator (m = 32, k = 3), every bit and answer",
        columns=16, row_labels=[str(r) for r in range(0, m, 16)], steps=walk, tries=tries,
        tries_label="Query",
    )  # fmt: skip
