"""The cuckoo-load, sharded-Bloom and bytes-per-ID figures in a real browser (Playwright on the
system Chromium, the book built on the embedded backend): type three settings into the number
boxes and drag one slider, and check that each number the page shows is what `setlab calc …
--json` prints for the same setting, written as the page writes numbers, and that the page's
address keeps the setting (``widget_driver.url_restores``); no request may leave
127.0.0.1 and the widget pages log no console error.
Screenshots of each widget at 1280 and 390 px, light and dark, go to /tmp/widgets-shots/. The
controls are driven by tests/support/widget_driver.py. While developing, ``SETLAB_WIDGET_SITE``
names the
html folder of a mini book with these pages."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from setlab.core.formats import format_readout
from tests.support import site
from tests.support import widget_driver as drive

SHOTS = Path("/tmp/widgets-shots")
#: Seed 002's items, which the sharded figure holds fixed.
ITEMS = 800_000_000


def _cuckoo(s: dict) -> dict:
    """On the simulated grid only: the page refuses what is off it, as the CLI does
    (tests/browser/test_widget_refusals.py)."""
    b, ls = s["b"], s["logslots"]
    d = drive.calc("cuckoo-load", "-b", str(b), "-f", str(s["f"]), "--slots", f"2^{ls}")
    return {"cb": d["bucket_size"], "ls": d["log_slots"], "slots": d["slots"],
            "load": d["first_failure_load"], "bits": d["bits_per_item"],
            "fpr": d["fpr"]}  # fmt: skip


def _sharded(s: dict) -> dict:
    d = drive.calc("sharded-bloom", "-n", str(ITEMS), "--shards", f"2^{s['logshards']}",
              "--capacity", str(s["capacity"]))  # fmt: skip
    return {"shards": d["shards"], "mean": d["mean_load"], "worst": d["worst_load"], "m": d["m"],
            "k": d["k"], "total": d["total_bytes"], "worstfpr": d["worst_fpr"],
            "meanfpr": d["fpr_at_mean"]}  # fmt: skip


def _density(s: dict) -> dict:
    d = drive.calc("density", "-n", int(s["n"]), "--range", f"2^{s['logrange']}",
                   "-p", repr(s.get("p", 0.01)), "--sets", int(s.get("sets", 1)))  # fmt: skip
    short = {"Redis SET": "set", "plain bitmap": "bitmap", "Roaring bitmap": "roaring",
             "Bloom filter": "bloom", "cuckoo filter": "cuckoo", "HyperLogLog": "hll"}  # fmt: skip
    out = {"range_values": d["universe"], "dens": d["density"]}
    out.update({short[k]: v for k, v in d["bytes_per_id"].items()})
    out["chart_pick"] = f"pick at 2^{s['logrange']}: {d['pick']}"
    # the pick and its reason in words, and what it takes: readouts, not only a chart label
    out.update(
        pick=d["pick"],
        reason=d["reason"],
        pick_bytes=d["pick_bytes"],
        total=d["scale"]["total"],
        masters=d["scale"]["masters"],
    )
    return out


#: slug → (three settings, the CLI's numbers for a setting, a slider move (control, position in
#: the slider's own units)); with WIDGETS of test_widgets_browser.py, every calculator of the
#: book (tests/book/test_calculators_findable.py)
FIGURES = {
    "cuckoo-load": ([{"b": 2, "f": 8, "logslots": 18}, {"b": 1, "f": 16, "logslots": 10},
                     {"b": 8, "f": 5, "logslots": 12}], _cuckoo, ("b", 3)),
    "sharded-bloom": ([{"logshards": 10, "capacity": 800_000},
                       {"logshards": 17, "capacity": 7_630},
                       {"logshards": 5, "capacity": 123_456}], _sharded, ("capacity", 4.5)),
    "bytes-per-id": ([{"n": 800_000_000, "logrange": 32, "p": 0.01, "sets": 1},
                      {"n": 1_000_000, "logrange": 20, "p": 0.001, "sets": 300},
                      {"n": 120_000_000, "logrange": 64, "p": 0.05, "sets": 20}], _density,
                     ("logrange", 27)),
}  # fmt: skip


@pytest.fixture(scope="module")
def book_html(request) -> Path:
    """The fake-built book; while developing, ``SETLAB_WIDGET_SITE`` names a mini book's html."""
    override = os.environ.get("SETLAB_WIDGET_SITE")
    return Path(override) if override else request.getfixturevalue("fake_book_html")


def _check(page, slug: str, want: dict, where: str) -> None:
    shown = drive.readouts(page, slug)
    for name, value in want.items():
        if name == "chart_pick":  # the advisor's pick is written in the chart too
            chart = page.locator(f"#widget-{slug} .setlab-widget-chart").inner_text()
            assert value in chart, where
            continue
        out = page.locator(f"#widget-{slug} output[data-readout='{name}']")
        number, text = shown[name]
        if isinstance(value, str):
            assert number == text == value, f"{where}: {name}"
            continue
        if value is None:  # the CLI's "impossible" (a plain bitmap of 2^64 values): a dash
            assert math.isnan(number) and text == "\u2014", f"{where}: {name}"
            continue
        assert number == pytest.approx(value, rel=1e-9), f"{where}: {name}"
        written = format_readout(
            value, out.get_attribute("data-kind"), out.get_attribute("data-unit")
        )
        assert text == written, f"{where}: {name}"


def _boxes(page, slug: str, names) -> dict[str, float]:
    def value(name: str) -> float:
        number = float(page.locator(f"#widget-{slug}-{name}").input_value())
        return int(number) if number.is_integer() else number

    return {name: value(name) for name in names}


@pytest.mark.browser
@pytest.mark.book
@pytest.mark.site
@pytest.mark.parametrize("slug", list(FIGURES))
def test_moving_the_controls_shows_what_setlab_calc_prints(browser, book_html, slug):

    settings, expected_for, (control, position) = FIGURES[slug]
    path = drive.page_of(book_html, slug)
    with site.serve(book_html) as base:
        page = browser.page(1280, 900)
        page.goto(f"{base}{path}?keep=1", wait_until="networkidle")
        drive.ready(page, slug)
        for setting in settings:
            drive.set_boxes(page, slug, setting)
            assert _boxes(page, slug, setting) == setting
            _check(page, slug, expected_for(setting), f"{slug} at {setting}")
        drive.url_restores(browser, page, slug, settings[-1])
        # a drag of one slider: the page shows the value it took (log sliders step by 10^0.01)
        value = drive.move_slider(page, slug, control, position)
        moved = _boxes(page, slug, settings[-1])
        assert moved[control] == value
        _check(page, slug, expected_for(moved), f"{slug} after the {control} slider")
        assert browser.outside == []
        assert browser.errors == []


@pytest.mark.browser
@pytest.mark.book
@pytest.mark.site
def test_screenshots_of_each_widget_light_and_dark(browser, book_html):

    SHOTS.mkdir(parents=True, exist_ok=True)
    with site.serve(book_html) as base:
        for slug in FIGURES:
            path = drive.page_of(book_html, slug)
            for width in (1280, 390):
                for dark in (False, True):
                    # tall enough that the widget fits: a capture beyond the viewport resizes it,
                    # and Vega redraws its container-wide chart at the wrong width
                    page = browser.page(width, 2400, dark)
                    page.goto(f"{base}{path}", wait_until="networkidle")
                    figure = drive.ready(page, slug)
                    figure.scroll_into_view_if_needed()
                    box = figure.bounding_box()
                    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (slug, width)
                    theme = "dark" if dark else "light"
                    figure.screenshot(path=str(SHOTS / f"{slug}-{width}-{theme}.png"))
                    page.close()
        assert browser.outside == []
        assert browser.errors == []
