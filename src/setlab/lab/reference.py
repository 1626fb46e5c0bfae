"""Stored measurements from a real Redis, and the one place that decides "live or reference".

A reference file is a small JSON document in the package's data folder (``setlab/data/``),
written by a script in ``reference/`` (``make reference`` runs them all), which it names
(``writer``): the rows of one experiment plus where they were measured (Redis version,
allocator, modules, machine, date). It is replaced
atomically (:func:`write_atomic`): a measurement that fails while writing (a full disk, an
interrupt) leaves the stored run as it was, never half a file. It travels inside the
wheel and is read through :mod:`importlib.resources`, so an installed setlab finds it anywhere.

Chapters never choose between a live run and the stored one themselves. They call
:func:`live_or_reference` once per measurement; it runs the experiment when the backend can
(a real server, the capabilities it needs, the memory it may use) and otherwise returns the
stored record, and either way it says which, with one label format:

- ``this run: Redis 7.0.15 (jemalloc-5.3.0) on a private server started by setlab`` (on the
  reader's own server, its ``host:port``)
- ``reference run: Redis 7.0.15 (jemalloc-5.3.0), Intel(R) Xeon(R) Processor, 2 cores,
  measured 2026-11-30``

Stored runs are never called "this machine".
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import platform
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

if TYPE_CHECKING:  # the Lab (and redis with it) loads only when a measurement runs
    from setlab.lab.backend import Lab

DATA_DIR_ENV = "SETLAB_DATA_DIR"

T = TypeVar("T")

Capability = Literal["real", "own_server", "memory_usage", "bloom", "redisbloom"]


def data_dir() -> Path:
    """Where reference files are written: ``$SETLAB_DATA_DIR``, else the package's own
    ``setlab/data`` (in an editable install, that is ``src/setlab/data`` of the checkout)."""
    explicit = os.environ.get(DATA_DIR_ENV)
    if explicit:
        return Path(explicit)
    return Path(str(resources.files("setlab") / "data"))


def _read_text(name: str) -> str:
    explicit = os.environ.get(DATA_DIR_ENV)
    if explicit:
        path = Path(explicit) / f"{name}.json"
        if not path.is_file():
            raise FileNotFoundError(f"no reference data {path} ({DATA_DIR_ENV} is set)")
        return path.read_text()
    resource = resources.files("setlab") / "data" / f"{name}.json"
    if not resource.is_file():
        raise FileNotFoundError(
            f"setlab has no reference data {name!r}; produce it on a real Redis with "
            "`make reference` (reference/measure_*.py)"
        )
    return resource.read_text()


def names() -> list[str]:
    """The names of every stored reference file, sorted (``"setbit-reference"``, …)."""
    explicit = os.environ.get(DATA_DIR_ENV)
    folder = Path(explicit) if explicit else resources.files("setlab") / "data"
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


@dataclass(frozen=True)
class RunInfo:
    """Where and when a stored measurement was taken: the label every chapter shows with it."""

    name: str
    measured: str  #: ISO date
    redis_version: str
    allocator: str
    modules: Mapping[str, str]
    cpu: str
    cores: int
    #: "Valkey 8.1.8" where the server was not Redis (Valkey reports redis_version 7.2.4)
    server_name: str = ""

    @property
    def label(self) -> str:
        """``reference run: Redis 7.0.15 (jemalloc-5.3.0), <cpu>, 2 cores, measured <date>``."""
        return (
            f"reference run: {self.server_name or 'Redis ' + self.redis_version} "
            f"({self.allocator}), {self.cpu}, {self.cores} cores, measured {self.measured}"
        )


@dataclass(frozen=True)
class Document:
    """One reference file: its :class:`RunInfo` and its data (everything else in the file).

    Experiment modules turn ``data`` into typed records (``SetbitReference.load()`` and the
    like); chapters read those, never raw dict paths.
    """

    run: RunInfo
    data: Mapping[str, Any]


def run_info(name: str, labelled: Mapping[str, Any]) -> RunInfo:
    """The :class:`RunInfo` of a labelled block (``measured``, ``server``, ``machine``): a whole
    reference file, or a section of one measured on another day (:func:`save_section`)."""
    server, machine = labelled["server"], labelled["machine"]
    return RunInfo(
        name=labelled.get("name", name),
        measured=labelled["measured"],
        redis_version=server["redis_version"],
        allocator=server["allocator"],
        modules=dict(server.get("modules", {})),
        cpu=machine["cpu"],
        cores=int(machine["cores"]),
        server_name=server.get("name", ""),
    )


@cache
def load(name: str) -> Document:
    """Read the reference file ``name`` (e.g. ``"setbit-reference"``) from the package data."""
    raw = json.loads(_read_text(name))
    run = run_info(name, raw)
    for label in ("name", "measured", "server", "machine"):
        raw.pop(label, None)
    return Document(run, raw)


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
    """Redis version, allocator and modules of the lab's server, and its name (Redis or Valkey,
    with the flavour's own version) and the release the models price it as."""
    profile = lab.profile
    return {
        "name": profile.name,
        "release": profile.build.release if profile.build else None,
        "redis_version": lab.version_text,
        "allocator": lab.allocator,
        "modules": lab.modules,
        "backend": lab.kind,
    }


#: the folder of the repository whose scripts write the reference files (``make reference``)
WRITERS = "reference"


def writer_name(script: str | Path) -> str:
    """How a reference file names the script that wrote it: ``reference/<file>``, from the
    script's ``__file__``; anything outside that folder is refused, so every stored run has a
    writer that ``make reference`` reruns."""
    path = Path(script)
    if path.parent.name != WRITERS or not path.name.startswith("measure_"):
        raise ValueError(f"reference files are written by {WRITERS}/measure_*.py, not {script}")
    return f"{WRITERS}/{path.name}"


def save(
    name: str, rows: list[dict[str, Any]], lab: Lab, *, writer: str | Path, **extra: Any
) -> Path:
    """Write ``<data dir>/<name>.json`` with the rows, the facts that label them and the script
    that wrote it (``writer``: its ``__file__``, see :func:`writer_name`)."""
    if not lab.is_real:
        raise ValueError("reference data must come from a real Redis, not the embedded fakeredis")
    document = {
        "name": name,
        "writer": writer_name(writer),
        "measured": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "server": server_facts(lab),
        "machine": machine_facts(),
        **extra,
        "rows": rows,
    }
    path = data_dir() / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(document, indent=1) + "\n")
    load.cache_clear()
    return path


def save_section(name: str, section: str, rows: list[dict[str, Any]], lab: Lab) -> Path:
    """Add (or replace) the section ``section`` of the existing reference file ``name``, with its
    own label (date, server, machine): one experiment re-measured without redoing the others."""
    if not lab.is_real:
        raise ValueError("reference data must come from a real Redis, not the embedded fakeredis")
    path = data_dir() / f"{name}.json"
    document = json.loads(path.read_text())
    document[section] = {
        "measured": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "server": server_facts(lab),
        "machine": machine_facts(),
        "rows": rows,
    }
    write_atomic(path, json.dumps(document, indent=1) + "\n")
    load.cache_clear()
    return path


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that it holds the old text or the new, never part.

    The text goes to a temporary file in the same directory (``.<name>.*.tmp``, which
    :func:`names` ignores), is flushed and ``fsync``-ed, and then renamed over ``path`` with
    ``os.replace`` (atomic within one file system, POSIX ``rename(2)``); the directory is
    ``fsync``-ed too so that the rename survives a power cut. On any error the temporary file
    is removed and ``path`` is untouched. A new file gets mode 0644; a replaced one keeps its.
    """
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


# -- live or reference, decided once ---------------------------------------------------------


@dataclass(frozen=True)
class Measurement(Generic[T]):
    """A measurement and where it came from.

    Attributes:
        value: the experiment's result (the same type whether live or stored).
        live: True when it was measured just now on the lab's server.
        label: one line naming the source (see the module docstring); show it with the figure.
        why_not_live: when ``live`` is False, the reason in a few words (for the reader).
    """

    value: T
    live: bool
    label: str
    why_not_live: str = ""

    @property
    def source(self) -> str:
        """``"this run"`` or ``"reference run"``: for titles and legends."""
        return "this run" if self.live else "reference run"


def live_label(lab: Lab) -> str:
    """``this run: Redis 7.0.15 (jemalloc-5.3.0) on a private server started by setlab``, or
    ``… on 10.0.0.5:6379`` on the reader's own server (:attr:`Lab.where`)."""
    allocator = lab.allocator or "allocator not reported"
    return f"this run: {lab.profile.name} ({allocator}) on {lab.where}"


def _missing(lab: Lab, needs: tuple[Capability, ...]) -> str:
    """Why the lab cannot run an experiment that needs ``needs``, or "" if it can."""
    if not lab.is_real:
        return "the embedded fakeredis measures nothing about Redis"
    checks = {
        "real": True,
        "own_server": lab.owns_server,
        "memory_usage": lab.has_memory_usage,
        "bloom": lab.has_bloom,
        "redisbloom": lab.has_redisbloom,
    }
    absent = [n for n in needs if not checks[n]]
    if "own_server" in absent:
        return "it blocks or reconfigures the server, so it runs only on a server setlab started"
    if absent:
        return "this server lacks " + ", ".join(a.replace("_", " ").upper() for a in absent)
    return ""


def live_or_reference(
    lab: Lab,
    experiment: Callable[[Lab], T],
    reference: Callable[[], T],
    *,
    needs: tuple[Capability, ...] = ("real",),
    allocates: int = 0,
    run_info: RunInfo,
) -> Measurement[T]:
    """Run ``experiment(lab)`` when the lab can, else return ``reference()``, labelled.

    Args:
        lab: the chapter's lab.
        experiment: measures on ``lab`` and returns a typed record.
        reference: returns the stored record of the same type.
        needs: capabilities the experiment needs (always a real server; "own_server" for
            experiments that block or reconfigure it, "memory_usage", "bloom", "redisbloom").
        allocates: bytes the experiment may allocate on the server at its peak; the lab's
            guard decides whether that is allowed (never on someone else's server without
            the opt-in).
        run_info: the stored run's facts (for the reference label).

    If the server refuses midway (the memory budget, an ACL, out of memory), the stored record
    is returned instead, with the refusal as ``why_not_live``; the lab's cleanup removes what
    the experiment wrote. Other errors (a dead server) propagate as setlab errors.
    """
    from setlab.lab.errors import (
        BigAllocationRefused,
        PermissionDenied,
        ServerOutOfMemory,
        SetlabError,
    )

    reason = _missing(lab, needs)
    if not reason and allocates:
        try:
            lab.check_allocation(allocates, "this experiment")
        except SetlabError as refused:
            reason = str(refused)
    if not reason:
        try:
            return Measurement(experiment(lab), True, live_label(lab))
        except (BigAllocationRefused, PermissionDenied, ServerOutOfMemory) as refused:
            reason = str(refused)  # the server said no (budget, ACL, memory): show the stored run
    return Measurement(reference(), False, run_info.label, reason)


def beside(measurement: Measurement[T], describe: Callable[[T], str]) -> str:
    """The sentence a page shows beside a reference figure: what this run measured, or why not.

    A chapter's figures come from models and stored reference runs (see
    :mod:`setlab.render.claims`), so a page reads the same on every backend; what a live server
    measured on this run is glued beside them under a ``live-`` name, with the same wording on
    every chapter: ``"This run (Redis 7.0.15 … on <where>): <describe(value)>."`` when
    the value was measured live, else a sentence saying this run measured nothing, and why."""
    if measurement.live:
        where = measurement.label.removeprefix("this run: ")
        return f"This run ({where}): {describe(measurement.value)}."
    return f"(This run measured none of it: {measurement.why_not_live.rstrip('.')}.)"
