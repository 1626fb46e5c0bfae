"""Claims of the chapter snowflake-ranges: every verdict re-derived from an independent criterion."""

from __future__ import annotations

import math

import numpy as np
import pytest
from setlab.chapters.claims import Verdict

from setlab.chapters import claims

MiB = 2**20


def _by_id(claim_id: str) -> claims.Claim:
    (claim,) = [c for c in claims.CLAIMS if c.id == claim_id]
    return claim


def test_snowflake_layout_and_typical_id():
    assert _verdict("000-snowflake-layout") is Verdict.CORRECT
    ms, machine, sequence = SEED_ID >> 22, (SEED_ID >> 12) & 1023, SEED_ID & 4095
    import datetime as dt

    minted = dt.datetime.fromtimestamp((ms + 1288834974657) / 1000, dt.UTC)
    assert 2020 <= minted.year <= 2030 and machine < 1024 and sequence < 4096  # a plausible date
    assert _verdict("000-typical-id") is Verdict.CORRECT
    assert len(str(SEED_ID)) == 19 and 1.9e18 < SEED_ID < 2.1e18 and 60.5 < math.log2(SEED_ID) < 61


def test_two_billion_times_is_the_range_not_real_ids():
    assert _verdict("000-20yi-times") is Verdict.IMPRECISE
    assert 2**63 // 2**32 == 2**31  # about 2.1 billion: right for the whole range
    assert SEED_ID / 2**32 < 0.5e9  # the seed's own ID is four times closer


def test_java_reads_2_xor_32_minus_1_as_29():
    assert _verdict("000-to-offset-range") is Verdict.WRONG
    assert (2 ^ 32 - 1) == 29  # Python ranks ^ below - exactly as Java does (JLS 15.18, 15.22)
    assert _verdict("000-expected-offset") is Verdict.DEPENDS
    assert abs((2**32 - 2) / 2 - 2.14e9) < 0.01e9  # right for the modulus the seed meant
    assert 28 // 8 + 1 == 4  # as printed: offsets 0 … 28, a 4-byte string


def test_math_abs_of_long_min_value_leaves_a_negative_offset():
    assert _verdict("000-uniform-offsets") is Verdict.IMPRECISE
    java_abs_min = -(2**63)  # Math.abs(Long.MIN_VALUE) overflows back to itself
    java_rem = -((-java_abs_min) % (2**32 - 1))  # Java's % keeps the dividend's sign
    assert java_rem < 0


def test_the_seeds_example_rows_are_not_hash_mod_2_32():
    assert _verdict("000-example-hashes") is Verdict.WRONG
    rows = [(0x7A3B2C1D4E5F6A7B, 1_823_456_789), (0x1234567890ABCDEF, 3_456_789_012),
            (0xFEDCBA0987654321, 987_654_321)]  # fmt: skip
    assert all(h % 2**32 != offset for h, offset in rows)


def test_hashed_offsets_keep_no_order():
    import mmh3

    assert _verdict("000-hash-destroys-order") is Verdict.CORRECT
    ids = SEED_ID + np.arange(20_000, dtype=np.int64) * 4096
    hashed = np.array([mmh3.hash64(int(i).to_bytes(8, "little"))[0] & 0xFFFFFFFF for i in ids])
    ranks = np.argsort(np.argsort(hashed))
    assert abs(np.corrcoef(np.arange(ids.size), ranks)[0, 1]) < 0.03


def test_setbit_refuses_a_snowflake_offset(fake_lab):
    import redis

    assert _verdict("000-direct-error") is Verdict.CORRECT
    with pytest.raises(redis.ResponseError, match="bit offset is not an integer or out of range"):
        fake_lab.r.setbit(fake_lab.key("b"), SEED_ID, 1)


def test_low_32_bits_repeat_every_1024_ms():
    assert _verdict("000-low-32-bits") is Verdict.CORRECT
    a, b = SEED_ID, SEED_ID + (1024 << 22)  # same machine and sequence, 1,024 ms later
    assert a != b and (a ^ b) & 0xFFFFFFFF == 0


def test_dense_maps_hand_out_small_offsets(fake_lab):
    from setlab.models import snowflake

    assert _verdict("000-dense-mapping") is Verdict.CORRECT
    dense = snowflake.DenseMap.for_lab(fake_lab)
    assert sorted(dense.lookup_many([SEED_ID + i for i in range(300)])) == list(range(300))
    leaf = snowflake.LeafSegments(1_000, 4).run(50_000, 2, seed=1)
    assert leaf.max_id < 50_000 + 2 * 2 * 1_000 * 4  # at most two segments lost per restart


def test_javascript_doubles_and_strings():
    assert _verdict("000-js-precision") is Verdict.CORRECT
    big = 1234567890123456789
    assert int(float(big)) == 1234567890123456768
    assert repr(float(big)) == "1.2345678901234568e+18"  # shortest digits: …68 then zeros
    assert _verdict("000-js-fix") is Verdict.CORRECT
    import json

    assert json.loads(json.dumps({"id": str(big)}))["id"] == str(big)
