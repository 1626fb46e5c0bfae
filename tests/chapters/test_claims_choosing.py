"""Claims of the chapter choosing: every verdict re-derived from an independent criterion, and
the chapter module's tables, populations and SET-model check.

References: seed 003's own arithmetic, pyroaring (an independent Roaring implementation), the
Bloom and information-theoretic bounds written out here, Redis's defaults (redis.conf), and the
stored reference run of a real Redis 7.0.15.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from setlab.chapters import choosing
from setlab.lab import reference
from setlab.render.claims import Verdict
from tests.chapters.test_claims_sentences import restated_here  # their tests are there

CLAIMS = {c.id: c for c in choosing.FIGURES.claims}


def _verdict(claim_id: str) -> Verdict:
    return CLAIMS[claim_id].verdict


def test_every_claim_of_the_chapter_has_a_re_deriving_test_here():
    tested = {
        "003-table-dense-roaring", "003-table-sparse-bloom", "003-table-deletes-set",
        "003-table-small-set", "003-table-count-hll", "003-histogram-first", "000-compact-rule",
    }  # fmt: skip
    assert set(CLAIMS) - restated_here("choosing") == tested


def test_dense_row_roaring_wins_through_runs_not_bitsets():
    from pyroaring import BitMap

    assert _verdict("003-table-dense-roaring") is Verdict.OTHER_REASON
    bitsets = math.ceil(10**8 / 65_536) * 8192  # the seed's own arithmetic: 12.5 MB
    plain_bitmap = 10**8 // 8  # a Redis string of 10^8 bits: the same
    assert abs(bitsets / plain_bitmap - 1) < 0.01
    runs = BitMap(range(10**8))  # pyroaring builds run containers for a range
    assert len(runs.serialize()) < plain_bitmap / 100


def test_sparse_row_1_2_bytes_is_blooms_price_not_the_floor():
    assert _verdict("003-table-sparse-bloom") is Verdict.IMPRECISE
    bloom_bytes = -math.log(0.01) / math.log(2) ** 2 / 8
    floor_bytes = math.log2(100) / 8  # Carter et al. 1978: any membership structure
    assert abs(bloom_bytes - 1.2) < 0.01 and bloom_bytes / floor_bytes > 1.4
    why = CLAIMS["003-table-sparse-bloom"].reason()
    assert f"{bloom_bytes:.2f} bytes" in why and f"{floor_bytes:.2f} bytes" in why


def test_deletes_row_a_set_of_5e7_device_ids_is_not_a_small_cost():
    from setlab.models import redis_memory as rm

    assert _verdict("003-table-deletes-set") is Verdict.WRONG
    sample = [f"{v:016x}" for v in np.random.default_rng(1).integers(2**60, 2**63, 10_000)]
    per_member = rm.set_cost(rm.Members.of(sample)).allocated / len(sample)
    cuckoo_worst = 5e7 * math.ceil(math.log2(8 / 0.01)) / 0.5 / 8  # half-empty table
    assert 5e7 * per_member > 20 * cuckoo_worst


def test_small_row_ten_million_ids_cannot_be_an_intset():
    assert _verdict("003-table-small-set") is Verdict.WRONG
    assert 512 < 10**7  # set-max-intset-entries, redis.conf default
    hash_table_floor = 10**7 * (24 + 8)  # a dictEntry and a bucket pointer each, no member
    roaring_ceiling = 10**7 * 2 + 65_536 * 8 + 8  # array containers over 2^32
    assert hash_table_floor > 10 * roaring_ceiling


def test_count_row_hyperloglog_is_fixed_and_small():
    assert _verdict("003-table-count-hll") is Verdict.CORRECT
    dense = 16 + 16_384 * 6 // 8  # header + registers (Flajolet et al.; Redis hyperloglog.c)
    assert dense < 16 * 1024 and 500 * dense < 1.2e8 / 8  # under 1/500 of even a bitmap of them


def test_the_shape_of_the_ids_decides():
    from pyroaring import BitMap, BitMap64

    assert _verdict("003-histogram-first") is Verdict.CORRECT
    dense = BitMap(range(100_000))
    hashed = BitMap64(np.random.default_rng(2).integers(0, 2**63, 100_000).tolist())
    dense.run_optimize()
    assert len(hashed.serialize()) > 100 * len(dense.serialize())  # same count, other shape


# -- the chapter module ---------------------------------------------------------------------------


def test_the_selection_table_has_a_column_per_scenario_and_the_advisors_picks():
    table = choosing.selection_markdown()
    lines = table.splitlines()
    # head, rule, IDs, seed's pick, one row per structure, the advisor's pick
    assert len(lines) == 5 + len(choosing.STRUCTURES)
    assert all(line.count("|") == 2 + len(choosing.SEED_003_TABLE) for line in lines)
    picks = {key: choosing.pick(key) for key in ("dense", "sparse64", "deletes", "count")}
    assert picks["dense"] == "Roaring bitmap"  # runs: a few KiB for 10^8 consecutive IDs
    assert picks["sparse64"].startswith("Bloom filter")
    assert picks["deletes"].startswith("cuckoo filter")  # Bloom cannot delete
    assert picks["count"] == "HyperLogLog"
    assert all(f"**{p}**" in table for p in picks.values())


def test_the_dense_rows_roaring_bytes_match_pyroaring():
    from pyroaring import BitMap

    sizes = choosing.row_bytes("dense")
    bitmap = BitMap(range(10**8))
    bitmap.run_optimize()
    assert sizes["Roaring bitmap"] == len(bitmap.serialize())
    chunks = math.ceil(10**8 / 65_536)  # all bitsets: even the last holds 57,600 > 4,096 IDs
    assert 10**8 - (chunks - 1) * 65_536 > 4096
    assert sizes["roaring_plain"] == 8 + 8 * chunks + 8192 * chunks  # the seed's 12.5 MB


def test_the_smallest_exact_structure_is_the_cheapest_of_set_bitmap_and_roaring():
    sizes = choosing.row_bytes("count")
    assert sizes["plain bitmap"] is None  # 64-bit hashes: past 2^32 bit offsets
    assert choosing.smallest_exact("count") == min(sizes["Redis SET"], sizes["Roaring bitmap"])
    assert choosing.smallest_exact("count") > 100_000 * sizes["HyperLogLog"]


@pytest.mark.parametrize(
    ("count", "text"),
    [(10**8, "10^8"), (120_000_000, "1.2 × 10^8"), (50_000_000, "5 × 10^7"), (7, "7 × 10^0")],
)
def test_counts_are_written_as_the_seed_writes_them(count, text):
    assert choosing.power_of_ten(count) == text


def test_example_populations_have_the_shape_the_page_describes():
    auto = choosing.example_ids("auto-increment", 100_000, seed=1)
    assert int(auto.values.min()) >= 10_000_001 and auto.kind == "decimal"
    assert 0.99 < len(auto) / 100_000 < 1.01
    assert 0.96 < len(auto) / (int(auto.values.max()) - 10_000_000) < 0.98  # 3% of rows deleted
    devices = choosing.example_ids("device IDs", 1_000, seed=1)
    assert devices.kind == "hex" and set(devices.lengths.tolist()) == {16}
    snow = choosing.example_ids("snowflake", 10_000, seed=1)
    assert int(snow.values.min()) >> 22 > 0  # a timestamp above 22 bits of machine and sequence
    with pytest.raises(ValueError, match="name must be one of"):
        choosing.example_ids("uuids", 10)


def test_the_three_populations_get_the_picks_the_page_explains():
    runs = choosing.populations()
    assert set(runs) == set(choosing.POPULATIONS)
    auto = runs["auto-increment"]
    assert auto.recommendation.choice.name == "plain bitmap"
    assert 0.96 < auto.analysis.density < 0.98  # 3% of the rows deleted
    for name in ("device IDs", "snowflake"):  # about one ID per 2^16 chunk
        a = runs[name].analysis
        assert a.chunks > 0.99 * a.distinct
        assert runs[name].recommendation.choice.name.startswith("Bloom filter")


def test_the_density_figure_has_log_axes_and_a_line_per_membership_structure():
    fig = choosing.density_figure(choosing.sweep())
    (ax,) = fig.axes
    assert ax.get_xscale() == ax.get_yscale() == "log"
    labels = {line.get_label() for line in ax.get_lines()}
    assert labels == {"Redis SET", "plain bitmap", "Roaring bitmap", "Bloom filter",
                      "cuckoo filter"}  # fmt: skip


def test_density_sweep_picks_the_bitmap_when_dense_and_a_filter_at_2_to_the_32():
    swept = choosing.sweep()  # a million IDs, as on the page
    assert swept["pick"][0] == "plain bitmap" and swept["pick"][-1] == "Bloom filter"
    bitmap_per_id = swept["bytes_per_id"]["plain bitmap"][0]
    assert 1 / 8 <= bitmap_per_id < 1 / 8 + 0.01  # one bit per ID, plus the key's overhead


def test_the_set_model_matches_the_reference_runs_memory_usage():
    row = next(r for r in reference.load("redis-memory").data["allocated"]
               if r["kind"] == "16-hex device ids")  # fmt: skip
    check = choosing.reference_set_check()
    assert (check.members, check.measured) == (row["n"], row["memory_usage"])
    assert check.predicted == row["memory_usage"]  # the model, to the byte


def test_the_set_check_on_the_embedded_backend_is_the_reference_run_labelled_so(fake_lab):
    check = choosing.set_model_check(fake_lab)
    assert not check.live and check.label.startswith("reference run: Redis 7.0.15")
    assert check.value == choosing.reference_set_check()
    assert check.why_not_live in choosing.live_set_check(check)  # says why, shows no number
    assert f"{check.value.measured:,}" not in choosing.live_set_check(check)


@pytest.mark.live
def test_the_set_check_on_a_live_server_measures_and_matches_the_model(live_lab):
    check = choosing.set_model_check(live_lab)
    assert check.live and check.label.startswith("this run: Redis")
    assert check.value.members == choosing.CHECK_IDS
    assert check.value.measured == check.value.predicted  # MEMORY USAGE = the model, to the byte
    assert f"{check.value.measured:,}" in choosing.live_set_check(check)


@pytest.mark.live
def test_the_bitmap_rule_is_density_measured_on_the_real_server(redis_server):
    claim = CLAIMS["000-compact-rule"]
    client = redis_server.client()
    key = "setlab:test:compact-rule"
    client.delete(key)
    base = 2051776854918803458  # seed 000's snowflake ID, typed here from the seed
    for start in range(0, 10_000, 1_000):
        client.sadd(key, *(str(base + i) for i in range(start, start + 1_000)))
    try:
        per_member = client.memory_usage(key, samples=0) / 10_000
    finally:
        client.delete(key)
    # a bitmap spends 1/8 byte per possible offset: it wins once 1 offset in 8 × per_member is set
    breakeven = int(claim.our_figure().split("1 in ")[1].split()[0])
    assert abs(breakeven / (8 * per_member) - 1) < 0.15
    assert claim.verdict is Verdict.WRONG  # 10^8 dense IDs: far past "tens of thousands"
    assert 10**8 * per_member / 100 > 10**8 / 8  # a SET of 10^8 IDs: 500× the dense bitmap
