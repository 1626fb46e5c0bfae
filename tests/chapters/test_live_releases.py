"""One memory-measuring chapter on every server release this machine has (setlab.lab.servers):
the page runs top to bottom on it (Valkey's lazy DEL included) and labels what it measured with
that server, by name. The reference release (7.0) is the one every book build runs on; the full
per-release runs of every chapter belong to ``make reference`` (reference/measure_releases.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from setlab.lab import servers
from tests.conftest import REQUIRE_LIVE
from tests.support.notebooks import kept_runs

pytestmark = [pytest.mark.live, pytest.mark.book]

#: the chapter that measures the most kinds of memory live (sets, bitmaps, a DEL of a big set)
CHAPTER = "redis-set-memory"
OTHERS = [r for r in servers.RELEASES if r.name != servers.REFERENCE]


def test_the_set_memory_chapter_runs_on_every_other_release_and_names_it():
    present = [r for r in OTHERS if r.binary()]
    if REQUIRE_LIVE and len(present) < len(OTHERS):
        missing = sorted({r.name for r in OTHERS} - {r.name for r in present})
        pytest.fail(f"SETLAB_REQUIRE_LIVE=1 but {', '.join(missing)} missing: make installs them")
    if not present:
        pytest.skip("no server release beside the reference one is installed")
    base = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "SETLAB_USER"}}
    runs = {
        r.name: (CHAPTER, base | {"SETLAB_BACKEND": "live", "SETLAB_REDIS_SERVER": r.name})
        for r in present
    }
    with kept_runs(runs, [Path(__file__)], jobs=1) as done:
        for r in present:
            run = done[r.name]
            assert run.ok, f"{CHAPTER} on {r.label}: {run.ename}: {run.evalue}"
            assert f"live {r.label} (" in run.text, f"the banner names {r.label}"
            assert f"this run: {r.label} (" in run.text, "measured figures carry its name"
            assert "this run: Redis 7.2.4" not in run.text, "Valkey is not called Redis 7.2.4"
