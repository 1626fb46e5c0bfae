"""Claims of the chapter scalable-bloom: every verdict re-derived from an independent criterion
(the stored run of the real module read as raw JSON, published formulas, the seed's own
arithmetic), and the chapter module's tables, live texts and plots."""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import pytest

from setlab.chapters import scalable_bloom as chapter
from setlab.lab.backend import connect
from setlab.lab.reference import Measurement
from setlab.models import redisbloom
from setlab.render.claims import Claim, Verdict
from setlab.site import registry

CLAIMS = {c.id: c for c in registry.claims()}


def _verdict(claim_id: str) -> Verdict:
    claim: Claim = CLAIMS[claim_id]
    assert claim.chapter == "scalable-bloom"
    return claim.verdict


def _raw() -> dict:
    """The reference file as the script wrote it (not through the typed records)."""
    path = resources.files("setlab") / "data" / "redisbloom-reference.json"
    return json.loads(path.read_text())


def test_redisbloom_layers_grow_and_tighten():
    assert _verdict("003-scaling-layers") is Verdict.WRONG
    capacities = [r["info"]["Capacity"] for r in _raw()["small"]]  # BF.INFO, live module
    assert capacities[1] - capacities[0] == 2 * capacities[0]  # the second layer is twice
    assert _verdict("003-three-layers-2.97pct") is Verdict.WRONG
    assert _raw()["small"][2]["fpr_measured"] < 0.01 < 0.0297
    assert _verdict("003-scaling-1-five-layers") is Verdict.WRONG
    assert _raw()["fixed"][4]["fpr_measured"] < 0.02  # nowhere near 5%


def test_latency_is_the_round_trip():
    rows = _raw()["rows"]
    from setlab.render.claims import FAR

    assert rows[2]["stranger_rtt_p50"] < 1.5 * rows[0]["stranger_rtt_p50"]
    assert rows[2]["stranger_server"] - rows[0]["stranger_server"] < 1e-6
    # the seed's jump (0.3 - 0.06 ms) against what two more layers add inside Redis
    assert (0.3e-3 - 0.06e-3) / (rows[2]["stranger_server"] - rows[0]["stranger_server"]) > FAR
    assert _verdict("003-latency-0.06-0.3ms") is Verdict.WRONG
    assert _verdict("003-seven-hashes-21") is Verdict.WRONG
    half_full = 1 / (1 - 0.5)  # a stranger's test stops at the first unset bit: ~2 reads
    assert 3 * half_full < 21 / 2


def test_seven_daily_filters_cost_round_trips_not_filters():
    w = _raw()["window"]
    assert _verdict("003-seven-days-7x") is Verdict.DEPENDS
    assert 4 < w["round_trips"]["p50"] / w["one_filter"]["p50"] < 10
    assert w["pipelined"]["p50"] < w["round_trips"]["p50"] / 2


def test_rebuild_window_is_set_by_the_load_rate():
    assert _verdict("003-rebuild-3-5min") is Verdict.DEPENDS
    assert 2e7 / _raw()["load_items_per_second"] < 180  # a faster load, a shorter window
    assert _verdict("003-dual-write") is Verdict.CORRECT
    out = redisbloom.simulate_rebuild(10**6, 1e4, 500, 0.3, "dual-write-shadow-read",
                                      np.random.default_rng(0))  # fmt: skip
    assert out.passed == 0 and out.peak_filters == 2


def test_the_roaring_window_claim_is_shown_in_this_chapter_too():
    ids = {c.id for c in registry.claims("scalable-bloom")}
    assert {"003-roaring-window-or", "003-rebuild-3-5min"} <= ids


# -- figures that the prose and the table share ---------------------------------------------------


def test_rows_show_the_reference_runs_figures():
    raw = _raw()
    three = CLAIMS["003-three-layers-2.97pct"].our_figure()
    assert f"{raw['small'][2]['fpr_measured']:.3%} measured" in three
    rebuild = CLAIMS["003-rebuild-3-5min"].our_figure()
    assert f"{raw['load_items_per_second']:,.0f} items/s" in rebuild
    assert f"{2e7 / raw['load_items_per_second']:.1f} s" in rebuild  # the window, items / rate


def test_the_seed_formula_and_fakeredis_figures_come_from_equal_layers():
    assert chapter.FIGURES["sbf-seed-3"] == "2.97%"  # the seed's own number
    fake = chapter.fake_layers()
    # pyprobables: one layer per 5,000 items, each reserved like the first (Capacity stays 5,000)
    assert [(r.info["Number of filters"], r.items, r.capacity) for r in fake] == [
        (n, 5000 * n, 5000) for n in range(1, 6)
    ]
    assert fake[4].fpr_measured > 0.03  # they add up, as seed 003 says


def test_no_figure_calls_the_stored_run_this_machine():
    for name in chapter.FIGURES.names():
        assert "this machine" not in chapter.FIGURES[name], name
    assert chapter.FIGURES["sbf-source"].startswith("reference run: Redis 7.0.15")


# -- the page's helpers -------------------------------------------------------------------------


def _stored(value: object) -> Measurement:
    return Measurement(value, False, chapter.reference().run.label, "the embedded backend")


def test_tables_have_a_row_per_item_and_the_figures_values():
    sub = chapter.subfilter_table().splitlines()
    assert len(sub) == 2 + chapter.LAYERS and "| 0 | 1,000 | 0.5% |" in sub[2]
    bits = chapter.bits_per_item_table().splitlines()
    assert len(bits) == 2 + chapter.LAYERS
    last = bits[-1].split("|")
    assert last[3].strip() == chapter.FIGURES["sbf-bpi-exp2"]
    assert last[5].strip() == chapter.FIGURES["sbf-bpi-one"]
    rebuild = chapter.rebuild_table()
    assert rebuild.count("\n") == 1 + 4  # two strategies at two load rates
    assert f"| {chapter.FIGURES['sbf-passed-seed']} |" in rebuild


def test_live_texts_say_when_nothing_was_measured():
    assert "none" in chapter.live_chains_text(_stored(chapter.reference_chains())).lower()
    live = Measurement(chapter.reference_chains(), True, "this run: Redis 7.0.15 (x) on here")
    text = chapter.live_chains_text(live)
    assert chapter.FIGURES["sbf-rb-3"] in text and "items/s" in text
    window = Measurement(chapter.reference_window(), True, "this run: Redis 7.0.15 (x) on here")
    assert chapter.FIGURES["sbf-win-pipe"] in chapter.live_window_text(window)


def test_live_sizes_scale_with_the_knob():
    small, big = chapter.chain_layouts(1), chapter.chain_layouts(4)
    assert big["EXPANSION 2"].capacity == 4 * small["EXPANSION 2"].capacity
    assert big["EXPANSION 1"].expansion == 1
    assert chapter.chains_bytes(4) > 3 * chapter.chains_bytes(1)


def test_measuring_on_the_embedded_backend_runs_the_same_experiments(fake_lab):
    chains = chapter.measure_chains(fake_lab, 0.05)
    assert set(chains) == {"EXPANSION 2", "EXPANSION 1"}
    assert [r.filters_full for r in chains["EXPANSION 2"]] == list(range(1, 6))
    window, roaring = chapter.measure_window(fake_lab, 0.02)
    assert window.days == roaring.days == 7
    assert fake_lab.keys() == []


def test_without_redisbloom_the_demo_shows_fakeredis_beside_the_model(fake_lab):
    fakeredis, model = chapter.demo_on_server(fake_lab).splitlines()
    # pyprobables repeats the first layer: 1,000 items a layer, Size the item count
    assert fakeredis.startswith("fakeredis BF.INFO: {'Capacity': 1000, ")
    assert "'Expansion rate': 2}" in fakeredis
    # RedisBloom doubles: 5,000 items fill 1,000 + 2,000 and go on into a third of 4,000
    assert model.startswith("RedisBloom model:  {'Capacity': 7000, ")
    assert "'Number of filters': 3," in model
    embedded = connect("scalable-bloom", backend="fake", quiet=True)
    assert embedded.r.exists(embedded.key("demo")) == 0  # the key is gone


@pytest.mark.live
def test_on_redisbloom_the_demo_equals_the_model_bit_for_bit(live_lab):
    if not live_lab.has_redisbloom:
        pytest.skip("the private server has no RedisBloom")
    lines = chapter.demo_on_server(live_lab).splitlines()
    assert [line.split(":")[0] for line in lines] == ["BF.INFO  == model", "BF.DEBUG == model",
                                                      "BF.SCANDUMP == simulator"]  # fmt: skip
    assert all(line.split(": ")[1].startswith("True") for line in lines), lines
    assert "'Number of filters': 3," in lines[0]
    assert live_lab.keys() == []


def test_without_redisbloom_the_chains_are_the_reference_runs(fake_lab):
    chains = chapter.grown_chains(fake_lab, 0.05)
    raw = _raw()
    assert not chains.live and chains.label.startswith("reference run: ")
    for label, stored in (("EXPANSION 2", "small"), ("EXPANSION 1", "fixed")):
        rates = [r.fpr_measured for r in chains.value[label]]
        assert rates == [row["fpr_measured"] for row in raw[stored]]


@pytest.mark.parametrize("plot", ["layers", "compound", "latency", "window"])
def test_plots_return_a_figure_with_labelled_axes(plot):
    chains, window = _stored(chapter.reference_chains()), _stored(chapter.reference_window())
    fig = {
        "layers": chapter.plot_layers,
        "compound": lambda: chapter.plot_compound(chains),
        "latency": lambda: chapter.plot_latency(chains),
        "window": lambda: chapter.plot_window(window),
    }[plot]()
    assert all(ax.get_xlabel() for ax in fig.axes)
    assert not any(math.isnan(x) for ax in fig.axes for x in ax.get_xlim())


@pytest.mark.live
def test_a_reserved_filter_grows_unless_nonscaling(redis_server):
    from redis.exceptions import ResponseError

    assert _verdict("003-fixed-at-creation") is Verdict.DEPENDS
    client = redis_server.client()
    grows, fixed = "setlab:test:bf-grows", "setlab:test:bf-fixed"
    client.delete(grows, fixed)
    try:
        client.execute_command("BF.RESERVE", grows, 0.01, 100)
        client.execute_command("BF.MADD", grows, *range(500))
        info = client.execute_command("BF.INFO", grows, "FILTERS")
        assert (info[0] if isinstance(info, list) else info) > 1  # layers were added
        client.execute_command("BF.RESERVE", fixed, 0.01, 100, "NONSCALING")
        with pytest.raises(ResponseError, match="full"):
            for i in range(500):
                client.execute_command("BF.ADD", fixed, i)
    finally:
        client.delete(grows, fixed)
