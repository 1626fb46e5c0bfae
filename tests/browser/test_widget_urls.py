"""A calculator's settings live in its page's URL (book/_static/setlab-widgets.js): set a widget
to a setting other than its default, and the address names every control's value
(``?<widget>.<control>=…``) and points at the widget; opening that address in a fresh page shows
the same boxes and the same readouts. The URL keeps the page's other parameters, and a widget
the URL does not name starts at its defaults."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest

from tests.browser.test_widgets_browser import WIDGETS
from tests.browser.test_widgets_filters_density_browser import FIGURES
from tests.support import widget_driver as drive
from tests.support.site import serve

pytestmark = [pytest.mark.browser, pytest.mark.book, pytest.mark.site]

#: every calculator of the book: slug → (page, a setting other than its default)
CALCULATORS = {slug: (entry[0], entry[1][1]) for slug, entry in {**WIDGETS, **FIGURES}.items()}


@pytest.fixture(scope="module")
def site(request) -> Path:
    override = os.environ.get("SETLAB_WIDGET_SITE")
    return Path(override) if override else request.getfixturevalue("fake_book_html")


def _boxes(page, slug: str, names) -> dict[str, float]:
    return {name: float(page.locator(f"#widget-{slug}-{name}").input_value()) for name in names}


def test_every_calculator_keeps_its_settings_in_the_url(site, browser):
    assert len(CALCULATORS) == 6
    with serve(site) as base:
        for slug, (path, setting) in CALCULATORS.items():
            page = browser.page(1280, 900)
            page.goto(f"{base}{path}?keep=1")
            drive.ready(page, slug)
            default = drive.readouts(page, slug)
            drive.set_boxes(page, slug, setting)
            shown = drive.readouts(page, slug)
            assert shown != default, slug  # a setting that changes what the widget shows
            address = urlsplit(page.url)
            query = parse_qs(address.query)
            assert query.pop("keep") == ["1"], slug  # the page's own parameters stay
            assert {k: float(v[0]) for k, v in query.items()} == {
                f"{slug}.{name}": float(value) for name, value in setting.items()
            }, slug
            assert address.fragment == f"widget-{slug}"
            link = page.locator(f"#widget-{slug} .setlab-widget-link a").get_attribute("href")
            assert urljoin(page.url, link) == page.url, slug  # the link a reader copies
            page.close()

            again = browser.page(1280, 900)
            again.goto(page.url)
            drive.ready(again, slug)
            assert _boxes(again, slug, setting) == {k: float(v) for k, v in setting.items()}
            assert drive.readouts(again, slug) == shown, slug
            again.goto(f"{base}{path}")  # no parameter: the defaults
            drive.ready(again, slug)
            assert drive.readouts(again, slug) == default, slug
            again.close()
    assert browser.outside == []
    assert browser.errors == []
