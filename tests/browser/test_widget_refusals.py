"""Where ``setlab calc`` refuses an input, its calculator in the page refuses it too, with the
CLI's own message (render/widgets.py ``Control.check``): ch1's snowflake ID as a SETBIT offset,
an offset one past the last, a cuckoo setting off the simulated grid, a range of 2^40 IDs. The
page does not snap the value to one it can show: the box keeps what was typed, no readout shows
a number (or words), and a valid value brings them back. The same holds for a refused value in
the page's URL."""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import shlex
from pathlib import Path

import pytest

from setlab.cli.main import main
from tests.support import widget_driver as drive
from tests.support.site import serve

pytestmark = [pytest.mark.browser, pytest.mark.book, pytest.mark.site]

#: (widget, page, control, what the reader types, the same input to setlab calc, a valid value)
EDGES = [
    ("setbit", "book/setbit-offset.html", "offset", "2051776854918803458",
     ["setbit", "2051776854918803458"], "1000"),
    ("setbit", "book/setbit-offset.html", "offset", "4294967296", ["setbit", "4294967296"],
     "4294967295"),
    ("cuckoo-load", "book/cuckoo-kick-chains.html", "b", "3",
     ["cuckoo-load", "-b", "3", "-f", "12", "--slots", "2^14"], "2"),
    ("cuckoo-load", "book/cuckoo-kick-chains.html", "logslots", "11",
     ["cuckoo-load", "-b", "4", "-f", "12", "--slots", "2^11"], "12"),
    ("cuckoo-load", "book/cuckoo-kick-chains.html", "f", "3",
     ["cuckoo-load", "-b", "4", "-f", "3", "--slots", "2^14"], "8"),
    # a range between 2^32 and 2^64: no structure the advisor prices takes it
    ("bytes-per-id", "book/choosing.html", "logrange", "40",
     ["density", "-n", "10^6", "--range", "2^40"], "64"),
    # the CLI's own parsing of a count (argparse's frame left out: core())
    ("birthday", "book/birthday-collisions.html", "bits", "65",
     ["birthday", "-n", "1000", "--bits", "65"], "32"),
    ("setbit", "book/setbit-offset.html", "sets", "0", ["setbit", "1000", "--sets", "0"], "1"),
    ("sharded-bloom", "book/sharded-bloom.html", "capacity", "0",
     ["sharded-bloom", "-n", "800000000", "--shards", "4", "--capacity", "0"], "6104"),
]  # fmt: skip


def cli_refusal(args: list[str]) -> str:
    """What ``setlab calc <args>`` says when it refuses them, without its ``setlab calc X:``."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main(["calc", *args])
        except SystemExit as exc:
            code = exc.code
    assert code == 2, f"setlab calc {' '.join(args)} accepted it"
    return err.getvalue().strip().split(": ", 1)[1]


@pytest.fixture(scope="module")
def site(request) -> Path:
    override = os.environ.get("SETLAB_WIDGET_SITE")
    return Path(override) if override else request.getfixturevalue("fake_book_html")


def _empty(value: float | str) -> bool:
    """No number (NaN), or no words (a text readout, such as the advisor's pick)."""
    return value == "" if isinstance(value, str) else math.isnan(value)


def _refused(page, slug: str, message: str) -> None:
    note = page.locator(f"#widget-{slug} .setlab-widget-refusal")
    assert note.is_visible() and note.inner_text() == message
    assert all(_empty(value) for value, _ in drive.readouts(page, slug).values())


def test_the_page_refuses_what_the_cli_refuses_with_its_message(site, browser):
    pages: dict[tuple[str, str], list] = {}
    for slug, path, *edge in EDGES:
        pages.setdefault((slug, path), []).append(edge)
    with serve(site) as base:
        for (slug, path), edges in pages.items():
            page = browser.page(1280, 900)
            page.goto(f"{base}{path}")
            drive.ready(page, slug)
            for control, typed, args, valid in edges:
                message = core(cli_refusal(args))
                drive.set_boxes(page, slug, {control: typed})
                _refused(page, slug, message)
                # not snapped to a value the page can show, and not shared in the address
                assert page.locator(f"#widget-{slug}-{control}").input_value() == typed
                assert f"{slug}.{control}={typed}" not in page.url
                drive.set_boxes(page, slug, {control: valid})
                assert not page.locator(f"#widget-{slug} .setlab-widget-refusal").is_visible()
                # numbers again (a structure that cannot hold the setting stays a dash)
                assert not all(_empty(v) for v, _ in drive.readouts(page, slug).values())
            control, typed, args, _ = edges[0]  # the same, from a link
            page.goto(f"{base}{path}?{slug}.{control}={typed}")
            drive.ready(page, slug)
            _refused(page, slug, core(cli_refusal(args)))
            page.close()
    assert browser.outside == []
    assert browser.errors == []


def core(message: str) -> str:
    """The CLI's words without argparse's frame: ``argument -n/--items: `` before and ``(see
    setlab calc bloom --help)`` after (the page has no options to name)."""
    message = re.sub(r"^argument [^:]+: ", "", message)
    return re.sub(r" \(see setlab calc \S+ --help\)$", "", message)


#: (the quantities ticked, the box typed into, what the reader types, the same to setlab calc,
#: a valid value)
BLOOM_EDGES = [
    (("n", "p"), "n", "0", ["-n", "0", "-p", "0.01"], "1000"),
    (("n", "p"), "n", "-5", ["-n", "-5", "-p", "0.01"], "1000"),
    (("n", "p"), "p", "1", ["-n", "1000", "-p", "1"], "0.01"),
    (("n", "p", "k"), "k", "65", ["-n", "1000", "-p", "0.01", "-k", "65"], "7"),
    (("n", "p", "m"), "m", "18446744073709551617",
     ["-n", "1000", "-p", "0.01", "-m", "18446744073709551617"], "100000"),
    (("n", "p"), "n", "1125899906842625", ["-n", "1125899906842625", "-p", "0.01"], "1000"),
]  # fmt: skip


def test_the_bloom_calculator_refuses_what_setlab_calc_bloom_refuses(site, browser):
    """A typed value the CLI refuses gets its words; one the CLI takes but the page does not
    compute (p = 10^-10, n = 10^12) says so and points at the line to copy, which the CLI then
    runs; a combination it refuses (one quantity, all four, p and k), an m that holds no item
    at that p and a filter whose rate rounds to 1 are refused with the function's own
    message."""
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.goto(f"{base}book/bloom-basics.html")
        drive.ready(page, "bloom")
        for given, control, typed, args, valid in BLOOM_EDGES:
            drive.set_given(page, "bloom", given)
            drive.set_boxes(page, "bloom", {control: typed})
            _refused(page, "bloom", core(cli_refusal(["bloom", *args, "--redisbloom"])))
            assert page.locator(f"#widget-bloom-{control}").input_value() == typed
            drive.set_boxes(page, "bloom", {control: valid})
            assert not page.locator("#widget-bloom .setlab-widget-refusal").is_visible()
        # a box refused, then another quantity left out: the refused value goes back (as when
        # another box is typed into) and the numbers return
        drive.set_given(page, "bloom", ("n", "p", "m"))
        drive.set_boxes(page, "bloom", {"m": "18446744073709551617"})
        drive.set_given(page, "bloom", ("n", "m"))
        assert not page.locator("#widget-bloom .setlab-widget-refusal").is_visible()
        assert page.locator("#widget-bloom-m").input_value() != "18446744073709551617"
        assert not any(_empty(v) for v, _ in drive.readouts(page, "bloom").values())
        for control, typed in [("p", "1e-10"), ("n", "1000000000000")]:
            drive.set_given(page, "bloom", ("n", "p"))
            drive.set_boxes(page, "bloom", {control: typed})
            note = page.locator("#widget-bloom .setlab-widget-refusal").inner_text()
            assert f" {typed} is outside what this calculator computes" in note
            terminal = page.locator("#widget-bloom code[data-template]").first.inner_text()
            assert f"-{control} {typed}" in terminal
            assert drive.calc(*shlex.split(terminal)[2:])  # the CLI takes it
            drive.set_boxes(page, "bloom", {control: {"p": "0.01", "n": "1000"}[control]})
        for given in [("n",), ("n", "p", "m", "k"), ("p", "k")]:
            drive.set_given(page, "bloom", given)
            values = {"n": "1000", "p": "0.01", "m": "10000", "k": "3"}
            args = [a for q in given for a in (f"-{q}", values[q])]
            drive.set_boxes(page, "bloom", {q: values[q] for q in given})
            _refused(page, "bloom", cli_refusal(["bloom", *args]))
        drive.set_given(page, "bloom", ("m", "p", "k"))
        drive.set_boxes(page, "bloom", {"m": "100", "p": "1e-07", "k": "1"})
        _refused(page, "bloom", cli_refusal(["bloom", "-m", "100", "-p", "1e-07", "-k", "1"]))
        drive.set_given(page, "bloom", ("n", "p"))
        drive.set_boxes(page, "bloom", {"n": "1000", "p": "0.99"})
        _refused(page, "bloom", cli_refusal(["bloom", "-n", "1000", "-p", "0.99"]))
        page.close()
    assert browser.outside == []
    assert browser.errors == []


def test_choosing_refuses_a_count_or_rate_it_has_not_priced_and_gives_the_line_that_does(
    site, browser
):
    """The page prices the counts and rates on its grid; between them it says so (not the
    nearest count's numbers) and its line to copy, run as it reads, prices the typed one. A
    count the CLI refuses gets the CLI's words."""
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.goto(f"{base}book/choosing.html")
        drive.ready(page, "bytes-per-id")
        for control, typed in [("n", "1234567"), ("p", "0.003")]:
            drive.set_boxes(page, "bytes-per-id", {control: typed})
            note = page.locator("#widget-bytes-per-id .setlab-widget-refusal").inner_text()
            assert f" {typed} is not one this calculator has computed" in note, note
            assert all(_empty(v) for v, _ in drive.readouts(page, "bytes-per-id").values())
            line = page.locator("#widget-bytes-per-id code[data-template]").inner_text()
            assert f"-{control} {typed}" in line
            data = drive.calc(*shlex.split(line)[2:])
            assert data["pick"] and data["count" if control == "n" else "error"] == float(typed)
            drive.set_boxes(page, "bytes-per-id", {control: {"n": "1000000", "p": "0.01"}[control]})
            assert not page.locator("#widget-bytes-per-id .setlab-widget-refusal").is_visible()
        drive.set_boxes(page, "bytes-per-id", {"n": "0"})
        _refused(page, "bytes-per-id", core(cli_refusal(["density", "-n", "0"])))
        page.close()
    assert browser.outside == []
    assert browser.errors == []
