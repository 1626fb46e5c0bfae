"""The package's layers: imports only point down, no chapter imports another, no two modules
import each other (no circle, in any package at any depth), and the pure models stay pure.

The contracts live in pyproject.toml (``[tool.importlinter]``); import-linter checks them on the
real package here, and on copies with one forbidden import added, to prove each check can fail.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "setlab"
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())"]  # fmt: skip
HEAVY = ("redis", "fakeredis", "matplotlib")


def _lint(src: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*LINT, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=src.parent,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )


def test_the_layer_contract_holds():
    result = _lint(ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


def _planted(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess:
    """import-linter on a copy of the package with ``line`` appended to ``module`` (a path
    under setlab/)."""
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "setlab", ignore=shutil.ignore_patterns("__pycache__", "data"))
    path = src / "setlab" / module
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")
    return _lint(src)


def test_the_layer_contract_fails_when_a_model_imports_the_lab(tmp_path):
    result = _planted(tmp_path, "models/bloom.py", "from setlab.lab import backend")
    assert result.returncode != 0
    assert "setlab.models.bloom -> setlab.lab.backend" in result.stdout


def test_the_layer_contract_fails_when_a_chapter_imports_the_site(tmp_path):
    result = _planted(tmp_path, "chapters/choosing/__init__.py", "from setlab.site import errata")
    assert result.returncode != 0
    assert "setlab.chapters.choosing -> setlab.site.errata" in result.stdout


def test_the_chapter_contract_fails_when_a_chapter_imports_another(tmp_path):
    line = "from setlab.chapters.nk_vs_m_saturation import SEED_003_P"
    result = _planted(tmp_path, "chapters/sharded_bloom/widget.py", line)
    assert result.returncode != 0
    assert "a chapter imports no other chapter BROKEN" in result.stdout
    assert "setlab.chapters.sharded_bloom.widget -> setlab.chapters.nk_vs_m_saturation" in (
        result.stdout
    )


@pytest.mark.parametrize(
    ("module", "line", "arrow"),
    [
        (
            "lab/runs/bulk_load.py",
            "from setlab.lab.full_scale import peers",
            "setlab.lab.runs.bulk_load -> setlab.lab.full_scale.peers",
        ),
        (
            "lab/wire/loading.py",
            "from setlab.lab.runs import bloom",
            "setlab.lab.wire.loading -> setlab.lab.runs.bloom",
        ),
        (
            "lab/backend.py",
            "from setlab.lab.wire import pipe",
            "setlab.lab.backend -> setlab.lab.wire.pipe",
        ),
        (
            "lab/classroom/watch.py",
            "from setlab.lab.full_scale import housekeeping",
            "setlab.lab.classroom.watch -> setlab.lab.full_scale.housekeeping",
        ),
    ],
)
def test_the_lab_rooms_contract_fails_on_an_import_up_or_across(tmp_path, module, line, arrow):
    result = _planted(tmp_path, module, line)
    assert result.returncode != 0
    assert "setlab.lab is in rooms" in result.stdout and "BROKEN" in result.stdout
    assert arrow in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "package", "pair"),
    [
        (  # packed_bloom imports bloom_sim: two modules of one layer, which no layer forbids
            "models/bloom_sim.py",
            "from setlab.models import packed_bloom",
            "setlab.models",
            {".bloom_sim", ".packed_bloom"},
        ),
        (  # findings imports patterns, two levels below the package's top
            "tools/audit/patterns.py",
            "from setlab.tools.audit import findings",
            "setlab.tools.audit",
            {".findings", ".patterns"},
        ),
    ],
)
def test_the_circle_contract_fails_on_two_modules_importing_each_other(
    tmp_path, module, line, package, pair
):
    result = _planted(tmp_path, module, line)
    assert result.returncode != 0
    assert "no import circle anywhere in setlab BROKEN" in result.stdout
    assert f"No cycles are allowed in {package}." in result.stdout
    a, b = sorted(pair)
    assert f"- {a} -> {b} (" in result.stdout or f"- {b} -> {a} (" in result.stdout


def test_the_lab_rooms_contract_fails_on_a_module_without_a_place(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "setlab", ignore=shutil.ignore_patterns("__pycache__", "data"))
    (src / "setlab" / "lab" / "stray.py").write_text('"""Not placed by the contract."""\n')
    result = _lint(src)
    assert result.returncode != 0
    assert "setlab.lab.stray" in result.stdout + result.stderr


def _models() -> list[str]:
    return sorted(
        f"setlab.models.{p.stem}" for p in (PACKAGE / "models").glob("*.py") if p.stem != "__init__"
    )


@pytest.mark.parametrize("module", _models())
def test_importing_a_model_loads_no_redis_client_and_no_plotting(module):
    code = f"import sys, {module}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_no_module_is_over_600_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 600
    }
    assert long == {}
