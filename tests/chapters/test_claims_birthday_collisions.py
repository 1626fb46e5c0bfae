"""Claims of the chapter birthday-collisions: every verdict re-derived independently,
and the chapter's own helpers.

The criteria recompute the birthday product with 40-digit decimals and the occupancy results
from their textbook limits (Feller, vol. 1, §II.3 and §IV.2), with the seed's figures typed here
from the seeds, never through setlab.models.birthday.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import pytest

from setlab.chapters import birthday_collisions as chapter
from setlab.render.claims import Verdict
from setlab.site import registry
from tests.chapters.test_claims_sentences import restated_here  # their tests are there

#: seed 000 §3.4 as printed (typed here from the seed): (log2 M, users) → probability in percent
SEED_000 = {
    (32, 100): "0.0001", (32, 1000): "0.01", (32, 10000): "1.2",
    (28, 100): "0.002", (28, 1000): "0.19", (28, 10000): "17",
    (24, 100): "0.03", (24, 1000): "3", (24, 10000): "95",
    (20, 100): "0.48", (20, 1000): "100", (20, 10000): "100",
}  # fmt: skip


def _claim(claim_id: str):
    return {c.id: c for c in registry.claims()}[claim_id]


def _exact_percent(n: int, m: int) -> Decimal:
    """100 × (1 − ∏_{i<n} (1 − i/m)), with 40 significant digits."""
    with localcontext() as ctx:
        ctx.prec = 40
        product = Decimal(1)
        for i in range(1, n):
            product *= 1 - Decimal(i) / Decimal(m)
        return 100 * (1 - product)


def _prints_as(value: Decimal, printed: str) -> bool:
    """Whether ``value`` rounds to ``printed`` at the number of significant figures printed."""
    digits = printed.replace(".", "").lstrip("0")
    figures = max(1, len(digits if "." in printed else digits.rstrip("0")))
    with localcontext() as ctx:
        ctx.prec = figures
        return +value == Decimal(printed)


def test_every_claim_of_the_chapter_has_a_test_here():
    tested = {"000-table-cells", "000-table-2^20-1000", "000-table-2^20-100",
              "000-table-memory", "004-0.002pct", "004-36.84pct"}  # fmt: skip
    assert {c.id for c in chapter.FIGURES.claims} - restated_here("birthday-collisions") == tested


def test_ten_of_the_twelve_cells_are_right_as_printed_so_the_table_is_imprecise():
    claim = _claim("000-table-cells")
    assert claim.verdict is Verdict.IMPRECISE  # a table with wrong cells, judged as a whole
    right = {
        key for key, printed in SEED_000.items() if _prints_as(_exact_percent(*_nm(key)), printed)
    }
    assert right == set(SEED_000) - {(20, 1000), (20, 100)}
    assert claim.our_figure() == "10 of 12 right as printed"


def _nm(key: tuple[int, int]) -> tuple[int, int]:
    log2_m, n = key
    return n, 2**log2_m


def test_a_certain_collision_for_1000_users_in_2_to_the_20_is_wrong():
    claim = _claim("000-table-2^20-1000")
    assert claim.verdict is Verdict.WRONG
    exact = _exact_percent(1000, 2**20)
    assert 37.8 < exact < 38.0  # nowhere near 100%
    assert float(exact) / 100 < 1000 * 999 / 2 / 2**20  # even the union bound is below one
    assert claim.our_figure() == "37.9%"


def test_0_48_percent_for_100_users_in_2_to_the_20_is_slightly_high_and_within_tolerance():
    from setlab.render.claims import CLOSE

    claim = _claim("000-table-2^20-100")
    exact = _exact_percent(100, 2**20)
    assert not _prints_as(exact, "0.48")
    assert 1 < 0.48 / float(exact) < CLOSE  # n²/2M, the usual approximation: correct
    assert claim.verdict is Verdict.CORRECT
    assert _prints_as(Decimal(100 * 100**2) / Decimal(2 * 2**20), "0.48")  # n²/2M prints 0.48%


def test_m_over_8_is_the_worst_first_allocation_not_the_typical_one():
    claim = _claim("000-table-memory")
    assert claim.verdict is Verdict.IMPRECISE
    m = 2**32
    assert m // 8 == 512 * 2**20  # the seed's 512 MB: every bit up to the last offset
    # a first offset uniform on 0 … M−1 allocates offset/8 + 1 bytes: M/16 on average
    assert (m - 1) / 2 / 8 + 1 == pytest.approx(m / 16, rel=1e-6)
    assert claim.our_figure() == "512 MiB at most, 256 MiB on average (M = 2^32)"


def test_0_002_percent_is_one_ordinary_run_judged_as_36_84_percent_is():
    claim = _claim("004-0.002pct")
    n, m = 100_000, 2**32
    pairs = n * (n - 1) / (2 * m)  # expected colliding pairs ≈ expected lost items here
    assert 1.1 < pairs < 1.2
    assert abs(2 - pairs) < math.sqrt(pairs)  # under one standard deviation (Poisson)
    assert claim.verdict is _claim("004-36.84pct").verdict is Verdict.CORRECT
    p_two_or_fewer = sum(math.exp(-pairs) * pairs**k / math.factorial(k) for k in range(3))
    assert p_two_or_fewer > 0.8  # the seed's 2 lost of 100,000 is an ordinary outcome
    assert -math.expm1(-pairs) > 0.5  # while "any collision" is more likely than not
    assert claim.also == ("bloom-basics",)


def test_36_84_percent_is_an_ordinary_run_near_one_over_e():
    claim = _claim("004-36.84pct")
    assert claim.verdict is Verdict.CORRECT
    n = 100_000
    empty = (1 - 1 / n) ** n
    assert empty == pytest.approx(math.exp(-1), rel=1e-5)
    sd = math.sqrt(math.exp(-1) * (1 - 2 * math.exp(-1)) / n)  # occupancy variance, n = m
    assert abs(0.3684 - empty) / sd < 1  # well inside one standard deviation
    assert claim.also == ("bloom-basics",)


def test_the_seed_004_claims_show_in_the_bloom_basics_table_too():
    shown = {c.id for c in registry.claims("bloom-basics")}
    assert {"004-0.002pct", "004-36.84pct"} <= shown


# -- the chapter's figures and helpers -------------------------------------------------------------


def test_the_table_quotes_the_figures_the_prose_shows():
    figures = chapter.FIGURES
    assert _claim("000-table-2^20-1000").our_figure() == figures["bd-wrong-exact"]
    assert figures["bd-wrong-n2m"] in _claim("000-table-2^20-1000").why
    assert figures["bd-004-z"] in _claim("004-36.84pct").why
    assert figures["bd-004-lost32"] in _claim("004-0.002pct").our_figure()


def test_seed_004_bitcount_figure_is_what_redis_counts(fake_lab):
    from setlab.lab.runs import like_bitmap

    _, sized = chapter.seed_004_bitmaps()
    sample = sized[:5_000]  # BITCOUNT after SETBITs is the number of distinct offsets
    assert like_bitmap.set_offsets(fake_lab, fake_lab.key("sized"), sample) == len(
        set(sample.tolist())
    )
    assert chapter.FIGURES["bd-004-bitcount"] == f"{len(set(sized.tolist())):,}"


def test_the_colliding_pairs_share_an_offset_by_mmh3():
    import mmh3

    def offset(user: int, m: int) -> int:
        return abs(mmh3.hash64(user.to_bytes(8, "little", signed=True))[0]) % m

    small, full = chapter.colliding_pairs()
    assert (small.m, full.m) == (2**20, 2**32 - 1)
    for pair in (small, full):
        assert offset(pair.first, pair.m) == offset(pair.second, pair.m) == pair.offset
        assert pair.first >= chapter.FIRST_USER


def test_simulations_cover_every_case_and_scale_their_trials():
    sims = chapter.simulations(0.05)  # the floor of 200 trials
    assert [(s.m.bit_length() - 1, s.n) for s in sims] == list(chapter.SIMULATION_CASES)
    assert {s.trials for s in sims} == {200}


def test_the_tables_have_one_row_per_cell_case_or_step():
    cells = chapter.seed_000_cells()
    assert chapter.seed_000_markdown(cells).count("\n") == 1 + len(SEED_000)
    assert chapter.candidates_markdown(cells[:2]).count("\n") == 1 + 7  # seven candidate formulas
    assert chapter.capacity_markdown().count("\n") == 1 + 4
    assert 'class="verdict-wrong"' in chapter.seed_000_markdown(cells)
    story = [{"step": "A likes", "command": "SETBIT … 5 1", "reply": 0, "A reads": True,
              "B reads": True, "BITCOUNT": 1, "truth": "A"}]  # fmt: skip
    assert "**liked** (wrong)" in chapter.story_markdown(story)
