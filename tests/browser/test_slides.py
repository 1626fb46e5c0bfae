"""Slides per chapter (setlab.site.slides, book/_ext/setlab_slides.py): every chapter gets a
deck made from its own page, figures and claims; nothing in it loads from the internet; and in the
built book a deck opens offline, moves to the next slide and fits every slide on the screen."""

from __future__ import annotations

import html
import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from bs4 import BeautifulSoup

from setlab.render.claims import Verdict
from setlab.site import instructor_notes, lessons, registry, slides

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
SHOTS = Path(os.environ.get("SETLAB_SHOTS", "/tmp/slides-shots"))


def _box(slug: str, name: str) -> str:
    text = (ROOT / "book" / f"{slug}.md").read_text()
    return re.search(rf"^:::\{{admonition\}} {name}\n(.*?)^:::$", text, re.S | re.M).group(1)


def _text(fragment: str) -> str:
    return " ".join(BeautifulSoup(fragment, "html.parser").get_text().split())


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_every_chapter_gets_a_deck_from_its_own_overview_and_key_points(slug):
    made = slides.deck(slug)
    assert made.title == lessons.chapter(slug).title
    by_heading = {}
    for s in made.slides:
        head = BeautifulSoup(s, "html.parser").find(["h1", "h2", "h3"])
        by_heading.setdefault(head.get_text() if head else "", []).append(s)
    # as many bullets as the page's boxes have list items (counted here by their "- " lines)
    points = _box(slug, "Key points").count("\n- ") + _box(slug, "Key points").startswith("- ")
    assert by_heading["Key points"][0].count("<li>") == points > 0
    overview = _box(slug, "Overview")
    questions = overview.split("**Questions**")[1].split("**Objectives**")[0]
    assert by_heading["Questions"][0].count("<li>") == questions.count("\n- ") > 0
    assert by_heading["Objectives"][0].count("<li>") == overview.split("**Objectives**")[1].count(
        "\n- "
    )
    words = _text("".join(made.slides))
    assert "{glue" not in words and "`" not in words and "**" not in words


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_deck_numbers_are_the_figures_and_claims_the_chapter_computes(slug):
    made = slides.deck(slug, live={})
    words = _text("".join(made.slides))
    figures = registry.figures(slug)
    glued = re.findall(r"\{glue:text\}`([^`]+)`", _box(slug, "Key points"))
    for name in glued:
        expected = slides.MISSING_LIVE if name.startswith("live-") else figures[name]
        assert " ".join(expected.split()) in words, name
    # the page table's claims, less the correct ones (counted on the slide before)
    claims = [
        c for c in registry.claims(slug)
        if c.in_chapter_table and c.verdict is not Verdict.CORRECT
    ]  # fmt: skip
    rows = [BeautifulSoup(s, "html.parser").select("table.verdicts tbody tr") for s in made.slides]
    rows = [r for found in rows for r in found]
    assert len(rows) == len(claims)
    for row, claim in zip(rows, claims, strict=True):
        cells = [" ".join(td.get_text().split()) for td in row.find_all("td")]
        assert cells[3] == claim.verdict.value
        plain = claim.our_figure()
        if not re.search(r"[`*$<\[{]", plain):  # no markup: the cell is the figure as computed
            assert cells[2] == " ".join(plain.split())


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_every_deck_says_what_to_do_instead_and_notes_its_figures_and_verdicts(slug):
    """The chapter's "What to do instead" as a slide (each bullet's bold lead; the whole bullet
    in the speaker notes), and speaker notes on every figure and verdict slide: a verdict's
    reason, said aloud, not projected."""
    made = slides.deck(slug, [slides.Picture("fig-1.svg", "Figure: a line chart")])
    text = (ROOT / "book" / f"{slug}.md").read_text()
    section = text.split("## What to do instead\n", 1)[1].split("\n## ", 1)[0]
    section = re.sub(r"^```.*?^```", "", section, flags=re.S | re.M)  # the prose, not a cell
    bullets = section.count("\n- ") + section.startswith("- ")
    (instead,) = [s for s in made.slides if "<h2>What to do instead</h2>" in s]
    soup = BeautifulSoup(instead, "html.parser")
    assert len(soup.select("ul > li")) - len(soup.select("aside.notes li")) == bullets > 0
    assert len(soup.select("aside.notes li")) == bullets
    for s in made.slides:
        soup = BeautifulSoup(s, "html.parser")
        if soup.select("table.verdicts") or soup.find("img"):
            assert soup.select("aside.notes li"), s[:80]
    verdicts = [BeautifulSoup(s, "html.parser") for s in made.slides if 'class="verdicts"' in s]
    for v in verdicts:
        assert len(v.select("aside.notes li")) == len(v.select("table.verdicts tbody tr"))


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_the_title_slide_carries_the_instructor_notes_as_speaker_notes(slug):
    title = BeautifulSoup(slides.deck(slug).slides[0], "html.parser")
    notes = title.select("aside.notes")
    assert len(notes) == 1
    said = " ".join(notes[0].get_text().split())
    for text in (instructor_notes.NOTES[slug].demo, *instructor_notes.NOTES[slug].stumbles):
        assert " ".join(text.replace("`", "").split()) in said
    assert title.find("h1").get_text() == lessons.chapter(slug).title


def test_a_live_value_comes_from_the_executed_page_or_says_it_is_measured_there():
    glued = re.findall(r"\{glue:text\}`(live-[^`]+)`", _box("snowflake-ranges", "Key points"))
    assert glued, "the snowflake key points quote a live value (change this test's chapter)"
    shown = _text("".join(slides.deck("snowflake-ranges", live={glued[0]: "31.4159"}).slides))
    assert "31.4159" in shown
    assert slides.MISSING_LIVE in _text("".join(slides.deck("snowflake-ranges").slides))


def test_math_is_typeset_by_the_sites_own_mathjax_or_shown_as_code():
    with_math = slides.deck("nk-vs-m-saturation")
    assert with_math.math and "\\(" in "".join(with_math.slides)
    page = slides.deck_html(with_math, mathjax="../_static/mathjax/tex-mml-chtml.js")
    assert '<script defer src="../_static/mathjax/tex-mml-chtml.js">' in page
    with pytest.raises(ValueError, match="mathjax"):
        slides.deck_html(with_math)
    plain = slides.deck("nk-vs-m-saturation", math=False)
    assert not plain.math and "\\(" not in "".join(plain.slides)
    assert "mathjax" not in slides.deck_html(plain)


@pytest.mark.parametrize("slug", registry.CHAPTERS)
def test_a_deck_loads_only_the_sites_own_files(slug):
    page = slides.deck_html(slides.deck(slug), mathjax="../_static/mathjax/tex-mml-chtml.js")
    soup = BeautifulSoup(page, "html.parser")
    loaded = [t.get("src") for t in soup.find_all(["script", "img"]) if t.get("src")]
    loaded += [t["href"] for t in soup.find_all("link")]
    assert any(u.endswith("/dist/reveal.js") for u in loaded)
    for url in loaded:
        assert "://" not in url and not url.startswith("//"), url
    assert "@import" not in page and "cdn" not in page.lower()


def test_a_deck_refuses_reveal_or_mathjax_from_another_host():
    made = slides.deck("bloom-basics")
    for kwargs in ({"reveal": "https://cdn.example/reveal"}, {"reveal": "//cdn.example/r"}):
        with pytest.raises(ValueError, match="relative URL"):
            slides.deck_html(made, **kwargs)


def test_a_deck_of_an_unknown_chapter_is_an_error():
    with pytest.raises(ValueError, match="slug must be one of"):
        slides.deck("errata")


def test_the_instructor_guide_lists_every_deck_in_book_order():
    listed = re.findall(r'href="\.\./slides/([a-z-]+)\.html"', slides.index_markdown())
    assert listed == list(registry.CHAPTERS)
    assert "slides.index_markdown()" in (ROOT / "book" / "instructors.md").read_text()


def test_a_figure_slide_is_captioned_by_the_first_sentence_of_the_prose_after_it():
    """The chapter's own words, not the machine alt text (that stays the image's alt and is said
    in the notes): a sentence ends at a full stop before a capital, not after "e.g."; a long
    one is cut at a word, never inside a role."""
    assert slides.first_sentence("Top: bits (e.g. 3). Bottom: a query.") == "Top: bits (e.g. 3)."
    assert slides.first_sentence("The fill is 1.5 times p. Next.") == "The fill is 1.5 times p."
    long = "word " * 46 + "{glue:text}`bb-liar` " + "more " * 30  # the role spans the cut
    cut = slides.first_sentence(long)
    assert cut.endswith(" …") and len(cut) <= slides.CAPTION_CHARS + 2 and "{glue" not in cut
    made = slides.deck("bloom-basics", [
        slides.Picture("fig-1.svg", "Figure: 2 panels. Left: x against y", "A picture of "
                       "{glue:text}`bb-liar` answering. More."),
        slides.Picture("fig-2.svg", "Figure: Adding sets k bits: bit against item", ""),
        slides.Picture("fig-3.svg", "Figure: 2 panels. Left: x against y", "**Run-in.** Text."),
    ])  # fmt: skip
    captions = [re.search(r"<figcaption>(.*?)</figcaption>", s).group(1) for s in made.slides
                if "<figcaption>" in s]  # fmt: skip
    liar = registry.figures("bloom-basics")["bb-liar"]
    assert captions == [f"A picture of {html.escape(liar)} answering.", "Adding sets k bits",
                        "Left"]  # fmt: skip


def _svg(title: str) -> dict:
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><title>{title}</title></svg>'
    return nbformat.v4.new_output("display_data", data={"image/svg+xml": svg})


def test_a_deck_takes_the_figures_drawn_outside_exercises_and_the_live_values(tmp_path):
    from setlab_slides import executed_outputs

    glue = nbformat.v4.new_output(
        "display_data",
        data={"application/papermill.record/text/plain": "'2.5'"},
        metadata={"scrapbook": {"name": "live-x", "mime_prefix": "application/papermill.record/"}},
    )
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md("# Title"),
        code("plot()", outputs=[_svg("shown 1"), glue]),
        md("```{exercise-start}\n:label: x-ex-1\n```\nTry it."),
        code("plot()", outputs=[_svg("in an exercise")]),
        md("```{exercise-end}\n```\n\n```{solution-start} x-ex-1\n:class: dropdown\n```"),
        code("plot()", outputs=[_svg("in a solution")]),
        md("```{solution-end}\n```"),
        code("plot()", outputs=[_svg("hidden")], metadata={"tags": ["remove-output"]}),
        code("plot()", outputs=[_svg("shown 2")]),
    ]
    path = tmp_path / "chapter.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    svgs, live = executed_outputs(nbformat.read(path, as_version=4))
    assert [re.search("<title>(.*)</title>", s).group(1) for s, _ in svgs] == ["shown 1", "shown 2"]
    assert live == {"live-x": "2.5"}


def _app_with_labels(labels: dict) -> SimpleNamespace:
    """A stand-in for the Sphinx app: only the std domain's labels (name → doc, anchor, title)."""
    domain = SimpleNamespace(labels=labels)
    return SimpleNamespace(env=SimpleNamespace(get_domain=lambda name: domain))


def test_each_chapter_page_links_its_deck_under_the_download_link():
    from setlab_slides import _link_deck

    body = '<h1>T</h1><p class="setlab-download"><a href="x">Download</a></p><p>text</p>'
    context = {"body": body}
    app = _app_with_labels({"calc-bloom": ("book/bloom-basics", "calc-bloom", "Calculator: a")})
    _link_deck(app, "book/bloom-basics", "page.html", context, doctree=object())
    assert context["body"].startswith(
        '<h1>T</h1><p class="setlab-download"><a href="x">Download</a></p>'
        '<p class="setlab-slides"><a href="../slides/bloom-basics.html">'
    )
    appendix = {"body": body}
    _link_deck(app, "book/errata", "page.html", appendix, doctree=object())
    assert appendix["body"] == body


def _rgb(css: str) -> tuple[float, ...]:
    """``rgb(21, 23, 26)`` as three numbers."""
    return tuple(float(x) for x in re.findall(r"[\d.]+", css)[:3])


def _luminance(rgb: tuple[float, ...]) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""

    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG 2 contrast ratio of two colours (1 … 21)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def check_built_decks(html: Path, browser, shots: Path | None = None) -> None:
    """Open the built decks offline: each chapter's deck exists; the first moves to its next slide
    by the keyboard; every slide of every deck fits the 1280 × 720 slide; figures load; TeX is
    typeset; nothing is requested off 127.0.0.1 and nothing is logged as an error."""
    from tests.support.site import serve

    with_figures = []
    for slug in registry.CHAPTERS:
        assert (html / "slides" / f"{slug}.html").is_file(), slug
        assert f'href="../slides/{slug}.html"' in (html / "book" / f"{slug}.html").read_text()
        deck = (html / "slides" / f"{slug}.html").read_text()
        # the executed chapter's figures and live values reach its deck (they come from the
        # execution cache: MyST-NB's own copy of a cached page has no outputs)
        assert slides.MISSING_LIVE not in deck, slug
        figures = re.findall(rf'<img src="({re.escape(slug)}/fig-\d+\.svg)"', deck)
        assert all((html / "slides" / f).is_file() for f in figures), slug
        with_figures += [slug] if figures else []
        for caption in re.findall(r"<figcaption>(.*?)</figcaption>", deck, re.S):
            # the chapter's words, not the alt text's "Figure: 2 panels. y against x (x on a
            # log scale); series: …"
            machine = re.search(r"^Figure|\d panels\.|\((x|y|both) on (a )?log scales?\)|; series:",
                                caption)  # fmt: skip
            assert machine is None, caption
    assert len(with_figures) >= len(registry.CHAPTERS) - 2, with_figures
    guide = (html / "book" / "instructors.html").read_text()
    assert len(re.findall(r'class="setlab-slides" href="\.\./slides/', guide)) == len(
        registry.CHAPTERS
    )
    with serve(html) as base:
        page = browser.page(1280, 720)
        first = registry.CHAPTERS[0]
        page.goto(base + f"slides/{first}.html")
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        assert page.evaluate("Reveal.getIndices().h") == 0
        page.keyboard.press("ArrowRight")
        page.wait_for_function("Reveal.getIndices().h === 1")
        assert page.evaluate("Reveal.getCurrentSlide().querySelector('h2').textContent") == (
            "Questions"
        )
        assert page.evaluate("Reveal.hasPlugin('notes')")
        hidden = "getComputedStyle(document.querySelector('aside.notes')).display"
        assert page.evaluate(hidden) == "none"  # never on the projected slide
        page.keyboard.press("ArrowLeft")  # back to the title slide, which holds the notes
        page.wait_for_function("Reveal.getIndices().h === 0")
        with page.expect_popup() as opened:
            page.keyboard.press("s")  # the speaker view: current slide, next slide, the notes
        speaker = opened.value
        demo = " ".join(instructor_notes.NOTES[first].demo.replace("`", "").split()[:6])
        speaker.wait_for_function(
            "text => document.body.innerText.replace(/\\s+/g, ' ').includes(text)",
            arg=demo,
            polling=200,  # a window in the background gets no animation frames
        )
        speaker.close()
        for slug in registry.CHAPTERS:
            page.goto(base + f"slides/{slug}.html")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            page.wait_for_load_state("load")
            heights = page.evaluate(
                "Array.from({length: Reveal.getTotalSlides()},"
                " (_, i) => (Reveal.slide(i), Reveal.getCurrentSlide().scrollHeight))"
            )
            too_tall = [i for i, h in enumerate(heights) if h > slides.HEIGHT]
            assert not too_tall, f"{slug}: slides {too_tall} overflow ({heights})"
            images = page.evaluate(
                "Array.from(document.images, i => [i.getAttribute('src'), i.naturalWidth])"
            )
            figures = sorted(p.name for p in (html / "slides" / slug).glob("fig-*.svg"))
            assert sorted(src.split("/")[-1] for src, _ in images) == figures
            assert all(width > 0 for _, width in images), images
            if slides.deck(slug).math:
                page.wait_for_function("document.querySelectorAll('mjx-container').length > 0")
        # a room in dark mode gets a dark deck whose words are as legible as on white
        dark = browser.page(1280, 720, True)
        dark.goto(base + f"slides/{first}.html")
        dark.wait_for_function("window.Reveal && Reveal.isReady()")
        colours = dark.evaluate(
            """() => [getComputedStyle(document.body).backgroundColor,
                      getComputedStyle(document.querySelector('.reveal h1')).color,
                      getComputedStyle(document.querySelector('.reveal')).color]"""
        )
        background, *words = (_rgb(c) for c in colours)
        assert _luminance(background) < 0.05, colours
        assert all(_contrast(w, background) >= 7 for w in words), colours
        dark.close()
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            page.goto(base + f"slides/{first}.html")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            verdicts = [
                i for i, s in enumerate(slides.deck(first).slides) if s.startswith("<h3>Verdicts")
            ]
            figures = len(list((html / "slides" / first).glob("fig-*.svg")))
            page.evaluate(f"Reveal.slide({verdicts[0] + figures})")
            page.screenshot(path=str(shots / f"{first}-verdicts-1280.png"))
            page.evaluate("Reveal.slide(3)")  # the first figure (or the verdict count)
            page.screenshot(path=str(shots / f"{first}-slide-3-1280.png"))
    assert browser.outside == []
    assert browser.errors == []


@pytest.mark.browser
@pytest.mark.book
def test_the_built_decks_open_offline_and_every_slide_fits(fake_book_html, browser):
    check_built_decks(fake_book_html, browser, SHOTS)
