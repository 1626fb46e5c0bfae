"""setlab.core.formats: the sizes, durations and hours prose and axes show (the rates,
probabilities and readouts are tested beside their models: test_bloom, test_birthday,
test_widget_infra)."""

import pytest

from setlab.core.formats import format_bytes, format_duration, format_hours


@pytest.mark.parametrize(
    ("n", "text"),
    [(0, "0 B"), (1023, "1023 B"), (1024, "1 KiB"), (1310720, "1.25 MiB"),
     (640 * 2**20, "640 MiB"), (3 * 2**30, "3 GiB"), (2**50, "1024 TiB")],
)  # fmt: skip
def test_format_bytes_uses_binary_units_without_exponents(n, text):
    assert format_bytes(n) == text


@pytest.mark.parametrize(
    ("s", "text"),
    [(1e-6, "1 µs"), (1e-4, "100 µs"), (0.01234, "12.3 ms"), (1.5, "1.5 s"), (123.4, "123 s")],
)
def test_format_duration_picks_the_unit(s, text):
    assert format_duration(s) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.5, "500 ms"), (441.0, "441 s"), (7200.0, "2 h"), (9288.0, "2.58 h"), (6024.0, "1.67 h"),
     (3.6e6, "1000 h")],
)  # fmt: skip
def test_load_times_switch_to_hours_past_an_hour(seconds, text):
    assert format_hours(seconds) == text


def test_negative_quantities_are_rejected():
    with pytest.raises(ValueError, match="bytes"):
        format_bytes(-1)
    with pytest.raises(ValueError, match="seconds"):
        format_duration(-0.1)


def test_format_bytes_si_gives_the_decimal_megabytes_a_seed_would_print_beside_binary():
    from setlab.core.formats import format_bytes_si

    assert format_bytes_si(12_500_000) == "11.9 MiB (12.5 MB)"
    assert format_bytes_si(380 * 2**20) == "380 MiB (398 MB)"
    with pytest.raises(ValueError, match="n must be >= 0"):
        format_bytes_si(-1)
