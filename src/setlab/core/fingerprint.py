"""What the book's computed figures depend on, as one hash: the package's own files, the Python
that runs them and the libraries they compute with.

Two caches key on it. :mod:`setlab.core.figure_cache` keeps each chapter's figures (the strings
``{glue:text}`` shows) so a second kernel of the same package reads them instead of re-running a
Monte-Carlo simulation; the book's build (``book/_ext/setlab_execution.py``) adds the lock, the
backend and the server to it and keeps the executed notebooks under it. Any edit to a module or
a reference file changes the hash, so nothing computed by older code is ever shown.
"""

from __future__ import annotations

import hashlib
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

#: the distributions the figures are computed with (setlab's own dependencies); their versions
#: are part of the fingerprint because a new numpy or scipy may round differently
LIBRARIES = ("numpy", "scipy", "matplotlib", "mmh3", "pyroaring", "redis", "fakeredis")

PACKAGE = Path(__file__).resolve().parents[1]


def tree_digest(root: Path, update: hashlib._Hash | None = None) -> hashlib._Hash:
    """SHA-256 over every file under ``root`` (relative path and bytes, in sorted order),
    leaving out bytecode caches. ``update`` continues an existing hash."""
    digest = update or hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest


def library_versions() -> dict[str, str]:
    """The installed version of each of :data:`LIBRARIES` (``"missing"`` when absent)."""
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "missing"
    return found


@cache
def package_fingerprint() -> str:
    """The hex SHA-256 of the installed ``setlab`` (every module and data file), the Python
    version and :func:`library_versions`. Computed once per process (about 10 ms)."""
    digest = tree_digest(PACKAGE)
    digest.update(sys.version.encode())
    for name, version in sorted(library_versions().items()):
        digest.update(f"{name}=={version}\n".encode())
    return digest.hexdigest()
