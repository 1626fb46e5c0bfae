"""The errata page as a tool, in a real browser (Playwright on the system Chromium), served from a
loopback HTTP server: each filter (seed, chapter, verdict — "not judged" among its options, though
it is no verdict — and two at once) is set and the rows
left visible must be exactly the registry's claims for that choice; "Show all" brings every row
back; every row's link lands on an element of that id in the chapter it names; nothing loads from
outside 127.0.0.1 and the page logs no console error. Screenshots at 1280 and
390 px, light and dark, go to ``SETLAB_SHOTS`` (default /tmp/errata-shots/).

CI reads the fake-built book (``fake_book_html``); while developing, point
``SETLAB_ERRATA_SITE`` at the html folder of a mini book holding book/errata and the chapters.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from setlab.render.claims import Verdict
from setlab.site import registry
from tests.support import site as reader
from tests.support.site import serve

pytestmark = [pytest.mark.browser, pytest.mark.book, pytest.mark.site]
SHOTS = Path(os.environ.get("SETLAB_SHOTS", "/tmp/errata-shots"))
PAGE = "book/errata.html"


@pytest.fixture(scope="module")
def site(request) -> Path:
    if os.environ.get("SETLAB_ERRATA_SITE"):
        return Path(os.environ["SETLAB_ERRATA_SITE"])
    return request.getfixturevalue("fake_book_html")


def _visible(page) -> list[str]:
    """The claim ids of the rows the page shows now (as laid out, not as tagged)."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('span.errata-row'))
              .filter(s => s.closest('tr').getClientRects().length > 0)
              .map(s => s.dataset.claim)"""
    )


def _choose(page, **chosen: str) -> None:
    page.locator("#errata-filters button[type=reset]").click()
    for name, value in chosen.items():
        page.select_option(f"#errata-{name}", value)


def _expected(**chosen: str) -> set[str]:
    def keep(c) -> bool:
        values = {"seed": c.seed, "chapter": c.chapter, "verdict": c.verdict.value}
        return all(values[k] == v for k, v in chosen.items())

    return {c.id for c in registry.claims() if keep(c)}


def test_every_row_links_to_its_claims_row_in_the_chapter(site):
    soup = BeautifulSoup((site / PAGE).read_text(), "html.parser")
    links = soup.select("a.errata-link")
    assert len(links) == len(registry.claims())
    pages: dict[str, BeautifulSoup] = {}
    for a in links:
        target = urlsplit(a["href"])
        name = target.path
        if not (site / "book" / name).is_file() and os.environ.get("SETLAB_ERRATA_SITE"):
            continue  # a mini book built while developing holds only some chapters
        if name not in pages:
            pages[name] = BeautifulSoup((site / "book" / name).read_text(), "html.parser")
        assert pages[name].find(id=unquote(target.fragment)), a["href"]


def test_filters_show_exactly_the_chosen_claims_offline_and_without_errors(site, browser):
    everything = {c.id for c in registry.claims()}
    choices = [{"seed": s} for s in sorted({c.seed for c in registry.claims()})]
    choices += [{"chapter": ch} for ch in ("setbit-offset", "nk-vs-m-saturation", "hyperloglog")]
    choices += [{"verdict": v.value} for v in Verdict]
    choices += [{"seed": "000", "verdict": Verdict.WRONG.value}]
    choices += [{"seed": "003", "verdict": Verdict.NOT_JUDGED.value}]  # no verdict, its own option
    choices += [{"seed": "004", "chapter": "hyperloglog"}]  # nothing matches: an empty table
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.goto(base + PAGE)
        page.wait_for_selector("#errata-filters:not([hidden])")
        assert set(_visible(page)) == everything
        shown = page.locator("#errata-shown")
        assert shown.text_content() == f"{len(everything)} of {len(everything)} entries shown"
        for chosen in choices:
            _choose(page, **chosen)
            want = _expected(**chosen)
            assert set(_visible(page)) == want, chosen
            assert shown.text_content() == f"{len(want)} of {len(everything)} entries shown"
        page.locator("#errata-filters button[type=reset]").click()
        page.wait_for_function(
            f"document.getElementById('errata-shown').textContent.startsWith('{len(everything)} ')"
        )
        assert set(_visible(page)) == everything

        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = page
        for width in (1280, 390):
            for dark in (False, True):
                reader.view(shot, width, dark, height=900)
                shot.select_option("#errata-verdict", Verdict.WRONG.value)
                shot.locator("#errata-filters").scroll_into_view_if_needed()
                theme = "dark" if dark else "light"
                shot.screenshot(path=str(SHOTS / f"errata-{width}-{theme}.png"))
                wide = shot.evaluate("document.getElementById('errata-filters').scrollWidth")
                assert wide <= width, f"the filters are wider than a {width} px screen"
                shot.select_option("#errata-verdict", Verdict.NOT_JUDGED.value)
                shot.locator("#errata-filters").scroll_into_view_if_needed()
                shot.screenshot(path=str(SHOTS / f"errata-{width}-{theme}-not-judged.png"))
        assert browser.outside == []
        assert browser.errors == []
