"""Claims of the chapter bloom-basics: every verdict re-derived from an independent criterion."""

from __future__ import annotations

import math

import numpy as np

from setlab.chapters import bloom_basics
from setlab.render.claims import Claim, Verdict


def _claim(claim_id: str) -> Claim:
    return {c.id: c for c in bloom_basics.FIGURES.claims}[claim_id]


def _p(n: float, m: float, k: int) -> float:
    """The classic false-positive rate (1 - e^(-kn/m))^k, written out here, not imported."""
    return (1 - math.exp(-k * n / m)) ** k


def test_the_chapter_checks_exactly_its_three_claims():
    assert {c.id for c in bloom_basics.FIGURES.claims} == {
        "002-30pct-misses", "002-error-k-m", "004-java-bloom-works",
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
    from setlab.lab.bloom_filter import Seed004BloomFilter

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
