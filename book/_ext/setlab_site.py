"""Sphinx extension for the setlab book: a site that works without the internet, and chapters
that download as notebooks that run on their own.

Downloads: after the build, every executed chapter (MyST-NB keeps them in
``_build/jupyter_execute``) is written to ``_notebooks/<chapter>.ipynb`` with setlab embedded
(book/_ext/downloads.py), and each chapter page gets a link to its notebook at the top.

MathJax normally loads from a CDN, so a reader offline (or a browser test on a machine without
internet) sees raw TeX. When the ``django-static-mathjax`` package is installed (a dependency of
the ``book`` extra; it is only MathJax 3's files in a Python wheel, Django is not needed), this
copies the parts the book uses — the ``tex-mml-chtml`` component, its fonts and the TeX extensions
it autoloads — into ``_static/mathjax`` and points Sphinx at them.
"""

from __future__ import annotations

import shutil
from importlib import util
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

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


DOWNLOADS = "_notebooks"


def _is_chapter(app: Sphinx, pagename: str) -> bool:
    return pagename.startswith("book/") and "kernelspec" in app.env.metadata.get(pagename, {})


def _link_download(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    if doctree is None or not _is_chapter(app, pagename):
        return
    slug = pagename.split("/", 1)[1]
    href = f"../{DOWNLOADS}/{slug}.ipynb"
    link = (
        f'<p class="setlab-download"><a href="{href}" download>Download this chapter as a '
        f"notebook</a> (executed; its first cell installs setlab if needed).</p>"
    )
    context["body"] = link + context.get("body", "")


def _write_notebooks(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import downloads  # book/_ext is on sys.path (local_extensions in _config.yml)

    executed = Path(app.outdir).parent / "jupyter_execute" / "book"
    slugs = sorted(p.split("/", 1)[1] for p in app.env.found_docs if _is_chapter(app, p))
    written = downloads.write_downloads(executed, Path(app.outdir) / DOWNLOADS, slugs)
    logger.info(f"setlab_site: wrote {len(written)} downloadable notebooks")


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _use_local_mathjax)
    app.connect("build-finished", _copy_mathjax)
    app.connect("html-page-context", _link_download)
    app.connect("build-finished", _write_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
