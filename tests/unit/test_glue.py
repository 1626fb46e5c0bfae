"""setlab.render.glue displays exactly what MyST-NB's glue displays (so the book's pages read the
same), and a kernel that glues never imports nbformat, jsonschema or rfc3987_syntax."""

from __future__ import annotations

import subprocess
import sys

import pytest
from IPython.display import Markdown

from setlab.render import glue as ours


def _captured(monkeypatch, module, attribute: str, call) -> list:
    seen = []
    monkeypatch.setattr(module, attribute, lambda *a, **k: seen.append((a, k)))
    call()
    return seen


@pytest.mark.parametrize("display", [False, True])
@pytest.mark.parametrize("value", ["640 MiB", 3.5, Markdown("**bold**")])
def test_the_display_is_myst_nbs(monkeypatch, value, display):
    import myst_nb.ext.glue as theirs

    mine = _captured(monkeypatch, ours, "_display", lambda: ours.glue("x-y", value, display))
    their = _captured(
        monkeypatch, theirs, "ipy_display", lambda: theirs.glue("x-y", value, display)
    )
    (bundle, *_), kwargs = mine[0]
    (their_bundle, *_), their_kwargs = their[0]
    assert bundle == their_bundle and kwargs == their_kwargs
    assert kwargs["metadata"]["scrapbook"]["name"] == "x-y"
    assert any(k.endswith("text/plain") for k in bundle)


def test_gluing_imports_no_json_schema_machinery():
    code = (
        "import sys\n"
        "from setlab.render.glue import glue\n"
        "glue('a', '1 MiB', display=False)\n"
        "print(sorted(m for m in ('nbformat', 'jsonschema', 'rfc3987_syntax', 'myst_nb')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
