"""A call on a second thread, for numpy work that releases the interpreter lock.

``setlab advise`` on 10^7 IDs spends its time in numpy calls that run without the interpreter
lock (``numpy.fromstring``'s text reader, ``ndarray.sort``, element-wise operations), so two
halves of one job run at once on a machine with two cores: :class:`Started` runs one half on a
thread while the caller does the other, and :func:`cores` says whether that can help.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any


def cores() -> int:
    """Processors this process may run on (its CPU affinity where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


class Started:
    """``fn(*args, **kwargs)`` running on its own thread from construction; :meth:`result`
    waits for it and returns its value, or raises what it raised."""

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, args, kwargs), daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> None:
        try:
            self._value = fn(*args, **kwargs)
        except BaseException as err:  # raised again in the caller by result()
            self._error = err

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
