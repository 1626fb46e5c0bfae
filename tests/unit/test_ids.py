"""setlab.models.ids: reading files of IDs (decimal, hex, UUIDs) and writing them back as text.

References: Python's own int()/uuid parsing of the same text, and the lines themselves.
"""

from __future__ import annotations

import io
import uuid

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.models import ids as ids_module
from setlab.models import redis_memory as rm

U64 = 2**64 - 1


def _read(tmp_path, text: str | bytes, name: str = "ids.txt") -> ids_module.IDs:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return ids_module.read_ids(path, progress=False)


# -- reading --------------------------------------------------------------------------------------

_SPACE = st.sampled_from(["", " ", "\t", "  "])


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(0, U64), min_size=1, max_size=300),
    form=st.sampled_from(["decimal", "hex", "0x"]),
    pad=st.tuples(_SPACE, _SPACE),
    ending=st.sampled_from(["\n", "\r\n"]),
    blanks=st.integers(0, 3),
)
def test_integers_round_trip_through_text(values, form, pad, ending, blanks):
    write = {"decimal": str, "hex": lambda v: f"{v:x}", "0x": lambda v: f"0x{v:X}"}[form]
    texts = [write(v) for v in values]
    body = ending.join(pad[0] + t + pad[1] for t in texts) + ending * (blanks + 1)
    ids = ids_module.parse_ids(body.encode(), fmt="dec" if form == "decimal" else "hex")
    assert ids.values.tolist() == values
    assert ids.lengths.tolist() == [len(t) for t in texts]
    assert ids.blank_lines == blanks
    assert ids.kind == ("decimal" if form == "decimal" else "hex")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2**128 - 1), min_size=1, max_size=200), st.booleans())
def test_uuids_and_wide_hex_keep_all_128_bits(values, as_uuid):
    texts = [str(uuid.UUID(int=v)) if as_uuid else f"{v:032x}" for v in values]
    expected = [int(t.replace("-", ""), 16) for t in texts]
    ids = ids_module.parse_ids("\n".join(texts).encode(), fmt="uuid" if as_uuid else "hex")
    assert ids.high is not None and ids.bits == 128
    got = [(int(h) << 64) | int(lo) for h, lo in zip(ids.high, ids.values, strict=True)]
    assert got == expected


def test_blocks_are_cut_at_line_ends_and_line_numbers_survive(monkeypatch):
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 50)
    lines = [str(i * 7919) for i in range(200)]
    read = ids_module.parse_ids("\n".join(lines).encode())
    assert read.values.tolist() == [int(x) for x in lines]
    lines[150] = "oops"
    with pytest.raises(ValueError, match=r"^line 151: 'oops'"):
        ids_module.parse_ids("\n".join(lines).encode())


def test_a_hex_file_whose_first_id_has_no_letter_needs_format_hex():
    data = b"1234567890123456\na1b2c3d4e5f60718\n"
    ids = ids_module.parse_ids(data, fmt="hex")
    assert ids.kind == "hex"
    assert ids.values.tolist() == [0x1234567890123456, 0xA1B2C3D4E5F60718]
    with pytest.raises(ValueError, match=r"^line 2: .* say so with --format hex"):
        ids_module.parse_ids(data)


@pytest.mark.parametrize("odd", ["deadbeef", "1e5", "0x1f"])
def test_one_hex_looking_line_in_a_decimal_file_is_refused_not_read_as_hex(odd):
    lines = [str(1000 + i) for i in range(2_000)]
    lines[1_499] = odd
    with pytest.raises(ValueError, match=rf"^line 1500: '{odd}' is a .*hexadecimal ID but line 1 "):
        ids_module.parse_ids("\n".join(lines).encode())


@pytest.mark.parametrize(
    ("fmt", "data", "line"),
    [("dec", b"1\n2\nff\n", 3), ("uuid", b"123e4567-e89b-12d3-a456-426614174000\n7\n", 2),
     ("hex", b"ab\n123e4567-e89b-12d3-a456-426614174000\n", 2)],
)  # fmt: skip
def test_a_named_format_refuses_the_first_line_of_another_kind(fmt, data, line):
    with pytest.raises(ValueError, match=rf"^line {line}: .*\(--format {fmt}\)"):
        ids_module.parse_ids(data, fmt=fmt)


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="format must be one of auto, dec, hex, uuid"):
        ids_module.parse_ids(b"1\n", fmt="octal")


class _Endless(io.RawIOBase):
    """A stream of NUL bytes that never ends, counting what was read from it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = ids_module.BLOCK_BYTES if n < 0 else n
        self.read_bytes += n
        return b"\0" * n


def test_a_line_without_end_fails_after_one_block_not_after_the_whole_file():
    stream = _Endless()
    with pytest.raises(ValueError, match=r"^line 1: more than 100 characters without a line"):
        ids_module.parse_stream(stream)
    assert stream.read_bytes <= ids_module.BLOCK_BYTES


def test_a_bad_line_stops_the_read_at_its_block(monkeypatch):
    monkeypatch.setattr(ids_module, "BLOCK_BYTES", 64)
    body = b"1\n2\nnope\n" + b"3\n" * 10_000
    stream = io.BytesIO(body)
    with pytest.raises(ValueError, match=r"^line 3: 'nope'"):
        ids_module.parse_stream(stream)
    assert stream.tell() <= 2 * 64


def test_leading_zeros_are_remembered_because_redis_keeps_them_as_strings():
    ids = ids_module.parse_ids(b"007\n7\n0\n")
    assert ids.canonical.tolist() == [False, True, True]
    assert ids.lengths.tolist() == [3, 1, 1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"user_id\n1\n", "^line 1: 'user_id' is not an ID.*header"),
        (b"1\n2\n3,4\n", "^line 3: '3,4' is not an ID"),
        (b"1\n2 3\n", "^line 2: .*two values"),
        (b"1\n123e4567-e89b-12d3-a456-426614174000\n", "^line 2: .* UUID but line 1"),
        (b"18446744073709551616\n", "^line 1: .*above 2\\^64"),
        (b"1" * 21 + b"\n", "more than 20 digits"),
        (b"a" * 33 + b"\n", "more than 32 hex digits"),
        (b"1\n\x00\x01\n", "^line 2: a NUL byte"),
        (b"1\n" + b"9" * 500 + b"\n", "^line 2: 500 characters"),
        (b"", "no IDs"), (b"\n \n\t\n", "no IDs"), (b"-5\n", "not an ID"), (b"0x\n", "not an ID"),
        ("caf\u00e9\n".encode(), "not an ID"),
    ],
)  # fmt: skip
def test_bad_input_names_the_line_and_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        ids_module.parse_ids(text)


def test_read_ids_reports_missing_files_and_directories(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        ids_module.read_ids(tmp_path / "missing.txt", progress=False)
    with pytest.raises(ValueError, match="directory"):
        ids_module.read_ids(tmp_path, progress=False)


def test_a_utf8_byte_order_mark_is_not_part_of_the_first_id(tmp_path):
    assert _read(tmp_path, b"\xef\xbb\xbf42\n43\n").values.tolist() == [42, 43]


# -- writing back, and what a SET of them stores --------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 2**128 - 1), min_size=1, max_size=100),
    st.sampled_from(["decimal", "padded", "hex", "uuid"]),
)
def test_texts_give_back_the_lines_as_read(values, form):
    if form in ("decimal", "padded"):
        values = [v % 2**64 for v in values]
    write = {
        "decimal": str, "padded": lambda v: f"{v:020d}", "hex": lambda v: f"{v:032x}",
        "uuid": lambda v: str(uuid.UUID(int=v)),
    }[form]  # fmt: skip
    lines = [write(v) for v in values]
    fmt = {"decimal": "dec", "padded": "dec", "hex": "hex", "uuid": "uuid"}[form]
    read = ids_module.parse_ids("\n".join(lines).encode(), fmt=fmt)
    assert ids_module.texts(read, np.arange(len(lines))) == lines


@pytest.mark.parametrize("count", [300, 6_000])  # summarised from the texts, and by length
def test_set_members_cost_what_a_set_of_the_distinct_lines_costs(count):
    rng = np.random.default_rng(count)
    lines = [f"{v:x}" for v in rng.integers(0, 2**62, count).tolist()] + ["abc", "abc"]
    read = ids_module.parse_ids("\n".join(lines).encode())
    members = ids_module.set_members(read)
    assert members.count == len(set(lines))
    assert rm.set_cost(members).memory_usage == rm.set_cost(rm.Members.of(set(lines))).memory_usage
