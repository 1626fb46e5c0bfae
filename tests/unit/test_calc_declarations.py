"""A calculator is declared once (setlab.tools.calc.calculator) and the command line is made
from the declaration (setlab.cli.calculators): a planted declaration becomes a subcommand with
its help, options, errors, --sets and --json, and a declaration that cannot be wired is refused
where it is written."""

from __future__ import annotations

import json

import pytest

from setlab.cli.main import main
from setlab.tools import calc
from setlab.tools.calc.calculator import SHARED_OPTIONS, Calculator, Option, count, rate
from setlab.tools.calc.report import Report


def _planted_run(given):
    report = Report(f"planted: {given['n']:,} at {given['p']}")
    report.rows = [("doubled", f"{2 * given['n']:,}")]
    report.data = {"n": given["n"], "p": given["p"], "loud": given["loud"],
                   "file": given["file"], "bytes": 3 * given["n"]}  # fmt: skip
    return [report]


PLANTED = Calculator(
    "planted",
    help="a calculator only this test declares (at 1% by default)",
    description="Declared in the test and nowhere else.",
    options=(
        Option(("file",), "an optional positional", optional=True),
        Option(("-n", "--items"), "items", dest="n", read=count("n"), required=True),
        Option(("-p", "--error"), "rate (default 1%)", dest="p", read=rate("p"), default=0.01),
        Option(("--loud",), "a switch", switch=True),
    ),
    run=_planted_run,
    key_bytes="bytes",
    example="setlab calc planted -n 5",
)


@pytest.fixture
def planted(monkeypatch):
    monkeypatch.setattr(calc, "CALCULATORS", (*calc.CALCULATORS, PLANTED))


def test_a_planted_declaration_is_a_subcommand_with_its_help(planted, capsys):
    with pytest.raises(SystemExit):
        main(["calc", "--help"])
    assert "planted      a calculator only this test declares (at 1% by default)" in (
        capsys.readouterr().out
    )
    with pytest.raises(SystemExit):
        main(["calc", "planted", "--help"])
    text = capsys.readouterr().out
    assert text.startswith("usage: setlab calc planted [-h] -n N [-p P] [--loud] [--sets N]")
    assert "Declared in the test and nowhere else." in text and "rate (default 1%)" in text
    assert "--server-memory SIZE" in text and "--json" in text


def test_a_planted_declaration_runs_reads_its_options_and_sizes_its_sets(planted, capsys):
    assert main(["calc", "planted", "-n", "2k", "--loud", "--sets", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["n"], data["p"], data["loud"], data["file"]) == (2000, 0.01, True, None)
    assert data["scale"]["total"] == 10 * 6000  # --sets times the declared key's bytes
    assert main(["calc", "planted", "ids.txt", "-n", "5", "-p", "1/8"]) == 0
    assert capsys.readouterr().out.splitlines() == ["planted: 5 at 0.125", "  doubled  10"]


def test_a_planted_declarations_bad_value_is_its_parsers_one_line(planted, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["calc", "planted", "-n", "0"])
    assert exit_.value.code == 2
    assert "argument -n/--items: n must be" in capsys.readouterr().err


def test_every_shared_option_a_declaration_may_name_is_one_the_cli_adds():
    from setlab.cli.calculators import SHARED

    assert set(SHARED) == set(SHARED_OPTIONS)
    assert {s for c in calc.CALCULATORS for s in c.shared} <= set(SHARED_OPTIONS)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Option((), "x"), "flags must name"),
        (lambda: Option(("file",), "x", dest="f"), "a positional has one name"),
        (lambda: Option(("-n",), "x", optional=True), "optional is for positionals"),
        (lambda: Option(("--loud",), "x", switch=True, read=count("loud")), "takes no value"),
        (lambda: Calculator("Bad_Name", "h", "d", (), _planted_run), "name must be lowercase"),
        (lambda: Calculator("x", "h", "d", (), _planted_run, shared=("colour",)),
         "shared options must be among"),
        (lambda: Calculator("x", "h", "d", (Option(("--max-ids",), "x"),), _planted_run,
                            shared=("max-ids",)), "land on one name twice"),
        (lambda: Calculator("x", "h", "d", (), _planted_run, example="setlab calc y 1"),
         "example must be a line starting 'setlab calc x '"),
    ],
)  # fmt: skip
def test_a_declaration_that_cannot_be_wired_is_refused_where_it_is_written(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_calculator_is_found_by_name_and_an_unknown_name_lists_the_real_ones():
    assert calc.named("density").name == "density"
    with pytest.raises(ValueError, match=r"calculator must be one of bloom, .*; got 'nope'"):
        calc.named("nope")
