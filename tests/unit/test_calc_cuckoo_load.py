"""setlab.tools.calc.cuckoo_load and `setlab calc cuckoo-load`: the load at a cuckoo filter's
first failed insert.

Independent reference: the stored simulation grid read directly
(setlab.models.cuckoo_load.LoadGrid), and bits per item as the fingerprint over the load.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from setlab.models.cuckoo_load import LoadGrid
from setlab.tools.calc.cuckoo_load import cuckoo_load


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "setlab", "calc", "cuckoo-load", *args],
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_cuckoo_load_reads_the_grid_cell():
    data = cuckoo_load(2, 8, 2**16).data
    cell = LoadGrid.load().cell(2, 8, 16)
    assert data["first_failure_load"] == pytest.approx(sum(cell.loads) / len(cell.loads))
    assert data["bits_per_item"] == pytest.approx(8 / data["first_failure_load"])


def test_cuckoo_load_wants_a_power_of_two_table():
    with pytest.raises(ValueError, match="power of two"):
        cuckoo_load(4, 12, 10_000)


def test_the_cli_prints_the_grid_cell_as_json_and_refuses_a_bucket_off_the_grid():
    result = _cli("-b", "4", "-f", "12", "--slots", "2^14", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["log_slots"] == 14
    refused = _cli("-b", "3")
    assert refused.returncode == 2
    assert "bucket_size" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
