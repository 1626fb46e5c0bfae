"""The downloadable notebooks (book/_ext/downloads.py): the embedded wheel is valid and installable,
carries the reference data, and a downloaded chapter installs it only when setlab is missing."""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

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
    extras = "chapters,live" if shutil.which("redis-server") else "chapters"
    assert command[-1].startswith(f"setlab[{extras}] @ file://") and command[-1].endswith(name)
    # With setlab importable (as here), the cell does nothing.
    calls.clear()
    subprocess.check_call = calls.append
    try:
        exec(out.cells[1].source, namespace)
    finally:
        subprocess.check_call = real_check_call
    assert calls == []


def test_a_rebuild_keeps_a_lab_notebook_the_reader_edited_and_replaces_one_they_only_ran(
    tmp_path,
):
    path, record = tmp_path / "bloom-basics.ipynb", tmp_path / downloads.WRITTEN
    build = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    changed = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(7 * 7)")])
    nbformat.write(build, path)
    # no record yet (a build before this one): what is there is the reader's unless it is the
    # same as what the build writes now
    assert downloads.keep_edited(path, record, build) is None
    assert downloads.keep_edited(path, record, changed) is not None and not path.exists()
    downloads.write_lab_notebook(build, path)
    ran = nbformat.read(path, as_version=4)  # the reader ran it: outputs and metadata change
    ran.cells[0].outputs = [nbformat.v4.new_output("stream", text="42\n")]
    ran.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    nbformat.write(ran, path)
    assert downloads.keep_edited(path, record, changed) is None and path.is_file()
    ran.cells[0].source = "print(6 * 9)"  # ...then edited it
    nbformat.write(ran, path)
    kept = downloads.keep_edited(path, record, changed)
    assert kept == tmp_path / "bloom-basics.edited-2.ipynb" and not path.exists()
    assert nbformat.read(kept, as_version=4).cells[0].source == "print(6 * 9)"


# -- the notebooks of the built book ----------------------------------------------------------

#: what only the book's build renders: glue and other roles, directive fences, MyST targets
MYST_LEFT = re.compile(
    r"\{glue|\{(doc|ref|numref|cite:[tp]|eval)\}`|^\s*(:::+|```+)\{|^\(\S+\)=\s*$", re.M
)
SMART_QUOTES = str.maketrans("‘’“”", "''\"\"")
ABBR = re.compile(r'<abbr title="[^"]*">(.*?)</abbr>', re.S)


def _notebooks(html: Path) -> list[Path]:
    folders = [html / "_notebooks", html.parent / "lab"]
    found = [
        path
        for folder in folders
        for path in sorted(folder.glob("*.ipynb"))
        if ".edited-" not in path.name  # a reader's, kept by a rebuild
    ]
    assert len(found) == 2 * len(list((html / "_notebooks").glob("*.ipynb"))) + 1  # + lab index
    return [path for path in found if path.name != "index.ipynb"]


def _exercise_code_cells_in_source(path: Path) -> int:
    """How many code cells the chapter's MyST source has between its exercise gates."""
    import jupytext

    count, inside = 0, False
    for cell in jupytext.read(path).cells:
        if cell.cell_type == "markdown":
            for gate in re.findall(r"\{(exercise-start|exercise-end)\}", cell.source):
                inside = gate == "exercise-start"
        elif inside:
            count += 1
    return count


@pytest.mark.book
def test_the_books_notebooks_have_no_myst_left_no_exercise_output_and_folded_solutions(
    fake_book_html,
):
    for path in _notebooks(fake_book_html):
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
        left = [m.group(0) for text in markdown for m in MYST_LEFT.finditer(text)]
        assert not left, f"{path.parent.name}/{path.name}: {left[:5]}"
        source = (ROOT / "book" / path.with_suffix(".md").name).read_text()
        solutions = [t for t in markdown if t.startswith("<details>\n<summary>Solution to ")]
        assert len(solutions) == source.count("{solution-start}") > 0, path.name
        assert all(t.rstrip().endswith("</details>") for t in solutions), path.name
        exercise_cells = [
            c for c in notebook.cells if "setlab-exercise" in c.metadata.get("tags", [])
        ]
        expected = _exercise_code_cells_in_source(ROOT / "book" / path.with_suffix(".md").name)
        assert len(exercise_cells) == expected, path.name
        assert all(not c.outputs for c in exercise_cells), path.name
        # run on their own, the downloads carry the wheel; the lab copies use this checkout
        tags = [c.metadata.get("tags", []) for c in notebook.cells[:3]]
        in_downloads = path.parent.name == "_notebooks"
        assert (["setlab-wheel"] in tags) is in_downloads and tags[0] == ["setlab-note"]


def _plain(text: str) -> str:
    return html.unescape(re.sub(r"\\(.)", r"\1", text))


@pytest.mark.book
def test_the_prose_of_a_notebook_shows_the_values_its_page_shows(fake_book_html):
    from bs4 import BeautifulSoup

    for path in sorted((fake_book_html / "_notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        in_notebook = [_plain(v) for v in ABBR.findall(markdown)]
        page_html = (fake_book_html / "book" / f"{path.stem}.html").read_text()
        page = BeautifulSoup(page_html, "html.parser")
        # the page's smart quotes (Sphinx's smartquotes) are the one difference allowed
        on_page = [
            span.get_text().translate(SMART_QUOTES) for span in page.select("span.pasted-text")
        ]
        assert in_notebook == on_page and on_page, path.name


#: the chapter the fresh-environment test runs: short on both backends, and it writes to Redis
RUN_ALONE = "string-plus-set"


@pytest.mark.book
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_downloaded_chapter_runs_in_a_fresh_jupyter_with_only_its_embedded_wheel(
    fake_book_html, tmp_path
):
    """What a reader does with the download: a new virtual environment with nothing but a
    Jupyter kernel and nbclient, away from the checkout, runs the notebook top to bottom — on
    fakeredis, and on a private redis-server where one is installed. The first run installs
    setlab from the wheel the notebook carries; the second finds it installed."""
    from tests.conftest import REQUIRE_LIVE

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # the lock's versions: pip takes them from its cache, and the run does not float
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SETLAB_", "PYTHON"))}
    # (and no bytecode compiled at install: Python compiles what the chapter imports)
    env.update(
        PIP_CONSTRAINT=str(ROOT / "constraints.txt"), PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_COMPILE="1",
    )  # fmt: skip
    env.pop("VIRTUAL_ENV", None)
    env.pop("JUPYTER_PATH", None)
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "nbclient", "ipykernel"],
        check=True, env=env, cwd=tmp_path, capture_output=True,
    )  # fmt: skip
    notebook = tmp_path / f"{RUN_ALONE}.ipynb"
    shutil.copy(fake_book_html / "_notebooks" / notebook.name, notebook)
    run = (
        "import sys, nbformat, nbclient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "nbclient.NotebookClient(nb, timeout=900, kernel_name='python3',\n"
        "                        resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
        "said = [o for c in nb.cells if 'setlab-install' in c.metadata.get('tags', [])\n"
        "        for o in c.outputs]\n"
        "print(''.join(o.get('text', '') for o in said))\n"
    )
    backends = ["fake"]
    if shutil.which("redis-server") or REQUIRE_LIVE:
        backends.append("live")
    said = {}
    for backend in backends:
        done = subprocess.run(
            [python, "-c", run, str(notebook), str(tmp_path)],
            env={**env, "SETLAB_BACKEND": backend}, cwd=tmp_path,
            capture_output=True, text=True, timeout=1500,
        )  # fmt: skip
        assert done.returncode == 0, f"{backend}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        said[backend] = done.stdout
    where = subprocess.run(
        [python, "-c", "import setlab; print(setlab.__file__)"],
        env=env, cwd=tmp_path, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(venv)), where  # the embedded wheel, not this checkout
    assert "embedded fakeredis" in said["fake"]
    if "live" in said:
        assert "a private redis-server" in said["live"]
