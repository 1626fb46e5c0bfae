"""The per-release reader and its tables against a small hand-made record, the Markdown they are
drawn with, and the stored run: every release this machine had, every row labelled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from setlab.lab import reference, servers
from setlab.lab.runs import releases
from setlab.lab.runs.releases_reference import (
    NAME,
    QUANTITIES,
    ROW_LABELS,
    ReleasesReference,
    rows_without_labels,
)
from setlab.render.tables import markdown_table

STORED = Path(__file__).resolve().parents[2] / "src" / "setlab" / "data" / f"{NAME}.json"

_MACHINE = {"cpu": "Test CPU", "cores": 2}


def _block(release: str, flavour: str, version: str, allocator: str, mem: str) -> dict:
    return {
        "release": release, "flavour": flavour, "version": version, "allocator": allocator,
        "mem_allocator": mem, "label": f"{flavour} {version}", "measured": "2026-01-02",
        "server": {"redis_version": version, "allocator": mem, "modules": {"bf": 20802}},
        "machine": _MACHINE,
    }  # fmt: skip


def _labels(block: dict) -> dict:
    return {
        "server": block["release"], "flavour": block["flavour"], "version": block["version"],
        "allocator": block["allocator"], "mem_allocator": block["mem_allocator"],
    }  # fmt: skip


OLD = _block("7.0", "Redis", "7.0.15", "debian", "jemalloc-5.3.0")
NEW = _block("valkey-8.1", "Valkey", "8.1.8", "libc", "libc")
ROWS = [
    # 7.0: 100,000 device IDs, 7,448,720 B allocated, 6,648,704 B by MEMORY USAGE
    {**_labels(OLD), "case": "set", "kind": "16-hex device ids", "n": 100_000,
     "encoding": "hashtable", "memory_usage": 6_648_704, "allocated": 7_448_720},
    {**_labels(OLD), "case": "bitmap", "offset": 2**32 - 1, "strlen": 2**29,
     "memory_usage": 671_088_704, "allocated": 671_088_704},
    # Valkey: the same set, 4,000,000 B by MEMORY USAGE and 3,200,000 B allocated
    {**_labels(NEW), "case": "set", "kind": "16-hex device ids", "n": 100_000,
     "encoding": "hashtable", "memory_usage": 4_000_000, "allocated": 3_200_000},
    {**_labels(NEW), "case": "bitmap", "offset": 2**32 - 1, "strlen": 2**29,
     "memory_usage": 2**29 + 64, "allocated": 2**29 + 4_096},
    {**_labels(NEW), "case": "hash seed", "kind": "16-hex device ids", "n": 129, "starts": 4,
     "allocations": [5_300, 5_248, 5_464, 5_336], "min": 5_248, "max": 5_464},
]  # fmt: skip


def _record(rows=ROWS, blocks=(OLD, NEW)) -> ReleasesReference:
    raw = {
        "measured": "2026-01-02", "machine": _MACHINE,
        "server": {"redis_version": "7.0.15 · Valkey 8.1.8", "allocator": "jemalloc-5.3.0 · libc"},
        "servers": list(blocks), "rows": list(rows), "missing": ["Redis 8.2.3 (8.2): not here"],
    }  # fmt: skip
    return ReleasesReference.from_document(reference.Document(reference.run_info(NAME, raw), raw))


def test_the_reader_names_each_server_by_release_version_and_allocator():
    run = _record()
    assert [s.server for s in run.servers] == ["7.0", "valkey-8.1"]
    assert run.server("valkey-8.1").column == "Valkey 8.1.8 (libc)"
    assert run.server("valkey-8.1").label == (
        "reference run: Valkey 8.1.8 (libc), Test CPU, 2 cores, measured 2026-01-02"
    )
    assert run.server("7.0").modules == {"bf": 20802}
    assert run.missing == ("Redis 8.2.3 (8.2): not here",)
    with pytest.raises(ValueError, match=r"valkey-8\.1"):
        run.server("8.2")


def test_a_set_costs_allocated_over_members_per_member_in_each_column():
    table = _record().table("set bytes per member")
    assert table.header[1:] == ("Redis 7.0.15 (jemalloc-5.3.0)", "Valkey 8.1.8 (libc)")
    row = dict((r[0], r[1:]) for r in table.rows)["100,000 16-hex device ids"]
    # 7,448,720 / 100,000 = 74.4872; 3,200,000 / 100,000 = 32
    assert row == ("74.5 B (hashtable)", "32.0 B (hashtable)")
    # cases the record lacks say so, never a blank
    assert dict((r[0], r[1:]) for r in table.rows)["100 integer ids"] == ("not measured",) * 2


def test_the_usage_gap_is_memory_usage_over_allocated_bytes():
    row = dict((r[0], r[1:]) for r in _record().table("set usage gap").rows)
    # 6,648,704 / 7,448,720 - 1 = -10.7%; 4,000,000 / 3,200,000 - 1 = +25%
    assert row["100,000 16-hex device ids"] == ("-11%", "+25%")


def test_a_bitmap_shows_its_allocation_and_the_slack_over_its_length():
    offsets = dict((r[0], r[1:]) for r in _record().table("bitmap").rows)
    # 671,088,704 B = 640 MiB + 64 B; 2^29 + 4,096 B = 512 MiB + 4 KiB
    assert offsets["at offset 4,294,967,295"] == (
        "640 MiB (+134,217,792 B over STRLEN)",
        "512 MiB (+4,096 B over STRLEN)",
    )


def test_the_hash_seed_row_gives_the_fewest_and_most_bytes_where_measured():
    (row,) = _record().table("hash seed").rows
    assert row[1:] == ("not measured", "5,248–5,464 B (4 starts)")


def test_a_release_the_run_lacks_is_no_column_and_an_unknown_quantity_is_refused():
    only_old = _record(rows=[r for r in ROWS if r["server"] == "7.0"], blocks=(OLD,))
    header = ("one bit set (allocated)", "Redis 7.0.15 (jemalloc-5.3.0)")
    assert only_old.table("bitmap").header == header
    with pytest.raises(ValueError, match="quantity must be one of"):
        only_old.table("latency")


def test_a_case_measured_twice_on_one_server_is_an_error_not_a_choice():
    with pytest.raises(ValueError, match="measured 2 times"):
        _record(rows=[*ROWS, ROWS[0]]).table("set bytes per member")


def test_rows_without_their_server_or_allocator_are_refused():
    unlabelled = {**ROWS[0], "allocator": ""}
    assert rows_without_labels([*ROWS, unlabelled]) == [unlabelled]
    with pytest.raises(ValueError, match="rows must name their server"):
        _record(rows=[*ROWS, unlabelled])


def test_markdown_table_aligns_numbers_right_and_escapes_pipes():
    text = markdown_table(("case", "a|b"), [("x", "1 B"), ("y", "2 B")])
    assert text.splitlines() == ["| case | a\\|b |", "|:--|--:|", "| x | 1 B |", "| y | 2 B |"]
    with pytest.raises(ValueError, match="row 0 has 1 cells"):
        markdown_table(("a", "b"), [("x",)])
    with pytest.raises(ValueError, match="align"):
        markdown_table(("a", "b"), [], align="lx")


def test_random_strings_are_distinct_letters_only_and_the_same_every_run():
    strings = releases.random_strings(5_000)
    assert len(set(strings)) == 5_000
    assert all(len(s) == 8 and s.isalpha() and s.islower() for s in strings)
    assert strings == releases.random_strings(5_000)


def test_only_integer_and_hex_sets_reach_a_million_members():
    cases = releases.set_cases()
    assert {k for k, n in cases if n == 1_000_000} == {"integer ids", "16-hex device ids"}
    assert len(cases) == 4 * 7 + 2


# -- the stored run ------------------------------------------------------------------------------


def _stored() -> dict:
    return json.loads(STORED.read_text())


def test_the_stored_run_has_every_release_the_machine_had_or_says_it_was_missing():
    raw = _stored()
    measured = {block["release"] for block in raw["servers"]}
    missing = " ".join(raw["missing"])
    assert measured <= set(servers.NAMES)
    for name in servers.NAMES:
        assert name in measured or f"({name})" in missing, name


def test_every_stored_row_names_its_server_version_and_allocator_and_each_server_its_run():
    raw = _stored()
    assert raw["rows"] and rows_without_labels(raw["rows"]) == []
    for block in raw["servers"]:
        assert {"measured", "machine", "server", "version", "mem_allocator"} <= set(block)
        release = servers.release(block["release"])
        assert (block["version"], block["allocator"]) == (release.version, release.allocator)
        rows = [r for r in raw["rows"] if r["server"] == block["release"]]
        assert {(r["version"], r["allocator"], r["mem_allocator"]) for r in rows} == {
            (block["version"], block["allocator"], block["mem_allocator"])
        }
        measured = {(r["kind"], r["n"]) for r in rows if r["case"] == "set"}
        assert measured == set(releases.set_cases()), block["release"]
    assert set(ROW_LABELS) <= set(raw["rows"][0])


@pytest.mark.parametrize("quantity", list(QUANTITIES))
def test_every_table_of_the_stored_run_has_a_column_per_server(quantity):
    run = ReleasesReference.load()
    table = run.table(quantity)
    assert len(table.header) == 1 + len(run.servers)
    assert all(len(row) == len(table.header) for row in table.rows)


# -- what the chapters quote from it -------------------------------------------------------------


def test_the_chapters_quote_the_glibc_and_jemalloc_bits_and_the_set_apart(monkeypatch):
    from setlab.chapters.redis_set_memory import per_release as set_page
    from setlab.chapters.setbit_offset import per_release as setbit_page

    record = _record()
    for page in (set_page, setbit_page):
        monkeypatch.setattr(page, "run", lambda: record)
    # 671,088,704 B is 640 MiB (+64 B); 2^29 + 4,096 B is 512 MiB and 4,096 B more
    assert (setbit_page.held(libc=False), setbit_page.held(libc=True)) == (
        "640 MiB",
        "512 MiB + 4,096 B",
    )
    # only the 100,000-member sets were recorded: the million-member figure is not there
    assert set_page.per_member("7.0") == "not measured"
    # Valkey's one hashtable set: 4,000,000 / 3,200,000 - 1 = +25%
    assert set_page.usage_gap("valkey-8.1") == "+25% to +25%"
