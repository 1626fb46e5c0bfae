"""The errata's rubric as a check (setlab.render.claims.CLOSE and FAR): an entry whose figure is
one number of one kind (bytes, a time, a share) is off from each of our figures of that kind by
a factor, and that factor allows only some words. Where ours gives several cases (dense and
hashed, one layer and three), the word must be one that some case's factor allows: the verdict
names which case is the seed's. Entries off by the same factor on the same kind of figure then
get the same word, unless the entry's reason says why not (``STATED``)."""

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
#: any number in a figure, with or without a unit (a seed figure with two is not one comparison)
_ANY_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: a seed figure that is a bound, not a value: "over 50%" holds for any larger figure of ours
_BOUND = re.compile(r"^(?:over|above|more than|>)\s", re.IGNORECASE)
#: a rate per item ("1.2 B / element") is not the same kind as a total
_PER = re.compile(r"(?:KiB|MiB|GiB|KB|MB|GB|B|µs|ms|s)\s*(?:/|per)\s*[a-z]", re.IGNORECASE)
#: entries judged against their factor, and the words their reason states why
STATED = {
    "003-scaling-1-five-layers": "The other way",
    "003-three-layers-2.97pct": "The other way",
    "004-0.002pct": "an ordinary run",
}


def _numbers(text: str) -> list[tuple[float, str]]:
    units = [(m[1], m[2].strip()) for m in _NUMBER.finditer(text)]
    return [(float(number.replace(",", "")) * _UNITS[u], _KIND[u]) for number, u in units]


def _ratio(value: float, ours: float, kind: str, bound: bool) -> float:
    """The factor between the seed's figure and one of ours (≥ 1); a share compares both p and
    1 − p ("certain" is far from 38%); a bound ("over 50%") is met by any larger figure."""
    if bound and ours > value:
        return 1.0
    pairs = [(value, ours)]
    if kind == "share" and value <= 1 and ours <= 1:
        pairs.append((1 - value, 1 - ours))
    return max(max(a, b) / min(a, b) if min(a, b) > 0 else float("inf") for a, b in pairs)


def factors(seed: str, ours: str) -> tuple[str, list[float]] | None:
    """(kind, one factor per figure of ours of that kind) when the seed's figure is one number
    with a unit, and not a rate per item; None when it is not one comparison."""
    theirs = _numbers(seed)
    if len(theirs) != 1 or len(_ANY_NUMBER.findall(seed)) != 1 or _PER.search(seed):
        return None
    ((value, kind),) = theirs
    same = [v for v, k in _numbers(ours.split(" (reference run")[0]) if k == kind]
    if not same or value <= 0 or min(same) <= 0:
        return None
    bound = bool(_BOUND.match(seed.strip()))
    return kind, [_ratio(value, v, kind, bound) for v in same]


def factor(seed: str, ours: str) -> tuple[str, float] | None:
    """(kind, factor ≥ 1) when the seed's figure is one number and ours has one of that kind."""
    found = factors(seed, ours)
    if found is None or len(found[1]) != 1:
        return None
    return found[0], found[1][0]


def band(ratio: float) -> str:
    return "close" if ratio < CLOSE else "far" if ratio >= FAR else "between"


def allowed(ratios: list[float]) -> set[str]:
    """The words some case's factor allows."""
    return set().union(*(ALLOWED[band(r)] for r in ratios))


def rubric_problems(claims: Iterable[Claim]) -> list[str]:
    """Each judged entry whose word none of its factors allows and whose reason does not say
    why (``STATED``)."""
    found = []
    for c in claims:
        if not c.verdict.judged or c.restates:
            continue
        measured = factors(c.seed_figure, c.our_figure())
        if measured is None:
            continue
        kind, ratios = measured
        if c.verdict.value in allowed(ratios):
            continue
        if c.id in STATED and STATED[c.id] in c.reason():
            continue
        shown = ", ".join(f"{r:.2f}× ({band(r)})" for r in ratios)
        found.append(
            f"{c.id}: {c.seed_figure!r} against {c.our_figure()[:50]!r} is {shown} ({kind}), "
            f"allowing {sorted(allowed(ratios))}, not {c.verdict.value}"
        )
    return found
