"""Slides per chapter, made from the chapter itself: a reveal.js deck an instructor can project.

Nothing on a slide is written twice. A deck is gathered at build time from

- the chapter page (``book/<slug>.md``): its title, stated timing and exercise count (read by
  :func:`setlab.site.lessons.chapter`), the questions and objectives of its *Overview* box and
  the bullets of its *Key points* box, with every ``{glue:text}`` filled from the chapter's
  ``FIGURES`` (a ``live-`` name from the values the executed page glued, when given);
- the chapter's claims (:func:`setlab.site.registry.claims`): the seed's figure, ours and the
  verdict, as in the page's verdict table;
- the figures the executed chapter drew (SVG files the Sphinx extension ``book/_ext/setlab_slides``
  copies next to the deck and passes in as :class:`Picture`).

:func:`deck_html` writes one self-contained page that loads reveal.js from the site's own static
files (``_static/reveal``, copied from the ``sphinx-revealjs`` wheel): nothing comes from a CDN.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from setlab.render.claims import Claim, Verdict
from setlab.site import instructor_notes, lessons, registry

CLAIMS_PER_SLIDE = 4  #: verdict rows on one slide (1280 × 720 px, still legible)
WIDTH, HEIGHT = 1280, 720  #: reveal.js's slide size in CSS px (it scales to the window)
MISSING_LIVE = "(measured when the chapter runs)"  #: a ``live-`` value no executed page gave

_BOX = r"^:::\{{admonition\}} {name}\n(.*?)^:::$"
_LIST = r"^\*\*{heading}\*\*\n((?:(?:- |  ).*\n?)+)"
_INLINE = re.compile(
    r"\{(?P<role>[a-z:]+)\}`(?P<arg>[^`]*)`"
    r"|`(?P<code>[^`]+)`"
    r"|\$(?P<math>[^$\n]+)\$"
    r"|\[(?P<text>[^\]]+)\]\((?P<url>[^)\s]+)\)"
    r"|(?P<tag></?(?:sup|sub)>)"  # the raw HTML the pages use inline (2<sup>20</sup>)
)
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_TITLED = re.compile(r"^(.*?)\s*<([^>]+)>$")  # {doc}`Some text <slug>`


@dataclass(frozen=True)
class Picture:
    """A figure the executed chapter drew: its file (relative to the deck), its alt text (what
    a screen reader says: titles, axes, series), and the chapter's prose right after it (MyST;
    its first sentence is the slide's caption)."""

    src: str
    alt: str
    prose: str = ""


@dataclass(frozen=True)
class Deck:
    """One chapter's slides as HTML fragments (each the inside of a reveal ``<section>``)."""

    slug: str
    title: str
    slides: tuple[str, ...]
    math: bool  #: a slide holds TeX (``\\(…\\)``): the page loads MathJax


def _box(text: str, name: str) -> str:
    found = re.search(_BOX.format(name=name), text, re.S | re.M)
    if found is None:
        raise ValueError(f"page has no '{name}' admonition")
    return found.group(1)


def _items(block: str) -> list[str]:
    """The bullets of a Markdown list, each joined onto one line."""
    items: list[str] = []
    for line in block.splitlines():
        if line.startswith("- "):
            items.append(line[2:].strip())
        elif line.startswith("  ") and items:
            items[-1] += " " + line.strip()
    return items


def _section(text: str, heading: str) -> str:
    """The prose of the page's ``## heading`` section, up to the next ``## ``, without its code
    cells and admonitions (whose indented lines would read as a bullet's continuation)."""
    found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if found is None:
        raise ValueError(f"page has no '## {heading}' section")
    return re.sub(r"^(```|:::).*?^\1[^\n]*\n?", "", found.group(1), flags=re.S | re.M)


def _lead(item: str) -> str:
    """A bullet's bold lead (``**Use dense offsets**`` …), the part that fits on a slide."""
    found = re.match(r"\*\*(.+?)\*\*", item)
    return found.group(1).rstrip(".") if found else item


def _listed(block: str, heading: str) -> list[str]:
    found = re.search(_LIST.format(heading=heading), block + "\n", re.M)
    if found is None:
        raise ValueError(f"overview has no '**{heading}**' list")
    return _items(found.group(1))


class _Inline:
    """MyST inline Markdown → HTML, with glue filled from one chapter's figures."""

    def __init__(self, slug: str, live: Mapping[str, str], math: bool) -> None:
        self.figures = registry.figures(slug)
        self.live = live
        self.math = math
        self.used_math = False

    def glue(self, name: str) -> str:
        if name in self.figures:
            return self.figures[name]
        if name.startswith("live-"):
            return self.live.get(name, MISSING_LIVE)
        raise ValueError(f"{self.figures.chapter} glues {name!r}, which its FIGURES lacks")

    def _token(self, m: re.Match) -> str:
        if m["role"] == "glue:text" or m["role"] == "glue":
            return html.escape(self.glue(m["arg"]))
        if m["role"] == "doc":
            titled = _TITLED.match(m["arg"])
            text, slug = titled.groups() if titled else (None, m["arg"])
            text = text or lessons.chapter(slug).title
            return f'<a href="../book/{html.escape(slug)}.html">{html.escape(text)}</a>'
        if m["role"] is not None:  # {ref}, {cite:t}, …: the words, without the link
            titled = _TITLED.match(m["arg"])
            return html.escape(titled.group(1) if titled else m["arg"])
        if m["code"] is not None:
            return f"<code>{html.escape(m['code'])}</code>"
        if m["tag"] is not None:
            return m["tag"]
        if m["math"] is not None:
            if not self.math:
                return f"<code>{html.escape(m['math'])}</code>"
            self.used_math = True
            return html.escape(f"\\({m['math']}\\)")
        url = m["url"] if m["url"].startswith(("http://", "https://")) else None
        text = html.escape(m["text"])
        return f'<a href="{html.escape(url)}">{text}</a>' if url else text

    def __call__(self, text: str) -> str:
        tokens: list[str] = []

        def hold(m: re.Match) -> str:
            tokens.append(self._token(m))
            return f"\x00{len(tokens) - 1}\x00"

        out = html.escape(_INLINE.sub(hold, text), quote=False)
        out = _ITALIC.sub(r"<em>\1</em>", _BOLD.sub(r"<strong>\1</strong>", out))
        return re.sub("\x00(\\d+)\x00", lambda m: tokens[int(m.group(1))], out)


#: a sentence ends at . ! or ? before a capital, a quote, a bracket or a role; not after these
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z{(\"“*$])")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "cf.", "ch.", "Fig.", "approx.")
#: a caption longer than this (characters of MyST) is cut at a word and ends with "…"
CAPTION_CHARS = 240


def first_sentence(prose: str) -> str:
    """The first sentence of a paragraph of MyST, on one line, at most :data:`CAPTION_CHARS`."""
    text = " ".join(prose.split())
    pieces = _SENTENCE_END.split(text)
    sentence = pieces[0]
    for piece in pieces[1:]:
        if not sentence.endswith(_ABBREVIATIONS):
            break
        sentence += " " + piece
    if len(sentence) > CAPTION_CHARS:
        cut = sentence[:CAPTION_CHARS].rsplit(" ", 1)[0]
        if cut.count("`") % 2:  # never cut a role or code span in half
            cut = cut[: cut.rfind("{") if "{" in cut else cut.rfind("`")].rstrip()
        sentence = cut.rstrip(",;:") + " …"
    return sentence


def _caption(picture: Picture, inline: _Inline) -> str:
    """The slide's caption: the first sentence of the chapter's prose after the figure, as the
    reader of the page reads it (glue filled); a figure followed by no prose, or by a new
    topic (a bold run-in heading), gets its title (the alt text up to its first colon or full
    stop, without "Figure:"), and an untitled one none."""
    if picture.prose and not picture.prose.startswith("**"):  # "**Run-in.**": a new topic
        return f"<figcaption>{inline(first_sentence(picture.prose))}</figcaption>"
    text = picture.alt.removeprefix("Figure").lstrip(": ").strip()
    text = re.sub(r"^\d+ panels\. ", "", text)
    text = re.split(r"(?<=[^\s]): |\. ", text, maxsplit=1)[0].rstrip(".")
    return f"<figcaption>{html.escape(text)}</figcaption>" if text else ""


def _speaker_notes(page: lessons.Chapter, inline: _Inline) -> str:
    """The chapter's instructor notes (:mod:`setlab.site.instructor_notes`) as reveal.js
    speaker notes: shown only in the speaker view, never on the projected slide."""
    notes = instructor_notes.NOTES[page.slug]
    stops = [(t, m) for t, m in page.checkpoints() if t not in {"Exercises", "Further reading"}]
    stumbles = "".join(f"<li>{inline(s)}</li>" for s in notes.stumbles)
    checkpoints = "; ".join(f"{html.escape(t)} by {m} min" for t, m in stops)
    return (
        f'<aside class="notes"><p><strong>Demo live:</strong> {inline(notes.demo)}</p>'
        f"<p><strong>Where learners stumble:</strong></p><ul>{stumbles}</ul>"
        f"<p><strong>Checkpoints</strong> ({page.teaching_estimate} min of teaching): "
        f"{checkpoints}.</p></aside>"
    )


def _bullets(title: str, items: Sequence[str]) -> str:
    lis = "".join(f"<li>{item}</li>" for item in items)
    return f"<h2>{html.escape(title)}</h2><ul>{lis}</ul>"


def _notes(items: Sequence[str]) -> str:
    """Speaker notes (reveal.js shows them in the speaker view only) from HTML items."""
    return f'<aside class="notes"><ul>{"".join(f"<li>{i}</li>" for i in items)}</ul></aside>'


def _verdict_rows(claims: Sequence[Claim], inline: _Inline) -> str:
    rows = "".join(
        f"<tr><td>{c.seed} {html.escape(c.section)}: {inline(c.claim)}</td>"
        f"<td>{inline(c.seed_figure)}</td><td>{inline(c.our_figure())}</td>"
        f"<td>{c.verdict.badge()}</td></tr>"
        for c in claims
    )
    head = "<tr><th>claim</th><th>their figure</th><th>ours</th><th>verdict</th></tr>"
    return f'<table class="verdicts"><thead>{head}</thead><tbody>{rows}</tbody></table>'


def deck(
    slug: str,
    pictures: Sequence[Picture] = (),
    live: Mapping[str, str] | None = None,
    math: bool = True,
) -> Deck:
    """The slides of chapter ``slug``: title, questions, objectives, ``pictures`` (the executed
    chapter's figures), the verdicts (a count, then the page table's claims not judged correct,
    ``CLAIMS_PER_SLIDE`` a slide), what
    to do instead (each bullet's bold lead; the whole bullet in the speaker notes), the key
    points, and where the exercises are. Figure and verdict slides carry speaker notes too:
    what the figure shows, and each verdict's reason.

    ``live`` maps the ``live-`` names the executed page glued to their text; ``math=False``
    shows TeX as code (for a site without its own MathJax).
    """
    if slug not in registry.CHAPTERS:
        raise ValueError(f"slug must be one of {', '.join(registry.CHAPTERS)}; got {slug!r}")
    page = lessons.chapter(slug)
    text = (lessons.BOOK / f"{slug}.md").read_text(encoding="utf-8")
    inline = _Inline(slug, live or {}, math)
    overview, points = _box(text, "Overview"), _box(text, "Key points")
    chapter_link = f'<a href="../book/{slug}.html">the chapter</a>'
    notes = _speaker_notes(page, inline)
    slides = [
        f'<div class="cover"><h1>{html.escape(page.title)}</h1><p class="timing">Teaching '
        f"{page.teaching_min} min · Exercises {page.exercises_min} min</p>"
        f'<p class="small">Slides of {chapter_link} of <em>setlab</em>; '
        "press <kbd>→</kbd> for the next slide, <kbd>Esc</kbd> for an overview, <kbd>S</kbd> "
        f"for the speaker view with the instructor notes.</p></div>{notes}",
        _bullets("Questions", [inline(q) for q in _listed(overview, "Questions")]),
        _bullets("Objectives", [inline(o) for o in _listed(overview, "Objectives")]),
    ]
    slides += [
        f'<figure><img src="{html.escape(p.src)}" alt="{html.escape(p.alt)}">'
        f"{_caption(p, inline)}</figure>"
        + _notes([f"What the figure shows: {html.escape(p.alt)}", "Its cell and prose: "
                  f"{chapter_link}, figure {n} of the page."])
        for n, p in enumerate(pictures, 1)
    ]  # fmt: skip
    claims = registry.claims(slug)
    counts = registry.verdict_counts(claims)
    unjudged = counts.pop(Verdict.NOT_JUDGED.value)
    tally = ", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n)
    aside = f"; {unjudged} not judged, each with its reason" if unjudged else ""
    slides.append(
        f"<h2>What the field reports claimed</h2><p>{len(claims) - unjudged} claims checked: "
        f"{tally}{aside}.</p>"
        f'<p class="small">The next slides show the ones not judged correct: the seed\'s '
        f"figure, ours, and the verdict (the reasons are in the speaker notes); every claim is "
        f"in the verdict table of {chapter_link}.</p>"
    )
    # what the page's table lists, less what it judges correct: a room needs the surprises
    shown = [c for c in claims if c.in_chapter_table and c.verdict is not Verdict.CORRECT]
    for i in range(0, len(shown), CLAIMS_PER_SLIDE):
        part = shown[i : i + CLAIMS_PER_SLIDE]
        slides.append(
            f"<h3>Verdicts {i // CLAIMS_PER_SLIDE + 1}/{-(-len(shown) // CLAIMS_PER_SLIDE)}"
            f"</h3>{_verdict_rows(part, inline)}"
            + _notes([f"<em>{c.verdict.value}</em>: {inline(c.reason())}" for c in part])
        )
    instead = _items(_section(text, "What to do instead"))
    slides.append(
        _bullets("What to do instead", [inline(_lead(item)) for item in instead])
        + _notes([inline(item) for item in instead])
    )
    slides.append(_bullets("Key points", [inline(p) for p in _items(points)]))
    slides.append(
        f"<h2>Exercises</h2><p>{len(page.exercises)} exercises, about {page.exercises_min} "
        f"minutes: in {chapter_link}, numbered in order; solutions in the dropdowns.</p>"
    )
    return Deck(slug, page.title, tuple(slides), inline.used_math)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} (slides)</title>
<link rel="stylesheet" href="{reveal}/dist/reset.css">
<link rel="stylesheet" href="{reveal}/dist/reveal.css">
<link rel="stylesheet" href="{reveal}/dist/theme/white.css">
<style>
.reveal {{ font-size: 30px; }}
.reveal h1 {{ font-size: 1.9em; text-transform: none; }}
.reveal h2, .reveal h3 {{ text-transform: none; }}
.reveal ul {{ display: block; text-align: left; }}
.reveal li {{ margin: 0.35em 0; line-height: 1.3; }}
.reveal .small, .reveal .timing {{ font-size: 0.7em; }}
.reveal .cover {{ margin-top: 180px; }}
.reveal figure {{ margin: 0; height: 680px; display: flex; flex-direction: column; }}
.reveal figure img {{ flex: 1 1 auto; min-height: 0; width: 100%; object-fit: contain;
  margin: 0; background: #fff; }}
.reveal figcaption {{ font-size: 0.6em; color: #444; }}
.reveal table.verdicts {{ font-size: 0.7em; width: 100%; }}
.reveal table.verdicts td, .reveal table.verdicts th {{ vertical-align: top; padding: 0.3em; }}
.reveal code {{ font-size: 0.9em; }}
.verdict-right {{ color: #1a7f37; font-weight: 600; }}
.verdict-wrong {{ color: #b3261e; font-weight: 600; }}
.verdict-other {{ color: #8a5a00; font-weight: 600; }}
.verdict-none {{ color: #57606a; font-style: italic; }}
/* a reader (or a room) in dark mode: reveal's white theme, darkened; figures stay on white */
@media (prefers-color-scheme: dark) {{
  :root {{ --r-background-color: #15171a; --r-main-color: #e6e6e6; --r-heading-color: #f2f2f2;
    --r-link-color: #6cb6ff; --r-link-color-hover: #9ccdff;
    --r-selection-background-color: #2f5f9e; }}
  .reveal figcaption {{ color: #c2c7cc; }}
  .verdict-right {{ color: #57d177; }}
  .verdict-wrong {{ color: #ff8a80; }}
  .verdict-other {{ color: #e9b949; }}
  .verdict-none {{ color: #a0a8b0; }}
}}
</style>
{mathjax}</head>
<body><div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="{reveal}/dist/reveal.js"></script>
<script src="{reveal}/plugin/notes/notes.js"></script>
<script>Reveal.initialize({{hash: true, width: {width}, height: {height}, margin: 0.04,
  center: false, transition: "none", plugins: [RevealNotes]}});</script>
</body></html>
"""


def deck_html(made: Deck, reveal: str = "../_static/reveal", mathjax: str | None = None) -> str:
    """The deck as one HTML page loading reveal.js from ``reveal`` (a relative URL) and, when the
    deck holds TeX, MathJax from ``mathjax`` (a relative URL to ``tex-mml-chtml.js``)."""
    for name, url in (("reveal", reveal), ("mathjax", mathjax or "")):
        if "://" in url or url.startswith("//"):
            raise ValueError(f"{name} must be a relative URL (the site works offline); got {url!r}")
    if made.math and mathjax is None:
        raise ValueError(f"deck {made.slug} holds TeX: pass mathjax=, or build it with math=False")
    script = f'<script defer src="{html.escape(mathjax)}"></script>\n' if made.math else ""
    sections = "\n".join(f"<section>{s}</section>" for s in made.slides)
    return _PAGE.format(
        title=html.escape(made.title),
        reveal=html.escape(reveal),
        mathjax=script,
        sections=sections,
        width=WIDTH,
        height=HEIGHT,
    )


def index_markdown(folder: str = "../slides") -> str:
    """The instructor guide's list of decks: one raw-HTML link per chapter, in book order."""
    lines = []
    for slug in registry.CHAPTERS:
        title = html.escape(lessons.chapter(slug).title)
        lines.append(f'- <a class="setlab-slides" href="{folder}/{slug}.html">{title}</a>')
    return "\n".join(lines)
