"""Sphinx extension for the setlab book: a site that works without the internet.

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


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _use_local_mathjax)
    app.connect("build-finished", _copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
