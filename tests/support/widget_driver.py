"""Drive a setlab widget (setlab.render.widgets) in a Playwright page: set its number boxes or
its choices, move its sliders, wait for the readouts the change caused, and read them back; and what
``setlab calc … --json`` prints for the same setting, which the readouts must equal."""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Mapping
from pathlib import Path

from setlab.cli.main import main


def calc(*args: object) -> dict | list:
    """What ``setlab calc <args> --json`` prints, parsed: the CLI's own entry point, run in this
    process (a reader's ``python -m setlab`` reaches the same ``main``; tests/unit/test_cli.py
    runs that). A widget test asks it 20 or so times, and a Python started for each call cost
    0.75 s of a loaded machine's time against 60 ms."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["calc", *map(str, args), "--json"])
    assert code == 0, f"setlab calc {' '.join(map(str, args))} exited {code}"
    return json.loads(out.getvalue())


def page_of(html: Path, slug: str) -> str:
    """The page of the built book at ``html`` that shows widget ``slug`` (``book/<chapter>.html``):
    found in the build, so a browser test names a widget and not where it lives."""
    pages = [p for p in sorted((html / "book").glob("*.html"))
             if f'id="widget-{slug}"' in p.read_text(encoding="utf-8")]  # fmt: skip
    assert len(pages) == 1, f"widget {slug} is on {len(pages)} pages: {pages}"
    return f"book/{pages[0].name}"


def ready(page, slug: str, timeout: float = 60_000) -> object:
    """The widget's figure once its chart is drawn and its readouts written: scrolled to first,
    as a reader does (the page fetches the Vega bundle when a reader nears a widget)."""
    page.locator(f"#widget-{slug}").scroll_into_view_if_needed()
    page.wait_for_selector(f"#widget-{slug}[data-ready='1']", state="attached", timeout=timeout)
    return page.locator(f"#widget-{slug}")


def _updates(page, slug: str) -> int:
    return int(page.get_attribute(f"#widget-{slug}", "data-updates") or 0)


def _wait_after(page, slug: str, before: int) -> None:
    page.wait_for_function(
        f"() => Number(document.querySelector('#widget-{slug}').dataset.updates || 0) > {before}"
    )


def set_boxes(page, slug: str, values: Mapping[str, float | str]) -> None:
    """Type each value into its control's number box (a reader pressing Tab after typing), or
    pick a choice's word in its ``<select>``."""
    for name, value in values.items():
        before = _updates(page, slug)
        box = page.locator(f"#widget-{slug}-{name}")
        if isinstance(value, str) and box.evaluate("el => el.tagName") == "SELECT":
            if box.input_value() == value:
                continue  # picked already: no change, no update to wait for
            box.select_option(value)
        else:
            box.fill(str(int(value)) if float(value).is_integer() else repr(float(value)))
            box.dispatch_event("change")
        _wait_after(page, slug, before)


def shown(page, slug: str, names) -> dict[str, float | str]:
    """What the inputs ``names`` hold: a number box's number, a choice's word."""
    return {name: _setting(page.locator(f"#widget-{slug}-{name}").input_value())
            for name in names}  # fmt: skip


def _setting(text: str) -> float | str:
    """A box's number, or a choice's word (``valkey-8.1``) as it is."""
    try:
        return float(text)
    except ValueError:
        return text


def set_given(page, slug: str, given: tuple[str, ...]) -> None:
    """Tick the optional controls in ``given`` and untick the others, ticking before
    unticking (so the page passes through settings it solves where it can), each waiting for
    the update it causes."""
    ticks = page.locator(f"#widget-{slug} .setlab-given")
    names = [t.get_attribute("id").removeprefix(f"widget-{slug}-").removesuffix("-given")
             for t in ticks.all()]  # fmt: skip
    order = [n for n in names if n in given] + [n for n in names if n not in given]
    for name in order:
        tick = page.locator(f"#widget-{slug}-{name}-given")
        if tick.is_checked() != (name in given):
            before = _updates(page, slug)
            tick.click()
            _wait_after(page, slug, before)


def move_slider(page, slug: str, name: str, position: float) -> float:
    """Put control ``name``'s slider at ``position`` (in its own units: log10 of the value for a
    log control) as a drag would, and return the value its number box then shows."""
    before = _updates(page, slug)
    control = page.locator(f"#widget-{slug} .setlab-control[data-control='{name}']")
    control.locator("input[type=range]").evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }", position
    )
    _wait_after(page, slug, before)
    return float(page.locator(f"#widget-{slug}-{name}").input_value())


def url_restores(browser, page, slug: str, setting: Mapping[str, float]) -> None:
    """The widget keeps ``setting`` (just typed) in the page's address: one parameter per
    control (``?<slug>.<control>=…``), the page's other parameters kept, the fragment at the
    widget, and the same address in ``Link to these settings``; opened in a fresh page it shows
    the same boxes and readouts (book/_static/setlab-widgets.js)."""
    from urllib.parse import parse_qs, urljoin, urlsplit

    address = urlsplit(page.url)
    query = parse_qs(address.query)
    assert query.pop("keep", None) == ["1"], f"{slug}: the page's own parameter was dropped"
    assert {k: _setting(v[0]) for k, v in query.items() if k.startswith(f"{slug}.")} == {
        f"{slug}.{name}": _setting(str(value)) for name, value in setting.items()
    }, slug
    assert address.fragment == f"widget-{slug}"
    link = page.locator(f"#widget-{slug} .setlab-widget-link a").get_attribute("href")
    assert urljoin(page.url, link) == page.url, slug  # the link a reader copies
    before = readouts(page, slug)
    again = browser.page(1280, 900)
    again.goto(page.url)
    ready(again, slug)
    assert shown(again, slug, setting) == {n: _setting(str(v)) for n, v in setting.items()}, slug
    assert readouts(again, slug) == before, slug
    again.close()


def readouts(page, slug: str) -> dict[str, tuple[float | str, str]]:
    """Every readout as (the number in data-value, or the words of a ``text`` readout; the
    text shown)."""
    found = {}
    for out in page.locator(f"#widget-{slug} output[data-readout]").all():
        value = out.get_attribute("data-value")
        if out.get_attribute("data-kind") == "text":
            parsed: float | str = value
        else:
            parsed = float(value) if value not in ("NaN", "null") else math.nan
        found[out.get_attribute("data-readout")] = (parsed, out.inner_text())
    return found
