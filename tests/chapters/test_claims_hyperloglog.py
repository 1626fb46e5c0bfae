"""Claims of the chapter hyperloglog: every verdict re-derived from an independent criterion.

The oracles are the HyperLogLog's published parameters (16,384 six-bit registers, standard error
1.04/sqrt(m), Flajolet et al. 2007) with the normal distribution, and the raw reference file a
real Redis 7.0.15 wrote (read as JSON, not through the chapter's records).
"""

from __future__ import annotations

import json
import math
from importlib import resources

import pytest
from scipy.stats import norm

from setlab.render.claims import Verdict
from setlab.site import registry

REGISTERS = 2**14


def _claim(claim_id: str):
    claims = {c.id: c for c in registry.claims("hyperloglog")}
    return claims[claim_id]


@pytest.fixture(scope="module")
def stored() -> dict:
    text = (resources.files("setlab") / "data" / "hyperloglog-reference.json").read_text()
    return json.loads(text)


def test_12_kb_is_the_register_array_not_a_fixed_cost_of_the_key(stored):
    claim = _claim("003-hll-12kb")
    assert claim.verdict is Verdict.DEPENDS  # true once dense, not below
    registers = REGISTERS * 6 // 8
    assert registers == 12 * 1024  # the seed's 12 KB is right for the registers ...
    growth = {r["n"]: r for r in stored["growth"]}
    assert growth[100]["memory_usage"] < registers / 10  # ... but a small key is far smaller
    dense = [r["memory_usage"] for r in stored["growth"] if r["encoding"] == "dense"]
    assert dense and min(dense) > 14 * 1024  # and a dense one is more than 14 KiB
    assert f"{registers:,} B of registers" in claim.our_figure()


def test_one_percent_is_one_standard_deviation_not_a_bound():
    claim = _claim("003-hll-1pct")
    assert claim.verdict is Verdict.IMPRECISE
    se = 1.04 / math.sqrt(REGISTERS)
    beyond_1 = 2 * norm.sf(0.01 / se)
    assert 0.15 < beyond_1 < 0.3  # about one count in five misses by more than 1%
    assert 2 * norm.sf(0.025 / se) == pytest.approx(1 / 500, rel=0.3)  # one in 500 by 2.5%
    figure = claim.our_figure()
    assert f"standard error {se:.2%}" in figure
    share = int(figure.split("; ")[1].split("%")[0]) / 100
    assert abs(share - beyond_1) < 0.05  # the seeded sketches agree with the normal law


def test_pfadd_replies_zero_to_most_new_readers_once_the_key_is_full(stored):
    claim = _claim("003-hll-no-membership")
    assert claim.verdict is Verdict.CORRECT
    zeros = {(r["from"], r["to"]): r["zero_replies"] for r in stored["zero_replies"]}
    late = zeros[10_000, 100_000] / 90_000
    assert late > 0.5  # most brand-new readers look like repeats ...
    assert zeros[0, 10] + zeros[10, 100] == 0  # ... while a small test sees none of it
    assert f"for {late:.0%} of brand-new readers" in claim.our_figure()
