"""Sphinx extension: a reveal.js deck per chapter, written into the built site, offline.

After the build, for every chapter this writes ``slides/<slug>.html`` (the content from
:mod:`setlab.site.slides`: overview, figures, verdicts, key points) and
``slides/<slug>/fig-<n>.svg`` (the SVG figures the executed chapter drew outside its exercises,
taken from MyST-NB's ``_build/jupyter_execute``), and copies the reveal.js files it needs from the
``sphinx-revealjs`` wheel (a dependency of the ``book`` extra, used only for its copy of reveal.js)
into ``_static/reveal``. Each chapter page gets a link to its deck under its title, and one to
its calculator (the page's own ``calc-…`` heading, read from Sphinx's labels) and the
calculators page (:mod:`setlab.site.calculators` fills its table).
"""

from __future__ import annotations

import ast
import contextlib
import html
import shutil
from importlib import util
from pathlib import Path

import nbformat
from setlab_site import mathjax_es5, svg_title  # book/_ext is on sys.path
from sphinx.application import Sphinx
from sphinx.util import logging

from setlab.site import slides
from setlab.site.registry import CHAPTERS

logger = logging.getLogger(__name__)

FOLDER = "slides"
STATIC = "reveal"  # under _static
#: what a deck loads (reveal's white theme uses its own packaged fonts, no web font service)
PARTS = ["LICENSE", "dist/reset.css", "dist/reveal.css", "dist/reveal.js", "dist/theme/white.css",
         "dist/theme/fonts/source-sans-pro", "plugin/notes/notes.js"]  # fmt: skip
_MARKS = ("exercise-start", "exercise-end", "solution-start", "solution-end")


def reveal_root() -> Path | None:
    """The ``revealjs`` folder inside the installed ``sphinx-revealjs`` wheel, if any."""
    spec = util.find_spec("sphinx_revealjs")
    for location in (spec.submodule_search_locations or []) if spec else []:
        root = Path(location) / "_static" / "revealjs"
        if (root / "dist" / "reveal.js").is_file():
            return root
    return None


def executed_notebook(path: Path, cache: str | None) -> nbformat.NotebookNode:
    """The executed chapter: MyST-NB's copy in ``jupyter_execute`` carries no outputs when the
    page came from the execution cache (it writes the page's notebook, not the cached one), so
    its outputs are merged from the cache at ``cache`` (setlab_execution's folder)."""
    nb = nbformat.read(path, as_version=4)
    if cache and not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
        from jupyter_cache import get_cache

        with contextlib.suppress(KeyError):  # not in the cache: a page that failed
            _, nb = get_cache(cache).merge_match_into_notebook(nb)
    return nb


def executed_outputs(nb: nbformat.NotebookNode) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """From an executed chapter: its SVG figures outside exercises and solutions, in page order,
    each with the prose right after its cell (the paragraph that says what it shows; empty
    when a heading or another cell comes first); and the values it glued under ``live-``
    names."""
    inside, svgs, live = False, [], {}
    waiting: list[int] = []  # figures of the last code cell, waiting for the prose after it
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = cell.source.strip()
            if waiting and text and not text.startswith(("#", "(", "```", ":::", "<")):
                for i in waiting:
                    svgs[i] = (svgs[i][0], text.split("\n\n", 1)[0])
            waiting = []
            found = [(cell.source.rfind(m), m) for m in _MARKS if m in cell.source]
            if found:
                inside = max(found)[1].endswith("-start")
            continue
        if cell.cell_type != "code":
            continue
        waiting = []
        tags = cell.get("metadata", {}).get("tags", [])
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            name = output.get("metadata", {}).get("scrapbook", {}).get("name", "")
            if name.startswith("live-"):
                text = next((v for k, v in data.items() if k.endswith("text/plain")), None)
                if text is not None:
                    live[name] = str(ast.literal_eval(text))
            svg = data.get("image/svg+xml")
            if svg and not inside and not {"remove-output", "remove-cell"} & set(tags):
                waiting.append(len(svgs))
                svgs.append(("".join(svg) if isinstance(svg, list) else svg, ""))
    return svgs, live


def _copy_reveal(root: Path, target: Path) -> None:
    for part in PARTS:
        source, destination = root / part, target / part
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, destination, dirs_exist_ok=True)
        else:
            shutil.copy2(source, destination)


def write_decks(out: Path, slugs: list[str], cache: str | None = None) -> int:
    """Write the decks of ``slugs`` and reveal's files into the HTML folder ``out``, with the
    figures of the executed chapters beside it (``../jupyter_execute/book``, their outputs from
    the execution cache at ``cache``); returns how many."""
    root = reveal_root()
    if root is None:
        logger.warning("setlab_slides: sphinx-revealjs is not installed (book extra): no slides")
        return 0
    _copy_reveal(root, out / "_static" / STATIC)
    executed = out.parent / "jupyter_execute" / "book"
    math = mathjax_es5() is not None
    for slug in slugs:
        notebook = executed / f"{slug}.ipynb"
        figures, live = (executed_outputs(executed_notebook(notebook, cache))
                         if notebook.is_file() else ([], {}))  # fmt: skip
        folder = out / FOLDER / slug
        folder.mkdir(parents=True, exist_ok=True)
        pictures = []
        for n, (svg, prose) in enumerate(figures, 1):
            file = folder / f"fig-{n}.svg"
            file.write_text(svg, encoding="utf-8")
            title = svg_title(file) or f"Figure {n} of the chapter"
            pictures.append(slides.Picture(f"{slug}/fig-{n}.svg", title, prose))
        made = slides.deck(slug, pictures, live, math=math)
        page = slides.deck_html(made, f"../_static/{STATIC}", "../_static/mathjax/tex-mml-chtml.js")
        (out / FOLDER / f"{slug}.html").write_text(page, encoding="utf-8")
    return len(slugs)


def _write_decks(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    slugs = [slug for slug in CHAPTERS if f"book/{slug}" in app.env.found_docs]
    cache = getattr(app.config, "nb_execution_cache_path", None)
    written = write_decks(Path(app.outdir), slugs, cache)
    logger.info(f"setlab_slides: wrote {written} chapter decks")


def _link_deck(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    if doctree is None or not pagename.startswith("book/"):
        return
    slug = pagename.split("/", 1)[1]
    if slug not in CHAPTERS:
        return
    link = (
        f'<p class="setlab-slides"><a href="../{FOLDER}/{slug}.html">Slides for this chapter</a> '
        "(reveal.js: the objectives, figures, verdicts and key points, for projecting).</p>"
    ) + _calculators_line(app, pagename)
    body = context.get("body", "")
    download = body.find('<p class="setlab-download">')
    anchor, end = (download, "</p>") if download >= 0 else (0, "</h1>")
    cut = body.find(end, anchor)
    if cut < 0:
        context["body"] = link + body
    else:
        cut += len(end)
        context["body"] = body[:cut] + link + body[cut:]


#: the start of a calculator's heading label in a chapter, and of its heading's text
LABEL, HEADING = "calc-", "Calculator: "


def _calculators_line(app: Sphinx, pagename: str) -> str:
    """Under a chapter's title: its own calculator (the ``(calc-<widget>)=`` heading the page
    puts before the widget, with its words), and the page of all of them (as many as the book's
    pages have such headings)."""
    found = sorted(app.env.get_domain("std").labels.items())
    labels = [(doc, anchor, title) for name, (doc, anchor, title) in found
              if name.startswith(LABEL)]  # fmt: skip
    every = f'<a href="calculators.html">all {len(labels)} calculators</a>'
    own = next(((anchor, title) for doc, anchor, title in labels if doc == pagename), None)
    if own is None:
        return f'<p class="setlab-calculators">Your own numbers: {every}.</p>'
    anchor, title = own
    return (
        f'<p class="setlab-calculators">Your own numbers: <a href="#{anchor}">this '
        f"chapter's calculator</a> ({html.escape(title.removeprefix(HEADING))}), or {every}.</p>"
    )


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _link_deck, priority=600)  # after the download link
    # before setlab_execution removes a reader's own server's temporary cache (priority 500)
    app.connect("build-finished", _write_decks, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
