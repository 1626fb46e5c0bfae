"""Reading a value between stored measurements: piecewise-linear interpolation, in log–log space
for measurements that span decades (first-write times over offsets from 2^10 to 2^32).

The book's widgets run the same lookup in the browser as a Vega expression
(:func:`setlab.render.widgets.interp_expr`); ``setlab calc`` runs this one, and a test checks that
they agree.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence


def interpolate(x: float, xs: Sequence[float], ys: Sequence[float], *, log: bool = True) -> float:
    """``ys`` at ``x`` over increasing ``xs``: linear between neighbours (in log–log space when
    ``log``), clamped to the first and last point outside the range."""
    if x <= xs[0]:
        return float(ys[0])
    if x >= xs[-1]:
        return float(ys[-1])
    i = bisect.bisect_left(xs, x)
    x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
    if log:
        t = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
        return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
    return y0 + (x - x0) * (y1 - y0) / (x1 - x0)
