"""Claims of the chapter cuckoo-kick-chains: every verdict re-derived from an independent criterion
(the paper's formulas, small simulations built here, the module's stored replies read as raw
JSON), and the chapter module's one-figure-per-statement rule, tables, live text and plots."""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import pytest

from setlab.chapters import cuckoo_kick_chains as chapter
from setlab.chapters import registry
from setlab.lab.reference import Measurement
from setlab.models import cuckoo
from setlab.render.claims import Claim, Verdict

CLAIMS = {c.id: c for c in registry.claims()}


def _verdict(claim_id: str) -> Verdict:
    claim: Claim = CLAIMS[claim_id]
    assert claim.chapter == "cuckoo-kick-chains"
    return claim.verdict


def _raw_fills() -> dict[tuple[int, int], dict]:
    """The module's EXPANSION 0 fills as the script stored them (not through the typed records)."""
    path = resources.files("setlab") / "data" / "redisbloom-reference.json"
    rows = json.loads(path.read_text())["cuckoo"]
    return {(r["bucket_size"], r["max_iterations"]): r for r in rows}


def test_cuckoo_bits_against_bloom():
    assert _verdict("003-cuckoo-12-bits") is Verdict.IMPRECISE
    cuckoo_bits = math.ceil(math.log2(2 * 4 / 0.01)) / 0.95  # Fan et al. eq. (6), b = 4
    bloom_bits = -math.log(0.01) / math.log(2) ** 2
    assert bloom_bits < cuckoo_bits < 11 < 12  # more than Bloom, as said, but not 12 at 1%


def test_cuckoo_inserts_fail_before_the_table_is_full():
    assert _verdict("003-cuckoo-insert-fails") is Verdict.CORRECT
    cf = cuckoo.CuckooFilter(256, 4, 16, 100, seed=5)
    values = np.random.default_rng(5).integers(0, 2**63, 1024, dtype=np.uint64)
    assert not cf.insert(values).all()
    row = _raw_fills()[2, 20]  # the real module, default BUCKETSIZE and MAXITERATIONS
    assert row["first_full_at"] < row["attempts"]  # it said "full" with slots to spare
    assert _verdict("003-cuckoo-0.03pct") is Verdict.DEPENDS
    record = cf.record()
    assert record.first_failure_load() > 0.5  # no failures at all below it: a load question
    assert _verdict("003-cuckoo-36000") is Verdict.CORRECT
    assert 3 * 12 * 10**7 // 10**4 == 36_000


def test_cuckoo_deletes_what_it_was_given():
    assert _verdict("003-cuckoo-deletes") is Verdict.CORRECT
    cf = cuckoo.CuckooFilter(64, 4, 16, seed=3)
    members = np.arange(1, 101, dtype=np.uint64)
    cf.insert(members)
    assert cf.delete(members[:10]).all() and not cf.contains(members[:10]).any()
    assert cf.contains(members[10:]).all()


# -- one figure per statement -------------------------------------------------------------------


def test_redisbloom_defaults_wall_is_the_modules_first_full_everywhere():
    row = _raw_fills()[2, 20]
    wall = row["first_full_at"] / (row["info"]["Number of buckets"] * row["bucket_size"])
    assert chapter.FIGURES["ck-rb-b2-20"] == f"{wall:.1%}"
    assert f"RedisBloom default (b = 2, 20 iterations): {wall:.1%}" in (
        CLAIMS["003-cuckoo-insert-fails"].our_figure()
    )
    assert chapter.FIGURES["ck-rb2-bits"] == f"{8 / wall:.1f}"  # 8-bit fingerprints / load


def test_the_seed_arithmetic_and_formulas_render_as_the_table_shows_them():
    assert chapter.FIGURES["ck-seed-failures"] == "36,000"
    assert chapter.FIGURES["ck-cuckoo-1pc"] == f"{10 / 0.95:.1f}"  # ceil(log2(800)) = 10 bits
    assert chapter.FIGURES["ck-fpr-f8-bound"] == "3.12%"  # 2b / 2^f = 8 / 256, three digits


def test_the_first_failure_figures_are_near_the_papers():
    for b, paper in cuckoo.PAPER_LOAD_FACTORS.items():
        simulated = float(chapter.FIGURES[f"ck-load-b{b}"].rstrip("%")) / 100
        assert simulated == pytest.approx(paper, abs=0.05)


# -- the page's helpers -------------------------------------------------------------------------


def _module(live: bool) -> Measurement:
    label = "this run: Redis 7.0.15 (x) on here" if live else chapter.reference().run.label
    return Measurement(chapter.reference_module(), live, label, "" if live else "embedded")


def test_module_table_puts_the_module_beside_the_bit_exact_model():
    table = chapter.module_table(_module(False)).splitlines()
    assert "reference run" in table[0]
    assert len(table) == 2 + len(_raw_fills())
    for line in table[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[2] == cells[3]  # the model predicts the module's first "full" exactly


def test_live_module_text_names_this_run_or_says_it_measured_nothing():
    assert chapter.FIGURES["ck-rb-b2-20"] in chapter.live_module_text(_module(True))
    assert "this run (" in chapter.live_module_text(_module(True)).lower()
    assert "none" in chapter.live_module_text(_module(False)).lower()


def test_module_sizes_and_grid_come_from_the_reference_run():
    assert chapter.fill_grid() == list(_raw_fills())
    assert chapter.module_bytes() == 40 + 16 + 2**15  # one 2^15-slot table of 1-byte slots


def test_measuring_the_module_needs_redisbloom(live_lab):
    if not live_lab.has_redisbloom:
        pytest.skip("the private server runs without redisbloom.so")
    fills = chapter.measure_module(live_lab)
    assert fills == chapter.reference_module()  # deterministic: the same replies as stored


def test_the_false_delete_demonstration_loses_one_member():
    deleted = chapter.false_delete()
    assert deleted.impostor.size == 1 and deleted.impostor[0] not in set(deleted.members.tolist())
    assert chapter.FIGURES["ck-lost"] == str(deleted.lost.size) == "1"


@pytest.mark.parametrize("plot", ["first", "chains", "failures", "loops", "fpr", "space", "kick"])
def test_plots_return_a_figure(plot):
    log_slots = 11  # small tables: the plotting, not the science
    fig = {
        "first": lambda: chapter.plot_first_failures(log_slots),
        "chains": lambda: chapter.plot_kick_chains(log_slots),
        "failures": lambda: chapter.plot_failure_rates(log_slots),
        "loops": lambda: chapter.plot_loops(log_slots),
        "fpr": lambda: chapter.plot_fpr(log_slots, 20_000),
        "space": chapter.plot_space,
        "kick": lambda: chapter.plot_kick_chain(cuckoo.kick_chain_demo(8, 2, 3, 0)),
    }[plot]()
    assert fig.axes and fig.axes[0].get_title()
