"""SETLAB_SCALE: read in one place, refused with its range when it makes no sense."""

from __future__ import annotations

from pathlib import Path

import pytest

import setlab
from setlab.core.scale import RANGE, parse_scale, scaled
from setlab.lab.errors import ConfigurationError, SetlabError

BOOK = Path(__file__).resolve().parents[2] / "book"


@pytest.mark.parametrize(("text", "value"), [(None, 1.0), ("", 1.0), ("0.5", 0.5), ("100", 100.0)])
def test_a_sensible_scale_is_read(text, value):
    assert parse_scale(text) == value


@pytest.mark.parametrize("bad", ["abc", "0", "-1", "1e9", "nan", "inf", "0.001"])
def test_a_senseless_scale_is_refused_with_its_range(bad):
    with pytest.raises(ValueError, match=rf"SETLAB_SCALE must be a number from {RANGE[0]:g} to"):
        parse_scale(bad)


def test_scaled_sizes_follow_the_scale_and_keep_a_minimum(monkeypatch):
    monkeypatch.setenv("SETLAB_SCALE", "0.01")
    assert scaled(1_000) == 10 and scaled(10, minimum=5) == 5


@pytest.mark.parametrize("bad", ["abc", "0", "1e9"])
def test_connect_refuses_a_bad_scale_as_one_setlab_error(monkeypatch, bad):
    monkeypatch.setenv("SETLAB_SCALE", bad)
    with pytest.raises(ConfigurationError, match="SETLAB_SCALE") as refused:
        setlab.connect("scale-test", backend="fake", quiet=True)
    assert isinstance(refused.value, SetlabError)


def test_no_chapter_reads_setlab_scale_by_itself():
    for page in BOOK.glob("*.md"):
        assert 'os.environ.get("SETLAB_SCALE"' not in page.read_text(), page.name
