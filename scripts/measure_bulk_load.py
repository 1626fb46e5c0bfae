"""Write src/setlab/data/bulk-load.json: the bulk-load benchmark on this machine's live Redis.

    .venv/bin/python scripts/measure_bulk_load.py [--scale 1]

Runs benchmarks/bulk_load.py with --save (needs a redis-server and redis-benchmark binary).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "--save", *sys.argv[1:]]
    runpy.run_path(
        str(Path(__file__).resolve().parents[1] / "benchmarks" / "bulk_load.py"),
        run_name="__main__",
    )
