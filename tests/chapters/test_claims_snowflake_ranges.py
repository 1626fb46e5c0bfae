"""Claims of the chapter snowflake-ranges: every verdict re-derived from an independent criterion,
and the chapter's own helpers (its experiments, its live-or-reference figure).

The criteria use the seed's numbers typed here, Java's arithmetic written out by hand, the mmh3
package and Redis itself, never the chapter module's computation.
"""

from __future__ import annotations

import datetime as dt
import json
import math

import mmh3
import numpy as np
import pytest
import redis

from setlab.chapters import snowflake_ranges as chapter
from setlab.lab.runs import dense_map
from setlab.models import snowflake
from setlab.render.claims import Verdict
from setlab.site import registry
from tests.chapters.test_claims_sentences import restated_here  # their tests are there

SEED_ID = 2051776854918803458  # seed 000 §4.1, typed here from the seed


def _claim(claim_id: str):
    return {c.id: c for c in registry.claims()}[claim_id]


def _verdict(claim_id: str) -> Verdict:
    return _claim(claim_id).verdict


def test_every_claim_of_the_chapter_has_a_test_here():
    tested = {
        "000-snowflake-layout", "000-typical-id", "000-20yi-times", "000-to-offset-range",
        "000-expected-offset", "000-uniform-offsets", "000-example-hashes",
        "000-hash-destroys-order", "000-direct-error", "000-low-32-bits", "000-dense-mapping",
        "000-js-precision", "000-js-fix", "000-js-16-digits",
    }  # fmt: skip
    assert {c.id for c in chapter.FIGURES.claims} - restated_here("snowflake-ranges") == tested


def test_snowflake_layout_and_typical_id():
    assert _verdict("000-snowflake-layout") is Verdict.CORRECT
    ms, machine, sequence = SEED_ID >> 22, (SEED_ID >> 12) & 1023, SEED_ID & 4095
    minted = dt.datetime.fromtimestamp((ms + 1288834974657) / 1000, dt.UTC)
    assert 2020 <= minted.year <= 2030 and machine < 1024 and sequence < 4096  # a plausible date
    assert _verdict("000-typical-id") is Verdict.CORRECT
    assert len(str(SEED_ID)) == 19 and 1.9e18 < SEED_ID < 2.1e18 and 60.5 < math.log2(SEED_ID) < 61


def test_two_billion_times_is_right_for_the_range_it_names():
    assert _verdict("000-20yi-times") is Verdict.CORRECT  # the sentence compares ranges
    assert 2**63 // 2**32 == 2**31  # about 2.1 billion: right for the whole range
    assert SEED_ID / 2**32 < 0.5e9  # the seed's own ID is four times closer


def test_java_reads_2_xor_32_minus_1_as_29():
    assert _verdict("000-to-offset-range") is Verdict.WRONG
    assert (2 ^ 32 - 1) == 29  # Python ranks ^ below - exactly as Java does (JLS 15.18, 15.22)
    assert _verdict("000-expected-offset") is Verdict.CORRECT  # §4.2 describes 2^32 - 1
    assert abs((2**32 - 2) / 2 - 2.14e9) < 0.01e9  # right for the modulus the seed meant
    assert abs((2**32 - 2) / 2 / 8 / 2**20 - 256) < 0.01  # MiB of that offset's string
    assert 28 // 8 + 1 == 4  # as printed: offsets 0 … 28, a 4-byte string


def test_math_abs_of_long_min_value_leaves_a_negative_offset():
    assert _verdict("000-uniform-offsets") is Verdict.CORRECT  # off in one hash of 2^64
    java_abs_min = -(2**63)  # Math.abs(Long.MIN_VALUE) overflows back to itself
    java_rem = -((-java_abs_min) % (2**32 - 1))  # Java's % keeps the dividend's sign
    assert java_rem < 0


def test_the_seeds_example_rows_are_not_hash_mod_2_32():
    assert _verdict("000-example-hashes") is Verdict.WRONG
    rows = [(0x7A3B2C1D4E5F6A7B, 1_823_456_789), (0x1234567890ABCDEF, 3_456_789_012),
            (0xFEDCBA0987654321, 987_654_321)]  # fmt: skip
    assert all(h % 2**32 != offset for h, offset in rows)


def test_hashed_offsets_keep_no_order():
    assert _verdict("000-hash-destroys-order") is Verdict.CORRECT
    ids = SEED_ID + np.arange(20_000, dtype=np.int64) * 4096
    hashed = np.array([mmh3.hash64(int(i).to_bytes(8, "little"))[0] & 0xFFFFFFFF for i in ids])
    ranks = np.argsort(np.argsort(hashed))
    assert abs(np.corrcoef(np.arange(ids.size), ranks)[0, 1]) < 0.03


def test_setbit_refuses_a_snowflake_offset(fake_lab):
    assert _verdict("000-direct-error") is Verdict.CORRECT
    with pytest.raises(redis.ResponseError, match="bit offset is not an integer or out of range"):
        fake_lab.r.setbit(fake_lab.key("b"), SEED_ID, 1)


def test_low_32_bits_repeat_every_1024_ms():
    assert _verdict("000-low-32-bits") is Verdict.CORRECT
    a, b = SEED_ID, SEED_ID + (1024 << 22)  # same machine and sequence, 1,024 ms later
    assert a != b and (a ^ b) & 0xFFFFFFFF == 0


def test_dense_maps_hand_out_small_offsets(fake_lab):
    assert _verdict("000-dense-mapping") is Verdict.CORRECT
    dense = dense_map.DenseMap.for_lab(fake_lab)
    assert sorted(dense.lookup_many([SEED_ID + i for i in range(300)])) == list(range(300))
    leaf = snowflake.LeafSegments(1_000, 4).run(50_000, 2, seed=1)
    assert leaf.max_id < 50_000 + 2 * 2 * 1_000 * 4  # at most two segments lost per restart


def test_javascript_doubles_and_strings():
    assert _verdict("000-js-precision") is Verdict.CORRECT
    big = 1234567890123456789
    assert int(float(big)) == 1234567890123456768
    assert repr(float(big)) == "1.2345678901234568e+18"  # shortest digits: …68 then zeros
    assert _verdict("000-js-fix") is Verdict.CORRECT
    assert json.loads(json.dumps({"id": str(big)}))["id"] == str(big)


# -- the chapter's figures and helpers -------------------------------------------------------------


def test_the_table_quotes_the_figures_the_prose_shows():
    figures = chapter.FIGURES
    assert figures["sf-seed-machine"] == "219" and figures["sf-seed-seq"] == "2"
    assert figures["sf-printed-modulus"] == str(2 ^ 32 - 1)
    assert figures["sf-minval-meant"] == f"{-(2**31):,}"  # JDK 17: Math.abs(MIN) % 4294967295L
    assert figures["sf-js-print"] == "1234567890123456800"  # Node.js 20: String(x)
    assert (
        f"{figures['sf-rho-hash']} over {figures['sf-stream-n']} IDs"
        in _claim("000-hash-destroys-order").our_figure()
    )


def test_the_printed_modulus_puts_every_user_on_one_of_29_bits():
    assert chapter.FIGURES["sf-printed-offsets"] == "29"  # 2,000 users, pigeonhole on 29 bits
    assert chapter.FIGURES["sf-printed-bytes"] == "4 B"  # offsets 0 … 28: four bytes


def test_the_stream_and_the_likers_grow_with_the_scale_and_are_repeatable():
    one, half = chapter.stream_ids(1.0), chapter.stream_ids(0.5)
    bursts = 2 * 20_000  # two sign-up bursts of 20,000, whatever the span
    assert len(one) - bursts == pytest.approx(2_000 * 30, rel=0.02)  # Poisson, 2,000 a second
    assert len(half) - bursts == pytest.approx(2_000 * 15, rel=0.02)
    assert len(chapter.likers(0.5)) == chapter.LIKERS // 2
    assert np.array_equal(chapter.likers(), chapter.likers.__wrapped__(1.0))  # same draw again
    assert set(chapter.likers().tolist()) <= set(one.tolist())


def test_the_verdict_tables_dense_map_run_is_the_lua_script_on_fakeredis(fake_lab):
    replies = chapter.embedded_replies()
    dense = dense_map.DenseMap.for_lab(fake_lab)
    ints = dense.lookup_many(range(SEED_ID, SEED_ID + chapter.DENSE_USERS))
    assert replies.dense_max == max(ints) == chapter.DENSE_USERS - 1
    assert replies.dense_issued == dense.issued()
    assert replies.setbit_error == "ERR bit offset is not an integer or out of range"


def test_map_memory_on_the_embedded_backend_is_the_labelled_reference_run(fake_lab):
    measured = chapter.map_memory(fake_lab)
    stored = dense_map.DenseMapReference.load()
    assert not measured.live and measured.value == stored.at(chapter.LIKERS)
    assert measured.label == stored.run.label and "fakeredis" in measured.why_not_live
    assert chapter.FIGURES["sf-map-memory"].endswith(f"({stored.run.label})")


@pytest.mark.live
def test_map_memory_on_a_real_redis_is_measured_this_run(live_lab):
    measured = chapter.map_memory(live_lab)
    assert measured.live and measured.label.startswith("this run: Redis")
    assert measured.value.users == chapter.LIKERS and measured.value.encoding == "hashtable"


def test_the_tables_have_one_row_per_case():
    assert chapter.example_rows_markdown().count("\n") == 2 + len(chapter.SEED_ROWS) - 1
    assert chapter.bias_markdown().count("\n") == 2 + 3 - 1
    runs = chapter.leaf_runs()
    assert chapter.leaf_markdown(runs, chapter.LEAF["requests"]).count("\n") == 2 + 5 - 1
    side = chapter.side_by_side_markdown()
    assert side.count("\n") == 2 + 4 - 1 and chapter.FIGURES["sf-low32-share"] in side


def test_max_safe_integer_has_16_digits_and_the_seeds_id_19():
    assert _verdict("000-js-16-digits") is Verdict.CORRECT
    assert len(str(2**53 - 1)) == 16 and len("2051776854918803458") == 19
    assert float(2**53 + 1) == float(2**53)  # the first integer a double cannot hold


def test_the_round_trip_table_has_a_row_per_lookup_and_its_two_calls():
    from collections import Counter

    sent = {
        "in the client": [Counter(), Counter()],
        "map, no script": [Counter({"HGET": 1, "INCRBY": 1, "HSETNX": 1}), Counter({"HGET": 1})],
    }
    assert chapter.commands_markdown(sent).splitlines() == [
        "| offset from | new user | same user again |",
        "|:--|:--|:--|",
        "| in the client | none | none |",
        "| map, no script | HGET ×1, INCRBY ×1, HSETNX ×1 | HGET ×1 |",
    ]
