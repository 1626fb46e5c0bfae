"""setlab.lab.reference.beside: the sentence a page shows beside a reference figure."""

from __future__ import annotations

from setlab.lab.reference import Measurement, beside


def test_a_live_value_is_described_with_where_it_was_measured():
    m = Measurement(3, True, "this run: Redis 7.0.15 (jemalloc-5.3.0) on 127.0.0.1:5")
    assert beside(m, lambda v: f"{v} probes") == (
        "This run (Redis 7.0.15 (jemalloc-5.3.0) on 127.0.0.1:5): 3 probes."
    )


def test_a_stored_value_is_never_described_as_this_runs():
    m = Measurement(
        3, False, "reference run: Redis 7.0.15 …", "the embedded fakeredis measures nothing"
    )
    text = beside(m, lambda v: f"{v} probes")
    assert "3 probes" not in text and "this machine" not in text
    assert "the embedded fakeredis measures nothing" in text
