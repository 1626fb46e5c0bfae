"""The downloadable notebooks (book/_ext/downloads.py): the embedded wheel is valid and installable,
carries the reference data, and a downloaded chapter installs it only when setlab is missing."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import subprocess
import sys
import zipfile

import nbformat

from tests.support.notebooks import ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import downloads


def _wheel() -> tuple[str, zipfile.ZipFile, bytes]:
    name, data = downloads.build_wheel()
    return name, zipfile.ZipFile(io.BytesIO(data)), data


def test_wheel_holds_the_package_and_the_reference_data_with_a_correct_record():
    name, archive, _ = _wheel()
    assert name == "setlab-0.1.0-py3-none-any.whl"
    names = set(archive.namelist())
    assert {
        "setlab/__init__.py",
        "setlab/lab/backend.py",
        "setlab/data/setbit-reference.json",
    } <= names
    record = archive.read("setlab-0.1.0.dist-info/RECORD").decode()
    for path, digest, size in csv.reader(io.StringIO(record)):
        if not digest:
            continue
        data = archive.read(path)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == f"sha256={expected}" and int(size) == len(data), path
    metadata = archive.read("setlab-0.1.0.dist-info/METADATA").decode()
    assert "Requires-Dist: redis" in metadata and 'extra == "book"' in metadata


def test_the_wheel_installs_and_finds_its_data_outside_the_checkout(tmp_path):
    name, _, data = _wheel()
    wheel = tmp_path / name
    wheel.write_bytes(data)
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    code = (
        "import setlab, setlab.lab.reference as r; "
        f"assert setlab.__file__.startswith({str(target)!r}), setlab.__file__; "
        "print(r.data_dir(), r.load('setbit-reference').run.redis_version)"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    env.pop("SETLAB_DATA_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(target / "setlab" / "data"), "7.0.15"]


def test_downloaded_chapter_installs_setlab_only_when_missing():
    name, _, data = _wheel()
    chapter = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    out = downloads.standalone(chapter, name, data)
    assert [c.metadata.get("tags") for c in out.cells[:2]] == [["setlab-wheel"], ["setlab-install"]]
    assert out.cells[2].source == "print(1)"
    nbformat.validate(out)
    calls = []
    namespace: dict = {}
    exec(out.cells[0].source, namespace)  # SETLAB_WHEEL
    import importlib.util

    real_find_spec = importlib.util.find_spec
    real_check_call = subprocess.check_call
    try:
        importlib.util.find_spec = lambda name: None  # pretend setlab is not installed
        subprocess.check_call = calls.append
        exec(out.cells[1].source, namespace)
    finally:
        importlib.util.find_spec = real_find_spec
        subprocess.check_call = real_check_call
    (command,) = calls
    assert command[1:4] == ["-m", "pip", "install"]
    assert command[-1].startswith("setlab[book] @ file://") and command[-1].endswith(name)
    # With setlab importable (as here), the cell does nothing.
    calls.clear()
    subprocess.check_call = calls.append
    try:
        exec(out.cells[1].source, namespace)
    finally:
        subprocess.check_call = real_check_call
    assert calls == []
