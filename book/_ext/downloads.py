"""Downloadable chapters: executed notebooks that run on their own.

A chapter downloaded from the site needs the ``setlab`` package and its reference data. The site
has no package index to point at, so each notebook carries the package itself: a wheel built from
this checkout (the modules plus the reference data in ``setlab/data``), base64-encoded in the
notebook's first cell, which installs it — with the ``book`` extra for ``myst_nb`` — only when
``import setlab`` fails. The Sphinx extension in ``book/_ext`` calls :func:`write_downloads`.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import tomllib
import zipfile
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


def _pyproject(root: Path) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text())


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {_in_extra(d, extra)}" for d in deps]
    return "\n".join(lines) + "\n"


def _in_extra(dependency: str, extra: str) -> str:
    """``dep; marker`` of an extra as one requirement: ``dep; (marker) and extra == "x"``."""
    requirement, _, marker = dependency.partition(";")
    condition = f'extra == "{extra}"'
    if marker.strip():
        condition = f"({marker.strip()}) and {condition}"
    return f"{requirement.strip()}; {condition}"


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(root: Path = ROOT) -> tuple[str, bytes]:
    """A pure-Python wheel of setlab, its reference data (``setlab/data/*.json``) included.

    Returns (file name, bytes). Built directly as a zip (a wheel is one), so no build backend or
    download is needed during the book build.
    """
    project = _pyproject(root)["project"]
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files: dict[str, bytes] = {}
    package = root / "src" / "setlab"
    for path in sorted([*package.rglob("*.py"), *(package / "data").glob("*.json")]):
        files[path.relative_to(root / "src").as_posix()] = path.read_bytes()
    files[f"{dist_info}/METADATA"] = _metadata(project).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: setlab-book-downloads\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    scripts = project.get("scripts", {})
    if scripts:
        entry = "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())
        files[f"{dist_info}/entry_points.txt"] = entry.encode()
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path, data in files.items():
        writer.writerow([path, _record_hash(data), len(data)])
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    files[f"{dist_info}/RECORD"] = record.getvalue().encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return f"{name}-{version}-py3-none-any.whl", buffer.getvalue()


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
