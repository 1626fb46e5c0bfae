"""Sphinx extension for setlab's interactive figures (src/setlab/render/widgets.py): the Vega,
Vega-Lite and vega-embed JavaScript served from the book's own ``_static`` (no CDN: the site works
offline), included only on the pages that hold a widget.

- At setup it sets ``SETLAB_WIDGETS=static`` in the environment, which the notebook kernels MyST-NB
  starts inherit: a :class:`~setlab.render.widgets.Widget` then renders as HTML (controls, readouts,
  spec, text fallback) instead of JupyterLab's Vega-Lite MIME bundle.
- After the build it writes ``_static/vega/setlab-vega.js``: ``vl_convert.javascript_bundle()``
  (vl-convert-python carries Vega, Vega-Lite and vega-embed), for the Vega-Lite version Altair
  writes. It is cached beside the build, keyed by the versions, so a rebuild does not re-bundle.
- On every page whose body holds a ``setlab-widget`` it adds ``setlab-widgets.js``, which fetches
  that bundle when the reader comes near a widget (870 KB a page that is read without its
  calculator does not download), and ``setlab-widgets.css`` (book/_static); on a page with a
  ``setlab-stepper``,
  ``setlab-steppers.js`` and the same styles.
"""

from __future__ import annotations

import os
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

BUNDLE = "vega/setlab-vega.js"
MARKER = 'class="setlab-widget"'
#: a stepper (render/steppers.py) needs its own script and the widgets' styles, not Vega
STEPPER = 'class="setlab-stepper"'


def vega_lite_version() -> str:
    """``major.minor`` of the Vega-Lite schema Altair writes, e.g. ``6.4``."""
    import altair

    return ".".join(altair.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def bundle_text() -> str:
    """The JavaScript bundle of vega-embed, Vega-Lite and Vega, defining them on ``window``."""
    import vl_convert

    version = vega_lite_version()
    header = (f"/* vega {vl_convert.get_vega_version()}, vega-lite {version}, vega-embed "
              f"{vl_convert.get_vega_embed_version()}: vl-convert-python "
              f"{vl_convert.__version__} */\n")  # fmt: skip
    # The bundle declares its names at the top level (``const _``, …): as a classic script they
    # would collide with the page's other globals, so it runs in a function of its own (it
    # publishes vegaEmbed, vega and vegaLite on window itself).
    return f"{header}(function () {{\n{vl_convert.javascript_bundle(vl_version=version)}\n}})();\n"


def _write_bundle(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / BUNDLE
    cache = Path(app.doctreedir) / "setlab-vega.js"
    import vl_convert

    key = f"{vl_convert.__version__}-{vega_lite_version()}-iife"
    stamp = cache.with_suffix(".version")
    if not (cache.is_file() and stamp.is_file() and stamp.read_text() == key):
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(bundle_text())
        stamp.write_text(key)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(cache.read_bytes())


def _add_to_widget_pages(app: Sphinx, pagename: str, templatename: str, context: dict,
                         doctree: object) -> None:  # fmt: skip
    body = context.get("body", "")
    if MARKER in body:  # it fetches the bundle itself when a reader nears a widget
        app.add_js_file("setlab-widgets.js", defer="defer")
    if STEPPER in body:
        app.add_js_file("setlab-steppers.js", defer="defer")
    if MARKER in body or STEPPER in body:
        app.add_css_file("setlab-widgets.css")


def setup(app: Sphinx) -> dict:
    os.environ["SETLAB_WIDGETS"] = "static"
    app.connect("html-page-context", _add_to_widget_pages)
    app.connect("build-finished", _write_bundle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
