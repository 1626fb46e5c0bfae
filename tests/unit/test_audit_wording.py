"""What ``setlab audit`` says when it cannot audit, and the words of its report (issue 47, items
6 and 8), without a server: a snapshot's refusal read from the loading server's log, in one line
under 200 characters; a snapshot that is a directory, that a symlink cannot reach and a copy
would not fit; a database that is not a number; "1 key"; the Cluster remark only on a Cluster.

References: the log lines are the format strings of Redis's rdb.c and module.c
(``rdbReportCorruptRDB``, ``rdbLoadObject``, ``rdbLoadRio``, ``moduleLoadFromQueue``) and
server.c's log prefix (``pid:role day month year time level``); the same lines from real
servers are checked in tests/lab/test_live_audit_snapshot_failures.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from setlab.lab import versions
from setlab.tools.audit import findings, report, snapshot
from setlab.tools.audit.load_failure import LoadFailure, classify, describe
from setlab.tools.audit.reader import KeyInfo, Scan, database

PREFIX = "setlab audit: "
#: the lines a server logs at start before any cause (Redis 7.0's, as server.c writes them)
START = """\
7018:C 08 Dec 2026 00:34:14.120 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo
7018:C 08 Dec 2026 00:34:14.120 # Redis version=7.0.15, bits=64, commit=00000000, modified=0
7018:M 08 Dec 2026 00:34:14.121 * monotonic clock: POSIX clock_gettime
7018:M 08 Dec 2026 00:34:14.121 # Server initialized
7018:M 08 Dec 2026 00:34:14.121 # WARNING Memory overcommit must be enabled! Without it, a \
background save or replication may fail under low memory condition.
7018:M 08 Dec 2026 00:34:14.128 * Loading RDB produced by version 7.0.15
"""
ERROR = "7018:M 08 Dec 2026 00:34:14.128 # "
CAUSES = {
    "format": ["Can't handle RDB format version 13",
               "Fatal error loading the DB: Invalid argument. Exiting."],
    "module-load": ["Module /x/redisbloom.so failed to load: /x/redisbloom.so: file too short",
                    "Can't load module from /x/redisbloom.so: server aborting"],
    "module-data": ["Internal error in RDB reading offset 0, function at rdb.c:2636 -> The RDB "
                    "file contains module data I can't load: no matching module type 'MBbloom--'"],
    "truncated": ["Short read or OOM loading DB. Unrecoverable error, aborting now.",
                  "Internal error in RDB reading offset 0, function at rdb.c:3249 -> Unexpected "
                  "EOF reading RDB file"],
    "checksum": ["Wrong RDB checksum expected: (82b5f6c73761bc37) but got (bf27fe7236b56803). "
                 "Aborting now.", "Internal error in RDB reading offset 0, function at "
                 "rdb.c:3225 -> RDB CRC error"],
    "corrupt": ["Internal error in RDB reading offset 0, function at rdb.c:2301 -> Ziplist "
                "integrity check failed.", "Terminating server after rdb file reading failure."],
}  # fmt: skip


def _log(*causes: str) -> str:
    return START + "".join(f"{ERROR}{c}\n" for c in causes)


@pytest.mark.parametrize("kind", list(CAUSES))
def test_the_cause_is_read_from_the_log_not_its_first_warning(kind):
    failure = classify(_log(*CAUSES[kind]), 1)
    assert failure.kind == kind
    line = PREFIX + describe(failure, "dump.rdb", 4096, "Redis 7.0.15", "")
    assert "\n" not in line and len(line) < 200, line
    assert "overcommit" not in line and "exit" not in line


def test_each_cause_is_named_in_its_line():
    said = {kind: describe(classify(_log(*lines), 0), "dump.rdb", 4096, "Redis 7.0.15", "")
            for kind, lines in CAUSES.items()}  # fmt: skip
    assert said["format"] == "dump.rdb is RDB format 13, newer than Redis 7.0.15 reads"
    assert "redisbloom.so failed to load into Redis 7.0.15: file too short" in said["module-load"]
    assert "RedisBloom data of module type MBbloom--" in said["module-data"]
    assert "is truncated" in said["truncated"] and "CRC64" in said["checksum"]
    assert "(Ziplist integrity check failed)" in said["corrupt"]


def test_module_data_names_the_module_and_why_it_is_missing():
    failure = classify(_log(CAUSES["module-data"][0].replace("MBbloom--", "ReJSON-RL")), 0)
    assert failure == LoadFailure("module-data", "ReJSON-RL", code=0)  # exit 0: still refused
    line = describe(failure, "dump.rdb", 1, "Redis 8.2.3", "")
    assert "RedisJSON's module type ReJSON-RL, a module setlab does not load" in line
    bloom = classify(_log(*CAUSES["module-data"]), 0)
    off = "SETLAB_REDISBLOOM=none turns RedisBloom off"
    assert describe(bloom, "dump.rdb", 1, "Redis 8.2.3", off).endswith(off)


def test_a_header_alone_is_said_to_be_one():
    failure = classify(_log(*CAUSES["truncated"]), 1)
    line = describe(failure, "dump.rdb", 9, "Redis 8.2.3", "")
    assert "holds only its 9-byte header" in line


def test_a_server_killed_while_loading_names_the_signal():
    failure = classify(START, -9)
    assert failure == LoadFailure("killed", "SIGKILL", code=-9)
    assert "killed by SIGKILL" in describe(failure, "dump.rdb", 3 << 30, "Redis 8.2.3", "")


def test_an_unknown_cause_is_the_last_warning_that_is_not_noise_and_fits_one_line():
    failure = classify(_log("Something new went wrong: " + "x" * 400), 1)
    assert failure.kind == "other" and failure.detail.startswith("Something new")
    line = PREFIX + describe(failure, "dump.rdb", 1, "Redis 8.2.3", "")
    assert len(line) < 200 and line.endswith("…")
    assert "no reason logged" in describe(classify(START, 1), "dump.rdb", 1, "Redis 8.2.3", "")


# -- the file -----------------------------------------------------------------------------------


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | (env or {})
    return subprocess.run([sys.executable, "-m", "setlab", "audit", *args], env=environment,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_a_directory_given_to_rdb_is_called_a_directory_naming_the_snapshot_in_it(tmp_path):
    (tmp_path / "dump.rdb").write_bytes(b"REDIS0011")
    done = _cli("--rdb", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{tmp_path} is a directory, not a snapshot file" in done.stderr
    assert f"{tmp_path / 'dump.rdb'}" in done.stderr and "no such file" not in done.stderr


def test_a_copy_is_made_only_where_a_link_cannot_be_and_only_if_it_fits(tmp_path, monkeypatch):
    source, work = tmp_path / "big.rdb", tmp_path / "work"
    source.write_bytes(b"REDIS0011" + bytes(1000))
    work.mkdir()
    snapshot.place(source, work / "dump.rdb")
    assert (work / "dump.rdb").is_symlink()
    (work / "dump.rdb").unlink()

    def no_link(self, target):
        raise OSError("symlinks are not supported here")

    monkeypatch.setattr(Path, "symlink_to", no_link)
    usage = shutil.disk_usage(work)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=1 << 20))
    with pytest.raises(snapshot.SnapshotRefused, match=r"a copy does not fit .*1 MiB free"):
        snapshot.place(source, work / "dump.rdb")
    assert not (work / "dump.rdb").exists()
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=1 << 40))
    snapshot.place(source, work / "dump.rdb")
    assert (work / "dump.rdb").read_bytes() == source.read_bytes()


def test_a_format_too_new_is_one_short_line_with_the_writer_named_once(tmp_path, monkeypatch):
    from setlab.lab import servers

    monkeypatch.setattr(servers, "available", lambda: [])
    monkeypatch.delenv("SETLAB_REDIS_SERVER", raising=False)
    said = {}
    for header in (snapshot.Header(13, {}), snapshot.Header(12, {"redis-ver": "8.2.3"})):
        with pytest.raises(ValueError) as refused:
            snapshot.choose_loader(tmp_path / "a-long-snapshot-name-2026-12-07.rdb", header)
        said[header.format] = line = PREFIX + str(refused.value)
        assert len(line) < 200 and "\n" not in line and str(tmp_path) not in line, line
    assert "written by a release newer than this tool knows; no server" in said[13]
    assert "written by Redis 8.2.3; no server" in said[12]


# -- connecting ---------------------------------------------------------------------------------


@pytest.mark.parametrize("url, db", [("redis://h:1/3", 3), ("redis://h:1", 0),
                                     ("redis://h:1/", 0), ("redis://h:1?db=2", 2)])  # fmt: skip
def test_the_database_comes_from_the_path_or_the_query(url, db):
    assert database(url) == db


def test_a_database_that_is_not_a_number_is_refused_before_connecting():
    done = _cli("--timeout", "1", env={"REDIS_URL": "redis://:pw@127.0.0.1:1/abc"})
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "REDIS_URL names the database 'abc'" in done.stderr
    assert "cannot reach" not in done.stderr  # refused before any connection


# -- the report's words -------------------------------------------------------------------------


@pytest.mark.parametrize("read, said", [(1, "  1 key read in"), (2, "  2 keys read in")])
def test_one_key_is_one_key(read, said):
    text = report.Audit({}, Scan(read=read, scanned=read, complete=True), [], []).text()
    assert said in text


def test_the_cluster_remark_is_made_only_on_a_cluster_node():
    big = KeyInfo(b"blob", "string", "raw", bytes=20 << 20, size=20 << 20)
    profile = versions.profile({"version": (7, 0, 15), "flavour": "Redis", "valkey_version": (),
                                "allocator": "jemalloc-5.3.0", "quantum": 16})  # fmt: skip
    config = {"lazyfree-lazy-user-del": "no"}
    (alone,) = findings.findings(big, findings.Context.of(profile, config))
    (node,) = findings.findings(big, findings.Context.of(profile, config, cluster=True))
    assert "Cluster" not in alone.message
    assert node.message.endswith("; one Cluster node holds it all")
