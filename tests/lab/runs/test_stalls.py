"""setlab.lab.runs.stalls without a server: the stored reference run as typed records, and the guard
for deliberately blocking experiments. Oracle: the reference file read here as raw JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from setlab.lab.runs import stalls

RAW = json.loads(
    (Path(__file__).resolve().parents[3] / "src/setlab/data/stalls-reference.json").read_text()
)


def test_the_reference_run_reads_back_as_typed_records():
    ref = stalls.StallsReference.load()
    assert [r.offset for r in ref.stalls] == [r["offset"] for r in RAW["rows"]]
    assert ref.stall(2**31).setbit_ms == next(
        r["setbit_ms"] for r in RAW["rows"] if r["offset"] == 2**31
    )
    assert ref.delete("set", 10**6, "del").server_ms == next(
        r["server_ms"] for r in RAW["deletes"]
        if (r["kind"], r["size"], r["command"]) == ("set", 10**6, "del")
    )  # fmt: skip
    assert [k.keys for k in ref.keys] == [k["keys"] for k in RAW["keys"]]
    assert [f.fork_ms for f in ref.forks] == [f["fork_ms"] for f in RAW["forks"]]
    assert ref.run.label.startswith("reference run: Redis " + RAW["server"]["redis_version"])


def test_lookups_name_what_the_reference_run_lacks():
    ref = stalls.StallsReference.load()
    with pytest.raises(KeyError, match="12,345"):
        ref.stall(12_345)
    with pytest.raises(KeyError, match="del of a 3 string"):
        ref.delete("string", 3, "del")


def test_biggest_delete_picks_the_largest_size_of_one_kind_and_command():
    rows = [
        stalls.DeleteRow("set", n, c, float(n), 0)
        for n in (10, 1000, 100)
        for c in ("del", "unlink")
    ]
    assert stalls.biggest_delete(rows, "set", "unlink") == stalls.DeleteRow(
        "set", 1000, "unlink", 1000.0, 0
    )
    with pytest.raises(ValueError, match="string"):
        stalls.biggest_delete(rows, "string", "del")


def test_as_rows_stores_typed_rows_as_plain_dicts():
    row = stalls.KeysRow(10, 0.1, 1, 0.2, 0.2)
    assert stalls.as_rows([row]) == [
        {"keys": 10, "keys_ms": 0.1, "scan_calls": 1, "scan_total_ms": 0.2, "scan_max_ms": 0.2}
    ]


def test_cluster_routing_refuses_fewer_than_one_probe_key_before_touching_a_cluster():
    with pytest.raises(ValueError, match="probes must be at least 1; got 0"):
        stalls.cluster_routing(None, np.array([1]), np.array([1]), probes=0)
