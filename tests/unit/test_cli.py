"""The `setlab` command, end to end in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "setlab", *args],
        capture_output=True, text=True, timeout=60, env={**os.environ, **env},
    )  # fmt: skip


def test_backend_prints_the_forced_choice():
    result = _run("backend", SETLAB_BACKEND="fake")
    assert result.returncode == 0
    assert result.stdout.strip() == "fake"


def test_bad_backend_is_exit_2_with_one_line_and_no_traceback():
    result = _run("backend", SETLAB_BACKEND="mongo")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "SETLAB_BACKEND must be auto, live or fake" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_subcommand_is_exit_2():
    result = _run("frobnicate")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_doctor_reports_every_check_as_json():
    result = _run("doctor", "--json")
    report = json.loads(result.stdout)
    names = [c["name"] for c in report["checks"]]
    assert names[:3] == ["Python", "packages", "book toolchain"]
    assert "backend" in names
    assert result.returncode == (0 if report["ready"] else 1)
    for check in report["checks"]:
        assert check["ok"] or check["fix"], check


def test_doctor_without_redis_server_says_what_to_do_and_still_passes():
    result = _run("doctor", SETLAB_REDIS_SERVER="/nonexistent/redis-server", SETLAB_BACKEND="auto")
    assert "--  redis-server: not found" in result.stdout
    assert "apt-get install redis-server" in result.stdout
    assert "embedded fakeredis" in result.stdout  # the backend falls back and works
    assert result.returncode == 0 and "This machine is ready." in result.stdout


def test_doctor_with_an_unreachable_redis_url_is_not_ready():
    result = _run("doctor", REDIS_URL="redis://127.0.0.1:1/0")
    assert result.returncode == 1
    assert "FIX REDIS_URL: cannot reach Redis" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


# -- calc -----------------------------------------------------------------------------------------


def _json(*args: str) -> dict | list:
    result = _run(*args, "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)


def _bad(*args: str, stdin: str | None = None) -> str:
    """Run, expect exit 2 and exactly one line on stderr, no traceback; return that line."""
    result = subprocess.run(
        [sys.executable, "-m", "setlab", *args], input=stdin,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, (args, result.stdout, result.stderr)
    assert result.stderr.endswith("\n") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return result.stderr.strip()


def _calculators() -> list[str]:
    from setlab.tools.calc import CALCULATORS

    return [c.name for c in CALCULATORS]


@pytest.mark.parametrize("name", _calculators())
def test_every_calculators_example_runs_as_people_type_it(name, capsys):
    """The calculators page shows each declaration's example: it must run, in the notation it
    is written in (1e6, 1%, 2^17), and print what --json promises."""
    from setlab.cli.main import main
    from setlab.tools.calc import named

    words = named(name).example.split()
    assert words[:3] == ["setlab", "calc", name]
    assert main([*words[1:], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)


SUBCOMMANDS = [
    ["calc"], *(["calc", name] for name in _calculators()), ["advise"], ["backend"], ["doctor"],
    ["cleanup"], ["classroom"],
]  # fmt: skip


def test_the_help_lists_every_declared_calculator_once_in_the_registrys_order(capsys):
    """setlab calc's help and setlab's one-line summary both list the declarations of
    setlab.tools.calc, each once (every setlab.tools.calc module that declares a calculator is
    in the registry: two listings compared, not a count)."""
    import importlib
    import pkgutil
    import re

    import setlab.tools.calc
    from setlab.cli.main import main

    names = _calculators()
    assert len(names) == len(set(names))
    modules = [
        importlib.import_module(m.name)
        for m in pkgutil.iter_modules(setlab.tools.calc.__path__, "setlab.tools.calc.")
    ]
    declared = {m.CALCULATOR.name for m in modules if hasattr(m, "CALCULATOR")}
    assert declared == set(names)
    with pytest.raises(SystemExit):
        main(["calc", "--help"])
    listed = re.findall(r"^    (\S+)", capsys.readouterr().out, re.M)
    assert listed == names
    with pytest.raises(SystemExit):
        main(["--help"])
    summary = " ".join(capsys.readouterr().out.split())
    assert f"calc sizing calculators: {', '.join(names)}" in summary


@pytest.mark.parametrize("command", SUBCOMMANDS, ids=" ".join)
def test_every_subcommand_has_help(command, capsys):
    from setlab.cli.main import main

    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])  # in process: argparse's help is the same either way
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: setlab {' '.join(command)}")


def _every_command(parser=None, path=()):
    """Every (sub)command of ``setlab``'s parser, with its path of names."""
    import argparse

    from setlab.cli.main import build_parser

    parser = parser or build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            described = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                assert described.get(name), f"setlab {' '.join((*path, name))} has no description"
                yield from _every_command(sub, (*path, name))


def test_every_command_of_the_tree_prints_its_help_without_a_stray_percent():
    """Walks the parser itself, so a new subcommand is checked too; argparse writes '%%' as it
    stands in a description (only help strings are %-formatted)."""
    commands = dict(_every_command())
    assert ("classroom", "monitor") in commands and ("calc", "birthday") in commands
    for path, parser in commands.items():
        text = parser.format_help()
        assert text.startswith(f"usage: setlab {' '.join(path)}".rstrip()), path
        assert "%%" not in text, f"setlab {' '.join(path)} --help prints '%%'"


def test_calc_bloom_solves_seed_003s_filter_and_its_redisbloom_chain():
    text = _run("calc", "bloom", "-n", "1.2e8", "-p", "1%").stdout
    assert "137 MiB" in text and "k (hashes)     7" in text
    bloom, chain = _json("calc", "bloom", "-n", "120M", "-p", "0.01", "--redisbloom")
    assert bloom["k"] == 7 and abs(bloom["bits_per_item"] - 9.585) < 0.001
    assert chain["command"] == "BF.RESERVE key 0.01 120000000 EXPANSION 2"
    capacity = _json("calc", "bloom", "-m", "128MiB", "-p", "1%")
    assert capacity["m"] == 2**30 and 1.1e8 < capacity["n"] < 1.13e8


def test_calc_cuckoo_hll_and_set_answer_in_json():
    assert _json("calc", "cuckoo", "-n", "1e6", "-p", "0.1%")["fingerprint_bits"] == 13
    assert _json("calc", "hll", "-n", "1e6")["encoding"] == "dense"
    data = _json("calc", "set", "-n", "15000", "--type", "hex")
    assert data["encoding"] == "hashtable" and data["members"] == 15_000


def test_calc_roaring_from_a_count_and_from_stdin():
    data = _json("calc", "roaring", "-n", "1.2e8", "--range", "0:2^32")
    assert data["kinds"]["array"] == 65_536
    result = subprocess.run(
        [sys.executable, "-m", "setlab", "calc", "roaring", "-", "--json"],
        input="\n".join(map(str, range(100_000))), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0 and json.loads(result.stdout)["containers"] == 2


def test_calc_set_from_a_file(tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(f"{i:016x}" for i in range(2**60, 2**60 + 2000)))
    data = _json("calc", "set", str(path), "--format", "hex")
    assert data["members"] == 2000 and data["encoding"] == "hashtable"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["calc", "bloom", "-n", "1e8"], "two or three"),
        (["calc", "bloom", "-n", "x", "-p", "1%"], "'x' is not a number"),
        (["calc", "bloom", "-n", "1e8", "-p", "150%"], "between 0 and 1"),
        (["calc", "bloom", "-n", "1e8", "-p", "1%", "-m", "1GB", "-k", "7"], "not all four"),
        (["calc", "bloom", "-n", "1e8", "-p", "1%", "--load", "5"], "--redisbloom"),
        (["calc", "bloom", "--frobnicate"], "unrecognized arguments"),
        (["calc", "cuckoo", "-n", "100", "-b", "3"], "--load"),
        (["calc", "roaring"], "give a FILE"),
        (["calc", "set", "-n", "10", "--type", "string"], "--length"),
        (["advise", "/nonexistent/ids.txt"], "no such file"),
        (["advise", "/"], "directory"),
        (["advise", "-", "--error", "2"], "between 0 and 1"),
    ],
)  # fmt: skip
def test_bad_input_is_exit_2_with_one_line(args, says):
    assert says in _bad(*args, stdin="1\n")


# -- advise ---------------------------------------------------------------------------------------


def test_advise_dense_ids_recommends_a_bitmap_and_draws_the_histograms(tmp_path):
    ids, png = tmp_path / "orders.txt", tmp_path / "orders.png"
    ids.write_text("\n".join(map(str, range(1_000_000, 1_200_000))) + "\n")
    result = _run("advise", str(ids), "--plot", str(png))
    assert result.returncode == 0, result.stderr
    assert "Recommendation: plain bitmap" in result.stdout
    assert "IDs per 2^16 chunk" in result.stdout
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_advise_json_from_stdin_with_deletes():
    values = np.random.default_rng(1).integers(0, 2**63, 200_000, dtype=np.uint64)
    result = subprocess.run(
        [sys.executable, "-m", "setlab", "advise", "-", "--json", "--deletes"],
        input="\n".join(f"{v:016x}" for v in values.tolist()),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert data["kind"] == "hex" and data["distinct"] == 200_000
    assert data["recommendation"]["name"].startswith("cuckoo filter")
    assert {c["name"].split(",")[0] for c in data["candidates"]} == {
        "Redis SET", "plain bitmap", "Roaring bitmap", "Bloom filter", "cuckoo filter",
        "HyperLogLog",
    }  # fmt: skip


_JUNK_LINES = st.one_of(
    st.integers(0, 2**70).map(str), st.integers(0, 2**130).map(lambda v: f"{v:x}"),
    st.uuids().map(str), st.text(max_size=12), st.sampled_from(["", " ", "0x", "-1", "1 2"]),
)  # fmt: skip
_JUNK = st.one_of(
    st.binary(max_size=300), st.lists(_JUNK_LINES, max_size=20).map(lambda ls: "\n".join(ls)),
)  # fmt: skip


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_JUNK)
def test_advise_on_junk_files_exits_0_or_2_and_never_tracebacks(tmp_path, junk):
    path = tmp_path / "junk.txt"
    path.write_bytes(junk if isinstance(junk, bytes) else junk.encode("utf-8", "surrogatepass"))
    result = _run("advise", str(path))
    assert "Traceback" not in result.stderr + result.stdout
    if result.returncode == 0:
        assert "Recommendation:" in result.stdout
    else:
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("setlab advise: ") and result.stderr.count("\n") == 1


#: Budget for `setlab advise` on a million 64-bit IDs, end to end in a fresh process. Measured on
#: the 2-core reference machine: about 2 s (read and parse 0.6 s, analysis 0.5 s, imports 0.8 s).
#: The assertion only catches a gross regression (a Python loop per ID would take minutes).
ADVISE_BUDGET_S = 20.0


def test_advise_a_million_ids_within_the_budget(tmp_path):
    values = np.random.default_rng(9).integers(0, 2**63, 1_000_000, dtype=np.uint64)
    path = tmp_path / "million.txt"
    path.write_text("\n".join(map(str, values.tolist())) + "\n")
    start = time.perf_counter()
    result = _run("advise", str(path), "--json")
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ids"] == 1_000_000
    print(f"setlab advise, 1e6 IDs: {elapsed:.2f} s")
    assert elapsed < ADVISE_BUDGET_S


# -- hostile input: read safely, refuse clearly ---------------------------------------------------


def test_a_two_gigabyte_file_of_zeros_is_refused_at_line_one_without_reading_it(tmp_path):
    import resource

    path = tmp_path / "zeros.bin"
    with path.open("wb") as f:
        f.truncate(2 * 2**30)  # sparse: two gigabytes of NUL bytes, no line break

    def limit_memory():  # 1 GiB of address space: reading the file whole could not succeed
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    result = subprocess.run(
        [sys.executable, "-m", "setlab", "advise", str(path)],
        capture_output=True, text=True, timeout=60, preexec_fn=limit_memory,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.stderr
    assert "line 1: more than 100 characters without a line break" in result.stderr


@pytest.mark.parametrize("odd", ["deadbeef", "1e5"])
def test_one_hex_looking_line_in_a_decimal_file_is_exit_2_naming_it(tmp_path, odd):
    path = tmp_path / "ids.txt"
    lines = [str(1000 + i) for i in range(5_000)]
    lines[3_999] = odd
    path.write_text("\n".join(lines) + "\n")
    result = _run("advise", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        f"setlab advise: line 4000: '{odd}' is a hexadecimal ID but line 1 is a decimal integer: "
        "one kind of ID per file; if the file is all hex, say so with --format hex"
    )
    assert _run("advise", str(path), "--format", "dec").returncode == 2


def test_running_out_of_memory_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    from setlab.cli import main as cli
    from setlab.tools import analysis

    path = tmp_path / "ids.txt"
    path.write_text("1\n2\n3\n")

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(analysis, "analyse", exhausted)
    assert cli.main(["advise", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("setlab advise: out of memory") and err.count("\n") == 1


def test_a_closed_pipe_is_not_an_error():
    proc = subprocess.Popen(
        [sys.executable, "-m", "setlab", "calc", "bloom", "-n", "1e8", "-p", "0.01"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    proc.stdout.close()  # the reader leaves before setlab writes (like `| head` done early)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err == b""
