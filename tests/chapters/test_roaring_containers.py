"""The page helpers of the chapter roaring-containers (setlab.chapters.roaring_containers): what
the page opens with, the structure figure's bitmap beside the model, and the 64-bit table.

Checked against pyroaring built from the same IDs, the stored reference run read straight from
its JSON file, the optimal Bloom filter formula and the SET model given the members one by one.
"""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import pytest
from pyroaring import BitMap, BitMap64

from setlab.chapters import roaring_containers as chapter
from setlab.models import hashed_offsets, redis_memory
from setlab.models import roaring as ro


def test_the_page_opens_naming_the_stored_run_and_its_pyroaring(monkeypatch, capsys):
    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SETLAB_SCALE", raising=False)
    stored = json.loads((resources.files("setlab") / "data" / "roaring-reference.json").read_text())
    server, machine = stored["server"], stored["machine"]
    lab = chapter.start()
    try:
        banner, note = capsys.readouterr().out.splitlines()
        assert banner.startswith("embedded fakeredis ")
        assert note == (
            f"reference run: Redis {server['redis_version']} ({server['allocator']}), "
            f"{machine['cpu']}, {machine['cores']} cores, measured {stored['measured']}"
            f" — pyroaring {stored['pyroaring']}"
        )
    finally:
        lab.cleanup()


def test_the_structure_bitmap_has_the_figures_four_chunks_and_three_kinds():
    values = chapter.STRUCTURE_IDS
    assert sorted({int(v) >> 16 for v in values}) == [0, 5, 17, 2_000_000_000 >> 16]
    built = BitMap(values.astype(np.uint32), optimize=False)
    before = built.get_statistics()
    assert (before["n_array_containers"], before["n_bitset_containers"]) == (2, 2)
    built.run_optimize()
    after = built.get_statistics()
    assert (
        after["n_array_containers"],
        after["n_run_containers"],
        after["n_bitset_containers"],
    ) == (2, 1, 1)


def test_beside_model_shows_pyroarings_size_and_whether_the_statistics_agree():
    values = [1, 2, 3, 70_000, 70_001]
    built = BitMap(values, optimize=False)
    line = chapter.beside_model(built, ro.layout(values), run_optimize=False)
    assert line.startswith("run_optimize=False: ")
    assert f"{len(built.serialize()):,} B serialized" in line
    assert line.endswith("statistics equal: True)")
    other = ro.layout(values + list(range(200_000, 205_000)))  # a bitset pyroaring lacks
    assert chapter.beside_model(built, other, False).endswith("statistics equal: False)")


def test_snowflake_sizes_are_what_pyroaring_bloom_and_the_set_model_give():
    n = 2_000
    snow = hashed_offsets.snowflake_like_ids(np.random.default_rng(0), n)
    sizes = chapter.snowflake_sizes(snow, np.random.default_rng(1))
    b64 = BitMap64(snow)
    assert sizes["BitMap64 of snowflake IDs"] == len(b64.serialize())
    b64.run_optimize()  # random snowflakes form no runs: the model's state, pyroaring's bytes
    assert sizes["model (setlab.models.roaring.layout64)"] == len(b64.serialize())
    dense = ro.random_ids(n, np.random.default_rng(1), universe=10**8)
    assert len(set(dense.tolist())) == n and dense.max() < 10**8
    assert sizes["BitMap of re-mapped dense IDs"] == len(BitMap(dense).serialize())
    first = int(snow.min())
    one_by_one = redis_memory.set_cost([str(i) for i in range(first, first + n)])
    assert sizes["Redis SET of the snowflake IDs"] == one_by_one.memory_usage
    optimal_bytes = n * -math.log(0.01) / math.log(2) ** 2 / 8
    assert sizes["Bloom filter, 1%"] == pytest.approx(optimal_bytes, abs=8)


def test_per_id_table_has_a_line_per_structure_with_its_bytes_per_id():
    table = chapter.per_id_table({"alpha": 2_048, "beta": 100}, 100)
    alpha, beta = table.splitlines()
    assert alpha.startswith("alpha ") and alpha.endswith("  20.48 B per ID")
    assert "2 KiB" in alpha and beta.endswith("   1.00 B per ID")
    with pytest.raises(ValueError, match="ids must be at least 1; got 0"):
        chapter.per_id_table({"alpha": 1}, 0)
