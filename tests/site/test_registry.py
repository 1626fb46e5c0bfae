"""The claim registry, and the single-source rule: a figure a chapter's prose shows for a claim is
the same value as that claim's row, because both read one computed figure.

How the rule is kept (see setlab.render.claims):
- a claim's "ours" is a template over its chapter's figure names, so the verdict table, the
  errata and the CLI render the same text;
- a chapter page glues figures only from its module's ``FIGURES`` (``FIGURES.glue()``); a page
  may glue a value itself only under a ``live-`` name (what this run measured, shown beside the
  reference, never instead of it);
- every ``{glue:…}`` role in a page names a glued figure, so nothing is typed where a figure
  belongs.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from setlab.render.claims import CLAIM_ID, Figures, Verdict
from setlab.site import registry
from setlab.site.seed_sentences import SENTENCES

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"

_ROLE = re.compile(r"\{glue(?::[a-z]+)?\}`([^`]+)`")
_DIRECTIVE = re.compile(r"^```\{glue(?::[a-z]+)?\} +(\S+)", re.M)
_GLUE_CALL = re.compile(r"""\bglue\(\s*(?:f?["'])([^"']+)["']""")
_INCLUDE = re.compile(r"^```\{include\} +(\S+)\s*\n```", re.M)


def _page(slug: str) -> str:
    return (BOOK / f"{slug}.md").read_text()


def _glued_in_page(text: str) -> set[str]:
    return {m.group(1).split("{")[0] for m in _GLUE_CALL.finditer(text)}


def test_claim_ids_are_unique_and_every_claim_renders():
    everything = registry.claims()
    ids = [c.id for c in everything]
    assert len(ids) == len(set(ids))
    for claim in everything:
        figure = claim.our_figure()
        assert figure and "{" not in figure, claim.id


def test_the_book_has_one_chapter_order_the_toc_and_the_registry_agree():
    """registry.CHAPTERS (in the package: the errata, slides, downloads and hostile-server checks
    read it) is the order of the numbered parts of _toc.yml, and every chapter package under
    src/setlab/chapters/ is one of them: a chapter added to one and not the other fails here."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = [
        entry["file"].removeprefix("book/")
        for part in toc["parts"]
        if part.get("numbered")
        for entry in part["chapters"]
    ]
    assert list(registry.CHAPTERS) == numbered
    packages = ROOT / "src" / "setlab" / "chapters"
    rooms = sorted(
        p.name.replace("_", "-") for p in packages.iterdir() if (p / "__init__.py").is_file()
    )
    assert rooms == sorted(registry.CHAPTERS)


def test_every_claim_names_a_chapter_in_the_book():
    toc = (ROOT / "_toc.yml").read_text()
    for claim in registry.claims():
        assert f"book/{claim.chapter}" in toc, claim.id
        assert all(f"book/{other}" in toc for other in claim.also), claim.id


def test_errata_lists_every_claim_once_tagged_and_linked_to_its_chapter():
    from setlab.site import errata

    text = registry.errata_markdown()
    everything = registry.claims()
    assert text.count('class="errata-row"') == len(everything)
    for c in everything:
        tag = f'data-seed="{c.seed}" data-chapter="{c.chapter}" data-verdict="{c.verdict.value}"'
        assert tag in text, c.id
        assert f'href="{registry.claim_href(c)}"' in text, c.id
        row = f'<span id="{c.anchor()}"></span>'
        # an entry with a verdict of its own has its row in its chapter's table, a restatement
        # or an unjudged sentence in the errata only
        assert (row in registry.verdict_table(c.chapter)) == c.in_chapter_table, c.id
        assert (row in text) != c.in_chapter_table, c.id
        assert quote(c.anchor()) == c.anchor(), f"{c.id}: its anchor needs percent-encoding"
    filters = errata.filters_html()
    for seed in {c.seed for c in everything}:
        assert registry.SEED_TITLES[seed] in filters
    assert sum(registry.verdict_counts(everything).values()) == len(everything)
    counts = [int(errata.FIGURES[f"errata-{errata.verdict_slug(v)}"]) for v in Verdict]
    assert sum(counts) == int(errata.FIGURES["errata-total"]) == len(everything)


def test_a_claim_shown_in_another_chapter_is_in_that_chapters_table():
    for claim in registry.claims():
        for other in claim.also:
            assert claim.id in {c.id for c in registry.claims(other)}


def _first_sentence(claim) -> tuple[str, int]:
    """Where the claim's own seed first says it: its seed and the index of that sentence."""
    return claim.seed, min(
        i
        for i, s in enumerate(SENTENCES)
        if s.seed == claim.seed and claim.id in (*s.claims, *s.also)
    )


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_a_chapter_registers_its_claims_in_the_order_its_seeds_make_them(slug):
    """claims.py reads like the seeds, and the verdict table (own claims and borrowed ones) too."""
    own = [_first_sentence(c) for c in registry.figures(slug).claims]
    assert own == sorted(own), f"reorder src/setlab/chapters/{slug.replace('-', '_')}/claims.py"
    shown = [_first_sentence(c) for c in registry.claims(slug)]
    assert shown == sorted(shown)


def test_a_claims_figure_must_be_defined_on_its_chapter():
    figures = Figures("test-chapter")
    figures.add("t-one", lambda: "1 B")
    figures.claim("000-x", "000", "§1", "x", "1 B", "{t-one}", Verdict.CORRECT, "why")
    with pytest.raises(ValueError, match="undefined figures"):
        figures.claim("000-y", "000", "§1", "y", "2 B", "{t-two}", Verdict.CORRECT, "why")
    with pytest.raises(ValueError, match="already defined"):
        figures.add("t-one", lambda: "again")


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_a_chapter_shows_its_verdicts_from_the_registry(slug):
    text = _page(slug)
    assert f'registry.verdict_table("{slug}")' in text
    assert "Claim(" not in text and "Verdict." not in text  # no verdict built in the page


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_a_chapter_glues_figures_only_from_its_module(slug):
    text = _page(slug)
    figures = registry.figures(slug)
    # the page opens with its module's start(), which glues the module's figures
    assert "lab = chapter.start()" in text, "the page must open with its module's start()"
    module = importlib.import_module("setlab.chapters." + slug.replace("-", "_"))
    assert "open_page(FIGURES" in inspect.getsource(module.start)
    own = {name for name in _glued_in_page(text) if not name.startswith("live-")}
    assert own == set(), f"{slug} glues figures of its own instead of its module's: {own}"
    shown = set(_ROLE.findall(text)) | set(_DIRECTIVE.findall(text))
    missing = {n for n in shown if n not in figures and n not in _glued_in_page(text)}
    assert missing == set(), f"{slug} shows figures nobody glues: {missing}"


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_every_figure_a_claim_uses_is_one_the_chapter_computes(slug):
    figures = registry.figures(slug)
    for claim in figures.claims:
        assert set(claim.figure_names()) <= set(figures.names()), claim.id
        rendered = claim.our_figure() + " " + claim.reason()
        for name in claim.figure_names():
            assert figures[name] in rendered  # the row shows the figure's one value


def _with_includes(text: str) -> str:
    return _INCLUDE.sub(lambda m: (BOOK / m.group(1)).read_text(), text)


@pytest.mark.parametrize("page", sorted(registry.PAGES))
def test_a_page_that_is_not_a_chapter_glues_figures_only_from_its_module(page):
    text = _with_includes(_page(page))
    figures = registry.page_figures(page)
    assert "FIGURES.glue()" in text, "the page must glue its module's figures"
    own = {name for name in _glued_in_page(text) if not name.startswith("live-")}
    assert own == set(), f"{page} glues figures of its own instead of its module's: {own}"
    shown = set(_ROLE.findall(text)) | set(_DIRECTIVE.findall(text))
    assert shown, f"{page} shows no figure"
    missing = shown - set(figures.names())
    assert missing == set(), f"{page} shows figures its module does not compute: {missing}"


def test_a_chapters_table_lists_its_own_verdicts_and_counts_the_rest_in_under_20_rows():
    for slug in registry.CHAPTERS:
        table = registry.verdict_table(slug)
        rows = [line for line in table.splitlines() if line.startswith("| <span id=")]
        assert len(rows) < 20, f"{slug}: {len(rows)} rows"
        selected = registry.claims(slug)
        shown = [c for c in selected if c.in_chapter_table]
        assert sum(row.count('<span id="claim-') for row in rows) == len(shown)
        hidden = len(selected) - len(shown)
        if hidden:  # counted, and the errata filtered to the chapter lists them
            assert f'<a href="errata.html?chapter={slug}">errata</a>' in table
            said = [
                int(n)
                for n in re.findall(r"(\d+) (?:more sentences?|is|are) ", table.split("\n\n")[-1])
            ]
            assert sum(said) == hidden, (slug, said, hidden)
        else:
            assert "errata.html" not in table


def test_a_restatement_names_entries_that_exist_and_links_them_by_seed_and_figure():
    ids = {c.id for c in registry.claims()}
    for c in registry.claims():
        if c.why.startswith("Restates "):
            assert c.restates and set(c.restates) <= ids, (c.id, c.restates)
        for named in set(CLAIM_ID.findall(c.why)) & ids:
            assert named not in CLAIM_ID.findall(re.sub(r"<[^>]+>", "", registry.linked_reason(c)))


def test_claims_of_one_group_share_one_row():
    table = registry.verdict_table("setbit-offset")
    (row,) = [line for line in table.splitlines() if 'id="claim-000-alloc-1e6"' in line]
    for five in ("1e8", "1e9", "2e9", "4e9"):
        assert f'id="claim-000-alloc-{five}"' in row
    assert row.count("<br>") >= 4
