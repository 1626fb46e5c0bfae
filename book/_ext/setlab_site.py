"""Sphinx extension for the setlab book: a site that works without the internet, and chapters
that download as notebooks that run on their own.

Downloads: after the build, every executed chapter (MyST-NB keeps them in
``_build/jupyter_execute``) is written to ``_notebooks/<chapter>.ipynb`` with setlab embedded
(book/_ext/downloads.py), and each chapter page gets a link to its notebook under its title.
Appendix pages (errata, glossary, …) are notebooks too, but not chapters: they get no link.

Figures: MyST-NB names a figure's image by its hash and gives it no ``alt``. The book's figures
are SVG titled with what they show (``setlab.render.plots.alt_text``); this copies that title into
the image's ``alt``, so a screen reader (or a reader whose images do not load) gets the words.

Reading aids: ``setlab.js`` (book/_static) marks tables and code that must scroll sideways with a
visible hint, and opens a figure full-size when it is clicked.

MathJax normally loads from a CDN, so a reader offline (or a browser test on a machine without
internet) sees raw TeX. When the ``django-static-mathjax`` package is installed (a dependency of
the ``book`` extra; it is only MathJax 3's files in a Python wheel, Django is not needed), this
copies the parts the book uses — the ``tex-mml-chtml`` component, its fonts and the TeX extensions
it autoloads — into ``_static/mathjax`` and points Sphinx at them.
"""

from __future__ import annotations

import html
import os
import re
import shutil
from importlib import util
from pathlib import Path

from docutils import nodes
from setlab_launch import DOWNLOADS, LAB_NOTEBOOKS, colab_url  # book/_ext is on sys.path
from sphinx.application import Sphinx
from sphinx.util import logging

from setlab.lab.backend import resolve_backend
from setlab.site.registry import CHAPTERS

logger = logging.getLogger(__name__)

COMPONENT = "tex-mml-chtml.js"
PARTS = [COMPONENT, "output/chtml/fonts/woff-v2", "input/tex/extensions"]


def mathjax_es5() -> Path | None:
    """The ``es5`` folder of the packaged MathJax 3, if it is installed."""
    spec = util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        es5 = Path(location) / "static" / "mathjax" / "es5"
        if (es5 / COMPONENT).is_file():
            return es5
    return None


def _use_local_mathjax(app: Sphinx) -> None:
    if mathjax_es5() is None:
        logger.info("setlab_site: packaged MathJax not found; pages load it from the CDN")
        return
    app.config.mathjax_path = f"mathjax/{COMPONENT}"


def _copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    es5 = mathjax_es5()
    if exception is not None or es5 is None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    for part in PARTS:
        source, destination = es5 / part, target / part
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, destination, dirs_exist_ok=True)
        else:
            shutil.copy2(source, destination)


def _is_chapter(app: Sphinx, pagename: str) -> bool:
    if not pagename.startswith("book/") or pagename.split("/", 1)[1] not in CHAPTERS:
        return False
    return "kernelspec" in app.env.metadata.get(pagename, {})


def _link_download(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    if doctree is None or not _is_chapter(app, pagename):
        return
    slug = pagename.split("/", 1)[1]
    href = f"../{DOWNLOADS}/{slug}.ipynb"
    repository = str(app.config.html_theme_options.get("repository_url") or "")
    colab = (
        f' · <a href="{html.escape(colab_url(repository, slug, os.environ))}">Open in Colab</a>'
        if repository
        else ""
    )
    link = (
        f'<p class="setlab-download"><a href="{href}" download>Download this chapter as a '
        f"notebook</a> (executed, in plain Markdown for any Jupyter; its first cells install "
        f"setlab if needed){colab}.</p>"
    )
    body = context.get("body", "")
    title_end = body.find("</h1>")
    if title_end < 0:
        context["body"] = link + body
    else:
        cut = title_end + len("</h1>")
        context["body"] = body[:cut] + link + body[cut:]


_SVG_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def svg_title(path: Path) -> str | None:
    """The ``<title>`` of an SVG file (matplotlib writes the figure's metadata title there)."""
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:20_000]
    except OSError:
        return None
    found = _SVG_TITLE.search(head)
    return html.unescape(found.group(1)).strip() if found else None


def _alt_from_svg(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    # MyST-NB turns outputs into images in a post-transform, so this runs on the resolved tree.
    for image in doctree.findall(nodes.image):
        uri = image.get("uri", "")
        if image.get("alt") or not uri.endswith(".svg"):
            continue
        # by now Sphinx has made the uri relative to the source folder
        path = Path(app.srcdir) / uri
        if not path.is_file():
            path = Path(app.env.relfn2path(uri, docname)[1])
        title = svg_title(path)
        if title:
            image["alt"] = title


def _write_notebooks(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import downloads  # book/_ext is on sys.path (local_extensions in _config.yml)
    import plain_notebooks

    env = app.env
    executed = Path(app.outdir).parent / "jupyter_execute" / "book"
    chapters = sorted(p for p in env.found_docs if _is_chapter(app, p))
    refs = plain_notebooks.references_from_sphinx(
        env, app.config, Path(app.srcdir), frozenset(chapters)
    )
    numbers = {
        doc.split("/", 1)[1]: ".".join(map(str, (env.toc_secnumbers.get(doc) or {}).get("", ())))
        for doc in chapters
    }
    mode = env.mystnb_config.execution_mode
    cache = env.mystnb_config.execution_cache_path if mode == "cache" else None
    written = downloads.write_notebooks(
        executed, cache, refs, [doc.split("/", 1)[1] for doc in chapters], numbers,
        downloads_dir=Path(app.outdir) / DOWNLOADS,
        lab_dir=Path(app.outdir).parent / Path(LAB_NOTEBOOKS).name,  # _build/lab
        backend=resolve_backend(),  # $SETLAB_BACKEND, which make book sets, or what auto picks
    )  # fmt: skip
    logger.info(f"setlab_site: wrote {len(written)} downloadable notebooks and their lab copies")


def _dedupe_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    # sphinx-thebe and sphinx-togglebutton register their inline configuration once per read
    # pass; Jupyter Book runs two, so every page declared `const THEBE_JS_URL` twice and the
    # browser logged a SyntaxError. Keep the first of identical scripts.
    seen: set[tuple] = set()
    unique = []
    for script in context.get("script_files", []):
        attributes = tuple(sorted(getattr(script, "attributes", {}).items()))
        key = (getattr(script, "filename", str(script)) or "", attributes)  # None and "" alike
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


#: a rendered formula in a page's body (MathJax typesets the elements of these classes)
_MATH = re.compile(r'class="[^"]*\bmath\b')


def _mathjax_only_with_math(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree
) -> None:
    # sphinx.ext.mathjax loads MathJax (1.2 MB) on a page when it, or any page in its toctree,
    # has math (MathDomain.has_equations): the front page, whose toctree is the whole book, got
    # it with no formula of its own. Keep it where the page itself shows a formula.
    if _MATH.search(context.get("body", "")):
        return
    context["script_files"] = [
        script
        for script in context.get("script_files", [])
        if "mathjax" not in (getattr(script, "filename", "") or "").lower()
        and "window.MathJax" not in str(getattr(script, "attributes", {}).get("body", ""))
    ]


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _dedupe_scripts, priority=900)  # after the others add theirs
    app.connect("html-page-context", _mathjax_only_with_math, priority=901)
    app.connect("builder-inited", _use_local_mathjax)
    app.connect("build-finished", _copy_mathjax)
    app.connect("html-page-context", _link_download)
    app.connect("doctree-resolved", _alt_from_svg)
    app.add_js_file("setlab.js", loading_method="defer")
    # before setlab_execution removes a temporary execution cache (priority 500)
    app.connect("build-finished", _write_notebooks, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
