"""The one chapter runner of the tests, and the book build they share.

:func:`run_page` executes ``book/<slug>.md`` top to bottom in a fresh kernel, the way a reader's
JupyterLab does (jupytext reads the MyST file, nbclient runs it), in a child process of its own
so that the environment it gets (``REDIS_URL``, ``SETLAB_USER``, …) is exactly the one given and
everything the run prints, the kernel's own stderr included, can be searched for a password.
:func:`kept_run` keeps a run whose test passed until what it depends on changes
(:func:`run_key`), and :func:`kept_runs` runs several at once and keeps them together. Run one by
hand::

    SETLAB_BACKEND=fake .venv/bin/python -m tests.support.notebooks setbit-offset

:func:`built_site` is the whole book built on one backend (:func:`build_book`), kept as an
artefact per :func:`site_key`; its executed pages come from the execution cache every build of
this checkout shares (book/_ext/setlab_execution.py), so a build after a prose edit runs no
cell. :func:`prime_figures` fills the figure cache the kernels read before the first one starts.
:func:`tiny_book` and :func:`build` make and build a book of a few pages with the book's own
configuration, for the tests of the build itself.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from setlab.core import figure_cache

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
#: the caches the book's builds and the tests' kernels share (make test-fresh removes it)
CACHE = ROOT / "_build" / ".cache"
FIGURE_CACHE = CACHE / "figures"


@dataclass
class PageRun:
    """What one execution of a page did."""

    slug: str
    ok: bool
    #: the exception's class name and message when a cell failed
    ename: str = ""
    evalue: str = ""
    #: every stream and text/plain output, joined (what the reader sees printed)
    text: str = ""
    #: the names the page glued, sorted, and how many images its cells drew
    glued: list[str] = field(default_factory=list)
    figures: int = 0
    #: the longest any one cell took, and the whole run with the kernel's start, in seconds
    slowest_cell_s: float = 0.0
    seconds: float = 0.0
    #: each code cell's seconds and first line, in page order
    cells: list[tuple[float, str]] = field(default_factory=list)
    #: everything the run wrote anywhere: outputs, the runner's and the kernel's stdout/stderr
    all: str = ""


def outputs_text(notebook) -> str:
    """All stream and text/plain outputs of an executed notebook, joined."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(output["text"])
            elif "data" in output and "text/plain" in output["data"]:
                parts.append(output["data"]["text/plain"])
    return "\n".join(parts)


def _cell_seconds(cell) -> float | None:
    times = cell.get("metadata", {}).get("execution", {})
    if "iopub.execute_input" not in times or "shell.execute_reply" not in times:
        return None
    start, end = (
        datetime.datetime.fromisoformat(times[k].replace("Z", "+00:00"))
        for k in ("iopub.execute_input", "shell.execute_reply")
    )
    return (end - start).total_seconds()


def _execute(slug: str, timeout: int) -> dict:
    """In the child: run the page, return what :class:`PageRun` holds (without ``all``)."""
    import time

    import jupytext
    import nbclient

    sys.path.insert(0, str(BOOK / "_ext"))
    from setlab_execution import ipc_config  # the build's kernels: Unix sockets, no port race

    notebook = jupytext.read(BOOK / f"{slug}.md")
    result: dict = {"slug": slug, "ok": True}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="setlab-kernel-") as sockets:
        client = nbclient.NotebookClient(
            notebook, timeout=timeout, kernel_name="python3",
            resources={"metadata": {"path": BOOK}}, config=ipc_config(sockets),
        )  # fmt: skip
        try:
            client.execute()
        except nbclient.exceptions.CellExecutionError as err:
            result.update(ok=False, ename=err.ename, evalue=err.evalue[-2000:])
    result["seconds"] = time.perf_counter() - start
    glued, figures, cells = [], 0, []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        seconds = _cell_seconds(cell)
        if seconds is not None:
            cells.append((seconds, cell.source.split("\n", 1)[0][:70]))
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                glued.append(name)
            elif any(k.startswith("image/") for k in out.get("data", {})):
                figures += 1
    result.update(
        glued=sorted(glued),
        figures=figures,
        text=outputs_text(notebook),
        cells=cells,
        slowest_cell_s=max((s for s, _ in cells), default=0.0),
    )
    return result


#: computes every figure of the pages named on its command line (a chapter slug, or a module of
#: setlab.site for the pages that are not chapters)
_PRIME = """
import importlib, sys
from setlab.site import registry
for page in sys.argv[1:]:
    if page in registry.CHAPTERS:
        figures = registry.figures(page)
    else:
        figures = importlib.import_module("setlab.site." + page).FIGURES
    for name in figures.names():
        figures[name]
"""
#: the chapters primed in the first of two processes: with them, about half of the figures' cost
#: (the slowest chapters apart); every other chapter of the registry, the front door and the
#: errata go to the second, so a new chapter is primed without being listed here
_FIRST_HALF = {
    "hyperloglog", "birthday-collisions", "snowflake-ranges", "choosing", "sharded-bloom",
    "setbit-offset", "string-plus-set",
}  # fmt: skip


def _halves() -> tuple[list[str], list[str]]:
    from setlab.site.registry import CHAPTERS

    first = [c for c in CHAPTERS if c in _FIRST_HALF]
    return first, [c for c in CHAPTERS if c not in _FIRST_HALF] + ["front_door", "errata"]


def prime_figures(folder: Path = FIGURE_CACHE) -> None:
    """Compute every figure into the figure cache at ``folder`` once per package fingerprint,
    in two processes at once, so that no kernel started afterwards computes one (a test
    process that comes second waits for the first one's priming)."""
    import fcntl

    from setlab.core.fingerprint import package_fingerprint

    folder.mkdir(parents=True, exist_ok=True)
    done = folder / f"{package_fingerprint()[:16]}.primed"
    with open(folder / "prime.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return
        env = {**os.environ, "SETLAB_FIGURE_CACHE": str(folder)}
        runs = [
            subprocess.Popen([sys.executable, "-c", _PRIME, *half], env=env, cwd=ROOT)
            for half in _halves()
        ]
        if all(run.wait() == 0 for run in runs):
            done.touch()


def page_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) with the tests' figure cache, so kernels
    read the figures the book's builds computed (figures are pure: the backend cannot change
    them) unless ``env`` names another one."""
    env = dict(os.environ if env is None else env)
    env.setdefault("SETLAB_FIGURE_CACHE", str(FIGURE_CACHE))
    return env


def run_page(
    slug: str, env: dict[str, str] | None = None, timeout: int = 600, prime: bool = True
) -> PageRun:
    """Execute ``book/<slug>.md`` in a fresh kernel under ``env`` (default: this process's
    environment), its figure cache primed first unless ``prime`` is false; a failing cell does
    not raise: the result says so (``ok``, ``ename``)."""
    env = page_env(env)
    if prime and env["SETLAB_FIGURE_CACHE"].strip().lower() not in figure_cache.OFF:
        prime_figures(Path(env["SETLAB_FIGURE_CACHE"]))
    proc = subprocess.run(
        [sys.executable, "-m", "tests.support.notebooks", slug, "--timeout", str(timeout),
         "--json"],
        env=env, capture_output=True, text=True, timeout=timeout + 120, cwd=ROOT,
    )  # fmt: skip
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    if not lines:
        raise AssertionError(f"{slug}: the runner gave no result\n{proc.stderr[-3000:]}")
    fields = json.loads(lines[-1][len("RESULT") :])
    fields["cells"] = [tuple(c) for c in fields["cells"]]
    return PageRun(**fields, all=proc.stdout + proc.stderr)


#: chapter runs whose test passed, one JSON file per :func:`run_key` (``make test-fresh`` and a
#: fresh clone start without them)
KEPT_RUNS = CACHE / "runs"
#: a kept run no test has read or written for this long is removed when a run is kept (seconds):
#: every package edit makes new keys, and the old ones would pile up
KEPT_RUNS_UNUSED = 7 * 24 * 3600


def run_key(slug: str, env: dict[str, str], inputs: list[Path], *salt: str) -> str:
    """What the outcome of running ``book/<slug>.md`` under ``env`` in a test depends on, as a
    hash: the execution cache's fingerprint for a live server (the package, the lock, the
    ``redis-server`` binary and module, the run's ``SETLAB_*`` settings), the page's code cells
    (its prose cannot change a run), this runner, the test's own files (``inputs``) and what
    else tells one run of the test from another (``salt``)."""
    import hashlib

    import jupytext

    sys.path.insert(0, str(BOOK / "_ext"))
    import setlab_execution as execution

    _, identity = execution.backend_identity("live")
    digest = hashlib.sha256(execution.fingerprint(ROOT, execution.SOURCES, identity, env).encode())
    notebook = jupytext.read(BOOK / f"{slug}.md")
    for cell in notebook.cells:
        if cell.cell_type == "code":
            digest.update(b"\0code\0" + cell.source.encode())
    for path in [Path(__file__), *inputs]:
        digest.update(b"\0file\0" + path.read_bytes())
    for part in (slug, *salt):
        digest.update(b"\0salt\0" + part.encode())
    return digest.hexdigest()


@contextlib.contextmanager
def kept_run(
    slug: str, env: dict[str, str], inputs: list[Path], *salt: str, timeout: int = 600
) -> Iterator[PageRun]:
    """:func:`run_page`, kept as an artefact: the run of a test whose checks all passed (the
    body of the ``with`` raised nothing) is stored under :func:`run_key`, and while nothing in
    that key changes a later test process gets the stored run instead of running the page
    again; its checks then read the kept outputs. A failed check keeps nothing. After a prose
    edit a warm ``make test`` runs no chapter on its hostile servers; ``make test-fresh`` and a
    fresh clone (CI) run every one."""
    with kept_runs({slug: (slug, env)}, inputs, *salt, timeout=timeout) as runs:
        yield runs[slug]


@contextlib.contextmanager
def kept_runs(
    runs: dict[str, tuple[str, dict[str, str]]],
    inputs: list[Path],
    *salt: str,
    jobs: int | None = None,
    timeout: int = 600,
) -> Iterator[dict[str, PageRun]]:
    """:func:`kept_run` for several runs that happen at once (``jobs`` at a time, all by
    default): ``runs`` names each run's (slug, environment), and the results come back under
    the same names. They are kept, and reused, together: if one is missing every one runs
    again, so runs that must share a server at the same moment still do."""
    keys = {name: run_key(slug, env, inputs, *salt, name) for name, (slug, env) in runs.items()}
    kept = {name: KEPT_RUNS / f"{key[:24]}.json" for name, key in keys.items()}
    if all(path.is_file() for path in kept.values()):
        for path in kept.values():
            path.touch()  # read: still in use
        yield {name: _read_run(path) for name, path in kept.items()}
        return
    with ThreadPoolExecutor(jobs or len(runs)) as pool:
        finished = pool.map(lambda run: run_page(*run, timeout), runs.values())
        done = dict(zip(runs, finished, strict=True))
    yield done
    KEPT_RUNS.mkdir(parents=True, exist_ok=True)
    for name, result in done.items():
        partial = kept[name].with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(asdict(result)))
        partial.replace(kept[name])
    prune_kept_runs()


def prune_kept_runs(now: float | None = None) -> list[Path]:
    """Remove the kept runs (and a crashed writer's ``.tmp`` files) unused for
    :data:`KEPT_RUNS_UNUSED`; returns what was removed."""
    now = time.time() if now is None else now
    removed = []
    for path in KEPT_RUNS.glob("*"):
        with contextlib.suppress(OSError):  # another worker may remove it first
            if now - path.stat().st_mtime > KEPT_RUNS_UNUSED:
                path.unlink()
                removed.append(path)
    return removed


def _read_run(path: Path) -> PageRun:
    fields = json.loads(path.read_text())
    fields["cells"] = [tuple(c) for c in fields["cells"]]
    return PageRun(**fields)


def site_key(backend: str) -> str:
    """What a build of the whole book on ``backend`` depends on, as a hash: the execution
    cache's fingerprint (package, lock, backend and server, ``SETLAB_*`` settings) and every
    file of the book's sources and configuration."""
    import hashlib

    sys.path.insert(0, str(BOOK / "_ext"))
    import setlab_execution as execution

    from setlab.core.fingerprint import tree_digest

    env = {**os.environ, "SETLAB_BACKEND": backend}
    _, identity = execution.backend_identity(backend)
    key = execution.fingerprint(ROOT, execution.SOURCES, identity, env)
    digest = tree_digest(BOOK, hashlib.sha256(key.encode()))
    for name in ("_config.yml", "_toc.yml"):
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def built_site(backend: str) -> tuple[int, str, Path]:
    """The whole book built on ``backend``, as an artefact: built once per :func:`site_key`
    into ``_build/.cache/sites/<backend>-<key>`` and reused by every later test process (the
    other pytest-xdist worker waits for the first one's build). Returns (exit code, the build's
    report, the html folder); a build that failed is built again next time."""
    import fcntl

    prime_figures()
    sites = CACHE / "sites"
    sites.mkdir(parents=True, exist_ok=True)
    folder = sites / f"{backend}-{site_key(backend)[:16]}"
    with open(sites / f"{backend}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / "build-report.json"
        if done.is_file():
            saved = json.loads(done.read_text())
            if saved["code"] == 0:
                return 0, saved["report"], folder / "_build" / "html"
        shutil.rmtree(folder, ignore_errors=True)
        for old in sorted(sites.glob(f"{backend}-*"), key=lambda p: p.stat().st_mtime)[:-1]:
            shutil.rmtree(old, ignore_errors=True)  # keep the newest other one
        code, report, html = build_book(folder, backend)
        done.write_text(json.dumps({"code": code, "report": report}))
        return code, report, html


def build_book(out_dir: Path, backend: str, env: dict[str, str] | None = None):
    """``jupyter-book build --all -W -n --keep-going`` into ``out_dir`` on ``backend``.

    Returns (exit code, the output's last 6000 characters, the html folder). --all matters:
    without it a rebuild after a failure can report success, because Sphinx does not re-read
    the failed page; with the execution cache, re-reading a page costs no execution.
    """
    env = page_env(env)
    env["SETLAB_BACKEND"] = backend
    env.pop("REDIS_URL", None)
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jupyter_book), "build", str(ROOT), "--path-output", str(out_dir),
         "--all", "-W", "-n", "--keep-going"],
        env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    return result.returncode, (result.stdout + result.stderr)[-6000:], out_dir / "_build" / "html"


def tiny_book(root: Path, pages: dict[str, str], config: dict | None = None) -> Path:
    """A book at ``root`` with the repository's _config.yml and extensions (``book/_ext`` and
    ``book/_static`` linked) and only ``pages`` (``{"book/<name>": MyST text}``, the first one
    the root of its table of contents); ``config`` is merged into the ``sphinx: config:``
    section. Builds in seconds: for tests of the build itself."""
    import yaml

    (root / "book").mkdir(parents=True)
    settings = yaml.safe_load((ROOT / "_config.yml").read_text())
    settings["sphinx"]["config"].update(config or {})
    (root / "_config.yml").write_text(yaml.safe_dump(settings, sort_keys=False))
    first, *rest = pages
    toc = f"format: jb-book\nroot: {first}\n"
    if rest:
        toc += "chapters:\n" + "".join(f"  - file: {name}\n" for name in rest)
    (root / "_toc.yml").write_text(toc)
    for name, text in pages.items():
        (root / f"{name}.md").write_text(text)
    for shared in ("_ext", "_static"):
        (root / "book" / shared).symlink_to(BOOK / shared, target_is_directory=True)
    for name in settings.get("bibtex_bibfiles", []):  # files the configuration reads
        shutil.copy(ROOT / name, root / name)
    return root


def build(root: Path, env: dict[str, str], strict: bool = True) -> subprocess.CompletedProcess:
    """``jupyter-book build --all --keep-going`` (and ``-W -n`` when ``strict``) of the book at
    ``root`` under exactly ``env``."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    flags = ["--all", "--keep-going", *(["-W", "-n"] if strict else [])]
    return subprocess.run(
        [str(jupyter_book), "build", str(root), *flags],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def main() -> int:
    # jsonschema (under nbformat, under jupytext and nbclient) imports its optional IRI checker,
    # rfc3987-syntax (jupyter-events pulls it in), whenever it is installed, and that compiles
    # 39 lark grammars: 1.4 s of every runner's start, for a format nbformat never validates.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]
    parser = argparse.ArgumentParser(description="Execute one page of the book in a fresh kernel")
    parser.add_argument("slug", help="the page: book/<slug>.md")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may take")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    if not (BOOK / f"{args.slug}.md").is_file():
        parser.error(f"no page book/{args.slug}.md")
    result = _execute(args.slug, args.timeout)
    if args.json:
        print("RESULT" + json.dumps(result))
    else:
        state = "ok" if result["ok"] else f"failed: {result['ename']}: {result['evalue'][-300:]}"
        print(f"{args.slug}: {state} in {result['seconds']:.1f} s")
        for seconds, first in sorted(result["cells"], reverse=True)[:5]:
            print(f"  {seconds:6.2f} s  {first}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
