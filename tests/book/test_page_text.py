"""tests/support/page_text.py: what a reader reads on a built page, for comparing two builds,
on planted pages."""

from __future__ import annotations

from tests.support.page_text import compare, page_text

PAGE = """<html><body><nav>the contents rail</nav><article class="bd-article">
<h1>Title</h1><p>Prose with   <code>code</code> in it.</p>
<div class="cell docutils container">
<div class="cell_input docutils container"><pre>print(2 ** 10)</pre></div>
<div class="cell_output docutils container"><pre>{output}</pre></div></div>
<img alt="Figure: bytes against offset" src="a.svg"><script>var x = 1;</script>
</article></body></html>"""


def test_page_text_reads_prose_outputs_and_alt_text_but_not_code_or_scripts():
    text = page_text(PAGE.format(output="1024"))
    assert text == ["Title", "Prose with", "code", "in it.", "1024",
                    "[image: Figure: bytes against offset]"]  # fmt: skip
    assert "print(2 ** 10)" in page_text(PAGE.format(output="1024"), code=True)


def test_compare_reports_a_changed_output_and_not_a_moved_line_of_code(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for site, output, source in ((old, "1024", "print(2 ** 10)"), (new, "1024", "f()")):
        (site / "book").mkdir(parents=True)
        (site / "book" / "a.html").write_text(PAGE.format(output=output).replace(
            "print(2 ** 10)", source))  # fmt: skip
    assert compare(old, new) == {}
    assert "book/a.html" in compare(old, new, code=True)
    (new / "book" / "a.html").write_text(PAGE.format(output="1000"))
    (new / "book" / "b.html").write_text(PAGE.format(output="1"))
    diffs = compare(old, new)
    assert "-1024" in diffs["book/a.html"] and "+1000" in diffs["book/a.html"]
    assert diffs["book/b.html"] == ["only in the new build"]
