"""What a reader downloads to open each chapter: bytes transferred, cold cache, per page.

Serves each built site given (``_build/html`` of ``make book``, or any copy) on 127.0.0.1,
opens every chapter page (the table of contents' chapters, not the appendices) in the system
Chromium with an empty cache, waits for the network to go quiet, and sums the bodies of every
response the page asked for (the server sends no compression, so these are the bytes a
static host without gzip would send). Printed per site: the median, smallest and largest
page, and the five heaviest files on the median page; with two sites, the ratio of their
medians, measured in the same run.

    .venv/bin/python benchmarks/page_weight.py _build/html [OLD_SITE/_build/html]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from setlab.site.registry import CHAPTERS  # noqa: E402
from tests.support.browser import open_browser  # noqa: E402
from tests.support.site import serve  # noqa: E402


def weigh(session, base: str, path: str) -> dict[str, int]:
    """Bytes of every response page ``path`` caused, by URL, with a cold cache."""
    responses: list = []
    page = session.context.browser.new_page()  # a context of its own: nothing cached
    page.on("response", lambda response: responses.append(response))
    page.goto(f"{base}{path}", wait_until="networkidle")
    sizes = {r.url: len(r.body()) if r.ok else 0 for r in responses}
    page.context.close()
    return sizes


def site_weights(html: Path) -> dict[str, dict[str, int]]:
    with serve(html) as base, open_browser() as session:
        return {slug: weigh(session, base, f"book/{slug}.html") for slug in CHAPTERS}


def report(html: Path) -> float:
    pages = site_weights(html)
    totals = {slug: sum(sizes.values()) for slug, sizes in pages.items()}
    median = statistics.median(totals.values())
    middle = min(totals, key=lambda s: abs(totals[s] - median))
    print(f"{html}: {len(totals)} chapter pages, median {median / 2**20:.2f} MiB "
          f"(smallest {min(totals.values()) / 2**20:.2f}, largest "
          f"{max(totals.values()) / 2**20:.2f})")  # fmt: skip
    heaviest = sorted(pages[middle].items(), key=lambda kv: -kv[1])[:5]
    print(f"  heaviest files of {middle} ({totals[middle] / 2**20:.2f} MiB):")
    for url, size in heaviest:
        print(f"    {size / 2**10:8.0f} KiB  {url.split('/', 3)[-1].split('?')[0]}")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sites", nargs="+", type=Path, help="built html folders")
    args = parser.parse_args()
    medians = [report(site) for site in args.sites]
    if len(medians) == 2:
        print(f"median page: {medians[0] / medians[1]:.2f} of the second site's")


if __name__ == "__main__":
    main()
