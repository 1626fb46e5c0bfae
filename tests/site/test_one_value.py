"""One measured quantity, one value: every figure of the book that declares what it measures
(``Figures.add(..., quantity=...)``: the quantity, how it was timed, which run) shows the same
value wherever that quantity is named, and the calculator and the CLI read that value too."""

from __future__ import annotations

from setlab.core.formats import format_duration
from setlab.models import bitmap
from setlab.render.claims import Figures, quantity_conflicts
from setlab.site import registry


def test_a_quantity_shown_with_two_values_is_caught():
    one, other = Figures("test-one"), Figures("test-other")
    quantity = "first SETBIT at offset 4,294,967,295 | inside Redis | a run"
    one.add("one-ms", lambda: "765 ms", quantity=quantity)
    other.add("other-ms", lambda: "377 ms", quantity=quantity)
    other.add("other-round-trip", lambda: "377 ms", quantity=quantity.replace("inside", "out"))
    (found,) = quantity_conflicts([one, other])
    assert "765 ms (test-one:one-ms)" in found and "377 ms (test-other:other-ms)" in found
    assert quantity_conflicts([other]) == []


def test_every_quantity_the_book_names_has_one_value():
    book = [registry.figures(slug) for slug in registry.CHAPTERS]
    assert sum(len(f.quantities()) for f in book) >= 7
    assert quantity_conflicts(book) == []


def test_the_setbit_calculator_and_cli_read_the_chapters_first_write_time():
    from setlab.tools.calc import setbit as calc

    chapter = registry.figures("setbit-offset")
    at_max = calc.first_write_ms(bitmap.MAX_OFFSET) / 1e3
    assert format_duration(at_max) == chapter["sb-max-ms"]
    at_incident = calc.first_write_ms(1_823_456_789) / 1e3
    assert format_duration(at_incident) == chapter["sb-first-ms"]
