"""The birthday explorer and the SETBIT offset figure: Vega computes what `setlab calc birthday`
and `setlab calc setbit --redis R` print (for every release the server choice offers), and those
calculators agree with independent derivations (a direct product for the birthday chance,
Redis's sds, jemalloc and glibc rules written out by hand, the stored run's own rows at its
measured offsets)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from setlab.chapters.birthday_collisions import widget as birthday_widget
from setlab.chapters.setbit_offset import widget as setbit_widget
from setlab.lab.runs.setbit import SetbitReference
from setlab.models import bitmap, builds
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

SETBIT_EXTRA = [{"offset": 1}, {"offset": 47}, {"offset": 48}, {"offset": 2047}, {"offset": 2**31},
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


#: Offsets either side of where a release's block changes rule: the sds header (strings of 32,
#: 256 and 65,536 bytes), glibc's mapping threshold (a request of 128 KiB with its 8-byte chunk
#: header: a string of 131,054 bytes), jemalloc's classes below 64 bytes (24, 40, 56 on the
#: bundled build), and the incident's and the largest offsets.
RELEASE_OFFSETS = [0, 47, 48, 247, 248, 2039, 2040, 524_279, 524_280, 8 * 131_053 - 1,
                   8 * 131_053, 5_000_000, 1_823_456_789, bitmap.MAX_OFFSET]  # fmt: skip


@pytest.mark.parametrize("release", list(builds.RELEASES))
def test_setbit_readouts_in_vega_match_setlab_calc_on_every_release(setbit, release):
    for offset in RELEASE_OFFSETS:
        setting = {"offset": offset, "redis": release}
        got = evaluate_in_vega(setbit, setting)
        data = setbit_report(offset, release).data  # what setlab calc setbit --redis prints
        assert data["release"] == release and data["allocator"] == builds.Build(release).allocator
        assert (got["alloc"], got["usage"]) == (data["allocation"], data["memory_usage"]), setting
        assert got["total"] == data["memory_usage"], setting  # one set by default


def test_the_server_choice_offers_every_release_the_cli_takes_and_the_line_names_it(setbit):
    (choice,) = setbit.choices
    assert list(choice.options) == list(builds.RELEASES)
    assert choice.value == builds.DEFAULT_RELEASE and "the default" in choice.options["7.0"]
    assert "glibc" in choice.options["valkey-8.1"] and "jemalloc" in choice.options["8.2"]
    row = next(r for r in setbit.rows() if r["redis"] == "valkey-8.1")
    line = setbit.command_text(setbit.terminal, row)
    assert line == f"setlab calc setbit {bitmap.MAX_OFFSET} --redis valkey-8.1 --sets 1"
    data = _calc(*line.split()[2:])
    assert (data["allocation"], data["memory_usage"]) == (row["alloc"], row["usage"])
    # the fallback names the server of each column
    assert "Valkey 8.1 (glibc malloc)" in setbit.fallback_html()


@pytest.mark.parametrize("size", [1, 24, 25, 40, 41, 120, 121, 131_063, 131_064, 131_065,
                                  2**20, 2**29 + 10])  # fmt: skip
def test_the_widgets_glibc_rounding_is_glibcs(size):
    """glibc's malloc written out (malloc.c: a chunk is the request plus its 8-byte size field,
    rounded up to 16 and at least 32; from M_MMAP_THRESHOLD, 128 KiB, whole 4 KiB pages, of
    which the chunk's two header words are not usable), against the widget's expression."""
    from setlab.render.widgets import Control, Readout, Widget

    chunk = size + 8
    if chunk >= 128 * 1024:
        want = -(-chunk // 4096) * 4096 - 16
    else:
        want = max(32, -(-chunk // 16) * 16) - 8
    w = Widget("g", "g", setbit_widget._chart((1.0, 2.0), (1.0, 2.0)),
               [Control("n", "n", 1, 1, 2**30, integer=True)],
               [Readout("u", "u", setbit_widget.glibc_expr("n"), lambda s: want)],
               "c", "s")  # fmt: skip
    assert evaluate_in_vega(w, {"n": size})["u"] == want


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
    valkey = _calc("setbit", "4294967295", "--redis", "valkey-8.1")
    assert valkey["allocation"] == setbit_report(2**32 - 1, "valkey-8.1").data["allocation"]


@pytest.mark.parametrize(
    ("args", "message"),
    [(["birthday", "-n", "10", "--bits", "65"], "64"), (["setbit", "4294967296"], "4,294,967,295")],
)
def test_setlab_calc_refuses_out_of_range_in_one_line(args, message):
    result = subprocess.run([sys.executable, "-m", "setlab", "calc", *args],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
