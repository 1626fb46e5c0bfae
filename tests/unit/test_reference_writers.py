"""Every stored reference file names the script that wrote it, every such script is in
``reference/``, and ``make reference`` reruns all of them: no stored run without a writer that
re-measures it, no writer whose output nothing reads."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from setlab.lab import reference

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "setlab" / "data"
WRITERS = ROOT / "reference"
STORED = sorted(DATA.rglob("*.json"))


def _writer(path: Path) -> str:
    return json.loads(path.read_text())["writer"]


def test_every_file_of_the_data_folder_is_a_stored_run_the_tests_below_check():
    """Every file there, whatever its kind, is one of :data:`STORED`, so each is held to naming
    its writer (a listing of the folder against the stored runs, not a count of them)."""
    files = {p for p in DATA.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert STORED and files == set(STORED)


@pytest.mark.parametrize("path", STORED, ids=[str(p.relative_to(DATA)) for p in STORED])
def test_a_stored_run_names_a_writer_in_the_reference_folder(path):
    writer = _writer(path)
    assert re.fullmatch(r"reference/measure_[a-z0-9_]+\.py", writer), writer
    script = ROOT / writer
    assert script.is_file(), f"{path.name} names {writer}, which does not exist"
    # the writer says which file it writes: its name, or the module constant that holds it
    stem = path.stem
    assert stem in script.read_text() or _constant_names(stem, script), (writer, stem)


def _constant_names(stem: str, script: Path) -> bool:
    """Whether a setlab module the script imports holds the file's name in a string (the
    writers pass a module constant such as ``full_scale.REFERENCE``)."""
    package = ROOT / "src" / "setlab"
    for module, names in re.findall(r"from setlab\.([\w.]+) import ([\w, ]+)", script.read_text()):
        base = package.joinpath(*module.split("."))
        sources = [base.with_suffix(".py")]
        sources += [base / f"{n.strip().split(' as ')[0]}.py" for n in names.split(",")]
        if any(s.is_file() and f'"{stem}' in s.read_text() for s in sources):
            return True
    return False


def test_every_writer_in_the_reference_folder_writes_a_stored_run():
    named = {_writer(p) for p in STORED}
    scripts = {f"reference/{p.name}" for p in WRITERS.glob("*.py")}
    assert scripts == named  # nothing else lives there, and nothing there is idle


def test_make_reference_runs_every_writer():
    dry = subprocess.run(
        ["make", "-n", "reference"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loop = re.search(r"for script in (\S+); do", dry.stdout)
    assert loop, dry.stdout
    ran = {f"reference/{p.name}" for p in ROOT.glob(loop.group(1))}
    assert ran == {_writer(p) for p in STORED}


def test_a_reference_file_is_written_only_from_the_reference_folder():
    assert reference.writer_name("/any/clone/reference/measure_x.py") == "reference/measure_x.py"
    for elsewhere in ("benchmarks/measure_x.py", "reference/plot_x.py", "/tmp/x.py"):
        with pytest.raises(ValueError, match="reference/measure_"):
            reference.writer_name(elsewhere)
