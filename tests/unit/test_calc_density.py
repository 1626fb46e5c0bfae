"""setlab.tools.calc.density and `setlab calc density`: bytes per ID of every structure for IDs
spread over a range, and the advisor's pick.

Independent references: a plain bitmap's one bit per value of the range, a HyperLogLog's fixed
12 KiB dense register array, and the advisor's own rules (exact while cheap, a filter when the
IDs are far too sparse).
"""

from __future__ import annotations

import json
import subprocess
import sys

from setlab.tools.calc.density import HASHED64, density


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "setlab", "calc", "density", *args],
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_a_full_range_is_a_plain_bitmap_of_one_bit_per_id():
    data = density(2**20, 2**20).data
    assert data["pick"] == "plain bitmap"
    # one bit per value, and jemalloc rounds the string up by less than a quarter
    assert 1 / 8 <= data["bytes_per_id"]["plain bitmap"] <= 1 / 8 * 1.25 + 0.01
    assert data["memory"]["HyperLogLog"] > 12 * 1024  # dense registers: 16384 × 6 bits


def test_hashed_64_bit_ids_cannot_be_a_bitmap_and_get_a_filter():
    data = density(10**7, HASHED64).data
    assert data["memory"]["plain bitmap"] is None
    assert data["pick"] == "Bloom filter"


def test_the_cli_prints_the_same_pick_as_json_and_refuses_a_range_past_32_bits():
    result = _cli("-n", "1M", "--range", "2^32", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pick"] == density(10**6).data["pick"]
    refused = _cli("-n", "10", "--range", "2^40")
    assert refused.returncode == 2
    assert "universe" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
