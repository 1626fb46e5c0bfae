"""The interactive figures in a real browser (Playwright on the system Chromium), served from a
loopback HTTP server: each widget is set to three settings through its number boxes (and once
through a slider), and every number it then shows must equal what ``setlab calc … --json``
prints for that setting; the page's address then holds the last setting, and opened afresh it
shows the same (``widget_driver.url_restores``); nothing may load from outside 127.0.0.1,
and the widget pages log no console error. A screenshot of each widget at 1280 and 390 px,
light and dark, goes to ``SETLAB_SHOTS`` (default /tmp/widgets-shots/).

CI reads the fake-built book (``fake_book_html``); while developing, point ``SETLAB_WIDGET_SITE``
at the html folder of a mini book that holds the widget pages.
"""

from __future__ import annotations

import math
import os
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from setlab.core.formats import format_readout
from tests.support import widget_driver as drive
from tests.support.site import serve

pytestmark = [pytest.mark.browser, pytest.mark.book, pytest.mark.site]
SHOTS = Path(os.environ.get("SETLAB_SHOTS", "/tmp/widgets-shots"))


def bloom_given(s: dict) -> list[str]:
    """The options of ``setlab calc bloom`` a setting gives: n and p unless it says otherwise
    (``m_given`` …), as the page's checkboxes start."""
    from setlab.chapters.bloom_basics.widget import GIVEN, START_GIVEN

    args = []
    for q in GIVEN:
        if s.get(f"{q}_given", START_GIVEN[q]):
            args += [f"-{q}", repr(s[q]) if q == "p" else str(int(s[q]))]
    return args


def bloom_cli(s: dict) -> dict[str, float]:
    """The Bloom calculator's readouts, from four runs of ``setlab calc bloom`` given what the
    setting gives."""
    given, sets = bloom_given(s), int(s.get("sets", 1))
    classic, _ = drive.calc("bloom", *given, "--redisbloom", "--sets", sets)
    _, nonscaling = drive.calc("bloom", *given, "--nonscaling")
    n, items = classic["n"], math.ceil(s["load"] * classic["n"])
    p = s["p"] if "-p" in given else classic["p"]  # the rate BF.RESERVE is given
    _, loaded = drive.calc("bloom", *given, "--redisbloom", "--load", items)
    fixed = drive.calc("bloom", "-n", items, "-m", classic["m"], "-k", classic["k"])
    return {
        "sol_n": n, "sol_p": classic["p"], "sol_m": classic["m"], "sol_k": classic["k"],
        "bytes": classic["bytes"], "fill": classic["fill"],
        # the default chain as it is at this load: what --load prints (4.69 GiB at load 2 of
        # 8 × 10^8 at 1%, where the page used to keep the reservation's 1.47 GiB)
        "rb_size": loaded["bytes"], "rb_alloc": loaded["allocated"],
        "ns_size": nonscaling["bytes"], "ns_alloc": nonscaling["allocated"],
        "ns_refused": _refused_by_nonscaling(n, p, items),
        "rate_fixed": fixed["p"], "rate_chain": loaded["expected_fpr"],
        "filters": loaded["sub_filters"],
        "total": classic["scale"]["total"], "masters": classic["scale"]["masters"],
        "bpi": classic["bits_per_item"], "bound": classic["lower_bound_bits_per_item"],
        "keys": classic["redis_keys"], "added": items,
    }  # fmt: skip


def _refused_by_nonscaling(n: int, p: float, items: int) -> int:
    """The adds a NONSCALING filter of capacity n refuses: the CLI takes a load up to n and
    refuses one past it (the module's 'non scaling filter is full')."""
    from tests.browser.test_widget_refusals import cli_refusal

    drive.calc("bloom", "-n", n, "-p", p, "--nonscaling", "--load", min(items, n))
    if items <= n:
        return 0
    refused = cli_refusal(["bloom", "-n", str(n), "-p", str(p), "--nonscaling", "--load",
                           str(items)])  # fmt: skip
    assert "non scaling filter is full" in refused
    return items - n


def birthday_cli(s: dict) -> dict[str, float]:
    data = drive.calc("birthday", "-n", int(s["n"]), "--bits", int(s["bits"]))
    return {"space": data["space"], "chance": data["collision_probability"],
            "pairs": data["expected_colliding_pairs"]}  # fmt: skip


def setbit_cli(s: dict) -> dict[str, float]:
    data = drive.calc("setbit", int(s["offset"]), "--redis", s.get("redis", "7.0"),
                      "--sets", int(s.get("sets", 1)))  # fmt: skip
    return {"strlen": data["strlen"], "alloc": data["allocation"],
            "usage": data["memory_usage"], "first_ms": data["first_write_ms"],
            "total": data["scale"]["total"], "masters": data["scale"]["masters"]}  # fmt: skip


#: slug → (three settings, the CLI's numbers for a setting, a slider move (control, position));
#: tests/book/test_calculators_findable.py checks that with FIGURES of
#: test_widgets_filters_density_browser.py these are every calculator of the book.
WIDGETS: dict[str, tuple[list[dict], Callable[[dict], dict], tuple[str, float]]] = {
    "bloom": ([{"n": 1_000_000, "p": 0.001, "load": 2.0, "sets": 1},
               {"n": 123_457, "p": 0.0372, "load": 1.05, "sets": 8000},
               {"n": 10**10, "p": 1e-6, "load": 0.5, "sets": 3}],
              bloom_cli, ("n", 7.3)),
    "birthday": ([{"n": 1000, "bits": 20}, {"n": 100_000, "bits": 32}, {"n": 77_000, "bits": 64}],
                 birthday_cli, ("n", 4.5)),
    "setbit": ([{"offset": 1000, "sets": 1, "redis": "8.2"},
                {"offset": 700_000_000, "sets": 5, "redis": "6.2"},
                {"offset": 2**32 - 1, "sets": 100_000, "redis": "valkey-8.1"}],
               setbit_cli, ("offset", 6.5)),
}  # fmt: skip


@pytest.fixture(scope="module")
def site(request) -> Path:
    override = os.environ.get("SETLAB_WIDGET_SITE")
    return Path(override) if override else request.getfixturevalue("fake_book_html")


def _kinds(page, slug: str) -> dict[str, tuple[str, str]]:
    outs = page.locator(f"#widget-{slug} output[data-readout]").all()
    kinds = {}
    for out in outs:
        kinds[out.get_attribute("data-readout")] = (
            out.get_attribute("data-kind"),
            out.get_attribute("data-unit"),
        )
    return kinds


def _overlapping_labels(page, slug: str) -> list[str]:
    """Pairs of one axis's tick labels in the widget's chart that overlap on screen."""
    return page.evaluate(
        """slug => {
          const found = [];
          document.querySelectorAll('#widget-' + slug + ' .role-axis-label').forEach(axis => {
            const boxes = [...axis.querySelectorAll('text')]
              .filter(t => t.textContent && getComputedStyle(t).opacity !== '0')
              .map(t => [t.textContent, t.getBoundingClientRect()]);
            boxes.forEach(([a, r], i) => boxes.slice(i + 1).forEach(([b, q]) => {
              if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1
                  && q.top < r.bottom - 1) found.push(a + ' / ' + b);
            }));
          });
          return found;
        }""",
        slug,
    )


def _check(page, slug: str, expected: dict[str, float], where: str) -> None:
    shown = drive.readouts(page, slug)
    kinds = _kinds(page, slug)
    assert set(shown) == set(expected), where
    for name, want in expected.items():
        value, text = shown[name]
        assert value == pytest.approx(want, rel=1e-8), f"{where}: {name}"
        assert text == format_readout(value, *kinds[name]), f"{where}: {name} written {text!r}"


@pytest.mark.parametrize("slug", list(WIDGETS))
def test_widget_shows_what_setlab_calc_prints_offline_and_without_errors(site, browser, slug):
    settings, cli, (control, position) = WIDGETS[slug]
    path = drive.page_of(site, slug)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.goto(base + path + "?keep=1")
        drive.ready(page, slug)
        for setting in settings:
            drive.set_boxes(page, slug, setting)
            _check(page, slug, cli(setting), f"{slug} at {setting}")
        drive.url_restores(browser, page, slug, settings[-1])
        value = drive.move_slider(page, slug, control, position)
        boxes = drive.shown(page, slug, settings[-1])
        assert boxes[control] == value
        _check(page, slug, cli(boxes), f"{slug} after the {control} slider")

        for width in (1280, 390):
            for dark in (False, True):
                shot = browser.page(width, 900, dark)
                shot.goto(base + path)
                figure = drive.ready(shot, slug)
                # the theme's sticky header would cover the figure's top in an element shot
                shot.add_style_tag(
                    content=".bd-header, .bd-header-article, .skip-link { visibility: hidden; }"
                )
                figure.scroll_into_view_if_needed()
                theme = "dark" if dark else "light"
                figure.screenshot(path=str(SHOTS / f"{slug}-{width}-{theme}.png"))
                box = figure.bounding_box()
                assert box["width"] <= width, f"{slug} is wider than a {width} px screen"
                assert _overlapping_labels(shot, slug) == [], f"{slug} at {width} px"
        assert browser.outside == []
        assert browser.errors == []


def test_the_server_choice_prices_setbit_as_setlab_calc_redis_does_and_is_kept(site, browser):
    """Choose each server ``setlab calc setbit --redis`` takes: the allocator's block, MEMORY
    USAGE and the totals become what the CLI prints for that release, the line to copy gains
    ``--redis R`` (and, run as it reads, prints them); the choice goes into the address, opened
    afresh it is chosen again with the same readouts, and a word the list does not hold leaves
    the default. Screenshots with Valkey chosen, 1280 and 390 px, light and dark."""
    from setlab.models.builds import RELEASES

    offset, path = 2**32 - 1, drive.page_of(site, "setbit")
    blocks = {}
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.goto(base + path + "?keep=1")
        drive.ready(page, "setbit")
        select = page.get_by_label("server", exact=True)  # its <label> names it
        assert select.evaluate("el => el.tagName") == "SELECT"
        assert select.locator("option").evaluate_all("os => os.map(o => o.value)") == list(RELEASES)
        drive.set_boxes(page, "setbit", {"offset": offset})
        for release in RELEASES:
            drive.set_boxes(page, "setbit", {"redis": release})
            want = setbit_cli({"offset": offset, "redis": release})
            _check(page, "setbit", want, f"setbit on {release}")
            line = page.locator("#widget-setbit code[data-template]").first.inner_text()
            assert line == f"setlab calc setbit {offset} --redis {release} --sets 1"
            data = drive.calc(*shlex.split(line)[2:])
            assert data["release"] == release
            assert (data["allocation"], data["memory_usage"]) == (want["alloc"], want["usage"])
            blocks[release] = want["alloc"]
        # jemalloc's class above 512 MiB is 640 MiB (its manual's table); glibc maps the
        # 2^29 + 10 bytes asked for, with its 8-byte header, in whole 4 KiB pages, of which
        # 16 bytes are its own (malloc.c; 512 MiB + 4 KiB, measured on Valkey 8.1.8)
        assert {r: b for r, b in blocks.items() if r != "valkey-8.1"} == dict.fromkeys(
            [r for r in RELEASES if r != "valkey-8.1"], 640 * 2**20
        )
        assert blocks["valkey-8.1"] == 2**29 + 4096 - 16
        assert "setbit.redis=valkey-8.1" in page.url
        drive.url_restores(browser, page, "setbit",
                           {"offset": offset, "sets": 1, "redis": "valkey-8.1"})  # fmt: skip
        again = browser.page(390, 900)
        again.goto(page.url)
        drive.ready(again, "setbit")
        assert again.locator("#widget-setbit-redis").input_value() == "valkey-8.1"
        assert again.locator("#widget-setbit code[data-template]").first.inner_text() == line
        unknown = browser.page(1280, 900)
        unknown.goto(base + path + "?setbit.redis=9.9&setbit.offset=1000")
        drive.ready(unknown, "setbit")
        assert unknown.locator("#widget-setbit-redis").input_value() == "7.0"
        _check(unknown, "setbit", setbit_cli({"offset": 1000}), "setbit with ?setbit.redis=9.9")
        # an offset the CLI refuses stays refused on any server, and out of the address, while
        # the line to copy (which the CLI refuses the same way) takes the server chosen
        drive.set_boxes(unknown, "setbit", {"offset": 2**32})
        drive.set_boxes(unknown, "setbit", {"redis": "8.2"})
        assert unknown.locator("#widget-setbit .setlab-widget-refusal").is_visible()
        assert all(math.isnan(v) for v, _ in drive.readouts(unknown, "setbit").values())
        refused = unknown.locator("#widget-setbit code[data-template]").first.inner_text()
        assert refused == f"setlab calc setbit {2**32} --redis 8.2 --sets 1"
        assert "setbit.redis=8.2" in unknown.url and "setbit.offset=1000" in unknown.url

        SHOTS.mkdir(parents=True, exist_ok=True)
        for width in (1280, 390):
            for dark in (False, True):
                shot = browser.page(width, 900, dark)
                shot.goto(base + path + "?setbit.redis=valkey-8.1")
                figure = drive.ready(shot, "setbit")
                shot.add_style_tag(
                    content=".bd-header, .bd-header-article, .skip-link { visibility: hidden; }"
                )
                figure.scroll_into_view_if_needed()
                assert shot.locator("#widget-setbit-redis").is_visible()
                theme = "dark" if dark else "light"
                figure.screenshot(path=str(SHOTS / f"setbit-valkey-{width}-{theme}.png"))
                box = figure.bounding_box()
                assert box["width"] <= width, f"setbit is wider than a {width} px screen"
                chosen = shot.locator("#widget-setbit-redis").bounding_box()
                assert chosen["x"] + chosen["width"] <= box["x"] + box["width"], width
    assert browser.outside == []
    assert browser.errors == []


#: What a reader gives the Bloom calculator, beyond n and p: each pair and triple setlab calc
#: bloom solves (the checkboxes ticked, the boxes typed), ending at n and p again.
SOLVES = [
    {"given": ("m", "p"), "m": 2**32, "p": 0.01, "load": 1.0},
    {"given": ("m", "p", "k"), "m": 10**9, "p": 0.001, "k": 3, "load": 2.0},
    {"given": ("n", "m"), "n": 10**6, "m": 10**7, "load": 1.0},
    {"given": ("n", "m", "k"), "n": 10**6, "m": 10**7, "k": 2, "load": 0.5},
    {"given": ("n", "k"), "n": 10**8, "k": 12, "load": 3.05},
    {"given": ("m", "k"), "m": 123_456_789, "k": 5, "load": 2.5},
    {"given": ("n", "p", "k"), "n": 800_000_000, "p": 0.01, "k": 3, "load": 1.0},
    {"given": ("n", "p"), "n": 5_000_000, "p": 0.02, "load": 1.0},
]  # fmt: skip


def _flags(setting: dict) -> dict:
    from setlab.chapters.bloom_basics.widget import GIVEN

    return {**{f"{q}_given": int(q in setting["given"]) for q in GIVEN},
            **{k: v for k, v in setting.items() if k != "given"}}  # fmt: skip


def test_the_bloom_calculator_solves_from_any_two_or_three_as_setlab_calc_does(site, browser):
    """Tick what you know, type it, and the page shows what ``setlab calc bloom`` prints given
    the same options: the solved quantities in their (disabled) boxes and every readout; the
    lines to copy give exactly those options (run as they read, they print the page's numbers);
    the address holds only what was given, and opened afresh it solves the same."""
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.goto(base + "book/bloom-basics.html?keep=1")
        drive.ready(page, "bloom")
        for setting in SOLVES:
            given = setting["given"]
            typed = {k: v for k, v in setting.items() if k != "given"}
            drive.set_given(page, "bloom", given)
            drive.set_boxes(page, "bloom", typed)
            where = f"bloom given {', '.join(given)}"
            want = bloom_cli(_flags(setting))
            _check(page, "bloom", want, where)
            for q in ("n", "p", "m", "k"):  # a solved quantity's box shows the solution
                box = page.locator(f"#widget-bloom-{q}")
                assert box.is_disabled() == (q not in given), (where, q)
                if q not in given:
                    # Vega's pow and numpy's may differ in the last bits of a solved rate
                    assert float(box.input_value()) == pytest.approx(want[f"sol_{q}"], rel=1e-12)
            terminal, reserve = page.locator("#widget-bloom code[data-template]").all_inner_texts()
            words = shlex.split(terminal)
            options = [w.lstrip("-") for w in words[3:] if w in ("-n", "-p", "-m", "-k")]
            assert options == [q for q in ("n", "p", "m", "k") if q in given], where
            classic, loaded = drive.calc(*words[2:])
            assert (classic["n"], classic["m"], classic["k"]) == (
                want["sol_n"], want["sol_m"], want["sol_k"]), where  # fmt: skip
            assert loaded["bytes"] == want["rb_size"], where
            command, key, p, n = reserve.split()
            reserved = setting["p"] if "p" in given else want["sol_p"]
            assert (command, key, int(n)) == ("BF.RESERVE", "ids", want["sol_n"]), where
            assert float(p) == pytest.approx(reserved, rel=1e-12), where
        last = SOLVES[-1]
        drive.set_given(page, "bloom", ("m", "k"))
        drive.set_boxes(page, "bloom", {"m": 123_456_789, "k": 5})
        drive.url_restores(browser, page, "bloom",
                           {"m": 123_456_789, "k": 5, "load": last["load"], "sets": 1})  # fmt: skip
        again = browser.page(1280, 900)
        again.goto(page.url)
        drive.ready(again, "bloom")
        for q in ("n", "p"):  # left out of the address: solved, not the page's defaults
            assert again.locator(f"#widget-bloom-{q}").is_disabled(), q
    assert browser.outside == []
    assert browser.errors == []


@pytest.mark.parametrize("slug", list(WIDGETS))
def test_without_the_vega_script_a_widget_is_its_text(site, browser, slug):
    """A reader whose browser runs no script (or loses the bundle) sees no dead controls: the
    readouts at the defaults, computed by the models at build time, and the table of settings."""
    path = drive.page_of(site, slug)
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.route("**/setlab-vega.js", lambda route: route.abort())
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        figure = page.locator(f"#widget-{slug}")
        figure.scroll_into_view_if_needed()  # the page asks for the bundle, and loses it
        page.wait_for_selector(f"#widget-{slug}[data-error]", state="attached")
        assert figure.get_attribute("data-ready") is None
        assert not figure.locator(".setlab-widget-controls").is_visible()
        defaults = drive.readouts(page, slug)
        kinds = _kinds(page, slug)
        for name, (value, text) in defaults.items():
            assert text == format_readout(value, *kinds[name]) and text != "—", name
        figure.locator("details summary").click()
        assert figure.locator("details table").is_visible()
        controls = figure.locator(".setlab-control, .setlab-choice").count()
        assert figure.locator("details tbody tr").count() == controls + len(defaults)


def test_the_bundle_is_fetched_only_when_a_reader_nears_a_widget_or_the_address_names_one(
    site, browser
):
    """870 KB a reader who never scrolls to a calculator does not download (issue 29's page
    weight), and one who follows a link to a calculator's settings gets it at once."""
    path = drive.page_of(site, "setbit")
    with serve(site) as base:
        page = browser.page(1280, 900)
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if "setlab-vega" in r.url else None)
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.scrollY") == 0 and asked == []
        drive.ready(page, "setbit")
        assert len(asked) == 1
        linked = browser.page(1280, 900)
        linked.goto(base + path + "?setbit.offset=1000")
        linked.wait_for_selector("#widget-setbit[data-ready='1']", state="attached")
        assert linked.evaluate("window.scrollY") == 0
    assert browser.errors == []


def test_switching_the_theme_redraws_the_chart_in_its_colours_keeping_the_settings(site, browser):
    with serve(site) as base:
        page = browser.page(1280, 900)
        page.goto(base + "book/setbit-offset.html")
        drive.ready(page, "setbit")
        drive.set_boxes(page, "setbit", {"offset": 5_000_000})
        before = drive.readouts(page, "setbit")
        label = "#widget-setbit .setlab-widget-chart svg .role-axis-label text"
        light = page.eval_on_selector(label, "el => el.getAttribute('fill')")
        updates = int(page.get_attribute("#widget-setbit", "data-updates"))
        page.evaluate("document.documentElement.dataset.theme = 'dark'")
        page.wait_for_function(
            f"() => Number(document.querySelector('#widget-setbit').dataset.updates) > {updates}"
        )
        drive.ready(page, "setbit")
        assert page.eval_on_selector(label, "el => el.getAttribute('fill')") != light
        assert drive.readouts(page, "setbit") == before
        assert page.locator("#widget-setbit-offset").input_value() == "5000000"
