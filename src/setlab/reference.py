"""Stored measurements from a real Redis, for readers running on the embedded backend.

A reference file is a small JSON document under ``book/data/`` written by a script in
``scripts/``: the rows of one experiment plus where they were measured (Redis version, allocator,
modules, machine, date). Chapters show it, labelled, when they cannot measure live.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
from pathlib import Path
from typing import Any

from setlab.backend import Lab

DATA_DIR_ENV = "SETLAB_DATA_DIR"


def data_dir() -> Path:
    """Where reference files live: ``$SETLAB_DATA_DIR``, else ``book/data`` of this checkout,
    else the copy packaged inside setlab (a downloaded chapter installs setlab as a wheel that
    carries ``setlab/data``)."""
    explicit = os.environ.get(DATA_DIR_ENV)
    if explicit:
        return Path(explicit)
    checkout = Path(__file__).resolve().parents[2] / "book" / "data"
    if checkout.is_dir():
        return checkout
    return Path(__file__).resolve().parent / "data"


def machine_facts() -> dict[str, Any]:
    """CPU model, core count, memory and OS of this machine, for a measurement's label."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = int(line.split()[1]) * 1024
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_bytes": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def server_facts(lab: Lab) -> dict[str, Any]:
    """Redis version, allocator and modules of the lab's server."""
    return {
        "redis_version": lab.version_text,
        "allocator": lab.allocator,
        "modules": lab.modules,
        "backend": lab.kind,
    }


def save(name: str, rows: list[dict[str, Any]], lab: Lab, **extra: Any) -> Path:
    """Write ``book/data/<name>.json`` with the rows and the facts that label them."""
    if not lab.is_real:
        raise ValueError("reference data must come from a real Redis, not the embedded fakeredis")
    document = {
        "name": name,
        "measured": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "server": server_facts(lab),
        "machine": machine_facts(),
        **extra,
        "rows": rows,
    }
    path = data_dir() / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n")
    return path


def load(name: str) -> dict[str, Any]:
    """Read ``book/data/<name>.json`` (a clear error if the file is missing)."""
    path = data_dir() / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"no reference data {path}; produce it with the script in scripts/ on a real Redis"
        )
    return json.loads(path.read_text())


def label(document: dict[str, Any]) -> str:
    """One line naming where and when a reference measurement was taken."""
    server, machine = document["server"], document["machine"]
    return (
        f"Redis {server['redis_version']} ({server['allocator']}), {machine['cpu']}, "
        f"{machine['cores']} cores, measured {document['measured']}"
    )
