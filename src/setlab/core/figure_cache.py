"""Each chapter's computed figures, and the simulations behind them, kept on disk, keyed by the
package's fingerprint.

A figure (:class:`setlab.render.claims.Figures`) is a pure function of the package and the
libraries it computes with, so once one process has computed it, every later process of the same
package can read it: the errata page needs every chapter's figures, the slides and the handout
need them again, and a reader who reruns a chapter recomputes seeded Monte-Carlo runs that cannot
have changed. The cache lives at ``$SETLAB_FIGURE_CACHE`` (a folder), by default the user's cache
folder (``$XDG_CACHE_HOME/setlab/figures``, else ``~/.cache/setlab/figures``); ``off`` turns it
off. Under it, ``<fingerprint>/<chapter>.jsonl`` holds one ``{"name": …, "value": …}`` line per
figure, appended as figures are computed (a line is one small ``write``, so two kernels filling
the same chapter at once cannot interleave inside a line).

:func:`kept` does the same for what a pure, seeded simulation returns (a chapter's cell calls
it, and so do its figures): ``<fingerprint>/results/<name>/<arguments>.pickle``.

The cache is an optimisation only: a folder that cannot be read or written, or a damaged entry,
just means the figure is computed again.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import pickle
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from setlab.core.fingerprint import package_fingerprint

CACHE_ENV = "SETLAB_FIGURE_CACHE"
#: how many fingerprints' folders are kept (the newest); older ones are removed when a new one
#: is made (one folder holds about 50 MB, most of it kept simulations)
KEEP = 4
#: settings of $SETLAB_FIGURE_CACHE that turn it off
OFF = {"off", "0", "no", "false", "none"}
_PLAIN = (int, float, str, bytes, bool, type(None))
T = TypeVar("T")
#: set by :func:`disable` (the test suite computes every figure afresh in its own process)
_disabled = False


def root() -> Path | None:
    """The cache's folder, or ``None`` when it is off."""
    if _disabled:
        return None
    setting = os.environ.get(CACHE_ENV, "").strip()
    if setting.lower() in OFF:
        return None
    if setting:
        return Path(setting).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "setlab" / "figures"


def disable() -> None:
    """Turn the cache off in this process (child processes still read ``$SETLAB_FIGURE_CACHE``)."""
    global _disabled
    _disabled = True


class FigureCache:
    """The cached figures of one chapter (or page module) under the current fingerprint."""

    def __init__(self, folder: Path, chapter: str) -> None:
        self.path = folder / package_fingerprint()[:16] / f"{chapter}.jsonl"
        self._loaded: dict[str, str] | None = None

    @classmethod
    def open(cls, chapter: str) -> FigureCache | None:
        """The cache of ``chapter``, or ``None`` when the cache is off."""
        folder = root()
        return None if folder is None else cls(folder, chapter)

    def get(self, name: str) -> str | None:
        """The cached text of figure ``name``, if any."""
        if self._loaded is None:
            self._loaded = self._read()
        return self._loaded.get(name)

    def put(self, name: str, value: str) -> None:
        """Remember ``value`` as figure ``name`` (best effort: errors are ignored)."""
        if self._loaded is not None:
            self._loaded[name] = value
        line = json.dumps({"name": name, "value": value}, ensure_ascii=False) + "\n"
        try:
            _make(self.path.parent, self.path.parent.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
        except OSError:
            pass

    def _read(self) -> dict[str, str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError:
            return {}
        found = {}
        for line in text.splitlines():
            try:
                entry = json.loads(line)
                found[entry["name"]] = entry["value"]
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a killed process: compute that figure again
        return {k: v for k, v in found.items() if isinstance(v, str)}


def _make(folder: Path, root: Path) -> None:
    """Create ``folder`` (inside ``root``'s current fingerprint folder); when that fingerprint
    folder is new, remove the oldest others (:func:`_prune`)."""
    if folder.is_dir():
        return
    current = root / package_fingerprint()[:16]
    fresh = not current.is_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if fresh:
        _prune(root, keep=current.name)


def _prune(folder: Path, keep: str) -> None:
    """Remove all but the :data:`KEEP` newest fingerprint folders under ``folder``."""
    try:
        folders = sorted(
            (p for p in folder.iterdir() if p.is_dir() and p.name != keep),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
    except OSError:
        return
    for old in folders[KEEP - 1 :]:
        shutil.rmtree(old, ignore_errors=True)


def _token(value: object) -> object:
    """What identifies an argument in a cache key: itself when plain (a number, a string, a
    tuple of them), a digest of its bytes when a numpy array; ``TypeError`` for anything else."""
    if isinstance(value, tuple | list):
        return type(value).__name__, tuple(_token(v) for v in value)
    if isinstance(value, _PLAIN):
        return value
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray | numpy.generic):
        data = numpy.ascontiguousarray(value)
        return "ndarray", data.dtype.str, data.shape, hashlib.sha256(data.tobytes()).hexdigest()
    raise TypeError(type(value).__name__)


def kept(name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorator: keep what a pure function of plain arguments (numbers, strings, numpy arrays,
    tuples of them) returns, under ``name`` and the arguments, for every later process of the
    same package. Anything else as an argument (a generator, a client) just runs the function."""

    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> T:
            folder = root()
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()  # f(10) and f(10, trials=400) are the same call
            try:
                call = repr([(k, _token(v)) for k, v in bound.arguments.items()])
            except TypeError:
                folder = None
            if folder is None:
                return function(*args, **kwargs)
            key = hashlib.sha256(call.encode()).hexdigest()[:24]
            path = folder / package_fingerprint()[:16] / "results" / name / f"{key}.pickle"
            try:
                return pickle.loads(path.read_bytes())
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
                pass
            value = function(*args, **kwargs)
            try:
                _make(path.parent, folder)
                partial = path.with_suffix(f".{os.getpid()}.part")
                partial.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
                os.replace(partial, path)  # whole or not at all, also with two writers
            except OSError:
                pass
            return value

        return run

    return decorate
