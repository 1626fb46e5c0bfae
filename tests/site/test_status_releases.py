"""The status page's table of the chapters on every server release (setlab.site.status)."""

from __future__ import annotations

from setlab.lab import reference
from setlab.site import status


def _section(version: str, rows: list[dict], name: str = "") -> dict:
    return {
        "measured": "2026-12-07",
        "server": {"redis_version": version, "allocator": "libc", "modules": {}, "name": name},
        "machine": {"cpu": "a cpu", "cores": 2},
        "rows": rows,
    }


def test_each_release_is_a_column_and_each_chapter_a_row_with_its_outcome(monkeypatch):
    ran = {"chapter": "setbit-offset", "ok": True, "seconds": 6.04, "error": ""}
    failed = {"chapter": "setbit-offset", "ok": False, "seconds": 1.0, "error": "ResponseError: x"}
    data = {
        "valkey-8.1": _section("7.2.4", [ran], name="Valkey 8.1.8"),
        "6.2": _section("6.2.5", [failed, dict(ran, chapter="hyperloglog")]),
    }
    document = reference.Document(reference.run_info("x", _section("7.0.15", [])), data)
    monkeypatch.setattr(reference, "load", lambda name: document)
    table = status.releases_markdown()
    lines = table.splitlines()
    # releases in the registry's order (oldest first), whatever order the file holds them in
    assert lines[0] == "| chapter | Redis 6.2.5 | Valkey 8.1.8 |"
    assert "| setbit-offset | failed: ResponseError: x | ran, 6 s |" in lines
    assert "| hyperloglog | ran, 6 s | not run |" in lines
    # each section is labelled with its own server, Valkey by its own name and version
    assert "- Valkey 8.1.8: reference run: Valkey 8.1.8 (libc), a cpu, 2 cores, measured " in table
    assert "- Redis 6.2.5: reference run: Redis 6.2.5 (libc)" in table
