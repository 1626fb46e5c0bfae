"""The front door's decision card (book/index.md) and the printable handout (book/handout.md).

The card's numbers are figures of setlab.site.front_door (tests/site/test_registry.py
checks that
both pages glue only those). Here: each row links the chapter of the structure the advisor picks;
the measured errors agree with the theory they measure (Bloom's rate formula, HyperLogLog's
1.04/sqrt(m)); the handout's worked examples agree with the formulas written out independently;
every command the card and handout name is one a real Redis with RedisBloom knows. On the built
site: the card starts above the fold at 1280 x 800 and fits a 390 px phone, and the handout
prints on at most two pages.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from setlab.site import front_door
from tests.support import site

ROOT = Path(__file__).resolve().parents[2]
CARD = ROOT / "book" / "_decision-card.md"
SHOTS = Path("/tmp/frontdoor-shots")


def _rows() -> list[str]:
    """The card's body rows, in order."""
    lines = [line for line in CARD.read_text().splitlines() if line.startswith("| **")]
    assert len(lines) == len(front_door.SHAPES)
    return lines


def _number(text: str) -> float:
    return float(re.search(r"[0-9][0-9,]*\.?[0-9]*", text).group(0).replace(",", ""))


# -- the card -------------------------------------------------------------------------------------


def test_both_pages_show_the_one_card():
    for page in ("index", "handout"):
        text = (ROOT / "book" / f"{page}.md").read_text()
        assert "```{include} _decision-card.md\n```" in text, page
        assert "front_door.FIGURES.glue()" in text, page


@pytest.mark.parametrize("index", range(len(front_door.SHAPES)))
def test_each_row_shows_its_own_figures_and_links_the_chapter_of_its_pick(index):
    shape, row = front_door.SHAPES[index], _rows()[index]
    names = set(re.findall(r"\{glue:text\}`([a-z0-9-]+)`", row))
    for part in ("pick", "per", "error", "cmds"):
        assert f"fd-{shape.key}-{part}" in names
    assert {n.split("-")[1] for n in names} == {shape.key}, "a row shows another row's figure"
    linked = re.search(r"\{doc\}`[^`<]*<([a-z-]+)>`\s*\|\s*$", row).group(1)
    assert linked == front_door.CHAPTER_OF[front_door.structure(shape.key)]


def test_the_exact_rows_pick_exact_structures_and_the_others_do_not():
    for shape in front_door.SHAPES:
        chosen = front_door.pick(shape.key)
        assert chosen.exact == shape.exact, shape.key
        assert chosen.membership == (not shape.count_only), shape.key


def test_the_filter_rows_bytes_and_measured_rate_agree_with_the_bloom_formulas():
    # bytes per ID of an optimal Bloom filter at p: -ln p / (ln 2)^2 bits (Bloom 1970; Broder and
    # Mitzenmacher 2004), written out here rather than taken from setlab.models.bloom
    p = 0.01
    assert front_door.FIGURES["fd-error"] == "1%"
    per_id = _number(front_door.FIGURES["fd-filter-per"])
    assert per_id == pytest.approx(-math.log(p) / math.log(2) ** 2 / 8, rel=0.01)
    measured = front_door.filter_measurement()
    expected = (
        1 - math.exp(-measured.hashes * measured.members / measured.bits)
    ) ** measured.hashes
    sigma = math.sqrt(expected * (1 - expected) / measured.strangers)
    assert abs(measured.rate - expected) < 5 * sigma
    shown = _number(front_door.FIGURES["fd-filter-error"]) / 100
    assert shown == pytest.approx(measured.rate, abs=5e-5)


def test_the_count_rows_measured_spread_is_hyperloglogs_standard_error():
    # 1.04 / sqrt(16384 registers) (Flajolet et al. 2007); 400 sketches estimate a standard
    # deviation to about 4% (1 / sqrt(2 x 400)), so 15% is a loose, failing-capable bound
    measured = _number(front_door.FIGURES["fd-count-error"]) / 100
    assert measured == pytest.approx(1.04 / math.sqrt(16384), rel=0.15)


def test_the_dense_row_costs_one_bit_per_value_of_its_range():
    advice = front_door.choosing.populations()["auto-increment"]
    a = advice.analysis
    one_bit = (a.high - a.low + 1) / 8 / a.distinct  # bytes per ID of a bitmap over the range
    assert front_door.structure("dense") == "plain bitmap"
    # jemalloc's size classes are at most 25% apart, and the key's own bytes are a few dozen
    assert one_bit <= front_door.per_id("dense") <= 1.25 * one_bit


# -- the handout's worked examples ----------------------------------------------------------------


def test_the_handouts_bloom_example_is_the_textbook_sizing():
    n, p = front_door.EXAMPLE_N, front_door.EXAMPLE_P
    m = math.ceil(-n * math.log(p) / math.log(2) ** 2)
    assert _number(front_door.FIGURES["fd-bloom-m"]) == pytest.approx(m, abs=1)
    assert int(front_door.FIGURES["fd-bloom-k"]) == round(m / n * math.log(2))
    assert float(front_door.FIGURES["fd-bloom-floor"]) == pytest.approx(math.log2(1 / p), abs=0.01)


def test_the_handouts_hyperloglog_and_bitmap_examples_follow_the_redis_sources():
    # hyperloglog.c: 16 registers-header bytes + 16384 registers x 6 bits
    assert front_door.FIGURES["fd-hll-dense"] == f"{16 + 16384 * 6 // 8:,} B"
    # t_string.c / bitops.c: a SETBIT at offset o grows the string to o // 8 + 1 bytes
    assert front_door.FIGURES["fd-bm-max"] == f"{2**32 - 1:,}"
    length = front_door.EXAMPLE_OFFSET // 8 + 1
    assert _number(front_door.FIGURES["fd-bm-len"]) == pytest.approx(length / 2**20, abs=0.05)


def test_the_handouts_examples_are_seed_002s_scale_and_its_cuckoo_example_the_papers_rule():
    assert front_door.EXAMPLE_N == front_door.EXAMPLE_OFFSET == 800_000_000  # 8 × 10^8 openids
    b, f = int(front_door.FIGURES["fd-cf-b"]), int(front_door.FIGURES["fd-cf-f"])
    assert f == math.ceil(math.log2(2 * b / front_door.EXAMPLE_P))  # Fan et al. 2014
    slots = b * 2 ** math.ceil(math.log2(front_door.EXAMPLE_N / (b * 0.95)))  # buckets: 2^x
    assert front_door.FIGURES["fd-cf-load"] == f"{front_door.EXAMPLE_N / slots:.1%}"
    assert _number(front_door.FIGURES["fd-cf-bits"]) == pytest.approx(slots * f / 8e8, abs=0.05)


def test_the_paper_handout_names_chapters_by_number():
    """On paper a link's text is all there is: each chapter the handout and the card point to
    is named by its number in the book ("ch. 13"), and the number is the table of contents'."""
    from setlab.site.registry import CHAPTERS

    book = Path(__file__).resolve().parents[2] / "book"
    cited = []
    for name in ("handout.md", "_decision-card.md"):
        text = (book / name).read_text()
        cited += re.findall(r"\{doc\}`(?:ch\. )?(\d+)[^<`]*<([a-z-]+)>`", text)
        assert "(HyperLogLog)" not in text and "$p \\times$" not in text
    assert len(cited) >= 10
    assert [(int(n), slug) for n, slug in cited] == [
        (CHAPTERS.index(slug) + 1, slug) for _, slug in cited
    ]


def test_the_handouts_commands_table_has_a_row_per_structure_the_card_can_pick():
    table = front_door.commands_markdown()
    assert set(front_door.COMMANDS) == set(front_door.CHAPTER_OF)
    for name in front_door.COMMANDS:
        assert f"\n| {name} |" in table
    for shape in front_door.SHAPES:
        assert front_door.structure(shape.key) in front_door.COMMANDS


@pytest.mark.live
def test_every_command_the_card_and_handout_name_is_one_redis_knows(redis_server):
    client = redis_server.client()
    known = {str(c, "utf-8") if isinstance(c, bytes) else c for c in client.command_list()}
    assert "setbit" in known
    if "bf.add" not in known:
        pytest.skip("RedisBloom is not loaded on the private server")
    verbs = set()
    for cells in front_door.COMMANDS.values():
        for cell in cells[:4]:
            verbs |= set(re.findall(r"\b[A-Z]+(?:\.[A-Z]+)?\b", cell))
    verbs -= {"R.SETBIT", "R.GETBIT", "R.BITCOUNT"}  # redis-roaring: a module we do not load
    assert {"SETBIT", "SADD", "BF.RESERVE", "CF.DEL", "PFCOUNT"} <= verbs
    assert {v for v in verbs if v.lower() not in known} == set()


# -- the built site -------------------------------------------------------------------------------

_CARD_BOX = """() => {
  const card = document.querySelector('.setlab-card');
  if (!card) return null;
  const box = card.getBoundingClientRect();
  const cells = [...card.querySelectorAll('td, th')].map(c => c.getBoundingClientRect().right);
  const rows = [...card.querySelectorAll('tbody tr')].map(r => r.getBoundingClientRect().top);
  return {top: box.top + scrollY, lastRow: Math.max(...rows) + scrollY, right: box.right,
          cellsRight: Math.max(...cells),
          pageWidth: document.documentElement.scrollWidth,
          viewWidth: document.documentElement.clientWidth};
}"""


@pytest.mark.browser
@pytest.mark.book
def test_the_card_is_above_the_fold_at_1280_and_fits_a_phone(browser, fake_book_html):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with site.serve(fake_book_html) as base:
        page = browser.page()
        site.load(page, f"{base}book/index.html")
        for dark in (False, True):
            suffix = "-dark" if dark else ""
            site.view(page, 1280, dark, height=800)
            wide = page.evaluate(_CARD_BOX)
            page.screenshot(path=str(SHOTS / f"index-1280{suffix}.png"))
            assert wide is not None, "no decision card on the front page"
            assert wide["top"] < 800 - 100, f"the card starts at {wide['top']:.0f} px"
            assert wide["lastRow"] < 800, f"the card's last row starts at {wide['lastRow']:.0f} px"
            site.view(page, 390, dark, height=844)
            narrow = page.evaluate(_CARD_BOX)
            page.screenshot(path=str(SHOTS / f"index-390{suffix}.png"), full_page=True)
            assert narrow["pageWidth"] <= narrow["viewWidth"] == 390, narrow
            assert narrow["right"] <= 390 and narrow["cellsRight"] <= narrow["right"] + 0.5, narrow
        assert browser.outside == []


def _pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


@pytest.mark.browser
@pytest.mark.book
def test_the_handout_prints_on_at_most_two_pages(browser, fake_book_html):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with site.serve(fake_book_html) as base:
        page = browser.page(1280, 800)
        site.load(page, f"{base}book/handout.html")
        page.emulate_media(media="print")
        hidden = page.evaluate(
            "() => ['.bd-sidebar-primary', '.bd-header'].map(s => document.querySelector(s))"
            ".filter(e => e && getComputedStyle(e).display !== 'none').length"
        )
        assert hidden == 0, "the navigation prints"
        assert page.locator(".setlab-card table").is_visible()
        for paper in ("A4", "Letter"):
            pdf = page.pdf(format=paper, print_background=True)
            (SHOTS / f"handout-{paper}.pdf").write_bytes(pdf)
            assert 1 <= _pdf_pages(pdf) <= 2, f"{_pdf_pages(pdf)} pages on {paper}"
        page.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
        page.screenshot(path=str(SHOTS / "handout-print.png"), full_page=True)
        assert browser.outside == []
