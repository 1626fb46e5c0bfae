"""The birthday explorer and the SETBIT offset figure: Vega computes what `setlab calc birthday`
and `setlab calc setbit` print, and those calculators agree with independent derivations (a
direct product for the birthday chance, Redis's sds and jemalloc rules written out by hand, the
stored run's own rows at its measured offsets)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from setlab.chapters.birthday_collisions import widget as birthday_widget
from setlab.chapters.setbit_offset import widget as setbit_widget
from setlab.lab.runs.setbit import SetbitReference
from setlab.render.widgets import evaluate_in_vega
from setlab.tools.calc.birthday import birthday_report
from setlab.tools.calc.setbit import setbit_report


def _calc(*args: str) -> dict:
    """``setlab calc … --json`` in a subprocess, as a reader would run it."""
    out = subprocess.run([sys.executable, "-m", "setlab", "calc", *args, "--json"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(out.stdout)


# -- birthday ---------------------------------------------------------------------------------

BIRTHDAY_EXTRA = [{"n": 2, "bits": 16}, {"n": 65_536, "bits": 16}, {"n": 65_537, "bits": 16},
                  {"n": 500, "bits": 16}, {"n": 2_000, "bits": 20}, {"n": 77_000, "bits": 32},
                  {"n": 10**9, "bits": 58}]  # fmt: skip


@pytest.fixture(scope="module")
def birthday():
    return birthday_widget.explorer()


@pytest.mark.parametrize(
    "setting", [birthday_widget.DEFAULTS, *birthday_widget.SETTINGS, *BIRTHDAY_EXTRA]
)
def test_birthday_readouts_in_vega_match_the_exact_model(birthday, setting):
    got = evaluate_in_vega(birthday, setting)
    for readout in birthday.readouts:
        assert got[readout.name] == pytest.approx(readout.model(setting), rel=1e-8), readout.name


@pytest.mark.parametrize(("n", "bits"), [(100, 16), (1000, 20), (2000, 24)])
def test_birthday_chance_is_one_minus_the_product_of_free_slots(n, bits):
    m = 2**bits
    free = math.prod((m - i) / m for i in range(n))  # written out: 1 − Π (1 − i/M)
    assert birthday_report(n, bits).data["collision_probability"] == pytest.approx(1 - free)


def test_birthday_safe_count_is_the_last_n_under_one_percent():
    data = birthday_report(1000, 20).data
    n, m = data["max_ids_at_risk"], 2**20
    below = 1 - math.prod((m - i) / m for i in range(n))
    above = 1 - math.prod((m - i) / m for i in range(n + 1))
    assert below <= 0.01 < above


def test_the_seeds_wrong_cell_is_on_the_chart(birthday):
    layers = birthday.spec()["layer"]
    cells = next(layer["data"]["values"] for layer in layers if "printed" in str(layer))
    wrong = [c for c in cells if c["verdict"] == "wrong"]
    assert [(c["n"], c["bits"]) for c in wrong] == [(1000, 20)]


# -- SETBIT -------------------------------------------------------------------------------------

SETBIT_EXTRA = [{"offset": 1}, {"offset": 47}, {"offset": 48}, {"offset": 2047},
                {"offset": 2048}, {"offset": 5_000_000}, {"offset": 39_088_513}]  # fmt: skip


@pytest.fixture(scope="module")
def setbit():
    return setbit_widget.offset_explorer()


@pytest.mark.parametrize("setting", [setbit_widget.DEFAULTS, *setbit_widget.SETTINGS,
                                     *SETBIT_EXTRA])  # fmt: skip
def test_setbit_readouts_in_vega_match_setlab_calc(setbit, setting):
    got = evaluate_in_vega(setbit, setting)
    for readout in setbit.readouts:
        assert got[readout.name] == pytest.approx(readout.model(setting), rel=1e-9), readout.name


def _jemalloc(size: int) -> int:
    """jemalloc 5's classes as its manual lists them (16-byte quantum): 8, 16 … 128 by 16, then
    four classes per doubling."""
    if size <= 8:
        return 8
    if size <= 128:
        return -(-size // 16) * 16
    group = 1 << (size - 1).bit_length()  # the doubling the size falls in: (group/2, group]
    spacing = group // 8
    return -(-size // spacing) * spacing


@pytest.mark.parametrize("offset", [1000, 2**20, 1_823_456_789, 2**32 - 1])
def test_setbit_string_and_block_follow_sds_and_jemalloc(offset):
    data = setbit_report(offset).data
    length = offset // 8 + 1
    header = 3 if length < 256 else 5 if length < 65536 else 9  # sdshdr8/16/32, +1 for the NUL
    assert data["strlen"] == length
    assert data["allocation"] == _jemalloc(header + length + 1)


def test_setbit_time_at_a_measured_offset_is_the_stored_median():
    ref = SetbitReference.load()
    row = ref.median(1_823_456_789)
    data = setbit_report(1_823_456_789).data
    assert data["first_write_measured"] and data["first_write_ms"] == row.server_us / 1e3
    assert data["reference"].startswith("reference run: Redis 7.0.15")


def test_setbit_time_between_offsets_lies_between_their_medians():
    ref = {s.offset: s.server_us / 1e3 for s in SetbitReference.load().summaries()}
    low, high = 409_736_353, 1_000_000_000
    ms = setbit_report(700_000_000).data["first_write_ms"]
    assert ref[low] < ms < ref[high]
    assert not setbit_report(700_000_000).data["first_write_measured"]


# -- the command line ----------------------------------------------------------------------------


def test_setlab_calc_birthday_and_setbit_print_the_same_json():
    assert _calc("birthday", "-n", "1000", "--bits", "32") == {
        **birthday_report(1000, 32).data,
        "title": birthday_report(1000, 32).title,
        "notes": [],
    }
    assert (
        _calc("setbit", "1823456789")["memory_usage"]
        == setbit_report(1823456789).data["memory_usage"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [(["birthday", "-n", "10", "--bits", "65"], "64"), (["setbit", "4294967296"], "4,294,967,295")],
)
def test_setlab_calc_refuses_out_of_range_in_one_line(args, message):
    result = subprocess.run([sys.executable, "-m", "setlab", "calc", *args],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
