"""book/_ext/setlab_execution.join_streams: a stream the kernel sent in pieces renders as the
lines it printed, through MyST-NB's own merging (``nb_merge_streams`` in _config.yml)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
from myst_nb.core.utils import coalesce_streams

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "_ext"))
from setlab_execution import join_streams


def _cell(*outputs):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("print('hashtable', 27496)")]
    notebook.cells[0].outputs = [nbformat.v4.new_output(**o) for o in outputs]
    return notebook


def _stream(name: str, text: str) -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def test_a_line_cut_by_the_flush_timer_renders_as_one_line():
    # as a loaded machine's kernel sent it (the site check of redis-set-memory's exercise 1)
    notebook = _cell(_stream("stdout", "hashtable"), _stream("stdout", " 27496\n"))
    unjoined = coalesce_streams(copy.deepcopy(notebook.cells[0].outputs))  # it edits them
    assert unjoined[0]["text"] == "hashtable\n 27496\n"
    join_streams(notebook)
    merged = coalesce_streams(list(notebook.cells[0].outputs))
    assert [o["text"] for o in merged] == ["hashtable 27496\n"]


def test_each_stream_keeps_its_pieces_in_order_and_other_outputs_stay_where_they_were():
    notebook = _cell(
        _stream("stdout", "a"),
        _stream("stderr", "warn"),
        {"output_type": "display_data", "data": {"text/plain": "figure"}},
        _stream("stdout", "b\nc"),
        _stream("stderr", "ing\n"),
        _stream("stdout", "\n"),
    )
    join_streams(notebook)
    outputs = notebook.cells[0].outputs
    assert [(o["output_type"], o.get("name"), o.get("text")) for o in outputs] == [
        ("stream", "stdout", "ab\nc\n"),
        ("stream", "stderr", "warning\n"),
        ("display_data", None, None),
    ]
