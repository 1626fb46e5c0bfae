"""The interactive-figure machinery (setlab.render.widgets): Vega evaluates what Python computes,
the HTML a browser test reads, the text fallback, and the Sphinx extension's bundle."""

from __future__ import annotations

import json
import math
import re

import altair as alt
import pytest

from setlab.core.formats import format_readout
from setlab.core.interpolation import interpolate
from setlab.models import bitmap
from setlab.render import widget_controls, widgets
from setlab.render.widgets import Control, Readout, Widget


def _demo() -> Widget:
    chart = alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q")
    breaks = [1, 9, 129, 161]
    return Widget(
        "demo", "Demo", chart,
        [Control("n", "items", 1e6, 1e3, 1e10, log=True, integer=True),
         Control("s", "size", 100, 1, 1000, integer=True)],
        [Readout("half", "half", "n / 2", lambda s: s["n"] / 2, kind="int"),
         Readout("cls", "class", widgets.step_expr("s", breaks, [8, 16, 144, 160]),
                 lambda s: bitmap.jemalloc_size_class(s["s"]) if s["s"] <= 160 else 160,
                 kind="bytes")],
        "A demo.", "formula", [{"n": 5e9, "s": 3}],
    )  # fmt: skip


def test_vega_evaluates_readouts_at_the_settings_asked():
    got = widgets.evaluate_in_vega(_demo(), {"n": 4000, "s": 150})
    assert got == {"half": 2000.0, "cls": 144.0}


def test_evaluating_an_unknown_control_is_refused():
    with pytest.raises(ValueError, match="zz"):
        widgets.evaluate_in_vega(_demo(), {"zz": 1})


@pytest.mark.parametrize("x", [0.5, 1, 2, 3.7, 10, 55, 99.9, 100, 1e4])
def test_interp_expr_in_vega_matches_interpolate_in_python(x):
    xs, ys = [1, 10, 100], [5.0, 50.0, 20.0]
    w = Widget(
        "i", "I", alt.Chart(alt.Data(values=[{}])).mark_point(),
        [Control("x", "x", 1, 0.1, 1e5, log=True)],
        [Readout("y", "y", widgets.interp_expr("x", xs, ys),
                 lambda s: interpolate(s["x"], xs, ys))],
        "c", "stored",
    )  # fmt: skip
    assert widgets.evaluate_in_vega(w, {"x": x})["y"] == pytest.approx(
        interpolate(x, xs, ys), rel=1e-12
    )


def test_step_expr_picks_the_step_each_side_of_every_break():
    breaks, values = [0, 10, 20, 30, 40], [1, 2, 3, 4, 5]
    expr = widgets.step_expr("v", breaks, values)
    w = Widget(
        "s", "S", alt.Chart(alt.Data(values=[{}])).mark_point(),
        [Control("v", "v", 0, -5, 50)], [Readout("y", "y", expr, lambda s: 0)], "c", "grid",
    )  # fmt: skip
    for b, want in zip(breaks, values, strict=True):
        assert widgets.evaluate_in_vega(w, {"v": b})["y"] == want
        assert widgets.evaluate_in_vega(w, {"v": b - 0.5})["y"] == (want - 1 if b else 1)


def test_html_has_a_number_box_beside_every_slider_and_readable_outputs():
    page = _demo().html()
    assert page.count('type="range"') == 2 and page.count('type="number"') == 2
    assert 'id="widget-demo-half"' in page and 'data-readout="half"' in page
    # the initial text is the model's value at the defaults, as the fallback writes it
    assert 'data-value="500000.0">500,000</output>' in page
    spec = json.loads(re.search(r'class="setlab-widget-spec">(.*?)</script>', page).group(1))
    names = [p["name"] for p in spec["params"]]
    assert names == ["n", "s", "half", "cls"]
    assert all("bind" not in p for p in spec["params"])  # the page binds its own inputs


def test_fallback_table_has_the_defaults_first_then_the_other_settings():
    rows = _demo().rows()
    assert [r["n"] for r in rows] == [1e6, 5e9]
    assert rows[1]["s"] == 3 and rows[1]["half"] == 2.5e9
    table = _demo().fallback_html()
    # one column per setting, one row per control and readout (plus the header)
    assert table.count("<tr>") == 5 and table.count('<th scope="col">') == 2
    assert "<td>500,000</td><td>2,500,000,000</td>" in table


def test_jupyterlab_gets_vega_lite_with_bound_inputs_and_the_book_gets_html(monkeypatch):
    monkeypatch.delenv(widgets.STATIC_ENV, raising=False)
    bundle = _demo()._repr_mimebundle_()
    spec = bundle[widgets.VEGALITE_MIME]
    assert {p["name"]: "bind" in p for p in spec["params"]} == {
        "n": True, "s": True, "half": False, "cls": False}  # fmt: skip
    import vl_convert

    bound = {s["name"] for s in vl_convert.vegalite_to_vega(spec)["signals"] if "bind" in s}
    assert bound == {"n", "s"}  # Vega-Lite compiles the bindings JupyterLab will show
    monkeypatch.setenv(widgets.STATIC_ENV, "static")
    assert "setlab-widget" in _demo()._repr_mimebundle_()["text/html"]


def test_spec_compiles_in_vega_lite():
    import vl_convert

    vega = vl_convert.vegalite_to_vega(_demo().spec())
    assert {s["name"] for s in vega["signals"]} >= {"n", "s", "half", "cls"}


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [(1234567, "int", "1,234,567"), (1536, "bytes", "1.5 KiB"), (0.0123, "percent", "1.23%"),
     (2.5e-7, "rate", "2.50e-07"), (0.05, "rate", "0.05"), (math.inf, "number", "—")],
)  # fmt: skip
def test_format_readout_writes_readouts_as_the_page_does(value, kind, text):
    assert format_readout(value, kind) == text


def test_bad_controls_and_readouts_are_refused():
    with pytest.raises(ValueError, match="value of control"):
        Control("n", "n", 0, 1, 10)
    with pytest.raises(ValueError, match="log control"):
        Control("n", "n", 1, 0, 10, log=True)
    with pytest.raises(ValueError, match="kind"):
        Readout("r", "r", "1", lambda s: 1, kind="furlongs")
    with pytest.raises(ValueError, match="name"):
        Readout("Bad-Name", "r", "1", lambda s: 1)


def test_the_bundle_carries_vega_embed_and_loads_nothing_from_a_cdn():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "book" / "_ext" / "setlab_vega.py"
    spec = importlib.util.spec_from_file_location("setlab_vega", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.bundle_text()
    assert "vegaEmbed" in text
    assert f"vega-lite {module.vega_lite_version()}," in text.splitlines()[0]


def test_a_command_is_filled_with_control_values_and_whole_readouts_and_checked():
    """A line to copy takes a control as its box holds it and an int readout's every digit;
    a name that is neither (or a readout that is not whole) is refused when the widget is made."""
    demo = _demo()
    line = widgets.Command("cli", "setlab calc x -n {n} --half {half}")
    made = Widget(demo.slug, demo.title, demo.chart, demo.controls, demo.readouts, demo.caption,
                  demo.source, commands=[line])  # fmt: skip
    assert made.command_text(line, made.rows()[0]) == "setlab calc x -n 1000000 --half 500000"
    assert 'data-template="setlab calc x -n {n} --half {half}"' in made.html()
    for template in ("x {cls}", "x {nope}"):
        bad = [widgets.Command("c", template)]
        with pytest.raises(ValueError, match="not a control, a choice or an int readout"):
            Widget(demo.slug, demo.title, demo.chart, demo.controls, demo.readouts,
                   demo.caption, demo.source, commands=bad)  # fmt: skip


def _solver() -> Widget:
    """Two quantities of which the reader gives either (a and b = 2a): the other is solved."""
    chart = alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q")
    return Widget(
        "solver", "Solver", chart,
        [Control("a", "a", 3, 1, 100, integer=True, optional=True, solved="sol_a"),
         Control("b", "b", 6, 1, 200, integer=True, optional=True, given=False, solved="sol_b")],
        [Readout("sol_a", "a", "a_given ? a : b / 2", lambda s: s["a"] if s["a_given"]
                 else s["b"] / 2, kind="int"),
         Readout("sol_b", "b", "a_given ? 2 * a : b", lambda s: 2 * s["a"] if s["a_given"]
                 else s["b"], kind="int")],
        "Solve.", "formula", [{"a_given": 0, "b_given": 1, "b": 50}],
        commands=[widgets.Command("cli", "solve [-a {a}] [-b {b}] --show")],
        refusal="a_given && b_given ? 'give a or b, not both' : ''",
    )  # fmt: skip


def test_an_optional_control_is_solved_when_left_out_and_says_so_everywhere():
    w = _solver()
    assert w.defaults == {"a": 3, "b": 6, "a_given": 1.0, "b_given": 0.0}
    got = widgets.evaluate_in_vega(w, {"a_given": 0, "b_given": 1, "b": 50})
    assert (got["sol_a"], got["sol_b"], got["refusal"]) == (25, 50, "")
    both = widgets.evaluate_in_vega(w, {"a_given": 1, "b_given": 1})
    assert both["refusal"] == "give a or b, not both"
    page = w.html()
    # b starts solved: its checkbox unticked, its box and slider disabled, holding the solution
    b = re.search(r'<div class="setlab-control" data-control="b".*?</div>', page).group(0)
    assert 'data-solved="sol_b"' in b and 'class="setlab-given"' in b and " checked" not in b
    assert re.search(r'type="number"[^>]*value="6"[^>]*disabled', b)
    a = re.search(r'<div class="setlab-control" data-control="a".*?</div>', page).group(0)
    assert " checked" in a and "disabled" not in a
    assert "data-refusal" in page
    # the line to copy keeps only the given options; the fallback marks what it solved
    rows = w.rows()
    assert [w.command_text(w.commands[0], r) for r in rows] == [
        "solve -a 3 --show",
        "solve -b 50 --show",
    ]
    assert "25 (solved)" in w.fallback_html() and "6 (solved)" in w.text()
    # JupyterLab: a checkbox per optional control
    bound = {p["name"]: p for p in w.spec(bind=True)["params"]}
    assert bound["a_given"]["bind"]["input"] == "checkbox" and bound["a_given"]["value"] is True
    with pytest.raises(ValueError, match="solves it"):
        Control("c", "c", 1, 1, 2, optional=True)
    with pytest.raises(ValueError, match="not a readout"):
        Widget("x", "x", w.chart, [Control("c", "c", 1, 1, 2, optional=True, solved="nope")],
               w.readouts, "x", "x")  # fmt: skip


def _parse_count(v: float) -> None:
    """A stand-in for the CLI's count parser: refuses 0 and negatives with different words."""
    if v < 0:
        raise ValueError(f"n: '{v}' is not a number")
    if v < 1 or v > 10**12:
        raise ValueError(f"n must be at least 1 and at most 1,000,000,000,000; got {v:,}")


def test_refusals_give_the_clis_words_and_say_where_only_the_page_stops():
    # the page stops at 10^6, the CLI at 10^12: past the page, a message saying so; past the
    # CLI, its own words (a template); 0 and negatives each with theirs
    c = Control(
        "n", "items n", 10, 1, 10**6, log=True, integer=True, check=_parse_count, cli=(1, 10**12)
    )
    found = c.refusals()
    assert found["above"] == "n must be at least 1 and at most 1,000,000,000,000; got {value:,}"
    assert found["below"] == "n must be at least 1 and at most 1,000,000,000,000; got 0"
    assert found["negative"] == "n: '{value}' is not a number"
    assert "outside what this calculator computes (1 to 1,000,000)" in found["beyond"]
    assert "run the line below in a terminal for setlab calc's answer" in found["beyond"]
    html = widget_controls.control_html("w", c, {"n": 10})
    assert 'data-cli-low="1" data-cli-high="1000000000000"' in html
    assert "data-refuse-beyond=" in html
    # no check: the page keeps values in its span, and claims nothing of the CLI
    assert Control("s", "s", 1, 1, 10).refusals() == {}
    # a check that takes everything below the span (the CLI starts lower) refuses nothing
    # there itself: the page's message does
    lower = Control("o", "offset", 5, 1, 9, integer=True, check=lambda v: None)
    assert set(lower.refusals()) == {"beyond"}


def test_a_widget_whose_page_says_run_the_line_below_has_one():
    w = _demo()
    wide = Control("n", "items", 10, 1, 100, integer=True, check=lambda v: None, cli=(1, 10**6))
    with pytest.raises(ValueError, match="point at a setlab calc line"):
        Widget("x", "x", w.chart, [wide], w.readouts[:1], "x", "x")
    line = widgets.Command("cli", "setlab calc x -n {n}")
    assert Widget("x", "x", w.chart, [wide], w.readouts[:1], "x", "x", commands=[line])


def test_a_widget_names_the_calculator_of_its_first_setlab_calc_line():
    w = _demo()
    assert w.terminal is None and w.calculator is None
    lines = [widgets.Command("in Redis:", "BF.RESERVE k 0.01 {n}"),
             widgets.Command("the same in a terminal:", "setlab calc sharded-bloom -n {n}"),
             widgets.Command("or:", "setlab calc bloom -n {n}")]  # fmt: skip
    named = Widget(w.slug, w.title, w.chart, w.controls, w.readouts, w.caption, w.source,
                   commands=lines)  # fmt: skip
    assert named.terminal is lines[1] and named.calculator == "sharded-bloom"


def _chooser() -> Widget:
    """A size whose class depends on the allocator chosen: two words share one table."""
    chart = alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q")
    classes = {
        a: widgets.step_expr(
            "s", *widgets.step_table(lambda n, a=a: bitmap.jemalloc_size_class(n, a), 1, 200)
        )
        for a in ("debian", "bundled")
    }
    uses = {"7.0": "debian", "6.2": "bundled", "8.2": "bundled"}
    return Widget(
        "chooser", "Chooser", chart,
        [Control("s", "size", 20, 1, 200, integer=True)],
        [Readout("cls", "class",
                 widgets.choice_expr("redis", {w: classes[a] for w, a in uses.items()}),
                 lambda s: bitmap.jemalloc_size_class(round(s["s"]), uses[s["redis"]]),
                 kind="int")],
        "Choose.", "formula", [{"s": 40, "redis": "8.2"}],
        commands=[widgets.Command("cli", "setlab calc x -s {s} --redis {redis}")],
        choices=[widget_controls.Choice(
            "redis", "server", {"7.0": "Redis 7.0 (Debian)", "6.2": "Redis 6.2 & co",
                                "8.2": "Redis 8.2"}, "7.0")],
    )  # fmt: skip


@pytest.mark.parametrize("word", ["7.0", "6.2", "8.2"])
@pytest.mark.parametrize("size", [20, 24, 40, 41, 56])
def test_a_choice_picks_its_words_expression_in_vega(word, size):
    w = _chooser()
    got = widgets.evaluate_in_vega(w, {"s": size, "redis": word})
    # 24, 40 and 56 are classes of the bundled jemalloc (8-byte quantum) only
    assert got["cls"] == bitmap.jemalloc_size_class(size, "debian" if word == "7.0" else "bundled")
    # the two bundled words share one table, shipped once: one test picks Debian's, the
    # other table is what is left
    assert w.readouts[0].expr.count("redis == ") == 1


def test_a_choice_is_a_labelled_select_kept_in_the_line_the_fallback_and_jupyterlab():
    w = _chooser()
    assert w.defaults == {"s": 20, "redis": "7.0"}
    page = w.html()
    choice = re.search(r'<div class="setlab-choice" data-choice="redis">.*?</div>', page).group(0)
    assert '<label for="widget-chooser-redis">server</label>' in choice
    assert '<select id="widget-chooser-redis">' in choice
    assert re.findall(r'<option value="([^"]+)"', choice) == ["7.0", "6.2", "8.2"]
    assert '<option value="7.0" selected>Redis 7.0 (Debian)</option>' in choice
    assert "Redis 6.2 &amp; co" in choice  # labels are escaped
    # the line to copy takes the word; the fallback and the text take the label
    assert [w.command_text(w.commands[0], r) for r in w.rows()] == [
        "setlab calc x -s 20 --redis 7.0", "setlab calc x -s 40 --redis 8.2"]  # fmt: skip
    words = '<td><span class="setlab-widget-words">{}</span></td>'.format
    assert words("Redis 7.0 (Debian)") + words("Redis 8.2") in w.fallback_html()
    assert "redis=Redis 8.2" in w.text()
    spec = json.loads(re.search(r'class="setlab-widget-spec">(.*?)</script>', page).group(1))
    assert {"name": "redis", "value": "7.0"} in spec["params"]
    # JupyterLab: Vega's own select, with the labels
    import vl_convert

    bound = {p["name"]: p for p in w.spec(bind=True)["params"]}
    assert bound["redis"]["bind"] == {"input": "select", "name": "server",
                                      "options": ["7.0", "6.2", "8.2"],
                                      "labels": ["Redis 7.0 (Debian)", "Redis 6.2 & co",
                                                 "Redis 8.2"]}  # fmt: skip
    signals = vl_convert.vegalite_to_vega(w.spec(bind=True))["signals"]
    assert next(s for s in signals if s["name"] == "redis")["bind"]["input"] == "select"


def test_bad_choices_are_refused():
    Choice = widget_controls.Choice
    with pytest.raises(ValueError, match="not one of its options"):
        Choice("redis", "server", {"7.0": "Redis 7.0"}, "9.9")
    with pytest.raises(ValueError, match="shell and a URL"):
        Choice("redis", "server", {"7.0 jemalloc": "Redis 7.0"}, "7.0 jemalloc")
    with pytest.raises(ValueError, match="name"):
        Choice("Redis", "server", {"7.0": "Redis 7.0"}, "7.0")
    w = _chooser()
    with pytest.raises(ValueError, match="repeat"):
        Widget(w.slug, w.title, w.chart, w.controls, w.readouts, w.caption, w.source,
               choices=[*w.choices, *w.choices])  # fmt: skip
    with pytest.raises(ValueError, match="not a control, a choice or an int readout"):
        Widget(w.slug, w.title, w.chart, w.controls, w.readouts, w.caption, w.source,
               commands=[widgets.Command("cli", "x --redis {redis}")])  # fmt: skip
