"""How long each page of the book takes to execute top to bottom, per backend (issue 24).

Each page of ``_toc.yml`` runs ``--runs`` times in a fresh kernel (the tests' one runner,
``tests/support/notebooks.py``: jupytext reads the page, nbclient runs it, kernel start
included), one page at a time so the pages do not compete for the two cores, on each
``--backend``. Printed: the median and the range per page and backend, and with ``--cells N``
the N slowest cells of each page's last run.

``--figures`` says what the page finds in the figure cache (``setlab.core.figure_cache``):

* ``warm`` (default): every figure already computed, as in a build where an earlier page or an
  earlier build computed them (the cache is filled once, untimed, before the runs);
* ``cold``: an empty cache for every run, as for a reader running a downloaded chapter the
  first time.

    .venv/bin/python benchmarks/execution_times.py [--backend fake live] [--runs 3]
        [--figures warm|cold] [--pages index errata ...] [--cells 3] [--json rows.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.notebooks import prime_figures, run_page  # noqa: E402


def toc_pages() -> list[str]:
    """Every notebook page of the book (a page with a kernel) in table-of-contents order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [c["file"] for c in part.get("chapters", [])]
    slugs = [p.removeprefix("book/") for p in pages]
    return [s for s in slugs if "kernelspec:" in (ROOT / "book" / f"{s}.md").read_text()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--backend", nargs="+", default=["fake", "live"], choices=["fake", "live"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--figures", choices=["warm", "cold"], default="warm")
    parser.add_argument("--pages", nargs="+", help="slugs (default: every page of _toc.yml)")
    parser.add_argument("--cells", type=int, default=0, help="show the N slowest cells")
    parser.add_argument("--json", type=Path, help="write every run's seconds here")
    args = parser.parse_args()
    pages = args.pages or toc_pages()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    rows: dict[str, dict[str, list[float]]] = {p: {} for p in pages}
    slow: dict[tuple[str, str], list] = {}
    with tempfile.TemporaryDirectory() as scratch:
        warm = Path(scratch) / "warm"
        if args.figures == "warm":
            prime_figures(warm)
        for backend in args.backend:
            for page in pages:
                for run in range(args.runs):
                    cache = warm if args.figures == "warm" else Path(scratch) / f"c-{page}-{run}"
                    env = {**os.environ, "SETLAB_BACKEND": backend,
                           "SETLAB_FIGURE_CACHE": str(cache)}  # fmt: skip
                    env.pop("REDIS_URL", None)
                    result = run_page(page, env, prime=False)
                    if not result.ok:
                        print(f"{page} on {backend} failed: {result.ename}: {result.evalue}")
                        return 1
                    rows[page].setdefault(backend, []).append(result.seconds)
                    slow[(page, backend)] = sorted(result.cells, reverse=True)[: args.cells]
                times = rows[page][backend]
                print(f"  {backend:4s} {page:22s} {statistics.median(times):6.1f} s", flush=True)
    print(f"\nseconds per page, median of {args.runs} (min-max), figure cache {args.figures}:\n")
    print("| page | " + " | ".join(args.backend) + " |")
    print("|:--|" + "--:|" * len(args.backend))
    for page in pages:
        cells = []
        for backend in args.backend:
            t = rows[page][backend]
            cells.append(f"{statistics.median(t):.1f} ({min(t):.1f}-{max(t):.1f})")
        print(f"| {page} | " + " | ".join(cells) + " |")
    for backend in args.backend:
        total = sum(statistics.median(rows[p][backend]) for p in pages)
        print(f"\n{backend}: {total:.0f} s for all {len(pages)} pages, one at a time")
    if args.cells:
        for (page, backend), cells in slow.items():
            print(f"\n{page} ({backend}):")
            for seconds, first in cells:
                print(f"  {seconds:6.2f} s  {first}")
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
