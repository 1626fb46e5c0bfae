"""Sphinx extension: every page executed once per fingerprint, on every core, and kept.

MyST-NB's ``cache`` mode (jupyter-cache) keeps each executed notebook and reuses it while the
page's code cells are unchanged, so editing prose re-renders a page without running it. What
jupyter-cache cannot see is what those cells call: the package, its reference data, the locked
libraries, the backend and the Redis server it talks to. This extension puts a fingerprint of
all of them into the cache's path (``_build/.cache/execution/<backend>-<fingerprint>``, outside
the build's output folder, so every build of this checkout — ``make book``, the test builds into
temporary folders — shares it):

- :func:`setlab.core.fingerprint.package_fingerprint` (every module and data file of the
  installed setlab, the Python version, the libraries it computes with);
- the files named by ``setlab_execution_sources`` (the lock: ``constraints.txt`` and
  ``pyproject.toml``; and this file, which edits what is kept);
- the backend: fakeredis's version, or the ``redis-server`` binary's ``--version`` and the
  RedisBloom module's bytes;
- every ``SETLAB_*`` setting in the environment (``SETLAB_SCALE`` changes what a chapter runs).

A reader's own server (``REDIS_URL``) has a state no fingerprint can see (its memory, its
policy, its keys), so such a build executes every page afresh into a cache of its own that is
removed when the build ends.

Before Sphinx reads the pages, every page that is not in the cache is executed,
``SETLAB_BUILD_JOBS`` at a time (default: the number of cores), slowest first by the last
build's times, and stored; MyST-NB then finds each one in the cache. A page whose execution
fails is not stored: MyST-NB runs it once more and reports the failure as a warning, which
``-W`` turns into a failed build. ``SETLAB_EXECUTION_CACHE`` moves the cache's root; ``make
test-fresh`` (or deleting ``_build/.cache``) empties it. The figure cache
(:mod:`setlab.core.figure_cache`) that the kernels share is put beside it unless
``SETLAB_FIGURE_CACHE`` says otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

logger = logging.getLogger(__name__)

CACHE_ENV = "SETLAB_EXECUTION_CACHE"
JOBS_ENV = "SETLAB_BUILD_JOBS"
#: settings that change how a test run checks the book, not what a page computes
_NOT_INPUTS = ("SETLAB_REQUIRE_", CACHE_ENV, JOBS_ENV, "SETLAB_FIGURE_CACHE")
#: fingerprint folders kept per backend (the newest); older ones are removed
KEEP = 3
TIMINGS = "timings.json"
#: the lock, and this extension (it edits what is kept: :func:`join_streams`):
#: ``setlab_execution_sources`` unless _config.yml names other files
SOURCES = ["constraints.txt", "pyproject.toml", "book/_ext/setlab_execution.py"]


def cache_root(confdir: Path) -> Path:
    """``$SETLAB_EXECUTION_CACHE``, else ``<confdir>/_build/.cache/execution``."""
    explicit = os.environ.get(CACHE_ENV, "").strip()
    return Path(explicit) if explicit else confdir / "_build" / ".cache" / "execution"


def backend_identity(choice: str | None = None) -> tuple[str, str]:
    """(backend name, what identifies the Redis it runs on) for ``choice`` (``fake``, ``live``
    or ``auto``; default ``$SETLAB_BACKEND``) in this environment."""
    from setlab.core.fingerprint import library_versions
    from setlab.lab import backend, server

    name = backend.resolve_backend(choice)
    if name == "fake":
        return name, f"fakeredis {library_versions()['fakeredis']}"
    if name == "url":
        return name, ""
    binary = server.find_redis_server() or ""
    version = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=10
    ).stdout.strip()
    module = server.find_redisbloom()
    module_hash = hashlib.sha256(Path(module).read_bytes()).hexdigest() if module else "none"
    return name, f"{version} | redisbloom {module_hash}"


def fingerprint(
    confdir: Path, sources: list[str], identity: str, env: Mapping[str, str] = os.environ
) -> str:
    """The hex SHA-256 of what can change a page's outputs besides its own code cells, for a
    build under ``env``."""
    from setlab.core.fingerprint import package_fingerprint, tree_digest

    digest = hashlib.sha256(package_fingerprint().encode())
    for source in sources:
        path = confdir / source
        digest.update(f"\0{source}\0".encode())
        if path.is_dir():
            tree_digest(path, digest)
        elif path.is_file():
            digest.update(path.read_bytes())
    digest.update(identity.encode())
    for key in sorted(env):
        if key.startswith("SETLAB_") and not key.startswith(_NOT_INPUTS):
            digest.update(f"\0{key}={env[key]}".encode())
    return digest.hexdigest()


def _choose_cache(app: Sphinx, config: Config) -> None:
    if config.nb_execution_mode != "cache":
        return
    confdir = Path(app.confdir)
    root = cache_root(confdir)
    name, identity = backend_identity()
    os.environ.setdefault("SETLAB_FIGURE_CACHE", str(root.parent / "figures"))
    if name == "url":
        folder = Path(tempfile.mkdtemp(prefix="setlab-url-execution-"))
        app.setlab_execution_temporary = folder  # removed at build-finished
        logger.info("setlab_execution: REDIS_URL is set: every page runs afresh")
    else:
        key = fingerprint(confdir, list(config.setlab_execution_sources), identity)[:16]
        folder = root / f"{name}-{key}"
        logger.info(f"setlab_execution: executed pages are kept in {folder}")
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            _prune(root, name, keep=folder.name)
    config.nb_execution_cache_path = str(folder)


def _prune(root: Path, backend: str, keep: str) -> None:
    olds = sorted(
        (p for p in root.glob(f"{backend}-*") if p.is_dir() and p.name != keep),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for old in olds[KEEP - 1 :]:
        shutil.rmtree(old, ignore_errors=True)


def _remove_temporary(app: Sphinx, exception: Exception | None) -> None:
    folder = getattr(app, "setlab_execution_temporary", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


# -- filling the cache on every core -----------------------------------------------------------


def _jobs() -> int:
    setting = os.environ.get(JOBS_ENV, "").strip()
    if setting:
        if not setting.isdigit() or int(setting) < 1:
            raise ValueError(
                f"{JOBS_ENV} must be a whole number of parallel pages; got {setting!r}"
            )
        return int(setting)
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def _pending(env: BuildEnvironment, docnames: list[str]) -> list[tuple[str, Path, object, dict]]:
    """The pages MyST-NB would execute whose outputs are not in the cache yet:
    (docname, path, notebook, read format)."""
    from jupyter_cache import get_cache
    from myst_nb.core.read import create_nb_reader

    nb_config = env.mystnb_config
    cache = get_cache(nb_config.execution_cache_path)
    pending = []
    for docname in docnames:
        path = Path(env.doc2path(docname))
        if not path.is_file():
            continue
        posix = PurePosixPath(path.as_posix())
        if any(posix.match(p) for p in nb_config.execution_excludepatterns):
            continue
        text = path.read_text(encoding="utf-8")
        reader = create_nb_reader(str(path), env.myst_config, nb_config, text)
        if reader is None:
            continue
        notebook = reader.read(text)
        with contextlib.suppress(KeyError):
            cache.match_cache_notebook(notebook)
            continue
        pending.append((docname, path, notebook, reader.read_fmt))
    return pending


def ipc_config(folder: str):
    """Kernel settings for Unix sockets in ``folder`` instead of TCP ports: kernels started
    side by side (two pages, two test processes) cannot race for the same free port, which
    killed a kernel at start ("Address already in use") now and then."""
    from traitlets.config import Config

    return Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(folder, "kernel")}})


async def _execute(pending: list, jobs: int, timeout: int | None, allow_errors: bool) -> list:
    """Execute the notebooks ``jobs`` at a time; returns (seconds, error text or None) each."""
    from nbclient import NotebookClient

    gate = asyncio.Semaphore(jobs)
    done = 0

    async def one(docname: str, path: Path, notebook) -> tuple[float, str | None]:
        nonlocal done
        async with gate:
            meta = notebook.metadata.get("execution", {})
            start = time.perf_counter()
            error = None
            with tempfile.TemporaryDirectory(prefix="setlab-kernel-") as sockets:
                client = NotebookClient(
                    notebook,
                    timeout=meta.get("timeout", timeout),
                    allow_errors=meta.get("allow_errors", allow_errors),
                    record_timing=False,  # timing metadata would change the notebook's hash
                    resources={"metadata": {"path": str(path.parent)}},
                    config=ipc_config(sockets),
                )
                try:
                    await client.async_execute()
                except Exception as err:  # a failed cell, a dead kernel, a timeout: not kept
                    error = f"{type(err).__name__}: {str(err)[-300:]}"
            seconds = time.perf_counter() - start
            done += 1
            outcome = "failed (MyST-NB runs it again to report it)" if error else "executed"
            logger.info(
                f"setlab_execution: [{done}/{len(pending)}] {outcome} {docname} in {seconds:.1f} s"
            )
            return seconds, error

    return await asyncio.gather(*(one(d, p, nb) for d, p, nb, _ in pending))


def join_streams(notebook) -> None:
    """Give each code cell of ``notebook`` one stdout output and one stderr output, holding
    every piece of that stream verbatim, in order, where its first piece was.

    The kernel sends a stream in pieces cut by its flush timer, not at line ends: on a loaded
    machine ``print("hashtable", 27496)`` arrived as ``"hashtable"`` and ``" 27496\n"``.
    MyST-NB's ``nb_merge_streams`` ends every piece it merges with a newline, so the page
    printed the two on two lines; merged here first, the pieces reach it as one."""
    for cell in notebook.cells:
        if cell.get("cell_type") != "code":
            continue
        outputs, first = [], {}
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                if output["name"] in first:
                    first[output["name"]]["text"] += output["text"]
                    continue
                first[output["name"]] = output
            outputs.append(output)
        cell["outputs"] = outputs


def _fill_cache(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    if env.mystnb_config.execution_mode != "cache":
        return
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    folder = Path(env.mystnb_config.execution_cache_path)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        # one build per cache at a time: a second build of the same fingerprint waits here and
        # then finds every page executed
        fcntl.flock(lock, fcntl.LOCK_EX)
        pending = _pending(env, sorted(docnames))
        if not pending:
            logger.info("setlab_execution: nothing to execute, every page is in the cache")
            return
        timings_file = folder.parent / TIMINGS
        try:
            timings = json.loads(timings_file.read_text())
        except (OSError, ValueError):
            timings = {}
        pending.sort(key=lambda p: -float(timings.get(p[0], 0.0)))
        jobs = min(_jobs(), len(pending))
        logger.info(f"setlab_execution: executing {len(pending)} pages, {jobs} at a time")
        nb_config = env.mystnb_config
        start = time.perf_counter()
        results = asyncio.run(
            _execute(pending, jobs, nb_config.execution_timeout, nb_config.execution_allow_errors)
        )
        cache = get_cache(str(folder))
        for (docname, path, notebook, read_fmt), (seconds, error) in zip(
            pending, results, strict=True
        ):
            if error is not None:
                continue
            join_streams(notebook)
            stage = cache.add_nb_to_project(str(path), read_data=read_fmt)
            cache.cache_notebook_bundle(
                CacheBundleIn(notebook, stage.uri, data={"execution_seconds": seconds}),
                check_validity=False,
                overwrite=True,
            )
            timings[docname] = round(seconds, 2)
        with contextlib.suppress(OSError):
            timings_file.write_text(json.dumps(timings, indent=1, sort_keys=True))
        logger.info(
            f"setlab_execution: {len(pending)} pages in {time.perf_counter() - start:.1f} s"
        )


def setup(app: Sphinx) -> dict:
    app.add_config_value("setlab_execution_sources", SOURCES, "env", list)
    app.connect("config-inited", _choose_cache, priority=900)
    app.connect("env-before-read-docs", _fill_cache)
    app.connect("build-finished", _remove_temporary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
