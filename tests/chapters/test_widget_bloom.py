"""The Bloom calculator of bloom-basics: Vega computes what `setlab calc bloom` does, and the
jemalloc allocation the calculator adds is the size-class table's."""

from __future__ import annotations

import pytest

from setlab.chapters.bloom_basics import widget as bloom_widget
from setlab.models.redisbloom import ChainLayout
from setlab.render.widgets import evaluate_in_vega

#: Settings beyond the fallback's: tiny and huge filters, a rate near 1/2, loads each side of the
#: sub-filter boundaries (1, 3) of the default chain.
EXTRA = [{"n": 1000, "p": 0.5, "load": 0.05}, {"n": 10**10, "p": 1e-6, "load": 4.0},
         {"n": 123_457, "p": 0.0372, "load": 1.05}, {"n": 5_000_000, "p": 0.02, "load": 3.05},
         {"n": 77_777, "p": 0.001, "load": 2.95}]  # fmt: skip


@pytest.fixture(scope="module")
def widget():
    return bloom_widget.calculator()


@pytest.mark.parametrize("setting", [*bloom_widget.SETTINGS, bloom_widget.DEFAULTS, *EXTRA])
def test_every_readout_in_vega_matches_setlab_calc(widget, setting):
    got = evaluate_in_vega(widget, setting)
    full = {**widget.defaults, **setting}
    for readout in widget.readouts:
        want = readout.model(full)
        assert got[readout.name] == pytest.approx(want, rel=1e-9, abs=1e-300), readout.name


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
