"""Zero drift: a figure a chapter's prose shows for a registered claim is glued, never typed.

tests/site/test_registry.py already proves that every ``{glue:…}`` role names a figure of the
page's
module, that pages glue no figures of their own, and that a claim's row shows its figures' one
value. What it cannot see is a figure *typed* into the prose ("the key is 14 KiB once dense"):
that text reads right today and silently drifts the day the model or the reference run changes.
So: for every claim a chapter's verdict table shows, every computed result its "ours" fills in
(a number with a unit: bytes, time, percent, bits, hours) must not appear typed in the chapter's
prose — outside code cells, glue roles, inline code and math. Values the seed itself states
(they appear in the claim's own wording or the seed's figure) are quotations, not copies.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from setlab.site import errata, registry

BOOK = Path(__file__).resolve().parents[2] / "book"

_UNIT = r"(?:B|bytes|KiB|MiB|GiB|TiB|KB|MB|GB|ms|µs|us|ns|s|%|bits?|h|min|days)"
#: a number with a unit, as the figures are formatted ("640 MiB", "0.81%", "1,328 B", "2.58 h")
VALUE = re.compile(r"(?<![\w.,^])(\d[\d,]*(?:\.\d+)?)\s?(" + _UNIT + r")(?![\w^])")
_SLOT = re.compile(r"\{([a-z0-9]+(?:-[a-z0-9]+)*)\}")


def prose(page: str) -> str:
    """The page's text without front matter, code cells or fences, glue roles, code or math."""
    text = re.sub(r"\A---\n.*?\n---\n", "", page, flags=re.S)
    text = re.sub(r"^(```+|~~~+)[^\n]*\n.*?^\1[ \t]*$", " ", text, flags=re.S | re.M)
    text = re.sub(r"\{glue(?::[a-z]+)?\}`[^`]+`", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", " ", text, flags=re.S)


def _key(number: str, unit: str) -> tuple[str, str]:
    """A value as written: "96%" is not a copy of "96.0%" (a round number, not the figure)."""
    return number, unit


def typed_copies(page: str, slug: str) -> list[str]:
    """Each place the prose types a result figure of a claim the chapter shows."""
    results: dict[tuple[float, str], str] = {}
    quoted = ""
    for claim in registry.claims(slug):
        quoted += f" {claim.claim} {claim.seed_figure}"
        for name in _SLOT.findall(claim.ours):
            for m in VALUE.finditer(claim.figures[name]):
                results[_key(*m.groups())] = f"{claim.id}: {{{name}}} = {claim.figures[name]!r}"
    seed_said = {_key(*m.groups()) for m in VALUE.finditer(quoted)}
    text = prose(page)
    found = []
    for m in VALUE.finditer(text):
        key = _key(*m.groups())
        if key in results and key not in seed_said:
            where = " ".join(text[max(0, m.start() - 40) : m.end() + 10].split())
            found.append(f"{slug}: typed {m.group(0)!r} is {results[key]} — glue it (…{where}…)")
    return found


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_prose_glues_every_figure_of_its_claims_and_types_none(slug):
    copies = typed_copies((BOOK / f"{slug}.md").read_text(), slug)
    assert copies == [], "\n".join(copies)


def test_the_errata_page_glues_its_counts():
    page = (BOOK / "errata.md").read_text()
    assert "errata.FIGURES.glue()" in page
    shown = set(re.findall(r"\{glue:text\}`([^`]+)`", page))
    assert shown <= set(errata.FIGURES.names()) and "errata-total" in shown
    assert not VALUE.search(prose(page))  # not one figure typed on the errata page


def test_a_typed_figure_is_caught_and_a_glued_or_quoted_one_is_not():
    claim = next(c for c in registry.claims("setbit-offset") if c.id == "000-alloc-4e9")
    name = _SLOT.findall(claim.ours)[0]
    value = claim.figures[name]  # "640 MiB" today; whatever the model says tomorrow
    typed = f"---\nx: 1\n---\n\nThe worst first SETBIT costs {value} on Redis.\n"
    glued = f"The worst first SETBIT costs {{glue:text}}`{name}` on Redis.\n"
    assert typed_copies(typed, "setbit-offset")
    assert not typed_copies(glued, "setbit-offset")
    quoted = f"The seed says {claim.seed_figure}.\n"  # the seed's own figure is a quotation
    assert not typed_copies(quoted, "setbit-offset")
    in_code = f"```{{code-cell}} ipython3\nprint('{value}')\n```\n"
    assert not typed_copies(in_code, "setbit-offset")
