"""Claims of the chapter bloom-basics: every verdict re-derived from an independent criterion."""

from __future__ import annotations

import math

import numpy as np
import pytest

from setlab.chapters import bloom_basics
from setlab.render.claims import Claim, Verdict
from tests.chapters.test_claims_sentences import restated_here  # their tests are there


def _claim(claim_id: str) -> Claim:
    return {c.id: c for c in bloom_basics.FIGURES.claims}[claim_id]


def _p(n: float, m: float, k: int) -> float:
    """The classic false-positive rate (1 - e^(-kn/m))^k, written out here, not imported."""
    return (1 - math.exp(-k * n / m)) ** k


def test_the_chapter_checks_exactly_its_claims():
    assert {c.id for c in bloom_basics.FIGURES.claims} - restated_here("bloom-basics") == {
        "002-30pct-misses", "002-error-k-m", "004-java-bloom-works",
        "002-one-lookup", "004-java-constructor", "004-1e6-bits-small", "004-murmur-variants",
    }  # fmt: skip


def test_thirty_percent_of_ten_million_is_three_million():
    claim = _claim("002-30pct-misses")
    assert claim.verdict is Verdict.CORRECT
    assert 10_000_000 * 30 // 100 == 3_000_000
    assert claim.our_figure().startswith("3,000,000;")
    # a 1% filter for 8e8 items: -n ln(0.01) / ln(2)^2 bits ≈ 914 MiB, far below the 8e8 MySQL rows
    assert round(-8e8 * math.log(0.01) / math.log(2) ** 2 / 8 / 2**20) == 914


def test_the_rate_depends_on_n_too():
    assert _claim("002-error-k-m").verdict is Verdict.IMPRECISE
    m, k = 2**17, 10
    assert _p(2e9 / 2**17, m, k) > 100 * _p(8e8 / 2**17, m, k)  # same k and m, n changes it


def test_seed_004s_filter_ignores_the_element():
    claim = _claim("004-java-bloom-works")
    assert claim.verdict is Verdict.WRONG
    # The Java code, by hand: three numbers drawn once; index = |h % size| never reads the element,
    # so after one add every element's three bits are set.
    rng = np.random.default_rng(4)
    hash_functions = [int(rng.random() * (2**31 - 1)) for _ in range(3)]
    bits = {abs(h % 10_000) for h in hash_functions}
    assert claim.our_figure() == (
        f"element4 → True; 200 of 200 never-added strings present; {len(bits)} bits set in all"
    )


def test_seed_004s_filter_on_a_lab_says_present_for_a_stranger(fake_lab):
    from setlab.lab.runs.bloom import Seed004BloomFilter

    java = Seed004BloomFilter(fake_lab, "j", 10_000, 3, rng=np.random.default_rng(0))
    java.add("element1")
    assert java.contains("element4") and java.contains("anything at all")


def test_the_scaled_down_run_lets_strangers_through_at_about_the_target_rate():
    # bloom-basics' run: 8,000 members at 1%, 4,000 lookups, 30% of them strangers. The measured
    # rate must be a plausible Binomial(misses, 1%) outcome: within 4 standard deviations.
    run = bloom_basics.openid_run()
    sd = math.sqrt(run.misses * 0.01 * 0.99)
    assert abs(run.misses_through - 0.01 * run.misses) < 4 * sd
    assert run.members_found == 1.0


def test_a_check_probes_one_bit_per_hash_function():
    claim = _claim("002-one-lookup")
    k = round(-math.log2(0.001))  # the optimal k for 0.1%: log2(1/p)
    assert claim.verdict is Verdict.IMPRECISE and claim.our_figure().startswith(f"k probes: {k} ")


def test_the_java_constructor_is_called_with_one_argument_too_many():
    import re

    claim = _claim("004-java-constructor")
    declared = re.search(r"\((.*)\)", bloom_basics.SEED_004_DECLARED).group(1).count(",") + 1
    passed = re.search(r"\((.*)\)", bloom_basics.SEED_004_CALL).group(1).count(",") + 1
    assert (declared, passed) == (3, 4) and claim.verdict is Verdict.WRONG


@pytest.mark.live
def test_a_million_bit_bitmap_costs_what_memory_usage_says(redis_server):
    from setlab.core.formats import format_bytes

    claim = _claim("004-1e6-bits-small")
    client = redis_server.client()
    client.setbit("setlab:test:1e6-bits", 10**6 - 1, 1)
    try:
        usage = client.memory_usage("setlab:test:1e6-bits", samples=0)
    finally:
        client.delete("setlab:test:1e6-bits")
    assert 125_000 < usage < 140_000 and claim.verdict is Verdict.CORRECT
    assert claim.our_figure() == f"{format_bytes(usage)} MEMORY USAGE"


def test_both_murmur3_variants_run_here_and_differ():
    import mmh3

    claim = _claim("004-murmur-variants")
    data = bloom_basics.SEED_004_UUID
    x86 = mmh3.hash(data, 0, signed=False)
    h1 = int.from_bytes(
        mmh3.hash128(data, 0, x64arch=True, signed=False).to_bytes(16, "little")[:8], "little"
    )
    assert f"{x86:#010x}" in claim.our_figure() and f"{h1:#018x}" in claim.our_figure()
    assert claim.verdict is Verdict.IMPRECISE
