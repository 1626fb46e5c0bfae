"""setlab.tools.widget_calcs and `setlab calc cuckoo-load | sharded-bloom | density`.

Independent references: a plain bitmap's one bit per value of the range, a HyperLogLog's
fixed 12 KiB dense register array, the stored grid read directly, and the advisor's own rules
(exact while cheap, a filter when the IDs are far too sparse).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from setlab.models.cuckoo_load import LoadGrid
from setlab.tools import widget_calcs as w


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "setlab", "calc", *args], capture_output=True,
                          text=True, check=False)  # fmt: skip


def test_cuckoo_load_reads_the_grid_cell():
    data = w.cuckoo_load(2, 8, 2**16).data
    cell = LoadGrid.load().cell(2, 8, 16)
    assert data["first_failure_load"] == pytest.approx(sum(cell.loads) / len(cell.loads))
    assert data["bits_per_item"] == pytest.approx(8 / data["first_failure_load"])


def test_cuckoo_load_wants_a_power_of_two_table():
    with pytest.raises(ValueError, match="power of two"):
        w.cuckoo_load(4, 12, 10_000)


def test_sharded_bloom_warns_when_the_fullest_shard_passes_its_capacity():
    tight = w.sharded_bloom(800_000_000, 2**17, 6_104)  # capacity = the mean load
    assert tight.data["worst_load"] > 6_104 and tight.notes
    roomy = w.sharded_bloom(800_000_000, 2**17, 8_000)
    assert not roomy.notes and roomy.data["worst_fpr"] < 0.01


def test_a_full_range_is_a_plain_bitmap_of_one_bit_per_id():
    data = w.density(2**20, 2**20).data
    assert data["pick"] == "plain bitmap"
    # one bit per value, and jemalloc rounds the string up by less than a quarter
    assert 1 / 8 <= data["bytes_per_id"]["plain bitmap"] <= 1 / 8 * 1.25 + 0.01
    assert data["memory"]["HyperLogLog"] > 12 * 1024  # dense registers: 16384 × 6 bits


def test_hashed_64_bit_ids_cannot_be_a_bitmap_and_get_a_filter():
    data = w.density(10**7, w.HASHED64).data
    assert data["memory"]["plain bitmap"] is None
    assert data["pick"] == "Bloom filter"


def test_the_density_table_marks_one_pick_per_setting():
    rows = w.density_table((10**3, 10**5), (2**16, 2**32))
    settings = {(r["count"], r["universe"]) for r in rows}
    assert settings == {(10**3, 2**16), (10**3, 2**32), (10**5, 2**32)}  # 10^5 > 2^16 left out
    for count, universe in settings:
        picks = [r for r in rows if (r["count"], r["universe"]) == (count, universe) and r["pick"]]
        assert len(picks) == 1


def test_the_cli_prints_the_same_numbers_as_json():
    result = _cli("density", "-n", "1M", "--range", "2^32", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pick"] == w.density(10**6).data["pick"]
    result = _cli("sharded-bloom", "-n", "8e8", "--shards", "2^17", "--capacity", "6500", "--json")
    assert (
        json.loads(result.stdout)["worst_load"]
        == w.sharded_bloom(8 * 10**8, 2**17, 6500).data["worst_load"]
    )
    result = _cli("cuckoo-load", "-b", "4", "-f", "12", "--slots", "2^14", "--json")
    assert json.loads(result.stdout)["log_slots"] == 14


@pytest.mark.parametrize(
    ("args", "message"),
    [(("cuckoo-load", "-b", "3"), "bucket_size"), (("density", "-n", "10", "--range", "2^40"),
     "universe"), (("sharded-bloom", "-n", "10", "--shards", "2", "--capacity", "0"), "capacity")],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_code_2(args, message):
    result = _cli(*args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
