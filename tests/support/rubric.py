"""The errata's rubric as a check (setlab.render.claims.CLOSE and FAR): an entry whose figure
and ours are one number each of one kind (bytes, a time, a share) is off by a factor, and
that factor allows only some words. Entries off by the same factor on the same kind of figure
then get the same word, unless the entry's reason says why not (``STATED``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from setlab.render.claims import CLOSE, FAR, Claim

_UNITS = {
    "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
    "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
    "µs": 1e-6, "ms": 1e-3, "s": 1.0, "%": 0.01,
}  # fmt: skip
_KIND = {u: "time" if u in ("µs", "ms", "s") else "share" if u == "%" else "bytes" for u in _UNITS}
_NUMBER = re.compile(  # seconds only after a space: "100s of ms" is a count, not 100 s
    r"(?<![\w.^])~?(\d[\d,]*(?:\.\d+)?)(\s?(?:KiB|MiB|GiB|TiB|KB|MB|GB|TB|B|µs|ms|%)|\ss)(?!\w)"
)
#: the words each band of the factor allows
ALLOWED = {
    "close": {"correct", "right for another reason", "depends"},
    "between": {"imprecise", "depends"},
    "far": {"wrong", "depends"},
}
#: entries judged against their factor, and the words their reason states why
STATED = {"003-scaling-1-five-layers": "The other way"}


def _numbers(text: str) -> list[tuple[float, str]]:
    units = [(m[1], m[2].strip()) for m in _NUMBER.finditer(text)]
    return [(float(number.replace(",", "")) * _UNITS[u], _KIND[u]) for number, u in units]


def factor(seed: str, ours: str) -> tuple[str, float] | None:
    """(kind, factor ≥ 1) when the seed's figure is one number and ours has one number of the
    same kind; a share compares both p and 1 − p ("certain" is far from 38%)."""
    theirs = _numbers(seed)
    if len(theirs) != 1:
        return None
    ((value, kind),) = theirs
    same = [v for v, k in _numbers(ours.split(" (reference run")[0]) if k == kind]
    if len(same) != 1 or min(value, same[0]) <= 0:
        return None
    pairs = [(value, same[0])]
    if kind == "share" and value <= 1 and same[0] <= 1:
        pairs.append((1 - value, 1 - same[0]))
    ratios = [max(a, b) / min(a, b) if min(a, b) > 0 else float("inf") for a, b in pairs]
    return kind, max(ratios)


def band(ratio: float) -> str:
    return "close" if ratio < CLOSE else "far" if ratio >= FAR else "between"


def rubric_problems(claims: Iterable[Claim]) -> list[str]:
    """Each judged entry whose word its factor does not allow and whose reason does not say
    why (``STATED``)."""
    found = []
    for c in claims:
        if not c.verdict.judged or c.restates:
            continue
        measured = factor(c.seed_figure, c.our_figure())
        if measured is None:
            continue
        kind, ratio = measured
        if c.verdict.value in ALLOWED[band(ratio)]:
            continue
        if c.id in STATED and STATED[c.id] in c.reason():
            continue
        allowed = sorted(ALLOWED[band(ratio)])
        found.append(
            f"{c.id}: {c.seed_figure!r} against {c.our_figure()[:50]!r} is {ratio:.2f}× "
            f"({kind}, {band(ratio)}), allowing {allowed}, not {c.verdict.value}"
        )
    return found
