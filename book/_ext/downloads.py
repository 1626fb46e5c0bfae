"""Chapters as notebooks outside the book: the download, and what ``make lab`` opens.

Both are the executed chapter rewritten in plain Markdown (``plain_notebooks.py``: values in
place of glue roles, no MyST left), opened by a short note on what the reader is looking at.

- **The download** (``_notebooks/<chapter>.ipynb`` on the site) must run on its own, and the site
  has no package index to point at, so it carries the package itself: the real wheel built from
  this checkout (:func:`build_wheel`: the modules plus the reference data in ``setlab/data``),
  base64-encoded in a hidden cell, and a cell that installs it only when ``import setlab`` fails
  (with the ``chapters`` extra, and ``live`` where a ``redis-server`` is installed), then says
  which backend the chapter will run on.
- **The lab notebooks** (``_build/lab/<chapter>.ipynb``) are the same without the wheel: ``make
  lab`` opens them in JupyterLab, where setlab is this checkout. A rebuild moves one the reader
  edited aside (:func:`keep_edited`) before writing the build's.

The Sphinx extension ``book/_ext/setlab_site.py`` calls :func:`write_notebooks` after each build.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import nbformat
import plain_notebooks  # book/_ext is on sys.path, beside this module

ROOT = Path(__file__).resolve().parents[2]

INSTALL_CELL = """\
# This chapter needs the setlab package; this cell installs it (with its dependencies from PyPI)
# only if it is missing. The package is embedded above, so the notebook runs on its own.
import base64, importlib.util, pathlib, shutil, subprocess, sys, tempfile
if importlib.util.find_spec("setlab") is None:
    wheel = pathlib.Path(tempfile.mkdtemp()) / "{wheel_name}"
    wheel.write_bytes(base64.b64decode(SETLAB_WHEEL))
    # with a redis-server here, the live extra brings RedisBloom for the Bloom and Cuckoo chapters
    extras = "chapters,live" if shutil.which("redis-server") else "chapters"
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet",
                           f"setlab[{{extras}}] @ {{wheel.as_uri()}}"])
from setlab.lab.backend import resolve_backend
print("setlab", __import__("setlab").__version__, "will run this chapter on:", {{
    "url": "your Redis at REDIS_URL (only the book's own keys are written)",
    "live": "a private redis-server of this machine, started for the chapter",
    "fake": "embedded fakeredis (no Redis needed; its timings are not Redis's)",
}}[resolve_backend()])
"""

NOTE = """\
**{title}**, chapter {number} of *setlab: huge sets of IDs in Redis*, as a notebook for any \
Jupyter.{where}

- Numbers in the prose are the values of the book's build (run on {backend}), underlined \
with dots: hover one to see which code cell recomputes it. Running the notebook recomputes every \
figure and table; the prose keeps the build's numbers.
- Exercise cells have no output yet: run one to see its answer, then open the solution below it.
{install}"""

#: what the build's numbers were measured on, by backend (``setlab.lab.backend``)
BUILT_ON = {
    "live": "a real Redis the build started",
    "url": "the Redis at the build's REDIS_URL",
    "fake": "embedded fakeredis, with stored measurements of a real Redis",
}

#: 2026-01-01 00:00 UTC: the wheel's file times, so two builds of one checkout are the same bytes
SOURCE_DATE_EPOCH = "1767225600"


@cache
def build_wheel(root: Path = ROOT) -> tuple[str, bytes]:
    """The real wheel of setlab, built by ``pip wheel`` from a copy of the checkout's ``src`` and
    ``pyproject.toml`` (setuptools writes into the tree it builds): the package data that
    ``pyproject.toml`` declares, reference runs and grids, travels with it. The installed
    setuptools builds it (``--no-build-isolation``, ``--no-deps``), so nothing is downloaded.

    The build is reproducible (``SOURCE_DATE_EPOCH``), so a wheel is built once per digest of
    what goes into it and kept in ``_build/.cache/wheel`` (6.5 s a build; a test run builds the
    book and its small test books a dozen times). Returns (file name, bytes); the tests install
    the same wheel (``tests/book/test_wheel.py``).
    """
    from setlab.core.fingerprint import tree_digest

    digest = tree_digest(root / "src" / "setlab")
    for name in ("pyproject.toml", "README.md"):
        digest.update((root / name).read_bytes())
    digest.update(f"{sys.version}{SOURCE_DATE_EPOCH}{_setuptools_version()}".encode())
    kept = root / "_build" / ".cache" / "wheel" / digest.hexdigest()[:16]
    found = sorted(kept.glob("setlab-*.whl")) if kept.is_dir() else []
    if found:
        return found[0].name, found[0].read_bytes()
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
        kept.mkdir(parents=True, exist_ok=True)
        for old in kept.parent.iterdir():  # one wheel kept: this one
            if old != kept:
                shutil.rmtree(old, ignore_errors=True)
        staged = kept / f".{wheel.name}"  # in place by a rename: a reader never sees half a file
        shutil.copy(wheel, staged)
        staged.rename(kept / wheel.name)
        return wheel.name, wheel.read_bytes()


def _setuptools_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        return "missing"


def standalone(notebook: nbformat.NotebookNode, wheel_name: str, wheel: bytes):
    """A copy of a notebook whose first code cells install the embedded setlab wheel (after its
    opening note, when it has one)."""
    copy = nbformat.from_dict(notebook)
    encoded = base64.b64encode(wheel).decode()
    data_cell = nbformat.v4.new_code_cell(
        "# @title The setlab package, embedded (the next cell installs it)\n"
        f'SETLAB_WHEEL = "{encoded}"'
    )
    data_cell.metadata["tags"] = ["setlab-wheel"]
    # collapsed: JupyterLab and Notebook 7 hide the source, Colab shows the title as a form
    data_cell.metadata["jupyter"] = {"source_hidden": True}
    data_cell.metadata["cellView"] = "form"
    install = nbformat.v4.new_code_cell(INSTALL_CELL.format(wheel_name=wheel_name))
    install.metadata["tags"] = ["setlab-install"]
    first = copy.cells[:1] if copy.cells and "setlab-note" in _tags(copy.cells[0]) else []
    copy.cells = [*first, data_cell, install, *copy.cells[len(first) :]]
    return copy


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def opening_note(
    notebook: nbformat.NotebookNode, title: str, number: str, page_url: str | None,
    backend: str, download: bool,
) -> nbformat.NotebookNode:  # fmt: skip
    """``notebook`` with a first Markdown cell saying what it is and how its numbers relate to
    the book's."""
    where = f" The book's page: <{page_url}>." if page_url else ""
    install = (
        "- The next two cells install setlab from the wheel this notebook carries, only if it is "
        "missing, and say which Redis the chapter will use.\n"
        if download
        else ""
    )
    ran_on = BUILT_ON.get(backend, f"the {backend} backend")
    cell = nbformat.v4.new_markdown_cell(
        NOTE.format(title=title, number=number, where=where, backend=ran_on, install=install)
    )
    cell.metadata["tags"] = ["setlab-note"]
    copy = nbformat.from_dict(notebook)
    copy.cells = [cell, *copy.cells]
    return copy


def executed_notebook(path: Path, cache_path: str | None) -> nbformat.NotebookNode:
    """The executed chapter: MyST-NB's copy at ``path`` (its Markdown as the page has it) with
    its outputs from the execution cache at ``cache_path``. In ``cache`` mode MyST-NB writes that
    copy without outputs (it renders from the cache's copy), so the outputs come from there.
    Raises ``ValueError`` when the cache has no execution of the page."""
    notebook = nbformat.read(path, as_version=4)
    if cache_path is None:
        return notebook
    from jupyter_cache import get_cache

    try:
        _, merged = get_cache(cache_path).merge_match_into_notebook(notebook)
    except KeyError:
        raise ValueError(f"the execution cache {cache_path} has no execution of {path}") from None
    return merged


def write_notebooks(
    executed_dir: Path,
    cache_path: str | None,
    refs: plain_notebooks.References,
    slugs: list[str],
    numbers: dict[str, str],
    downloads_dir: Path,
    lab_dir: Path,
    backend: str,
    root: Path = ROOT,
) -> list[Path]:
    """Write ``<downloads_dir>/<slug>.ipynb`` (with the wheel) and ``<lab_dir>/<slug>.ipynb``
    (without) for every executed chapter found in ``executed_dir``; ``numbers`` holds each
    chapter's number; ``cache_path`` is the execution cache (None: the executed copies hold their
    outputs). Returns the downloads written."""
    wheel_name, wheel = build_wheel(root)
    written = []
    for folder in (downloads_dir, lab_dir):
        folder.mkdir(parents=True, exist_ok=True)
    for slug in slugs:
        source = executed_dir / f"{slug}.ipynb"
        if not source.is_file():
            continue
        docname = f"book/{slug}"
        glue_file = executed_dir / f"{slug}.glue.json"
        glue = json.loads(glue_file.read_text()) if glue_file.is_file() else {}
        plain = plain_notebooks.plain_notebook(
            executed_notebook(source, cache_path), docname, refs, glue
        )
        title, page = refs.titles.get(docname, slug), refs.page_url(docname)
        number = numbers.get(slug, "?")
        download = standalone(
            opening_note(plain, title, number, page, backend, download=True), wheel_name, wheel
        )
        nbformat.validate(download)
        nbformat.write(download, downloads_dir / f"{slug}.ipynb")
        written.append(downloads_dir / f"{slug}.ipynb")
        write_lab_notebook(
            opening_note(plain, title, number, page, backend, download=False),
            lab_dir / f"{slug}.ipynb",
        )
    nbformat.write(lab_index(refs, slugs, numbers), lab_dir / "index.ipynb")
    return written


def write_lab_notebook(notebook: nbformat.NotebookNode, path: Path) -> None:
    """Write a lab notebook where ``make lab`` opens it, keeping the reader's edited copy
    (:func:`keep_edited`) and recording what was written."""
    nbformat.validate(notebook)
    record = path.with_name(WRITTEN)
    keep_edited(path, record, notebook)
    nbformat.write(notebook, path)
    digests = json.loads(record.read_text()) if record.is_file() else {}
    digests[path.name] = _sources_digest(notebook)
    record.write_text(json.dumps(digests, indent=1, sort_keys=True))


#: what the build last wrote to the lab folder: {file name: digest of its cells' sources}
WRITTEN = ".written.json"


def _sources_digest(notebook: nbformat.NotebookNode | Path) -> str:
    """SHA-256 of a notebook's cell kinds and sources: what a reader edits (not the outputs a
    run changes, nor the metadata JupyterLab fills in when a kernel starts)."""
    if isinstance(notebook, Path):
        notebook = nbformat.read(notebook, as_version=4)
    text = json.dumps([(c.cell_type, c.source) for c in notebook.cells])
    return hashlib.sha256(text.encode()).hexdigest()


def keep_edited(path: Path, record: Path, incoming: nbformat.NotebookNode) -> Path | None:
    """Before a build replaces the lab notebook at ``path`` with ``incoming``: if a reader changed
    its cells since the build wrote it (``make lab`` opens these files, and JupyterLab saves
    there), move it to ``<name>.edited-<n>.ipynb`` beside it, so no rebuild loses their work.
    Returns where it went, or None when there was nothing of theirs to keep."""
    if not path.is_file():
        return None
    digests = json.loads(record.read_text()) if record.is_file() else {}
    if _sources_digest(path) in {digests.get(path.name), _sources_digest(incoming)}:
        return None
    n = 1
    while (kept := path.with_name(f"{path.stem}.edited-{n}.ipynb")).exists():
        n += 1
    path.rename(kept)
    print(f"setlab: {path.name} had changes of yours; kept as {kept}", file=sys.stderr)
    return kept


def lab_index(refs: plain_notebooks.References, slugs: list[str], numbers: dict[str, str]):
    """The notebook ``make lab`` opens first: the chapters in the book's order, each a link."""

    def order(slug: str) -> tuple[int, ...]:
        return tuple(int(n) for n in numbers.get(slug, "").split(".") if n.isdigit()) or (999,)

    lines = [
        f"- {numbers.get(slug, '')} [{refs.titles.get(f'book/{slug}', slug)}]({slug}.ipynb)"
        for slug in sorted(slugs, key=order)
    ]
    text = (
        "# setlab: the chapters as notebooks\n\n"
        "Each chapter as the book's build executed it, in plain Markdown with the build's numbers "
        "(written by `make book`; edit the chapters themselves in `book/*.md`). Run one top to "
        "bottom to recompute it on this machine's Redis.\n\n" + "\n".join(lines)
    )
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
