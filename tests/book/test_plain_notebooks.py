"""The chapters as notebooks for any Jupyter (book/_ext/plain_notebooks.py): each MyST construct a
chapter uses comes out as plain Markdown, and one the export does not know stops the build."""

from __future__ import annotations

import sys

import nbformat
import pytest

from tests.support.notebooks import ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import plain_notebooks as pn

REFS = pn.References(
    titles={"book/one": "Chapter one", "book/two": "Chapter two", "book/errata": "Errata"},
    labels={
        "one-ex-1": ("book/one", "one-ex-1", "Exercise"),
        "two-part": ("book/two", "two-part", "A part of two"),
    },
    numbers={"one-ex-1": "Exercise 3.1"},
    citations={"bloom1970": ("Bloom", "1970", "Space/Time Trade-offs", "https://doi.org/x")},
    substitutions={"clone": "`git clone https://example.org/setlab.git`"},
    notebooks=frozenset({"book/one", "book/two"}),
)
GLUE = {
    "mem": {"data": {"text/plain": "'914 MiB'"}},
    "price": {"data": {"text/plain": "'$5 *each*'"}},
    "count": {"data": {"text/plain": "3000000"}},
}


def _notebook(*cells) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=list(cells))


def _md(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(text)


def _code(source: str, *outputs, tags=()) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, execution_count=1)
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _convert(*cells, refs: pn.References = REFS) -> nbformat.NotebookNode:
    out = pn.plain_notebook(_notebook(*cells), "book/one", refs, GLUE)
    nbformat.validate(out)
    return out


def test_a_glued_value_is_written_in_place_escaped_and_marked_with_the_cell_that_glues_it():
    out = _convert(
        _code('glue("price", price)\nlab = chapter.start()'),
        _md("A filter costs {glue:text}`mem`, or {glue:text}`price`; `{glue:text}` stays code."),
    )
    text = out.cells[1].source
    assert "{glue" not in text.replace("`{glue:text}`", "")
    assert ">914 MiB</abbr>" in text
    assert r">\$5 \*each\*</abbr>" in text  # no math, no emphasis: the page's literal text
    assert "title=\"this build's value; code cell 1 (glue(&quot;price&quot;, price))" in text
    assert "code cell 1 (lab = chapter.start())" in text


def test_admonitions_become_block_quotes_and_targets_anchors():
    out = _convert(
        _md("(one-top)=\n# One\n\n:::{admonition} Key points\n:class: tip\n"
            "- it is {glue:text}`count`\n- second\n:::\n\nAfter."),
    )  # fmt: skip
    text = out.cells[0].source
    assert text.startswith('<a id="one-top"></a>\n# One')
    assert "> **Key points**\n>\n> - it is <abbr" in text and "3000000</abbr>\n> - second" in text
    assert text.endswith("After.") and ":::" not in text and ":class:" not in text


def test_an_exercise_is_numbered_its_cells_lose_their_outputs_and_its_solution_folds():
    out = _convert(
        _md("```{exercise-start}\n:label: one-ex-1\n```\n**Predict.** What prints?"),
        _code("print(2 + 2)", _stream("4\n"), tags=["remove-output"]),
        _code("print('also in the exercise')", _stream("also\n")),
        _md(
            "```{exercise-end}\n```\n\n"
            "```{solution-start} one-ex-1\n:class: dropdown\n```\nIt is 4:"
        ),
        _code("print(2 + 2)", _stream("4\n")),
        _md("Because addition.\n```{solution-end}\n```\nAfter the solution."),
        _code("print('after')", _stream("after\n")),
    )
    kinds = [c.cell_type for c in out.cells]
    assert kinds == ["markdown", "code", "code", "markdown", "markdown", "code"]
    exercise = '<a id="one-ex-1"></a>**Exercise 3.1.**\n\n**Predict.** What prints?'
    assert out.cells[0].source == exercise
    assert out.cells[1].outputs == [] and out.cells[2].outputs == []
    tags = [c.metadata.get("tags", []) for c in out.cells if c.cell_type == "code"]
    assert tags == [["remove-output", "setlab-exercise"], ["setlab-exercise"], []]
    solution = out.cells[3].source
    assert solution.startswith("<details>\n<summary>Solution to Exercise 3.1</summary>\n\nIt is 4:")
    assert "```python\nprint(2 + 2)\n```" in solution and "```text\n4\n```" in solution
    assert solution.endswith("Because addition.\n\n</details>") and " open" not in solution
    assert out.cells[4].source == "After the solution."
    assert out.cells[5].outputs[0]["text"] == "after\n"  # outside an exercise, outputs stay


def test_cross_references_link_to_the_site_the_sibling_notebook_or_name_the_page():
    cell = _md(
        "See {doc}`two`, {doc}`the errata </book/errata>`, {ref}`two-part`, {numref}`one-ex-1`, "
        "{cite:t}`bloom1970`, {cite:p}`bloom1970` and {{ clone }}."
    )
    text = _convert(cell).cells[0].source
    assert text == (
        "See [Chapter two](two.ipynb), *the errata*, [A part of two](two.ipynb#two-part), "
        "[Exercise 3.1](#one-ex-1), Bloom (1970, *[Space/Time Trade-offs](https://doi.org/x)*), "
        "(Bloom 1970) and `git clone https://example.org/setlab.git`."
    )
    site = pn.References(**{**REFS.__dict__, "site_url": "https://example.org/setlab/"})
    text = _convert(cell, refs=site).cells[0].source
    assert "[Chapter two](https://example.org/setlab/book/two.html)" in text
    assert "[the errata](https://example.org/setlab/book/errata.html)" in text


def test_hidden_glue_outputs_are_dropped_and_removed_cells_collapsed():
    hidden = {
        "output_type": "display_data",
        "data": {"application/papermill.record/text/plain": "'914 MiB'"},
        "metadata": {"scrapbook": {"name": "mem", "mime_prefix": "application/papermill.record/"}},
    }
    out = _convert(
        _code("chapter.FIGURES.glue()", hidden, _stream("connected\n")),
        _code("lab.cleanup()", {"output_type": "execute_result", "data": {"text/plain": "3"},
                                "metadata": {}, "execution_count": 2}, tags=["remove-cell"]),
        _code("Markdown(table)", _stream("table\n"), tags=["remove-input"]),
    )  # fmt: skip
    assert [o["output_type"] for o in out.cells[0].outputs] == ["stream"]
    assert out.cells[1].outputs == [] and out.cells[1].metadata["jupyter"]["source_hidden"]
    assert out.cells[2].outputs and out.cells[2].metadata["jupyter"]["source_hidden"]


def test_a_calculator_keeps_its_text_fallback_and_says_where_it_moves():
    widget = (
        '<figure class="setlab-widget" id="w-bloom" data-widget="bloom">\n'
        '<div class="setlab-widget-title">Bloom calculator</div>\n<script>spec</script>'
        '<details class="setlab-widget-fallback"><summary>numbers</summary><table></table>'
        "</details></figure>"
    )
    output = {"output_type": "display_data", "data": {"text/html": widget}, "metadata": {}}
    site = pn.References(**{**REFS.__dict__, "site_url": "https://example.org/s"})
    (cell,) = _convert(_code("widget.calculator()", output), refs=site).cells
    shown = cell.outputs[0]["data"]["text/html"]
    assert "<script" not in shown and '<details open class="setlab-widget-fallback">' in shown
    assert '<a href="https://example.org/s/book/one.html#w-bloom">' in shown


@pytest.mark.parametrize(
    "source, message",
    [
        ("{term}`bitmap`", "does not know the role {term}"),
        (":::{note}\nx\n:::", "does not know the directive {note}"),
        ("{glue:text}`missing`", "no glued value 'missing'"),
        ("{doc}`nowhere`", "unknown page 'nowhere'"),
        ("{{ nothing }}", "no substitution"),
    ],
)
def test_what_the_export_does_not_know_stops_the_build(source, message):
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        _convert(_md(source))


def test_code_fences_and_code_spans_are_left_as_they_are():
    text = "```python\nx = f'{glue:text}`mem`'\n```\nThe key `like:count:{post:42}` and `{{tag}}`."
    assert _convert(_md(text)).cells[0].source == text
