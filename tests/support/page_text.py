"""What a reader reads on each page of a built book, to compare two builds: the prose, the
tables, what the cells printed, the figures' alt text, without the code cells' sources.

A change that should move code and leave the book as it was (a chapter's logic moved into the
package, a room of the package renamed) is checked by building before and after on the embedded
backend, whose pages are deterministic, and comparing::

    .venv/bin/python -m tests.support.page_text OLD/_build/html _build/html

It prints a unified diff of each page that differs and a line per page; ``--code`` compares the
code cells' sources too.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

#: what a page's text leaves out: scripts, styles, and (unless asked) the code cells' sources
_NEVER = ("script", "style", "noscript")


def page_text(html: str, code: bool = False) -> list[str]:
    """The lines a reader reads in a built page's article: each block of text on a line of its
    own, white space folded, images as their alt text; code cells' sources left out unless
    ``code``."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article.bd-article") or soup.body or soup
    for tag in article.find_all(_NEVER):
        tag.decompose()
    if not code:
        for tag in article.select("div.cell_input"):
            tag.decompose()
    for img in article.find_all("img"):
        img.replace_with(f"[image: {img.get('alt', '')}]")
    text = article.get_text("\n")
    return [line for raw in text.splitlines() if (line := re.sub(r"\s+", " ", raw).strip())]


def compare(old: Path, new: Path, code: bool = False) -> dict[str, list[str]]:
    """Every page (``*.html`` under the two sites, by relative path) whose text differs: its
    unified diff. A page on one side only is reported as such."""
    pages = {p.relative_to(old) for p in old.rglob("*.html")} | {
        p.relative_to(new) for p in new.rglob("*.html")
    }
    diffs: dict[str, list[str]] = {}
    for page in sorted(pages):
        a, b = old / page, new / page
        if not (a.is_file() and b.is_file()):
            diffs[str(page)] = [f"only in {'the old' if a.is_file() else 'the new'} build"]
            continue
        before = page_text(a.read_text(errors="replace"), code)
        after = page_text(b.read_text(errors="replace"), code)
        if before != after:
            diffs[str(page)] = list(difflib.unified_diff(before, after, "old", "new", lineterm=""))
    return diffs


def main() -> int:
    parser = argparse.ArgumentParser(description="Compare the text of two built books")
    parser.add_argument("old", type=Path, help="the first build's html folder")
    parser.add_argument("new", type=Path, help="the second build's html folder")
    parser.add_argument("--code", action="store_true", help="compare code cells' sources too")
    args = parser.parse_args()
    for folder in (args.old, args.new):
        if not (folder / "index.html").is_file():
            parser.error(f"{folder} holds no built book (no index.html)")
    diffs = compare(args.old, args.new, args.code)
    for page, lines in diffs.items():
        print(f"== {page}")
        print("\n".join(lines))
    total = len({p.relative_to(args.new) for p in args.new.rglob("*.html")})
    print(f"{len(diffs)} of {total} pages differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
