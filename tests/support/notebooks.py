"""Execute one MyST chapter as a notebook (jupytext reads it, nbclient runs it)."""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbclient

BOOK = Path(__file__).resolve().parents[2] / "book"


def run_chapter(slug: str, timeout: int = 600):
    """Run ``book/<slug>.md`` top to bottom in a fresh kernel (inheriting os.environ)."""
    notebook = jupytext.read(BOOK / f"{slug}.md")
    client = nbclient.NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": BOOK}}
    )
    client.execute()
    return notebook


def outputs_text(notebook) -> str:
    """All stream and text/plain outputs of an executed notebook, joined."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(output["text"])
            elif "data" in output and "text/plain" in output["data"]:
                parts.append(output["data"]["text/plain"])
    return "\n".join(parts)


ROOT = BOOK.parent


def build_book(out_dir: Path, backend: str) -> tuple[int, str, Path]:
    """``jupyter-book build --all -W -n --keep-going`` into ``out_dir`` on ``backend``.

    Returns (exit code, the output's last 6000 characters, the html folder). --all matters:
    without it a rebuild after a failure can report success, because Sphinx does not re-read
    the failed page. Execution is forced by _config.yml.
    """
    import os
    import subprocess
    import sys

    env = {**os.environ, "SETLAB_BACKEND": backend}
    env.pop("REDIS_URL", None)
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jupyter_book), "build", str(ROOT), "--path-output", str(out_dir),
         "--all", "-W", "-n", "--keep-going"],
        env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    return result.returncode, (result.stdout + result.stderr)[-6000:], out_dir / "_build" / "html"
