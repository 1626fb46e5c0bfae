"""The Binder files agree with the package: same Python, same extras, a real Redis installed."""

from __future__ import annotations

import re
import subprocess
import tomllib

from tests.notebooks import ROOT

BINDER = ROOT / "binder"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_binder_python_satisfies_requires_python():
    runtime = (BINDER / "runtime.txt").read_text().strip()
    major, minor = map(int, re.fullmatch(r"python-(\d+)\.(\d+)", runtime).groups())
    required = re.fullmatch(r">=(\d+)\.(\d+)", _pyproject()["project"]["requires-python"])
    assert (major, minor) >= tuple(map(int, required.groups()))


def test_binder_installs_redis_server_and_the_extras_the_chapters_need():
    assert "redis-server" in (BINDER / "apt.txt").read_text().split()
    post = (BINDER / "postBuild").read_text()
    extras = set(re.search(r"\.\[([a-z,]+)\]", post).group(1).split(","))
    assert {"book", "live"} <= extras <= set(_pyproject()["project"]["optional-dependencies"])
    assert "-c constraints.txt" in post


def test_binder_post_build_is_a_valid_executable_script():
    post = BINDER / "postBuild"
    assert post.stat().st_mode & 0o111
    assert subprocess.run(["bash", "-n", str(post)]).returncode == 0


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
    assert sorted(names - lock) == []
