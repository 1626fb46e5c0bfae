"""setlab.lab.reference: stored runs read from the package, and the one live-or-reference rule."""

from __future__ import annotations

import json
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
