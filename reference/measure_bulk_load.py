"""Write src/setlab/data/bulk-load.json: seed 002's bulk load, every strategy, on a real Redis.

    .venv/bin/python reference/measure_bulk_load.py [--scale 1]

Starts a private redis-server (needs the redis-server and redis-benchmark binaries), runs
:func:`setlab.lab.runs.bulk_load.measure` and stores the result as the reference run the chapter
sharded-bloom shows. ``benchmarks/bulk_load.py`` prints the same table without saving it.
"""

from __future__ import annotations

import argparse

import setlab
from setlab.lab import reference
from setlab.lab.runs import bulk_load


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the sample sizes")
    args = parser.parse_args(argv)
    lab = setlab.connect("bulk-load", backend="live")
    try:
        out = bulk_load.measure(lab, args.scale)
    finally:
        lab.cleanup()
    path = reference.save(bulk_load.REFERENCE, out["rows"], lab, writer=__file__, **out["facts"])
    print("wrote", path)


if __name__ == "__main__":
    main()
