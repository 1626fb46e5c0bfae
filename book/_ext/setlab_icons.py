"""Sphinx extension: the theme's icons without Font Awesome's 1.5 MB script.

pydata-sphinx-theme puts ``fontawesome.js`` (1.49 MB) on every page "so that users can add
custom icons": it turns each ``<i class="fa-solid fa-…">`` into an inline SVG. The book adds no
icon of its own, and the theme's stylesheet already draws every Font Awesome icon from the
webfont it ships (``vendor/fontawesome/webfonts/fa-solid-900.woff2``, 153 KB, loaded only when a
page shows an icon). So this extension overrides the theme's ``static/webpack-macros.html`` with
``book/_ext/templates/static/webpack-macros.html`` — the theme's own file without that one
``<script>`` (``tests/book/test_page_assets.py`` checks it still equals the installed theme's
file otherwise) — and leaves the script out of the built site.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

TEMPLATES = Path(__file__).parent / "templates"
#: the one line of the theme's macros the override leaves out
SCRIPT = "_static/scripts/fontawesome.js"


def _templates(app: Sphinx, config: Config) -> None:
    config.templates_path.insert(0, str(TEMPLATES))


def _drop_script(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        (Path(app.outdir) / SCRIPT).unlink(missing_ok=True)


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _templates)
    app.connect("build-finished", _drop_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
