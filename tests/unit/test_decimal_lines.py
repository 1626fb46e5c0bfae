"""setlab.models.decimal_lines: the fast path for plain decimal lines, and the advisor pieces
sped up with it (issue 16 item 5).

References: Python's int() of each line, the general block parser of setlab.models.ids (which
reads one character column at a time), numpy's histogram and a stable argsort.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import decimal_lines, id_lines
from setlab.models import ids as ids_module
from setlab.tools import analysis

_LINES = st.lists(
    st.one_of(
        st.integers(0, 2**64 - 1).map(str),
        st.integers(0, 10**6).map(lambda v: str(v).zfill(7)),  # leading zeros
        st.integers(10**19, 2**64 - 1).map(str),  # 20 digits
    ),
    min_size=1,
    max_size=300,
)


@settings(max_examples=150, deadline=None)
@given(_LINES, st.booleans())
def test_plain_lines_parse_to_what_int_reads(lines, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    values, lengths, canonical = decimal_lines.parse_plain(text.encode())
    assert values.tolist() == [int(line) for line in lines]
    assert lengths.tolist() == [len(line) for line in lines]
    assert canonical.tolist() == [line == str(int(line)) for line in lines]
    assert values.dtype == np.uint64 and lengths.dtype == np.uint8


@pytest.mark.parametrize(
    "text",
    [
        b"18446744073709551616\n",  # 2^64
        b"99999999999999999999\n",
        b"28446744073709551615\n",
        b"123456789012345678901\n",  # 21 digits
        b"1\n\n2\n",  # a blank line
        b"1 \n",
        b" 1\n",
        b"12\r\n",
        b"deadbeef\n",
        b"1/\n",  # the characters either side of 0-9
        b"1:\n",
        b"12\x003\n",
        b"",
    ],
)
def test_anything_but_plain_digits_is_left_to_the_general_parser(text):
    assert decimal_lines.parse_plain(text) is None


def test_largest_id_is_read():
    values, lengths, _ = decimal_lines.parse_plain(b"18446744073709551615\n00000000000000000001")
    assert values.tolist() == [2**64 - 1, 1] and lengths.tolist() == [20, 20]


def _general(text: bytes) -> ids_module.IDs:
    """The IDs as the column-at-a-time block parser reads them (no fast path)."""
    collector = ids_module._Collector("auto", "<memory>")
    collector.add(id_lines.Block(text, 1))
    return collector.result()


@settings(max_examples=60, deadline=None)
@given(_LINES)
def test_fast_path_reads_what_the_general_parser_reads(lines):
    text = ("\n".join(lines) + "\n").encode()
    fast, general = ids_module.parse_ids(text), _general(text)
    assert fast.kind == general.kind == "decimal"
    for field in ("values", "lengths", "canonical"):
        got, want = getattr(fast, field), getattr(general, field)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_bad_line_after_plain_blocks_is_still_named(monkeypatch):
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 64)
    text = b"".join(b"%d\n" % i for i in range(100)) + b"12x\n"
    with pytest.raises(ValueError, match="line 101: '12x'"):
        ids_module.parse_ids(text)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=2, max_size=400),
    st.integers(0, 3),
)
def test_analysis_without_first_occurrences_matches_the_argsort_path(values, repeats):
    """Canonical decimals take the np.sort path: its distinct values, most repeated ID, runs,
    histogram and SET members equal those of a stable argsort (the same IDs read as
    zero-padded text of one width keep the argsort path for the first occurrences)."""
    values = values + values[: repeats * 5]
    ids = ids_module.from_integers(np.array(values, dtype=np.uint64))
    a = analysis.analyse(ids)
    order = np.argsort(ids.values, kind="stable")
    distinct, first, counts = np.unique(ids.values[order], return_index=True, return_counts=True)
    assert a.distinct == distinct.size and a.duplicates == len(values) - distinct.size
    if counts.max() > 1:
        j = int(np.argmax(counts))
        assert a.most_repeated == (str(int(distinct[j])), int(counts[j]))
    else:
        assert a.most_repeated is None
    assert a.runs == int(np.count_nonzero(np.diff(distinct.astype(object)) != 1)) + 1
    expected = np.histogram(distinct.astype(np.float64), bins=a.range_edges)[0]
    if a.low != a.high:
        assert a.range_counts.tolist() == expected.tolist()
    assert a.members == ids_module.set_members(ids, order[first])


@pytest.mark.parametrize("hex_digits", [0, 16])
def test_set_members_from_distinct_values_match_first_occurrences(hex_digits):
    """Above 4,096 members the SET model is summed from the sorted distinct values when each
    value has one text (canonical decimals, or hex IDs all 16 digits long)."""
    rng = np.random.default_rng(7)
    values = rng.integers(0, 2**62, 9000, dtype=np.uint64)
    values = np.r_[values, values[:500], rng.integers(0, 10**4, 3000, dtype=np.uint64)]
    ids = ids_module.from_integers(values, hex_digits=hex_digits)
    _, first = np.unique(ids.values, return_index=True)
    expected = ids_module.set_members(ids, first)
    assert ids_module.set_members(ids, distinct=np.unique(ids.values)) == expected
    assert analysis.analyse(ids).members == expected


def test_only_the_lines_before_end_are_read():
    values, lengths, _ = decimal_lines.parse_plain(b"12\n345\n6x", end=7)
    assert values.tolist() == [12, 345] and lengths.tolist() == [2, 3]
    assert decimal_lines.parse_plain(b"12\n3 5\n6", end=7) is None


@settings(max_examples=40, deadline=None)
@given(_LINES)
def test_halves_on_two_threads_read_what_one_pass_reads(lines):
    """A block cut near its middle and converted on two threads gives the one-pass result,
    in order; a bad line in either half sends the whole block to the general parser."""
    text = ("\n".join(lines) + "\n").encode()
    whole = decimal_lines.parse_plain(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(decimal_lines, "THREADED_BYTES", 1)
        mp.setattr(decimal_lines, "cores", lambda: 2)
        parts = decimal_lines.Conversion(text).result()
        halves = text.rfind(b"\n", 0, len(text) // 2) >= 0  # a line end before the middle
        assert len(parts) == (2 if halves else 1)
        for i in range(3):
            assert np.array_equal(np.concatenate([p[i] for p in parts]), whole[i])
        bad = text[:-1] + b"x\n"
        assert decimal_lines.Conversion(bad).result() is None


def test_a_file_read_on_two_threads_keeps_its_lines_in_order(monkeypatch):
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 64)
    monkeypatch.setattr(decimal_lines, "THREADED_BYTES", 16)
    monkeypatch.setattr(decimal_lines, "cores", lambda: 2)
    lines = [str(i * 7919 % 100_003) for i in range(2_000)]
    read = ids_module.parse_ids("\n".join(lines).encode())
    assert read.values.tolist() == [int(x) for x in lines]
    lines[1_234] = "12a"
    with pytest.raises(ValueError, match=r"^line 1235: '12a'"):
        ids_module.parse_ids("\n".join(lines).encode())


@pytest.mark.parametrize("top", [2**20, 2**32 - 1, 2**32, 2**64 - 1])
@pytest.mark.parametrize("shuffled", [True, False])
def test_sorting_halves_on_two_threads_equals_one_sort(monkeypatch, top, shuffled):
    """Below 2^32 the IDs are sorted (and kept) as uint32; from PARALLEL_SORT IDs on as two
    halves on two threads merged by timsort: the same distinct values and most repeated ID as
    numpy's unique."""
    monkeypatch.setattr(analysis, "PARALLEL_SORT", 10)
    monkeypatch.setattr(analysis, "cores", lambda: 2)
    rng = np.random.default_rng(top % 1000)
    values = rng.integers(0, top, 5_000, dtype=np.uint64, endpoint=True)
    values = np.r_[values, values[:300], values[:7]]
    if not shuffled:
        values.sort()
    ordered = analysis._sorted(values)
    assert np.array_equal(ordered, np.sort(values))
    distinct, (j, times) = analysis._distinct(ordered)
    expected, counts = np.unique(values, return_counts=True)
    assert distinct.dtype == (np.uint32 if values.max() < 2**32 else np.uint64)
    assert np.array_equal(distinct, expected)
    assert (j, times) == (int(np.argmax(counts)), int(counts.max()))


def test_a_file_whose_first_lines_are_longest_still_reads_whole(tmp_path, monkeypatch):
    """A file whose later lines are shorter holds more IDs per block than its first block
    does: all of them are read, whatever room the first block made for them."""
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 256)
    lines = [str(10**19 + i) for i in range(20)] + [str(i % 10) for i in range(3_000)]
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(lines) + "\n")
    read = ids_module.read_ids(path, progress=False)
    assert read.values.tolist() == [int(x) for x in lines]
    assert read.lengths.tolist() == [len(x) for x in lines]


def test_a_long_line_is_numbered_after_plain_blocks_and_an_earlier_bad_line_comes_first(
    monkeypatch,
):
    """Line numbers come from the lines each block held (plain blocks: one ID a line); the
    block read before a too-long line is checked first, so its bad line is the one named."""
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 64)
    long = b"9" * 150
    with pytest.raises(ValueError, match=r"^line 101: more than 100 characters"):
        ids_module.parse_ids(b"1\n" * 100 + long)
    with pytest.raises(ValueError, match=r"^line 3: 'nope'"):
        ids_module.parse_ids(b"1\n2\nnope\n" + b"3\n" * 20 + long)


class _Pipe(io.RawIOBase):
    """A stream that cannot seek (stdin from a pipe), over some bytes."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize("block", [7, 64, 1000])
def test_a_pipe_and_a_file_are_cut_into_the_same_lines(monkeypatch, block):
    """A file is read on from the start of each cut line, a pipe joins the cut line to the
    next block: both read every line once, in order."""
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", block)
    lines = [str(i * 104_729 % 10**9).zfill(i % 3) for i in range(500)] + ["77"]
    text = ("\n".join(lines)).encode()  # the last line has no line end
    for stream in (io.BytesIO(text), io.BufferedReader(_Pipe(text))):
        assert not isinstance(stream, io.BufferedReader) or not stream.seekable()
        read = ids_module.parse_stream(stream)
        assert read.values.tolist() == [int(x) for x in lines]
        assert read.lengths.tolist() == [len(x) for x in lines]
