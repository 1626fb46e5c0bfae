"""A 1-D numpy array filled piece by piece (the IDs of a file, block after block).

Collecting the pieces in a list and concatenating them at the end holds every value twice at
the end and allocates the whole array once more: for 10^7 IDs, 100 MB to allocate, fault in
and copy. :class:`Growing` copies each piece in as it comes, into room reserved ahead (from the
file's size when it is known); a reservation that is never filled costs address space, not
memory, because untouched pages are never backed.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike


class Growing:
    """A 1-D array of ``dtype`` that pieces are appended to; :meth:`array` is what they hold."""

    def __init__(self, dtype: DTypeLike) -> None:
        self._data = np.empty(0, dtype=dtype)
        self.size = 0

    def reserve(self, capacity: int) -> None:
        """Room for ``capacity`` values in all (an estimate: appending more still works)."""
        if capacity > self._data.size:
            grown = np.empty(capacity, dtype=self._data.dtype)
            grown[: self.size] = self._data[: self.size]
            self._data = grown

    def append(self, piece: np.ndarray) -> None:
        end = self.size + piece.size
        if end > self._data.size:
            self.reserve(max(end, self._data.size * 3 // 2))
        self._data[self.size : end] = piece
        self.size = end

    def array(self) -> np.ndarray:
        """The values appended so far (a view of the reserved room)."""
        return self._data[: self.size]
