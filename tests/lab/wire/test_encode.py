"""setlab.lab.wire.encode: every path of the one RESP encoder writes redis-py's own bytes.

Each path (compiled, grouped, scattered) is checked against
``redis.connection.Connection.pack_command`` (redis-py's RESP encoder, an independent
implementation) for values of every number of digits, with and without keys, in the order it
reports, and against the obvious Python for any prefix and suffix.
"""

from __future__ import annotations

import numpy as np
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.lab.wire import encode as resp_encode

EDGES = np.array(
    [0, 1, 9, 10, 99, 9999, 10_000, 10**8, 10**9 - 1, 2**32 - 1, 2**32, 10**10, 2**63, 2**64 - 1],
    dtype=np.uint64,
)
SETBIT, ONE = b"*4\r\n$6\r\nSETBIT\r\n", b"$1\r\n1\r\n"


def _packed(*args: object) -> bytes:
    return b"".join(redis.connection.Connection().pack_command(*args))


@pytest.fixture(params=["compiled", "grouped", "scattered"])
def path(request, monkeypatch):
    """``encode``'s keyword for each path (the grouped one with numba turned off)."""
    if request.param == "compiled" and resp_encode._kernel() is None:
        pytest.skip("numba is not installed (the dev extra)")
    if request.param == "grouped":
        monkeypatch.setattr(resp_encode, "_kernel", lambda: None)
    return {"in_order": request.param == "scattered"}


def _records(data, bounds, order, n):
    order = np.arange(n) if order is None else order
    data = bytes(data)
    assert bounds[-1] == len(data) and sorted(order.tolist()) == list(range(n))
    return {j: data[bounds[i] : bounds[i + 1]] for i, j in enumerate(order.tolist())}


def test_every_path_matches_redis_py_for_every_number_of_digits_and_its_keys(path):
    rng = np.random.default_rng(6)
    values = np.concatenate([EDGES, rng.integers(0, 2**64 - 1, 300, dtype=np.uint64)])
    keys = ["setlab:t:a", "setlab:t:b", "setlab:t:c"]
    key_index = np.arange(values.size) % 3
    data, bounds, order = resp_encode.encode(
        values, SETBIT, ONE, resp_encode.key_table(keys), key_index, **path
    )
    records = _records(data, bounds, order, values.size)
    for j, record in records.items():
        assert record == _packed("SETBIT", keys[key_index[j]], int(values[j]), 1)


def test_only_the_grouped_path_reorders_and_it_says_how(path):
    values = np.array([10**12, 5, 123], dtype=np.uint64)
    _, _, order = resp_encode.encode(values, b"", b"", **path)
    if not path["in_order"] and resp_encode._kernel() is None:  # grouped: by number of digits
        assert order.tolist() == [1, 2, 0]
    else:
        assert order is None


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(0, 2**64 - 1), max_size=50),
    prefix=st.binary(max_size=8),
    suffix=st.binary(max_size=8),
)
def test_the_in_order_records_are_the_obvious_python(values, prefix, suffix):
    data, bounds, order = resp_encode.encode(
        np.array(values, dtype=np.uint64), prefix, suffix, in_order=True
    )
    expected = [prefix + b"$%d\r\n%d\r\n" % (len(str(v)), v) + suffix for v in values]
    assert order is None and bytes(data) == b"".join(expected)
    assert np.diff(bounds).tolist() == [len(e) for e in expected]


def test_each_record_takes_its_key_from_the_table(path):
    table = resp_encode.key_table(["k:0", "k:1"])
    data, bounds, order = resp_encode.encode(
        np.array([5, 12], dtype=np.uint64), b"<", b">", table, np.array([1, 0]), **path
    )
    assert _records(data, bounds, order, 2) == {
        0: b"<$3\r\nk:1\r\n$1\r\n5\r\n>",
        1: b"<$3\r\nk:0\r\n$2\r\n12\r\n>",
    }


def test_key_table_refuses_keys_of_different_lengths():
    with pytest.raises(ValueError, match="same length"):
        resp_encode.key_table(["a", "bb"])
