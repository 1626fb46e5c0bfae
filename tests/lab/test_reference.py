"""setlab.lab.reference: stored runs read from the package, written atomically, and the one
live-or-reference rule."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import setlab
from setlab.lab import reference
from setlab.lab.errors import PermissionDenied, ServerUnavailable

DATA = Path(__file__).resolve().parents[2] / "src" / "setlab" / "data"


def test_every_stored_run_is_labelled_with_redis_allocator_machine_and_date():
    assert reference.names() == sorted(p.stem for p in DATA.glob("*.json"))
    for name in reference.names():
        raw = json.loads((DATA / f"{name}.json").read_text())
        label = reference.load(name).run.label
        assert label.startswith(f"reference run: Redis {raw['server']['redis_version']} ")
        assert raw["server"]["allocator"] in label and raw["measured"] in label
        assert raw["machine"]["cpu"] in label
        assert "this machine" not in label


def test_a_missing_reference_file_says_how_to_make_it():
    with pytest.raises(FileNotFoundError, match="make reference"):
        reference.load("no-such-run")


def _run_info():
    return reference.load("setbit-reference").run


def test_the_embedded_backend_returns_the_stored_run_with_its_label(fake_lab):
    m = reference.live_or_reference(
        fake_lab, lambda lab: "live", lambda: "stored", run_info=_run_info()
    )
    assert (m.value, m.live, m.source) == ("stored", False, "reference run")
    assert m.label == _run_info().label and "embedded" in m.why_not_live


@pytest.mark.live
def test_a_real_server_runs_the_experiment_and_says_this_run(live_lab):
    m = reference.live_or_reference(
        live_lab, lambda lab: lab.r.ping(), lambda: "stored", run_info=_run_info()
    )
    assert m.value is True and m.live and m.label.startswith("this run: Redis ")


@pytest.mark.live
def test_a_refusal_midway_falls_back_to_the_stored_run_but_a_dead_server_does_not(live_lab):
    def denied(lab):
        raise PermissionDenied("Redis at x denies INFO to this user")

    m = reference.live_or_reference(live_lab, denied, lambda: "stored", run_info=_run_info())
    assert (m.value, m.live) == ("stored", False) and "denies INFO" in m.why_not_live

    def dead(lab):
        raise ServerUnavailable("lost Redis")

    with pytest.raises(ServerUnavailable):
        reference.live_or_reference(live_lab, dead, lambda: "stored", run_info=_run_info())


@pytest.mark.live
def test_an_allocation_the_guard_refuses_is_not_attempted(foreign_server, monkeypatch):
    monkeypatch.setenv("REDIS_URL", foreign_server.url)
    monkeypatch.delenv("SETLAB_ALLOW_BIG", raising=False)
    lab = setlab.connect("reference-test", quiet=True)
    ran = []
    m = reference.live_or_reference(
        lab, ran.append, lambda: "stored", allocates=2**30, run_info=_run_info()
    )
    assert ran == [] and not m.live and "SETLAB_ALLOW_BIG=1" in m.why_not_live


# -- writing: the stored run is replaced whole or not at all --------------------------------------

#: a stand-in for a live lab: the facts reference.save labels a run with
LAB = types.SimpleNamespace(
    is_real=True, version_text="7.0.15", allocator="jemalloc-5.3.0", modules={}, kind="live",
    profile=types.SimpleNamespace(name="Redis 7.0.15", build=None),
)  # fmt: skip
OLD = {
    "name": "a-run", "measured": "2026-01-01", "rows": [{"n": 1}],
    "server": {"redis_version": "7.0.15", "allocator": "jemalloc-5.3.0", "modules": {}},
    "machine": {"cpu": "a cpu", "cores": 2},
}  # fmt: skip
#: a full disk, for real: RLIMIT_FSIZE makes the write that crosses it fail with EFBIG (SIGXFSZ
#: ignored), after the bytes below the limit have gone to the file
FULL_DISK = """
import resource, signal, sys, types
from setlab.lab import reference
lab = types.SimpleNamespace(is_real=True, version_text="7.0.15", allocator="jemalloc-5.3.0",
                            modules={}, kind="live",
                            profile=types.SimpleNamespace(name="Redis 7.0.15", build=None))
rows = [{"n": i, "note": "x" * 40} for i in range(2000)]
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE,
                   (int(sys.argv[2]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    if sys.argv[1] == "save":
        reference.save("a-run", rows, lab, writer="reference/measure_a_run.py")
    else:
        reference.save_section("a-run", "more", rows, lab)
except OSError as exc:
    print(exc.errno)
"""


@pytest.mark.parametrize("how", ["save", "save_section"])
def test_a_write_that_fails_midway_leaves_the_stored_run_as_it_was(tmp_path, how):
    path = tmp_path / "a-run.json"
    path.write_text(json.dumps(OLD, indent=1) + "\n")
    before = path.read_bytes()
    limit = 4096
    assert len(before) < limit  # the old file fits under the limit; the new one (~100 kB) not
    result = subprocess.run(
        [sys.executable, "-c", FULL_DISK, how, str(limit)], capture_output=True, text=True,
        env={**os.environ, "SETLAB_DATA_DIR": str(tmp_path)}, timeout=120,
    )  # fmt: skip
    assert result.stdout.strip() == str(errno.EFBIG), result.stderr  # it did fail mid-write
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a-run.json"]  # no temporary file left


def test_a_write_replaces_the_stored_run_whole_and_keeps_its_mode(tmp_path, monkeypatch):
    monkeypatch.setenv(reference.DATA_DIR_ENV, str(tmp_path))
    path = tmp_path / "a-run.json"
    path.write_text(json.dumps(OLD))
    path.chmod(0o640)
    reference.save("a-run", [{"n": 2}], LAB, writer="reference/measure_a_run.py")
    reference.save_section("a-run", "more", [{"n": 3}], LAB)
    stored = json.loads(path.read_text())
    assert stored["rows"] == [{"n": 2}] and stored["more"]["rows"] == [{"n": 3}]
    assert path.stat().st_mode & 0o777 == 0o640
    assert reference.load("a-run").run.redis_version == "7.0.15"
    assert [p.name for p in tmp_path.iterdir()] == ["a-run.json"]
