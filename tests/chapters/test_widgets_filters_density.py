"""The cuckoo-load, sharded-Bloom and bytes-per-ID widgets: what Vega computes in the page is what
the models (through `setlab calc`'s engines) compute in Python, at the text fallback's settings
and at settings off the grids, where the page must snap to the nearest simulated cell."""

from __future__ import annotations

import html
import math

import pytest
import vl_convert

from setlab.chapters.choosing import widget as density_widget
from setlab.chapters.cuckoo_kick_chains import widget as cuckoo_widget
from setlab.chapters.sharded_bloom import widget as sharded_widget
from setlab.core.formats import format_readout
from setlab.render import widgets

WIDGETS = {"cuckoo": cuckoo_widget, "sharded": sharded_widget, "density": density_widget}
#: Settings off the grids or between the fallback's rows, per widget.
OFF_GRID = {
    "cuckoo": [{"b": 3, "f": 5, "logslots": 13}, {"b": 7, "f": 16, "logslots": 11},
               {"b": 5, "f": 9, "logslots": 17}],
    "sharded": [{"logshards": 5, "capacity": 123_456}, {"logshards": 0, "capacity": 400_000_000},
                {"logshards": 13, "capacity": 100}],
    "density": [{"n": 10**9, "logrange": 10}, {"n": 10**5, "logrange": 17},
                {"n": 1000, "logrange": 32}, {"n": 800_000_000, "logrange": 64, "p": 0.0001}],
}  # fmt: skip


@pytest.fixture(scope="module", params=list(WIDGETS))
def widget(request):
    return request.param, WIDGETS[request.param].figure()


def _same(got: float | str, want: float | str) -> bool:
    if isinstance(want, str):  # a pick, a reason: the very words
        return got == want
    if math.isnan(want):
        return math.isnan(got)
    return got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_vega_computes_what_the_models_compute(widget):
    name, w = widget
    for setting in [*w.settings, *OFF_GRID[name]]:
        got = widgets.evaluate_in_vega(w, setting)
        full = {**w.defaults, **setting}
        for r in w.readouts:
            want = r.model(full)
            assert _same(got[r.name], want), (setting, r.name, got[r.name], want)


def test_the_spec_compiles_and_the_fallback_writes_every_setting(widget):
    _, w = widget
    vega = vl_convert.vegalite_to_vega(w.spec())
    assert {c.name for c in w.controls} <= {s["name"] for s in vega["signals"]}
    fallback = w.fallback_html()
    for row in w.rows():  # every number of every fallback setting is written out
        for r in w.readouts:
            assert html.escape(format_readout(row[r.name], r.kind, r.unit)) in fallback


def test_off_grid_cuckoo_settings_snap_to_the_nearest_simulated_cell():
    assert [cuckoo_widget.grid_bucket(b) for b in range(1, 9)] == [1, 2, 4, 4, 4, 8, 8, 8]
    assert [cuckoo_widget.grid_log_slots(x) for x in (10, 11, 12, 13, 17, 18)] == [
        10, 12, 12, 14, 18, 18]  # fmt: skip


def test_density_grid_prices_each_count_where_it_fits_its_range():
    g, cells = density_widget.grid(), len(density_widget.LOG_RANGES)
    for i, n in enumerate(density_widget.COUNTS):
        for j, lr in enumerate(density_widget.LOG_RANGES):
            fits = n <= 2**lr
            assert (g["Redis SET"][i * cells + j] is not None) == fits, (n, lr)
    assert 120_000_000 in density_widget.COUNTS and 800_000_000 in density_widget.COUNTS
    assert len(g["Bloom filter"]) == len(density_widget.COUNTS) * len(density_widget.RATES)


#: Each way the advisor words its pick (setlab.tools.calc.choice.recommend and _why), and a setting
#: where it does: the page must word it the same.
REASONS = {
    "the IDs fill": {"n": 1_000_000, "logrange": 20},
    "too sparse for a plain bitmap": {"n": 40_000, "logrange": 26},
    "smaller even than a": {"n": 10_000_000, "logrange": 24},
    "would save only": {"n": 3000, "logrange": 27, "p": 0.02},
    "× smaller than the smallest exact structure": {"n": 800_000_000, "logrange": 64},
    "one key built into Redis": {"n": 5000, "logrange": 64, "p": 0.05},
}


def test_the_pick_and_its_reason_are_the_advisors_words_across_the_grid():
    """The page words the advisor's rule itself (Vega expressions with Python's number formats:
    "1.12" for an exact tie at 1.125, "2.21" for 2.205, whose double is above it), so it is
    checked against ``setlab calc density`` at a seeded sample of the grid and at one setting
    per way of wording it."""
    import random

    w = density_widget.figure()
    rng = random.Random(29)
    sample = [
        {
            "n": rng.choice(density_widget.COUNTS),
            "logrange": rng.choice(density_widget.LOG_RANGES),
            "p": rng.choice(density_widget.RATES),
        }
        for _ in range(40)
    ]
    worded = set()
    for setting in [*REASONS.values(), *sample]:
        full = {**w.defaults, **setting}
        want = density_widget._calc(full["n"], full["logrange"], full["p"])
        got = widgets.evaluate_in_vega(w, setting)
        if want is None:
            assert got["pick"] == got["reason"] == "", setting
            continue
        assert (got["pick"], got["reason"]) == (want["pick"], want["reason"]), setting
        assert got["pick_bytes"] == want["pick_bytes"], setting
        worded |= {words for words in REASONS if words in got["reason"]}
    assert worded == set(REASONS)


def test_python_number_formats_in_vega_match_python():
    cases = [1.125, 2.205, 0.000123, 0.0001, 5.37e5, 999.5, 1000, 12.35, 0.5, 3.0, 1e-7]
    exprs = {f"g{i}": density_widget.py_g(repr(v)) for i, v in enumerate(cases)}
    sizes = [0, 1023, 1024, 1152, 158208, 1536 * 1024, 3 * 2**40, 1000 * 2**30]
    exprs |= {f"b{i}": density_widget.bytes_text(repr(v)) for i, v in enumerate(sizes)}
    got = _evaluate_texts(exprs)
    from setlab.core.formats import format_bytes

    assert [got[f"g{i}"] for i in range(len(cases))] == [f"{v:.3g}" for v in cases]
    assert [got[f"b{i}"] for i in range(len(sizes))] == [format_bytes(v) for v in sizes]


def _evaluate_texts(exprs: dict[str, str]) -> dict[str, str]:
    """Vega's text for each expression (one text readout each, in a throwaway widget)."""
    import altair as alt

    chart = alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q")
    w = widgets.Widget(
        "formats", "formats", chart, [widgets.Control("z", "z", 1, 0, 2)],
        [widgets.Readout(name, name, expr, lambda s: "", kind="text")
         for name, expr in exprs.items()], "x", "x",
    )  # fmt: skip
    return widgets.evaluate_in_vega(w, {})


def test_sharded_default_is_sized_for_the_mean_and_its_fullest_shard_errs_more():
    row = sharded_widget.figure().rows()[0]
    assert row["capacity"] == pytest.approx(row["mean"], abs=1)
    assert row["worst"] > row["capacity"] and row["worstfpr"] > sharded_widget.P


def test_each_structure_has_one_colour_in_the_figure_and_the_calculator_below_it():
    """Choosing's static figure and its calculator drew the same six structures in different
    colours; both now take them from setlab.render.plots.STRUCTURE_COLOURS."""
    from matplotlib.colors import to_hex

    from setlab.chapters import choosing
    from setlab.render.plots import STRUCTURE_COLOURS

    spec = density_widget.figure().spec()
    scales = [layer["encoding"]["color"]["scale"] for layer in spec["layer"]
              if "scale" in layer.get("encoding", {}).get("color", {})]  # fmt: skip
    assert scales and all(
        dict(zip(sc["domain"], sc["range"], strict=True)) == STRUCTURE_COLOURS for sc in scales
    )
    fig = choosing.density_figure(choosing.sweep())
    drawn = {line.get_label(): to_hex(line.get_color()) for line in fig.axes[0].get_lines()}
    assert len(drawn) >= 5  # the figure leaves HyperLogLog out: it only counts
    assert drawn == {name: STRUCTURE_COLOURS[name].lower() for name in drawn}
