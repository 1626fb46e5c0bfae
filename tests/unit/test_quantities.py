"""setlab.core.quantities: numbers, rates, sizes and ranges as people type them.

References: the values written out by hand next to each text.
"""

from __future__ import annotations

import pytest

from setlab.core import quantities


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("120000000", 120_000_000), ("1.2e8", 120_000_000), ("120M", 120_000_000),
        ("120_000_000", 120_000_000), ("120,000,000", 120_000_000), ("2^32", 4_294_967_296),
        ("2**32", 4_294_967_296), ("1.5k", 1500), (" 7 ", 7), ("1G", 10**9), (3, 3),
    ],
)  # fmt: skip
def test_counts_parse_the_ways_people_write_them(text, value):
    assert quantities.parse_count(text) == value


@pytest.mark.parametrize("text", ["abc", "1.5", "-3", "", ".", "1x", "1e400", "2^1000", "1e-3"])
def test_bad_counts_are_value_errors_that_name_the_parameter(text):
    with pytest.raises(ValueError, match=r"^n"):
        quantities.parse_count(text, "n")


@pytest.mark.parametrize(
    ("text", "bits"),
    [
        ("1150000000", 1_150_000_000), ("2^30", 2**30), ("8b", 8), ("1 bit", 1),
        ("128MiB", 128 * 2**20 * 8), ("137 MiB", 137 * 2**20 * 8), ("1GB", 8 * 10**9),
        ("1B", 8), ("2KiB", 16384),
    ],
)  # fmt: skip
def test_sizes_are_bits_unless_a_byte_unit_says_otherwise(text, bits):
    assert quantities.parse_bits(text) == bits


@pytest.mark.parametrize("text", ["1.5", "12 parsecs", "0", "0.1B"])
def test_bad_sizes_are_value_errors(text):
    with pytest.raises(ValueError, match=r"^m"):
        quantities.parse_bits(text)


@pytest.mark.parametrize(
    ("text", "p"), [("1%", 0.01), ("0.01", 0.01), ("1e-3", 0.001), ("1/1000", 0.001), (0.5, 0.5)]
)
def test_rates_parse_as_fractions(text, p):
    assert quantities.parse_probability(text) == pytest.approx(p)


@pytest.mark.parametrize("text", ["0", "1", "150%", "1/0", "x", "-1%"])
def test_rates_outside_zero_and_one_are_refused(text):
    with pytest.raises(ValueError, match=r"^p"):
        quantities.parse_probability(text)


def test_ranges_are_half_open_and_default_to_start_at_zero():
    assert quantities.parse_range("0:2^32") == (0, 2**32)
    assert quantities.parse_range("1e6") == (0, 10**6)
    for bad in ("5:5", "1:2:3", "x:5"):
        with pytest.raises(ValueError, match="range"):
            quantities.parse_range(bad)
