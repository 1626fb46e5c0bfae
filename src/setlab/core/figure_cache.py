"""Each chapter's computed figures kept on disk, keyed by the package's fingerprint.

A figure (:class:`setlab.render.claims.Figures`) is a pure function of the package and the
libraries it computes with, so once one process has computed it, every later process of the same
package can read it: the errata page needs every chapter's figures, the slides and the handout
need them again, and a reader who reruns a chapter recomputes seeded Monte-Carlo runs that cannot
have changed. The cache lives at ``$SETLAB_FIGURE_CACHE`` (a folder), by default the user's cache
folder (``$XDG_CACHE_HOME/setlab/figures``, else ``~/.cache/setlab/figures``); ``off`` turns it
off. Under it, ``<fingerprint>/<chapter>.jsonl`` holds one ``{"name": …, "value": …}`` line per
figure, appended as figures are computed (a line is one small ``write``, so two kernels filling
the same chapter at once cannot interleave inside a line).

The cache is an optimisation only: a folder that cannot be read or written, or a damaged line,
just means the figure is computed again.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from setlab.core.fingerprint import package_fingerprint

CACHE_ENV = "SETLAB_FIGURE_CACHE"
#: how many fingerprints' folders are kept (the newest); older ones are removed when a new one
#: is made, so editing the package for a week leaves a few megabytes, not hundreds
KEEP = 8
_OFF = {"off", "0", "no", "false", "none"}
#: set by :func:`disable` (the test suite computes every figure afresh in its own process)
_disabled = False


def root() -> Path | None:
    """The cache's folder, or ``None`` when it is off."""
    if _disabled:
        return None
    setting = os.environ.get(CACHE_ENV, "").strip()
    if setting.lower() in _OFF:
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
            if not self.path.parent.is_dir():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                _prune(self.path.parent.parent, keep=self.path.parent.name)
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
