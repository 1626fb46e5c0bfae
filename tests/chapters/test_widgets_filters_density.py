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
from setlab.render import widgets

WIDGETS = {"cuckoo": cuckoo_widget, "sharded": sharded_widget, "density": density_widget}
#: Settings off the grids or between the fallback's rows, per widget.
OFF_GRID = {
    "cuckoo": [{"b": 3, "f": 5, "logslots": 13}, {"b": 7, "f": 16, "logslots": 11},
               {"b": 5, "f": 9, "logslots": 17}],
    "sharded": [{"logshards": 5, "capacity": 123_456}, {"logshards": 0, "capacity": 400_000_000},
                {"logshards": 13, "capacity": 100}],
    "density": [{"logn": 9, "logrange": 10}, {"logn": 5, "logrange": 17},
                {"logn": 3, "logrange": 32}],
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
            assert html.escape(widgets.format_value(row[r.name], r.kind, r.unit)) in fallback


def test_off_grid_cuckoo_settings_snap_to_the_nearest_simulated_cell():
    assert [cuckoo_widget.grid_bucket(b) for b in range(1, 9)] == [1, 2, 4, 4, 4, 8, 8, 8]
    assert [cuckoo_widget.grid_log_slots(x) for x in (10, 11, 12, 13, 17, 18)] == [
        10, 12, 12, 14, 18, 18]  # fmt: skip


def test_density_grid_has_one_pick_per_setting_and_no_ids_beyond_their_range():
    rows = density_widget.table()
    settings = {(r["logn"], r["lr"]) for r in rows}
    assert all(10**n <= 2**lr for n, lr in settings)
    for setting in settings:
        picks = [r for r in rows if (r["logn"], r["lr"]) == setting and r["pick"]]
        assert len(picks) == 1


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
