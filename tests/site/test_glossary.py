"""The glossary: every Chinese term is really in a seed; every chapter is really in the book.

The seed texts are not part of the repository: the check reads them from the folder
``SETLAB_SEEDS`` names (by default a ``shared/seeds`` folder beside the checkout's own). Where
they are absent the seed check is skipped, unless
``SETLAB_REQUIRE_SEEDS=1`` (CI sets it), which turns the skip into a failure.
"""

import os
from pathlib import Path

import pytest

from setlab.site import glossary
from tests.book.test_book import ROOT

SEEDS = Path(os.environ.get("SETLAB_SEEDS") or ROOT.parent / "shared" / "seeds")
REQUIRE_SEEDS = os.environ.get("SETLAB_REQUIRE_SEEDS", "").lower() in {"1", "true", "yes"}


def _seed_text() -> str:
    files = sorted(SEEDS.glob("0*.txt"))
    if not files:
        message = f"no seed files under {SEEDS}: the glossary cannot be checked against them"
        if REQUIRE_SEEDS:
            pytest.fail(message + " (SETLAB_REQUIRE_SEEDS=1)")
        pytest.skip(message)
    return "".join(Path(f).read_text() for f in files)


def test_every_term_appears_in_a_seed():
    text = _seed_text()
    assert [t.zh for t in glossary.TERMS if t.zh not in text] == []


def test_every_chapter_named_is_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text()
    assert sorted(c for c in glossary.chapters() if f"book/{c}" not in toc) == []


def test_terms_are_unique_and_the_table_lists_them_all():
    assert len({t.zh for t in glossary.TERMS}) == len(glossary.TERMS)
    assert glossary.table_markdown().count("\n") == len(glossary.TERMS) + 1


def test_every_book_term_is_used_by_the_chapter_it_links_to():
    missing = [
        f"{t.en} -> {t.chapter}"
        for t in glossary.BOOK_TERMS
        if t.needle.lower() not in (ROOT / "book" / f"{t.chapter}.md").read_text().lower()
    ]
    assert missing == []


def test_the_book_terms_are_unique_and_cover_the_books_jargon():
    names = [t.en for t in glossary.BOOK_TERMS]
    assert len(set(names)) == len(names)
    for needed in ["sds", "size class", "robj", "dictEntry", "intset", "listpack", "fingerprint",
                   "register", "hash slot", "head-of-line blocking", "WATCH"]:  # fmt: skip
        assert needed in names
    assert glossary.book_table_markdown().count("\n") == len(names) + 1
