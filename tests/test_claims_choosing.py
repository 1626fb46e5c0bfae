"""Claims of the chapter choosing: every verdict re-derived from an independent criterion."""

from __future__ import annotations

import math

import numpy as np
from setlab.chapters.claims import Verdict

from setlab.chapters import claims

MiB = 2**20


def _by_id(claim_id: str) -> claims.Claim:
    (claim,) = [c for c in claims.CLAIMS if c.id == claim_id]
    return claim


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
