"""Regenerate the stored cuckoo first-failure grid (``setlab/data/grids/``).

Simulates every cell of :class:`setlab.models.cuckoo_load.LoadGrid` (bucket sizes 1, 2, 4, 8;
fingerprints of 4 … 16 bits; 2^10 … 2^18 slots; three seeds; random victims, 500 kicks) with the
pure simulator and writes the JSON the interactive cuckoo figure and ``setlab calc cuckoo-load``
read. Deterministic (seeded): a rerun writes the same file. A few minutes on one core.

    .venv/bin/python reference/measure_cuckoo_load_grid.py [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from importlib import resources
from pathlib import Path

from setlab.lab.reference import write_atomic, writer_name
from setlab.models.cuckoo_load import GRID_FILE, LoadGrid


def main() -> None:
    default = Path(str(resources.files("setlab") / "data" / "grids" / GRID_FILE))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=default, help=f"where to write (default {default})"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    grid = LoadGrid.simulate()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    document = {"writer": writer_name(__file__), **grid.as_json()}
    write_atomic(args.out, json.dumps(document, indent=1) + "\n")
    print(f"{len(grid.cells)} cells in {time.perf_counter() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
