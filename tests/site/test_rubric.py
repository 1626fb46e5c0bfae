"""Every verdict follows the errata's rubric (tests/support/rubric.py): planted entries off by
the same factor and judged unlike are caught; the book's entries pass."""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict
from setlab.site import registry
from tests.support.rubric import ALLOWED, STATED, band, factor, factors, rubric_problems


def _planted() -> list:
    figures = Figures("test-rubric")
    figures.add("small", lambda: "1.3 KiB")
    figures.add("large", lambda: "12 MiB")
    figures.add("far", lambda: "3 µs")
    figures.add("cases", lambda: "1.3 KiB dense, 640 MiB hashed")
    made = [
        figures.claim("900-a", "900", "§1", "a", "~1.2 KB", "{small}", Verdict.CORRECT, "."),
        figures.claim("900-b", "900", "§1", "b", "~12 MB", "{large}", Verdict.IMPRECISE, "."),
        figures.claim("900-c", "900", "§1", "c", "18 ms", "{far}", Verdict.IMPRECISE, "."),
        figures.claim("900-d", "900", "§1", "d", "certain: 100%", "37.9%", Verdict.IMPRECISE, "."),
        # one case of ours is close and one far: "correct" or "wrong" names the seed's case, but
        # "imprecise" fits neither
        figures.claim("900-e", "900", "§1", "e", "~1.2 KB", "{cases}", Verdict.WRONG, "."),
        figures.claim("900-f", "900", "§1", "f", "~1.2 KB", "{cases}", Verdict.IMPRECISE, "."),
        # a bound is met by any larger figure: "over 50%" against 62.9% is not 1.26× off
        figures.claim("900-g", "900", "§1", "g", "over 50%", "62.9%", Verdict.CORRECT, "."),
        figures.claim("900-h", "900", "§1", "h", "over 50%", "12.7%", Verdict.CORRECT, "."),
    ]
    return made


def test_like_entries_judged_unlike_are_caught():
    found = rubric_problems(_planted())
    # 1.2 KB and 12 MB are both within 1.2× of ours: one may not be imprecise when the other is
    # correct; 6,000× is far; "certain" against 37.9% compares the chances of no collision
    assert [p.split(":")[0] for p in found] == ["900-b", "900-c", "900-d", "900-f", "900-h"], found


def test_the_factor_reads_one_number_of_one_kind():
    assert factor("~12 MB", "11.9 MiB string") == ("bytes", 12 * 2**20 * 0.9916666666666667 / 12e6)
    assert factor("1.5 s", "124 ms inside Redis")[0] == "time"
    assert factor("ms / 100s of ms", "12 µs") is None  # two figures: not one comparison
    assert factor("~1.2 KB", "1.3 KiB dense, 640 MiB hashed") is None  # ours is two figures
    assert factors("~1.2 KB", "1.3 KiB dense, 640 MiB hashed")[1][1] > 5e5  # one per case
    assert factors("1.2 B / element", "137 MiB") is None  # a rate per item is not a total
    assert factors("Roaring, 12.5 MB / 10^8", "11.9 MiB") is None  # two numbers: no one figure
    assert factors("over 50%", "62.9%") == ("share", [1.0])
    assert band(1.19) == "close" and band(1.2) == "between" and band(10) == "far"
    assert ALLOWED["far"] == {"wrong", "depends"}


def test_every_verdict_of_the_book_follows_the_rubric():
    claims = registry.claims()
    compared = [
        c for c in claims
        if c.verdict.judged and not c.restates and factors(c.seed_figure, c.our_figure())
    ]  # fmt: skip
    assert len(compared) >= 25
    assert rubric_problems(claims) == []
    for claim_id, words in STATED.items():  # every exception says why, in the reader's view
        (claim,) = [c for c in claims if c.id == claim_id]
        assert words in claim.reason()
