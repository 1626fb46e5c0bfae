"""Downloadable chapters: executed notebooks that run on their own.

A chapter downloaded from the site needs the ``setlab`` package and its reference data. The site
has no package index to point at, so each notebook carries the package itself: the wheel built from
this checkout (the modules plus the reference data in ``setlab/data``), base64-encoded in the
notebook's first cell, which installs it — with the ``book`` extra for ``myst_nb`` — only when
``import setlab`` fails. The Sphinx extension in ``book/_ext`` calls :func:`write_downloads`.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]

INSTALL_CELL = """\
# This chapter needs the setlab package; this cell installs it (with its dependencies from PyPI)
# only if it is missing. The package is embedded below, so the notebook runs on its own.
import base64, importlib.util, pathlib, subprocess, sys, tempfile
if importlib.util.find_spec("setlab") is None:
    wheel = pathlib.Path(tempfile.mkdtemp()) / "{wheel_name}"
    wheel.write_bytes(base64.b64decode(SETLAB_WHEEL))
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet",
                           f"setlab[book] @ {{wheel.as_uri()}}"])
"""


#: 2026-01-01 00:00 UTC: the wheel's file times, so two builds of one checkout are the same bytes
SOURCE_DATE_EPOCH = "1767225600"


@cache
def build_wheel(root: Path = ROOT) -> tuple[str, bytes]:
    """The real wheel of setlab, built by ``pip wheel`` from a copy of the checkout's ``src`` and
    ``pyproject.toml`` (setuptools writes into the tree it builds): the package data that
    ``pyproject.toml`` declares, reference runs and grids, travels with it. The installed
    setuptools builds it (``--no-build-isolation``, ``--no-deps``), so nothing is downloaded.

    Returns (file name, bytes); the tests install the same wheel (``tests/site/test_wheel.py``).
    """
    with tempfile.TemporaryDirectory(prefix="setlab-wheel-") as work:
        source, dist = Path(work) / "source", Path(work) / "dist"
        ignore = shutil.ignore_patterns("*.egg-info", "__pycache__", "build")
        shutil.copytree(root / "src", source / "src", ignore=ignore)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(root / name, source / name)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
             "--no-index", "-w", str(dist), str(source)],
            check=True, capture_output=True, cwd=work,
            env={**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH},
        )  # fmt: skip
        (wheel,) = dist.glob("setlab-*.whl")
        return wheel.name, wheel.read_bytes()


def standalone(notebook: nbformat.NotebookNode, wheel_name: str, wheel: bytes):
    """A copy of an executed notebook whose first cells install the embedded setlab wheel."""
    copy = nbformat.from_dict(notebook)
    encoded = base64.b64encode(wheel).decode()
    data_cell = nbformat.v4.new_code_cell(f'SETLAB_WHEEL = "{encoded}"')
    data_cell.metadata["tags"] = ["setlab-wheel"]
    data_cell.metadata["jupyter"] = {"source_hidden": True}
    install = nbformat.v4.new_code_cell(INSTALL_CELL.format(wheel_name=wheel_name))
    install.metadata["tags"] = ["setlab-install"]
    copy.cells = [data_cell, install, *copy.cells]
    return copy


def write_downloads(
    executed_dir: Path, out_dir: Path, slugs: list[str], root: Path = ROOT
) -> list[Path]:
    """Write ``<out_dir>/<slug>.ipynb`` for every executed chapter found in ``executed_dir``."""
    wheel_name, wheel = build_wheel(root)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for slug in slugs:
        source = executed_dir / f"{slug}.ipynb"
        if not source.is_file():
            continue
        notebook = nbformat.read(source, as_version=4)
        target = out_dir / f"{slug}.ipynb"
        nbformat.write(standalone(notebook, wheel_name, wheel), target)
        written.append(target)
    return written
