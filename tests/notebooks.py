"""Execute one MyST chapter as a notebook (jupytext reads it, nbclient runs it)."""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbclient

BOOK = Path(__file__).resolve().parents[1] / "book"


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
