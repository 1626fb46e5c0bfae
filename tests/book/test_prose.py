"""No page's prose shows the build's bookkeeping (tests/support/prose.py): checked on planted
pages, then on every page of the built book."""

from __future__ import annotations

import pytest

from setlab.site import registry
from tests.support.prose import prose_problems

IDS = frozenset(c.id for c in registry.claims())


@pytest.mark.parametrize(
    ("planted", "what"),
    [
        ("<p>This run (Redis 7.0.15 on 127.0.0.1:45961): 3 ms.</p>", "ephemeral endpoint"),
        ("<p>Served on localhost:8000 today.</p>", "ephemeral endpoint"),
        ("<p>Get it; this build does not say where.</p>", "remark about the build"),
        ("<p>As listed in seed_sentences.py.</p>", "file name"),
        ("<p>See tests/chapters for the check.</p>", "test name"),
        ("<td>Restates 000-alloc-1e9: the same figure.</td>", "registry id"),
    ],
)
def test_each_kind_of_bookkeeping_is_found(planted, what):
    found = prose_problems(f"<main>{planted}</main>", IDS)
    assert len(found) == 1 and what in found[0], found


def test_code_links_and_names_that_are_not_ids_pass():
    page = (
        "<main><pre>redis-cli -p 6379</pre><p>Run <code>make test</code>, then read "
        '<a href="setbit-offset.html#claim-000-alloc-1e9">seed 000 §3.2, “~120 MB”</a>; the '
        "figure bd-004-lost32 is a glue name, not a registry id.</p></main>"
    )
    assert prose_problems(page, IDS) == []


@pytest.mark.book
def test_no_page_of_the_built_book_shows_bookkeeping(fake_book_html):
    pages = sorted((fake_book_html / "book").glob("*.html"))
    assert len(pages) >= len(registry.CHAPTERS)
    found = [
        f"{page.name}: {problem}"
        for page in pages
        for problem in prose_problems(page.read_text(), IDS)
    ]
    assert not found, "\n".join(found[:40]) + f"\n({len(found)} in all)"
