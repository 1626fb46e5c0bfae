"""Measure what the Lua dense map (snowflake ID → 0, 1, 2, …) costs in memory on a real Redis.

Writes src/setlab/data/dense-map-reference.json, which the chapter "Snowflake IDs vs a 2^32
offset space" shows to readers on the embedded backend: ``MEMORY USAGE`` (SAMPLES 0) and the
encoding of the map's hash after mapping the chapter's likers, at a few user counts. Rerun it on
your own machine (it starts a private redis-server):

    .venv/bin/python reference/measure_dense_map.py
"""

from __future__ import annotations

import dataclasses

import setlab
from setlab.chapters import snowflake_ranges as chapter
from setlab.lab import reference
from setlab.lab.runs import dense_map

#: How many of the chapter's likers to map (the chapter's own count is chapter.LIKERS).
USER_COUNTS = (100, 1_000, chapter.LIKERS // 10, chapter.LIKERS)


def main() -> None:
    lab = setlab.connect("reference", backend="live")
    likers = chapter.likers().tolist()
    rows = []
    for users in USER_COUNTS:
        memory = dense_map.measure_map_memory(lab, likers[:users])
        rows.append(dataclasses.asdict(memory))
        print(f"{users:>7,} users: {memory.bytes:>9,} B ({memory.encoding}), "
              f"{memory.per_user:.1f} B per user")  # fmt: skip
    lab.cleanup()
    path = reference.save(dense_map.REFERENCE_NAME, rows, lab, writer=__file__)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
