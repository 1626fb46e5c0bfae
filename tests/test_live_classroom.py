"""Classroom mode: many students share one Redis through REDIS_URL without touching each other.

Each student gets a namespace from SETLAB_USER; the big-allocation guard protects the shared
server; cleanup removes only the student's own keys. The test runs several students' chapter 1
concurrently, each in its own kernel, against one live server that also holds other data.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import setlab

pytestmark = pytest.mark.live

STUDENTS = ["ana", "bo", "chen"]

_RUN_CHAPTER = """
import sys
sys.path.insert(0, {root!r})
from tests.notebooks import run_chapter
run_chapter("setbit-offset")
"""


def _run_student(user: str, url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "REDIS_URL": url, "SETLAB_USER": user}
    env.pop("SETLAB_BACKEND", None)
    env.pop("SETLAB_ALLOW_BIG", None)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return subprocess.run(
        [sys.executable, "-c", _RUN_CHAPTER.format(root=root)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_students_sharing_one_server_never_touch_each_others_keys(foreign_server, monkeypatch):
    monkeypatch.setenv("REDIS_URL", foreign_server.url)
    monkeypatch.delenv("SETLAB_ALLOW_BIG", raising=False)
    labs = {u: setlab.connect("notes", user=u, quiet=True) for u in STUDENTS}
    for user, lab in labs.items():  # each student's own work from another chapter
        for i in range(200):
            lab.r.set(lab.key("notes", i), user)
    shared = foreign_server.client()
    shared.set("course:config", "keep me")

    with ThreadPoolExecutor(len(STUDENTS)) as pool:
        runs = list(pool.map(lambda u: _run_student(u, foreign_server.url), STUDENTS))
    for user, run in zip(STUDENTS, runs, strict=True):
        assert run.returncode == 0, f"{user}'s chapter failed:\n{run.stderr[-3000:]}"

    # Each chapter's cleanup removed only its own namespace: every student's notes survive.
    for user, lab in labs.items():
        keys = lab.keys()
        assert len(keys) == 200
        assert {lab.r.get(k) for k in keys} == {user.encode()}
        assert all(k.decode().startswith(lab.namespace + "notes:") for k in keys)
        assert lab.namespace.startswith(f"setlab:@{user}:")  # the user's prefix, then the run
        # the student's chapter run (its own run id) left nothing under the student's prefix
        left = set(shared.scan_iter(match=f"setlab:@{user}:*")) - set(keys)
        assert left == set()
    assert shared.get("course:config") == b"keep me"
    # A student's view of the namespace never includes another student's keys.
    assert labs["ana"].keys() and not set(labs["ana"].keys()) & set(labs["bo"].keys())
    # No student could allocate a big bitmap on the shared server.
    assert shared.info("memory")["used_memory_peak"] < 100 * 2**20
    # Cleanup by one student leaves the others alone.
    assert labs["ana"].cleanup() == 200
    assert len(labs["bo"].keys()) == 200 and len(labs["chen"].keys()) == 200
