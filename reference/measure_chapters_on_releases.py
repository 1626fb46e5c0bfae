"""Execute every chapter on every server release this machine has, and record which ran.

Writes src/setlab/data/chapters-on-releases.json: per release (a section labelled with its
server, allocator, machine and date), one row per chapter — whether the page ran top to bottom
on that server, in how many seconds, and the first line of its error if not. The status page
shows the table. Each page runs in a fresh kernel with ``SETLAB_BACKEND=live`` and
``SETLAB_REDIS_SERVER=<release>`` (setlab.lab.servers), so it starts its own private server of
that release; nothing touches another server:

    .venv/bin/python reference/measure_chapters_on_releases.py
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import jupytext
import nbclient

import setlab
from setlab.lab import reference, servers
from setlab.site import registry

BOOK = Path(__file__).resolve().parents[1] / "book"
NAME = "chapters-on-releases"


def run_chapter(slug: str) -> dict[str, object]:
    """Execute ``book/<slug>.md`` in a fresh kernel under this process's environment."""
    notebook = jupytext.read(BOOK / f"{slug}.md")
    start = time.perf_counter()
    error = ""
    try:
        nbclient.NotebookClient(
            notebook, timeout=1800, kernel_name="python3", resources={"metadata": {"path": BOOK}}
        ).execute()
    except Exception as exc:  # a failing cell: what the record is for
        error = str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else type(exc).__name__
    seconds = round(time.perf_counter() - start, 1)
    return {"chapter": slug, "ok": not error, "seconds": seconds, "error": error}


def main() -> None:
    first, path = True, None
    for release, _path in servers.available():
        os.environ.update(SETLAB_BACKEND="live", SETLAB_REDIS_SERVER=release.name)
        lab = setlab.connect("reference", server=release.name, quiet=True)
        rows = []
        for slug in registry.CHAPTERS:
            rows.append(run_chapter(slug))
            row = rows[-1]
            print(
                f"{release.name} {slug}: {'ok' if row['ok'] else row['error']} ({row['seconds']} s)"
            )
        if first:
            reference.save(NAME, [], lab, writer=__file__)
            first = False
        path = reference.save_section(NAME, release.name, rows, lab)
        lab.close()
    for line in servers.missing():
        print(line)
    print(f"wrote {path}" if path else "no server release is installed: nothing written")


if __name__ == "__main__":
    main()
