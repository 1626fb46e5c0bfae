"""``setlab advise`` within limits: a bounded read at about 9 bytes an ID, a first ``1E5`` that
does not turn a decimal file into hex, and outputs that do not follow a symbolic link.

References: the byte sizes of the values kept (a uint64 is 8 bytes, a uint8 length 1), Python's
``int(text, 16)`` for hex IDs, and the file system itself (``os.lstat``, the file a link points
at left as it was). setlab's own modules are imported inside each test, so that each fails on its
own against code without them.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import ids as ids_module


def _setlab(*args: str, stdin=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "setlab", *args],
        stdin=stdin, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


class _Pipe(io.RawIOBase):
    """A stream that cannot seek and has no known length (stdin from a pipe)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


# -- a bounded read -------------------------------------------------------------------------------


def test_an_endless_pipe_stops_at_max_ids_with_one_line():
    """``yes 123 | setlab advise -`` never ends; with --max-ids it is refused in seconds."""
    yes = subprocess.Popen(["yes", "123"], stdout=subprocess.PIPE)
    try:
        start = time.perf_counter()
        result = _setlab("advise", "-", "--max-ids", "100k", stdin=yes.stdout)
        elapsed = time.perf_counter() - start
    finally:
        yes.kill()
        yes.wait()
        yes.stdout.close()
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("setlab advise: <stdin>: more than 100,000 IDs")
    assert "raise the bound with --max-ids N" in result.stderr
    assert elapsed < 60


@pytest.mark.parametrize("fast_path", [True, False])
def test_max_ids_admits_exactly_that_many(fast_path):
    """max_ids IDs are read; one more is refused (plain decimal lines, and blocks that go
    through the general parser because of a blank line)."""
    lines = [str(i) for i in range(1_000)]
    if not fast_path:
        lines.insert(500, "")
    data = ("\n".join(lines) + "\n").encode()
    assert len(ids_module.parse_stream(io.BytesIO(data), max_ids=1_000)) == 1_000
    with pytest.raises(ValueError, match=r"more than 999 IDs, the most one run reads"):
        ids_module.parse_stream(io.BytesIO(data), max_ids=999)


def _peak_and_held(data: bytes, monkeypatch) -> tuple[int, int, int]:
    """Peak and held bytes (tracemalloc) of reading ``data`` from a pipe, and the IDs read.

    Blocks of 64 KiB: the two blocks of text and their conversion's temporaries are a fixed
    cost (about 40 MB with the default 8 MiB blocks), not a cost per ID."""
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 1 << 16)
    stream = io.BufferedReader(_Pipe(data))
    tracemalloc.start()
    try:
        read = ids_module.parse_stream(stream)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, held, len(read)


def test_a_million_decimal_ids_from_a_pipe_take_at_most_10_bytes_each(monkeypatch):
    """Kept: a uint64 value and a uint8 length per ID (9 bytes; no ID has a leading zero, so
    the leading-zero flags take none). At the peak, the room the columns grew into and one
    block's temporaries come on top: at most 10 bytes an ID in all."""
    n = 10**6
    values = np.random.default_rng(1).integers(0, 2**40, n)
    data = ("\n".join(map(str, values.tolist())) + "\n").encode()
    peak, held, count = _peak_and_held(data, monkeypatch)
    assert count == n
    assert held <= 9 * n + 64 * 1024
    assert peak <= 10 * n, f"{peak / n:.2f} bytes per ID at the peak"


def test_hex_ids_of_one_length_keep_only_their_values(monkeypatch):
    """16-digit hex IDs: every length is 16, every high half 0: 8 bytes an ID."""
    n = 200_000
    values = np.random.default_rng(2).integers(0, 2**63, n, dtype=np.uint64)
    data = ("\n".join(f"{v:016x}" for v in values.tolist()) + "\n").encode()
    _, held, count = _peak_and_held(data, monkeypatch)
    assert count == n
    assert held <= 8 * n + 64 * 1024


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.lists(st.integers(0, 2**64 - 1), max_size=40),
            st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 5000)).map(lambda t: [t[0]] * t[1]),
        ),
        max_size=10,
    )
)
def test_a_column_gives_back_the_concatenation_of_its_pieces(pieces):
    """Pieces of any values, or long runs of one value (kept as one value and a count until
    another comes), read back as numpy.concatenate of the same pieces."""
    from setlab.core.columns import Column

    column = Column(np.uint64)
    arrays = [np.array(p, dtype=np.uint64) for p in pieces]
    for piece in arrays:
        column.append(piece)
    expected = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.uint64)
    got = column.array()
    assert got.dtype == np.uint64 and got.tolist() == expected.tolist()
    if np.unique(expected).size > 1:
        assert got.flags.owndata and got.size == expected.size
    with pytest.raises(RuntimeError):
        column.append(np.zeros(1, dtype=np.uint64))


def test_a_column_of_one_value_takes_no_memory():
    from setlab.core.columns import Column

    column = Column(bool)
    tracemalloc.start()
    try:
        for _ in range(100):
            column.append(np.ones(10_000, dtype=bool))
        got = column.array()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert got.size == 10**6 and bool(got.all())
    assert held < 10_000  # not the 10^6 bytes of the flags


# -- a first ID like 1E5 --------------------------------------------------------------------------


def test_a_decimal_file_starting_with_1e5_is_refused_not_read_as_hex():
    """Read as hex, ``1E5`` would be 485 and every decimal line after it a hex number."""
    data = b"1E5\n" + b"".join(b"%d\n" % (1000 + i) for i in range(5_000))
    with pytest.raises(ValueError) as refused:
        ids_module.parse_ids(data)
    message = str(refused.value)
    assert message.startswith("line 1: '1E5' is a decimal in scientific notation")
    assert "--format hex" in message and "\n" not in message


def test_the_1e5_line_is_named_after_blank_lines():
    with pytest.raises(ValueError, match=r"^line 3: '2e7' is a decimal in scientific notation"):
        ids_module.parse_ids(b"\n  \n2e7\n15\n3e4\n")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=200),
    st.integers(1, 14),
    st.integers(0, 10**14),
)
def test_a_hex_file_whose_first_id_looks_like_1e5_is_still_hex(values, at, digits):
    """One random 16-digit hex ID in about 1,300 is digits-e-digits: the rest of the block
    (another letter) says the file is hex."""
    first = f"{digits:015d}"
    first = first[:at] + "e" + first[at:]  # 16 characters: digits, one e, digits
    lines = [first, *(f"{v:016x}" for v in values), "abcdef0123456789"]
    read = ids_module.parse_ids("\n".join(lines).encode())
    assert read.kind == "hex"
    assert read.values.tolist() == [int(x, 16) for x in lines]


class _Trickle(io.RawIOBase):
    """A pipe that gives at most 20 bytes a read: pieces cut anywhere, long before BLOCK_BYTES."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(min(20, len(buffer)))
        buffer[: len(chunk)] = chunk
        return len(chunk)

    def consumed(self) -> int:
        return self._data.tell()


def test_the_lines_after_a_first_1e5_decide_however_the_input_is_cut(monkeypatch):
    """The kind stays open over pieces of digits, up to BLOCK_BYTES of lines: a letter 60
    pieces on makes the file hex; a decimal file is refused once that many lines are all
    digits, not read to its end first."""
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 4096)
    lines = ["1e00000000000001", *(f"{i:016d}" for i in range(70)), "00000000000000ff"]
    read = ids_module.parse_stream(_Trickle("\n".join(lines).encode()))
    assert read.kind == "hex" and read.values.tolist() == [int(x, 16) for x in lines]
    stream = _Trickle(b"1E5\n" + b"123456\n" * 100_000)
    with pytest.raises(ValueError, match=r"^line 1: '1E5' is a decimal in scientific notation"):
        ids_module.parse_stream(stream)
    assert stream.consumed() <= 2 * 4096


def test_format_hex_reads_a_file_of_digits_and_1e5_as_hex():
    read = ids_module.parse_ids(b"1E5\n123\n", fmt="hex")
    assert read.values.tolist() == [0x1E5, 0x123]


def test_setlab_advise_refuses_a_first_1e5_in_one_line(tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("1E5\n" + "".join(f"{1000 + i}\n" for i in range(100)))
    result = _setlab("advise", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("setlab advise: line 1: '1E5' is a decimal in scientific")


# -- outputs that do not follow a link ------------------------------------------------------------


def test_advise_plot_refuses_a_symbolic_link_and_leaves_its_target(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    link = tmp_path / "plot.png"
    link.symlink_to(target)
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n2\n3\n")
    result = _setlab("advise", str(ids), "--plot", str(link))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        f"setlab advise: {link} is a symbolic link: setlab does not write through one (name "
        "the file itself, or remove the link)"
    )
    assert target.read_text() == "keep me\n"
    plain = tmp_path / "real.png"
    assert _setlab("advise", str(ids), "--plot", str(plain)).returncode == 0
    assert plain.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_a_dangling_link_is_refused_and_nothing_is_created(tmp_path):
    from setlab.core.outputs import open_output

    link = tmp_path / "out.csv"
    link.symlink_to(tmp_path / "elsewhere.csv")
    with pytest.raises(ValueError, match="is a symbolic link"):
        open_output(link, private=True)
    assert not (tmp_path / "elsewhere.csv").exists()
    assert stat.S_ISLNK(os.lstat(link).st_mode)


def test_a_private_output_is_0600_even_when_it_existed_wider(tmp_path):
    from setlab.core.outputs import open_output

    path = tmp_path / "class.csv"
    path.write_text("an old, longer content\n")
    path.chmod(0o644)
    with open_output(path, private=True) as out:
        out.write(b"name,url\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_bytes() == b"name,url\n"
    fresh = tmp_path / "new.csv"
    with open_output(fresh, private=True) as out:
        out.write(b"x\n")
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o600


def test_a_fifo_or_a_directory_is_refused_without_waiting(tmp_path):
    from setlab.core.outputs import open_output

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="fifo"):
        open_output(fifo)  # no reader: a blocking open would wait forever
    with pytest.raises(ValueError, match="cannot write"):
        open_output(tmp_path)
