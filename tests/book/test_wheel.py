"""The installed package works outside the checkout: the wheel carries the reference data and
finds it through importlib.resources, the CLI runs, and the pure models stay light."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import downloads  # noqa: E402

GRIDS = ROOT / "src" / "setlab" / "data" / "grids"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel the downloaded chapters embed (the one builder, ``downloads.build_wheel``: ``pip
    wheel`` of the checkout), installed into a folder of its own, far from the checkout."""
    work = tmp_path_factory.mktemp("wheel")
    name, data = downloads.build_wheel()
    wheel = work / name
    wheel.write_bytes(data)
    names = zipfile.ZipFile(wheel).namelist()
    assert "setlab/data/setbit-reference.json" in names
    assert "setlab/data/grids/cuckoo-first-failure.json" in names  # the hand-made wheel had none
    assert "setlab/models/bloom.py" in names
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    return target


def _run(target: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(target)}
    env.pop("SETLAB_DATA_DIR", None)
    return subprocess.run(
        [sys.executable, *args], cwd=target.parent, env=env, capture_output=True, text=True
    )


def test_the_installed_package_is_the_wheel_not_the_checkout(installed):
    result = _run(installed, "-c", "import setlab; print(setlab.__file__)")
    assert result.stdout.startswith(str(installed)), result.stdout + result.stderr


@pytest.mark.parametrize(
    "args",
    [("calc", "cuckoo", "-n", "1e6"), ("calc", "bloom", "-n", "1.2e8", "-p", "0.01")],
)
def test_the_cli_calculators_run_from_the_wheel(installed, args):
    result = _run(installed, "-m", "setlab", *args, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)


def test_the_wheel_reads_its_reference_data(installed):
    code = (
        "from setlab.lab import reference; "
        "print(reference.load('setbit-reference').run.label); print(len(reference.names())); "
        "from setlab.models.cuckoo_load import LoadGrid; print(len(LoadGrid.load().cells))"
    )
    result = _run(installed, "-c", code)
    assert result.returncode == 0, result.stderr
    label, count, cells = result.stdout.splitlines()
    assert int(cells) == len(json.loads((GRIDS / "cuckoo-first-failure.json").read_text())["cells"])
    assert label.startswith("reference run: Redis 7.0.15")
    assert int(count) == len(list((ROOT / "src" / "setlab" / "data").glob("*.json")))


def test_importing_a_model_from_the_wheel_loads_no_redis_and_no_plotting(installed):
    code = (
        "import sys, setlab.models.bloom; "
        "print([m for m in ('redis', 'fakeredis', 'matplotlib') if m in sys.modules])"
    )
    result = _run(installed, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
