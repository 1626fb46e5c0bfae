"""The README's "## Chapters" table is the book's map for a reader on the repository's front
page, so it must be the book's table of contents: one row per part of ``_toc.yml`` (its caption,
in its order), each row linking that part's pages in order, and the numbered parts together
exactly :data:`setlab.site.registry.CHAPTERS`.

Each link points at an existing ``book/<slug>.md`` and reads as the page's ``# `` title, or
as the title's head before its first ": " (the short form: "Birthday collisions" for "Birthday
collisions: shrinking the offset range"), so the reader recognises the page they land on. Text
outside the links (``(and `setlab advise`)``) is free.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from setlab.site import registry

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

_SECTION = re.compile(r"^## Chapters\n(.*?)(?=^## |\Z)", re.M | re.S)
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_PAGE = re.compile(r"book/([a-z0-9-]+)\.md")


def _toc_parts() -> list[tuple[str, list[str], bool]]:
    """``(caption, slugs, numbered)`` of every part of ``_toc.yml``, in order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [
        (
            part["caption"],
            [entry["file"].removeprefix("book/") for entry in part["chapters"]],
            bool(part.get("numbered")),
        )
        for part in toc["parts"]
    ]


def _title(page: Path) -> str:
    """The page's ``# `` heading: the first outside its front matter and its code cells."""
    lines = page.read_text().splitlines()
    start = lines.index("---", 1) + 1 if lines[:1] == ["---"] else 0
    fenced = False
    for line in lines[start:]:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            return line[2:].strip()
    raise AssertionError(f"{page} has no '# ' title")


def _rows(readme: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """``(part, [(link text, target), …])`` of each body row of the Chapters table."""
    section = _SECTION.search(readme)
    if section is None:
        raise AssertionError("README.md has no '## Chapters' section")
    table = [line for line in section.group(1).splitlines() if line.startswith("|")]
    rows = []
    for line in table[2:]:  # after the header and its rule
        part, chapters = (c.strip() for c in line.strip().strip("|").split("|", 1))
        rows.append((part, _LINK.findall(chapters)))
    return rows


def _problems(readme: str) -> list[str]:
    """What is wrong with the README's chapter table, one line each (empty: nothing)."""
    found: list[str] = []
    rows = _rows(readme)
    parts = _toc_parts()
    if [r[0] for r in rows] != [p[0] for p in parts]:
        found.append(f"parts: README has {[r[0] for r in rows]}, _toc.yml {[p[0] for p in parts]}")
    listed: dict[str, list[str]] = {}
    for part, links in rows:
        listed[part] = []
        for text, target in links:
            page = _PAGE.fullmatch(target)
            if page is None or not (ROOT / target).is_file():
                found.append(f"broken link: [{text}]({target}) is not a page under book/")
                continue
            slug = page.group(1)
            listed[part].append(slug)
            title = _title(ROOT / target)
            if text not in (title, title.split(": ")[0]):
                found.append(f"{slug}: the link reads {text!r}; the page's title is {title!r}")
    for caption, slugs, _ in parts:
        if caption in listed and listed[caption] != slugs:
            found.append(f"part {caption!r}: README lists {listed[caption]}, _toc.yml {slugs}")
    chapters = [s for caption, _, numbered in parts if numbered for s in listed.get(caption, [])]
    expected = list(registry.CHAPTERS)
    if chapters != expected:
        missing = [c for c in expected if c not in chapters]
        extra = [c for c in chapters if c not in expected]
        why = (f"missing: {', '.join(missing)}" if missing else
               f"not chapters: {', '.join(extra)}" if extra else "out of order")  # fmt: skip
        found.append(f"chapters ({why}): README lists {chapters}, registry.CHAPTERS {expected}")
    return found


def test_the_readme_chapter_table_is_the_books_table_of_contents():
    assert _problems(README.read_text()) == []


def _planted(old: str, new: str) -> list[str]:
    readme = README.read_text()
    assert old in readme, f"the planted edit needs {old!r} in README.md"
    return _problems(readme.replace(old, new, 1))


def test_a_chapter_missing_from_the_readme_table_fails():
    found = _planted("[How a Bloom filter works, and one that cannot](book/bloom-basics.md) · ", "")
    assert any(p.startswith("chapters (missing: bloom-basics)") for p in found), found
    assert any(p.startswith("part 'II. A Bloom filter for 800 million'") for p in found), found


def test_two_chapters_out_of_order_in_the_readme_table_fail():
    cuckoo = "[Cuckoo filters and kick chains](book/cuckoo-kick-chains.md)"
    roaring = "[Roaring containers](book/roaring-containers.md)"
    found = _planted(f"{cuckoo} · {roaring}", f"{roaring} · {cuckoo}")
    assert any(p.startswith("chapters (out of order)") for p in found), found
    assert any(p.startswith("part 'III. When Bloom is not enough'") for p in found), found


def test_a_broken_link_in_the_readme_table_fails():
    found = _planted("(book/snowflake-ranges.md)", "(book/snowflake-range.md)")
    link = "[Snowflake IDs vs a 2^32 offset space](book/snowflake-range.md)"
    assert f"broken link: {link} is not a page under book/" in found, found
    assert any(p.startswith("chapters (missing: snowflake-ranges)") for p in found), found


def test_a_link_that_does_not_read_as_its_pages_title_fails():
    found = _planted("[Glossary](book/glossary.md)", "[Terms](book/glossary.md)")
    assert found == ["glossary: the link reads 'Terms'; the page's title is 'Glossary'"]
    found = _planted("[Roaring containers]", "[Roaring]")
    assert found == [
        "roaring-containers: the link reads 'Roaring'; the page's title is "
        "'Roaring containers: dense, sparse, 64-bit, and shared'"
    ]


def test_a_link_may_read_as_the_whole_title_or_its_head_before_the_colon():
    assert _title(ROOT / "book" / "roaring-containers.md").startswith("Roaring containers: ")
    whole = "[Roaring containers: dense, sparse, 64-bit, and shared]"
    assert _planted("[Roaring containers]", whole) == []
