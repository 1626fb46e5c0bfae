"""The Bloom calculator of bloom-basics: Vega computes what `setlab calc bloom` does, and the
jemalloc allocation the calculator adds is the size-class table's."""

from __future__ import annotations

import itertools

import pytest

from setlab.chapters.bloom_basics import widget as bloom_widget
from setlab.models.redisbloom import ChainLayout
from setlab.render.widgets import evaluate_in_vega
from setlab.tools.calc import solve_bloom

#: Settings beyond the fallback's: tiny and huge filters, a rate near 1/2, loads each side of the
#: sub-filter boundaries (1, 3) of the default chain.
EXTRA = [{"n": 1000, "p": 0.5, "load": 0.05}, {"n": 10**10, "p": 1e-6, "load": 4.0},
         {"n": 123_457, "p": 0.0372, "load": 1.05}, {"n": 5_000_000, "p": 0.02, "load": 3.05},
         {"n": 77_777, "p": 0.001, "load": 2.95}, {"n": 1, "p": 0.9, "load": 4.0}]  # fmt: skip


def solving(*names: str, **values: float) -> dict:
    """A setting that gives ``names`` (the others are solved) at ``values``."""
    return {**{f"{q}_given": int(q in names) for q in bloom_widget.GIVEN}, **values}


#: Every pair and triple setlab calc bloom solves, at ordinary and extreme values (the corners
#: of the controls: 2^38 bits with one hash, 64 hashes, p = 10^-9).
SOLVES = [
    solving("m", "p", m=2**32, p=0.01), solving("m", "p", "k", m=10**9, p=0.001, k=3),
    solving("n", "m", n=10**6, m=10**7), solving("n", "m", "k", n=10**6, m=10**7, k=2),
    solving("n", "k", n=10**8, k=12), solving("m", "k", m=123_456_789, k=5, load=2.5),
    solving("n", "p", "k", n=800_000_000, p=0.01, k=3), solving("n", "p", "k", n=10, p=0.3, k=64),
    solving("m", "k", m=bloom_widget.MAX_BITS, k=1, load=4.0),
    solving("n", "k", n=10**10, k=64, load=4.0), solving("m", "p", m=1, p=0.9),
    solving("n", "p", "k", n=10**10, p=1e-9, k=1, load=4.0),
]  # fmt: skip


@pytest.fixture(scope="module")
def widget():
    return bloom_widget.calculator()


@pytest.mark.parametrize(
    "setting", [*bloom_widget.SETTINGS, bloom_widget.DEFAULTS, *EXTRA, *SOLVES]
)
def test_every_readout_in_vega_matches_setlab_calc(widget, setting):
    got = evaluate_in_vega(widget, setting)
    assert got["refusal"] == ""
    full = {**widget.defaults, **setting}
    for readout in widget.readouts:
        want = readout.model(full)
        assert got[readout.name] == pytest.approx(want, rel=1e-9, abs=1e-300), readout.name


def test_the_solved_quantities_are_what_solve_bloom_gives_for_what_is_given(widget):
    # independent of the readouts' models: the function itself, called with the given options
    for setting in SOLVES:
        args = {q: setting[q] for q in bloom_widget.GIVEN if setting[f"{q}_given"]}
        want = solve_bloom(**args)
        got = evaluate_in_vega(widget, setting)
        assert (got["sol_n"], got["sol_m"], got["sol_k"]) == (want.n, want.m, want.k), setting
        assert got["sol_p"] == pytest.approx(want.p, rel=1e-12), setting


def test_a_combination_setlab_calc_refuses_is_refused_with_its_message(widget):
    # all 16 ways to tick n, p, m, k: the page's message is the CLI's, and "" where it solves
    values = {"n": 1000, "p": 0.01, "m": 10_000, "k": 3}
    for ticks in itertools.product((0, 1), repeat=4):
        names = [q for q, on in zip(bloom_widget.GIVEN, ticks, strict=True) if on]
        try:
            solve_bloom(**{q: values[q] for q in names})
            want = ""
        except ValueError as err:
            want = str(err)
        assert evaluate_in_vega(widget, solving(*names, **values))["refusal"] == want, names
    # m and p that cannot hold one item: the message, its size and rate written as Python does
    for m, p, k in [(100, 1e-7, 1), (12_345, 1e-9, 1), (30, 0.0001, 2), (3, 0.5, 64)]:
        with pytest.raises(ValueError) as err:
            solve_bloom(m=m, p=p, k=k)
        got = evaluate_in_vega(widget, solving("m", "p", "k", m=m, p=p, k=k))["refusal"]
        assert got == str(err.value)
    # a filter so full its rate rounds to 1 (a rate near 1, or a few bits for many items)
    for setting in [solving("n", "p", n=1000, p=0.99), solving("n", "m", n=10**10, m=64),
                    solving("n", "m", "k", n=10**6, m=1000, k=3)]:  # fmt: skip
        with pytest.raises(ValueError, match="rounds to 1") as err:
            solve_bloom(**bloom_widget.given({**widget.defaults, **setting}))
        assert evaluate_in_vega(widget, setting)["refusal"] == str(err.value)


def test_the_controls_extremes_stay_inside_the_jemalloc_table():
    # the largest sub-filter any corner of the controls makes: a wider control, or a change of
    # the chain, must widen MAX_ALLOCATION (the table), or the page would misprice silently
    largest = 0
    for setting in SOLVES:
        full = {**bloom_widget.calculator().defaults, **setting}
        solution = solve_bloom(**bloom_widget.given(full))
        p = full["p"] if full["p_given"] else solution.p
        layout = ChainLayout(p, solution.n)
        largest = max(largest, *(f.bytes for f in layout.sub_filters(3)))
    assert 2**38 < largest <= bloom_widget.MAX_ALLOCATION


def test_jemalloc_gives_a_whole_size_class_for_800_million_at_one_percent():
    # NONSCALING: 958,505,840 bytes of bits; jemalloc's classes in (512 MiB, 1 GiB] are 128 MiB
    # apart, so the array gets 1 GiB; the 32-byte chain and 64-byte link are classes themselves.
    layout = ChainLayout(0.01, 800_000_000, nonscaling=True)
    assert layout.sub_filter(0).bytes == 958_505_840
    assert layout.allocated() == 2**30 + 32 + 64
    # two links: the link array is one 128-byte block, each bit array rounds on its own
    two = ChainLayout(0.01, 1000)
    first, second = two.sub_filters(2)
    # 1384 bytes round to 1536 (256 apart in 1-2 KiB), 3120 to 3584 (512 apart in 2-4 KiB)
    assert first.bytes == 1384 and second.bytes == 3120
    assert two.allocated(1500) == 32 + 128 + 1536 + 3584


def test_the_fallback_table_starts_at_the_chapters_case(widget):
    first = widget.rows()[0]
    assert (first["n"], first["p"], first["load"]) == (800_000_000, 0.01, 1.0)
    assert "7,668,046,702" in widget.fallback_html()
