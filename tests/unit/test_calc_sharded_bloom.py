"""setlab.tools.calc.sharded_bloom and `setlab calc sharded-bloom`: the fullest of many Bloom
filters sharded by hash.

Independent reference: a shard sized for exactly the mean load is overfull in its fullest shard
(the maximum of many binomial loads is above their mean), and a shard with room to spare keeps
the rate it was sized for.
"""

from __future__ import annotations

import json
import subprocess
import sys

from setlab.tools.calc.sharded_bloom import sharded_bloom


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "setlab", "calc", "sharded-bloom", *args],
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_sharded_bloom_warns_when_the_fullest_shard_passes_its_capacity():
    tight = sharded_bloom(800_000_000, 2**17, 6_104)  # capacity = the mean load
    assert tight.data["worst_load"] > 6_104 and tight.notes
    roomy = sharded_bloom(800_000_000, 2**17, 8_000)
    assert not roomy.notes and roomy.data["worst_fpr"] < 0.01


def test_the_cli_prints_the_same_numbers_as_json_and_refuses_an_empty_shard():
    result = _cli("-n", "8e8", "--shards", "2^17", "--capacity", "6500", "--json")
    assert result.returncode == 0, result.stderr
    expected = sharded_bloom(8 * 10**8, 2**17, 6500).data["worst_load"]
    assert json.loads(result.stdout)["worst_load"] == expected
    refused = _cli("-n", "10", "--shards", "2", "--capacity", "0")
    assert refused.returncode == 2
    assert "capacity" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
