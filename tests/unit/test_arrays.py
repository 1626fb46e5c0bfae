"""setlab.core.arrays.Growing: pieces appended in order, whatever was reserved ahead.

Reference: numpy.concatenate of the same pieces."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setlab.core.arrays import Growing


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 2**64 - 1), max_size=50), max_size=12),
    st.integers(0, 200),
    st.integers(0, 11),
)
def test_appended_pieces_read_back_as_their_concatenation(pieces, reserve, reserve_after):
    column = Growing(np.uint64)
    arrays = [np.array(p, dtype=np.uint64) for p in pieces]
    for i, piece in enumerate(arrays):
        if i == reserve_after:  # a reservation, too small or too big, at any point
            column.reserve(reserve)
        column.append(piece)
    expected = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.uint64)
    got = column.array()
    assert got.dtype == np.uint64 and got.tolist() == expected.tolist()
    assert column.size == expected.size
