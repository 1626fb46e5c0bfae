"""setlab.core.validate: the shared argument checks."""

import math

import pytest

from setlab.core.validate import check_int, check_probability


@pytest.mark.parametrize("good", [0, 5, 10])
def test_check_int_accepts_integers_in_range(good):
    assert check_int("x", good, 0, 10) == int(good)


@pytest.mark.parametrize("bad", [-1, 11, 2.0, "3", None, True])
def test_check_int_names_the_parameter_and_the_range(bad):
    with pytest.raises(ValueError, match=r"^x must be"):
        check_int("x", bad, 0, 10)


@pytest.mark.parametrize("bad", [0, 1, -0.5, 1.5, math.nan, "0.1", True])
def test_check_probability_rejects_everything_outside_the_open_interval(bad):
    with pytest.raises(ValueError, match="p must be a probability strictly between 0 and 1"):
        check_probability("p", bad)


def test_check_probability_returns_a_float():
    assert check_probability("p", 0.25) == 0.25
