"""The words ``setlab audit``'s header gives of the databases it read (issue 47, items 1–3),
without a server: all of them, one chosen and what the others hold, and what a snapshot's load
expired, or that the server does not say (``rdb_last_load_keys_expired`` came with Redis 7.0).
The same lines from real servers are checked in tests/lab/test_live_audit_databases.py."""

from __future__ import annotations

from setlab.tools.audit import report
from setlab.tools.audit.reader import Scan
from setlab.tools.audit.report import Database, Databases


def _text(dbs: Databases, **server: object) -> str:
    return report.Audit({"address": "h:1/0", **server}, Scan(complete=dbs.complete), [], [],
                        databases=dbs).text()  # fmt: skip


def test_all_databases_read_are_named_with_their_keys_and_bytes():
    dbs = Databases({0: Database(3, 3, 2048, True), 2: Database(1, 1, 64, True),
                     5: Database(2, 2, None, True)})  # fmt: skip
    assert dbs.complete
    line = "read all 3 databases: db 0 (3 keys, 2 KiB), db 2 (1 key, 64 B), db 5 (2 keys)"
    assert line in _text(dbs)


def test_one_database_chosen_names_what_the_others_hold_and_is_not_complete():
    dbs = Databases({0: Database(3, 3, 100, True), 2: Database(5), 3: Database(1)}, "--db 0")
    assert not dbs.complete
    assert ("read db 0 only (--db 0): db 0 (3 keys, 100 B); db 2 holds 5 more keys, db 3 holds "
            "1 more key, not read") in _text(dbs)  # fmt: skip


def test_the_only_database_chosen_is_complete():
    assert Databases({0: Database(3, 3, 100, True)}, "--db 0").complete


def test_a_sampled_database_or_an_unlisted_keyspace_is_not_complete():
    assert not Databases({0: Database(30, 3, 100, False)}).complete
    assert "a sample of" in _text(Databases({0: Database(30, 3, 100, False)}), keys=30)
    unlisted = Databases({0: Database(3, 3, 100, True)}, "this user may not run INFO, which "
                         "lists the others", listed=False)  # fmt: skip
    assert not unlisted.complete


def test_a_snapshot_says_what_its_load_expired_or_that_the_server_does_not_say():
    dbs = Databases({0: Database(3, 3, 100, True)})
    loaded = {"format": 10, "writer": "Redis 7.0.15", "loaded_by": "Redis 7.0.15"}
    said = _text(dbs, snapshot=loaded, rdb_last_load_keys_expired=1, rdb_last_load_keys_loaded=3)
    assert "expired on load: 1 key, their TTL passed before the load (3 loaded)" in said
    unsaid = _text(dbs, snapshot={**loaded, "format": 9, "loaded_by": "Redis 6.2.5"})
    assert "expired on load: not reported by this server" in unsaid
    assert "expired on load" not in _text(dbs)  # a live server loaded nothing


def test_groups_of_several_databases_are_one_list_biggest_first_with_their_database():
    from setlab.tools.audit.patterns import OTHER

    small = report.Group("a:{n}", "string", keys=2, bytes=100, db=0)
    big = report.Group("b:{n}", "string", keys=1, bytes=900, db=2)
    other = report.Group(OTHER, "mixed", keys=50, bytes=5000, db=0)
    assert report.biggest_first([small, other, big]) == [big, small, other]
    dbs = Databases({0: Database(52, 52, 5100, True), 2: Database(1, 1, 900, True)})
    audited = report.Audit({}, Scan(complete=True), [big, small], [], databases=dbs)
    assert audited.as_json()["groups"][0]["db"] == 2
    rows = [line.split() for line in audited.text().splitlines() if ":{n}" in line]
    assert [row[:2] for row in rows] == [["2", "b:{n}"], ["0", "a:{n}"]]
