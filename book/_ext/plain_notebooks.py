"""A chapter as a notebook any Jupyter renders: the executed MyST notebook rewritten in plain
Markdown, for the download, JupyterLab (``make lab``), Colab, VS Code and GitHub's viewer.

The chapters are MyST: ``{glue:text}`` roles, admonitions, gated exercises and solutions,
``{doc}``/``{ref}``/``{numref}``/``{cite}`` roles. Only the book's build (MyST-NB, Sphinx)
understands them; every other renderer shows their source. :func:`plain_notebook` rewrites an
executed chapter so that none is left:

- a glued value is written in place, exactly as the page writes it (MyST-NB's own
  ``format_plain_text``), inside ``<abbr title="…">`` naming the code cell that recomputes it
  (browsers underline it with dots; renderers that drop the tag keep the number);
- an admonition becomes a block quote under its bold title;
- an exercise becomes a bold "Exercise 6.1" paragraph (the page's number), and its code cells
  lose their outputs (and are tagged ``setlab-exercise``): the answer appears when the reader
  runs the cell;
- a solution becomes one ``<details>`` cell, closed, holding its prose, its code as a fenced
  block and that code's text output from the build (its figures are not copied: run the code);
- cross-references become links: to the built site when its address is known
  (``html_baseurl``), else to the sibling notebook, else the page's title in italics;
- the hidden glue outputs (already in the prose) are dropped, ``remove-output`` cells lose their
  outputs and ``remove-input``/``remove-cell`` cells are collapsed (``jupyter.source_hidden``);
- an interactive calculator, which needs the page's JavaScript, keeps its text fallback and says
  where to move it.

A role, directive or substitution this module does not know stops the build (``ValueError``)
rather than reaching a reader as source. :class:`References` is what the Sphinx environment
knows about the book (titles, labels, numbers, citations); ``book/_ext/setlab_site.py`` builds it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from myst_nb.core.variables import format_plain_text

#: a directive's opening fence: ``:::{name} argument`` or ```` ```{name} argument ````
_OPEN = re.compile(r"^(?P<fence>:{3,}|`{3,})\{(?P<name>[A-Za-z][\w:-]*)\}[ \t]*(?P<arg>.*?)\s*$")
#: a code fence that is not a directive (its text is left alone)
_CODE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?!\{)")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*?)\s*$")
_TARGET = re.compile(r"^\((?P<label>[\w.:-]+)\)=\s*$")
#: a code span, or a role (a code span right after ``{name}``): code spans are left alone
_SPAN = re.compile(r"(?:\{(?P<name>[a-z][\w:-]*)\})?(?P<ticks>`+)(?P<text>.+?)(?P=ticks)(?!`)")
_SUBSTITUTION = re.compile(r"\{\{\s*(?P<name>[\w-]+)\s*\}\}")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
#: characters that would turn a glued value into Markdown, HTML or math
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|$~])")

#: what ``{role}`` and ``:::{directive}`` names a chapter may use; anything else is an error
GATED = ("exercise-start", "exercise-end", "solution-start", "solution-end")
#: the tag of a code cell that belongs to an exercise (its outputs are removed)
EXERCISE_TAG = "setlab-exercise"
WIDGET_MARKER = 'class="setlab-widget"'
GLUE_PREFIX = "application/papermill.record/"


@dataclass(frozen=True)
class References:
    """What a chapter's cross-references point at, read from the book's Sphinx environment.

    ``labels`` maps a label to (docname, anchor, title); ``numbers`` a label to its number as the
    page prints it ("Exercise 6.1"); ``citations`` a bibliography key to (authors, year, title,
    url); ``notebooks`` the docnames that have a notebook beside this one; ``site_url`` the built
    site's address, "" when the build does not know it.
    """

    titles: Mapping[str, str]
    labels: Mapping[str, tuple[str, str, str]]
    numbers: Mapping[str, str] = field(default_factory=dict)
    citations: Mapping[str, tuple[str, str, str, str]] = field(default_factory=dict)
    substitutions: Mapping[str, str] = field(default_factory=dict)
    notebooks: frozenset[str] = frozenset()
    site_url: str = ""

    def link(self, docname: str, anchor: str, here: str) -> str | None:
        """The link a notebook of ``here`` uses for ``docname#anchor``, or None (no address)."""
        fragment = f"#{anchor}" if anchor else ""
        if docname == here:
            return fragment or "#"
        if self.site_url:
            return f"{self.site_url.rstrip('/')}/{docname}.html{fragment}"
        if docname in self.notebooks:
            return f"{docname.rsplit('/', 1)[-1]}.ipynb{fragment}"
        return None

    def page_url(self, docname: str) -> str | None:
        return f"{self.site_url.rstrip('/')}/{docname}.html" if self.site_url else None


# -- Markdown -----------------------------------------------------------------------------------


@dataclass
class _Directive:
    name: str
    argument: str
    options: dict[str, str]
    body: str


def _blocks(text: str) -> Iterator[str | _Directive]:
    """``text`` split into Markdown runs and directives (nested directives stay in the body)."""
    lines = text.split("\n")
    run: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        code = _CODE.match(line)
        if code:  # a plain code fence: copied as it is, to its closing fence
            run.append(line)
            i += 1
            while i < len(lines):
                run.append(lines[i])
                i += 1
                if _closes(lines[i - 1], code.group("fence")):
                    break
            continue
        opened = _OPEN.match(line)
        if not opened:
            run.append(line)
            i += 1
            continue
        if run:
            yield "\n".join(run)
            run = []
        fence, i = opened.group("fence"), i + 1
        options: dict[str, str] = {}
        while i < len(lines) and (option := _OPTION.match(lines[i])):
            options[option.group("key")] = option.group("value")
            i += 1
        body: list[str] = []
        depth = 0
        while i < len(lines):
            current = lines[i]
            i += 1
            inner = _OPEN.match(current)
            if inner and inner.group("fence") == fence:
                depth += 1
            elif current.strip() == fence:
                if depth == 0:
                    break
                depth -= 1
            body.append(current)
        yield _Directive(opened.group("name"), opened.group("arg"), options, "\n".join(body))
    if run:
        yield "\n".join(run)


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a code fence opened with ``fence`` (CommonMark: the same
    character, at least as many, nothing else)."""
    text = line.strip()
    return len(text) >= len(fence) and set(text) == {fence[0]}


def escape_value(text: str) -> str:
    """``text`` as literal prose in Markdown: HTML-escaped, Markdown and math characters
    backslash-escaped, so a glued ``$`` or ``*`` prints as itself."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


@dataclass
class _Context:
    """One chapter's conversion: where it is, what it glued, what the book knows."""

    docname: str
    refs: References
    glue: Mapping[str, tuple[str, str]]  # key -> (text as the page prints it, recomputed by)

    def _link(self, text: str, docname: str, anchor: str) -> str:
        url = self.refs.link(docname, anchor, self.docname)
        return f"[{text}]({url})" if url else f"*{text}*"

    def _span(self, match: re.Match) -> str:
        if match.group("name") is None or match.group("ticks") != "`":
            return match.group(0)
        return self._role(match.group("name"), match.group("text"))

    def _role(self, name: str, text: str) -> str:
        explicit = _EXPLICIT.match(text)
        label, target = ("", text)
        if explicit:
            label, target = explicit.group("text"), explicit.group("target")
        if name == "glue:text":
            if target not in self.glue:
                raise ValueError(f"{self.docname}: no glued value {target!r}")
            value, where = self.glue[target]
            title = html.escape(f"this build's value; {where} recomputes it", quote=False)
            title = title.replace('"', "&quot;")
            return f'<abbr title="{title}">{escape_value(value)}</abbr>'
        if name == "doc":
            docname = _resolve_doc(target, self.docname)
            if docname not in self.refs.titles:
                raise ValueError(f"{self.docname}: {{doc}} to an unknown page {target!r}")
            return self._link(label or self.refs.titles[docname], docname, "")
        if name in ("ref", "numref"):
            if target not in self.refs.labels:
                raise ValueError(f"{self.docname}: {{{name}}} to an unknown label {target!r}")
            docname, anchor, title = self.refs.labels[target]
            if name == "numref":
                number = self.refs.numbers.get(target)
                if number is None:
                    raise ValueError(f"{self.docname}: {target!r} has no number")
                title = label.replace("%s", number.rsplit(" ", 1)[-1]) if label else number
            return self._link(label if name == "ref" and label else title, docname, anchor)
        if name in ("cite:t", "cite:p"):
            return self._cite(name, target)
        raise ValueError(f"{self.docname}: the notebook export does not know the role {{{name}}}")

    def _cite(self, name: str, keys: str) -> str:
        parts = []
        for key in (k.strip() for k in keys.split(",")):
            if key not in self.refs.citations:
                raise ValueError(f"{self.docname}: no reference {key!r} in the bibliography")
            authors, year, title, url = self.refs.citations[key]
            work = f"[{title}]({url})" if url else title
            parts.append(
                f"{authors} ({year}, *{work}*)" if name == "cite:t" else f"{authors} {year}"
            )
        return "; ".join(parts) if name == "cite:t" else f"({'; '.join(parts)})"

    def _substitution(self, match: re.Match) -> str:
        name = match.group("name")
        if name not in self.refs.substitutions:
            raise ValueError(f"{self.docname}: no substitution {{{{ {name} }}}}")
        return self.refs.substitutions[name]

    def inline(self, text: str) -> str:
        """Roles, substitutions, targets and comments of a Markdown run, outside code."""
        out, fence = [], ""
        for line in text.split("\n"):
            code = _CODE.match(line)
            if fence:
                out.append(line)
                if _closes(line, fence):
                    fence = ""
                continue
            if code:
                fence = code.group("fence")
                out.append(line)
                continue
            target = _TARGET.match(line)
            if target:
                out.append(f'<a id="{target.group("label")}"></a>')
                continue
            if line.startswith("%"):  # a MyST comment
                continue
            pieces, end = [], 0
            for span in _SPAN.finditer(line):
                pieces.append(_SUBSTITUTION.sub(self._substitution, line[end : span.start()]))
                pieces.append(self._span(span))
                end = span.end()
            pieces.append(_SUBSTITUTION.sub(self._substitution, line[end:]))
            out.append("".join(pieces))
        return "\n".join(out)

    def markdown(self, text: str) -> str:
        """A Markdown run with no gated directive in it, as plain Markdown."""
        parts = []
        for block in _blocks(text):
            if isinstance(block, str):
                parts.append(self.inline(block))
            elif block.name == "admonition":
                body = self.markdown(block.body).strip("\n")
                quoted = "\n".join(f"> {line}".rstrip() for line in body.split("\n"))
                title = self.inline(block.argument) or "Note"
                parts.append(f"> **{title}**\n>\n{quoted}")
            else:
                raise ValueError(
                    f"{self.docname}: the notebook export does not know the directive "
                    f"{{{block.name}}}"
                )
        return "\n".join(parts)


def _resolve_doc(target: str, here: str) -> str:
    target = target.removesuffix(".md").removesuffix(".ipynb")
    if target.startswith("/"):
        return target.lstrip("/")
    folder = here.rsplit("/", 1)[0] if "/" in here else ""
    return f"{folder}/{target}" if folder else target


# -- cells ---------------------------------------------------------------------------------------


def glued_values(
    notebook: nbformat.NotebookNode, glue: Mapping[str, Mapping]
) -> dict[str, tuple[str, str]]:
    """Every glued key of an executed chapter: (its text as ``{glue:text}`` prints it, which code
    cell glues it, counted among the chapter's code cells). ``glue`` is MyST-NB's record of the
    chapter's glued outputs (``<chapter>.glue.json`` beside the executed notebook, which no longer
    holds them). A key named in a cell's source is glued there; the others by the cell that calls
    ``chapter.start()`` or ``FIGURES.glue()`` (the chapter's or the page's figures)."""
    code = [c.source for c in notebook.cells if c.cell_type == "code"]

    def where(key: str) -> str:
        for needle in (f'"{key}"', f"'{key}'", "chapter.start()", "FIGURES.glue()"):
            for number, source in enumerate(code, start=1):
                line = next((line for line in source.split("\n") if needle in line), None)
                if line is not None:
                    return f"code cell {number} ({line.strip()[:60]})"
        return "running the chapter"

    values = {}
    for key, output in glue.items():
        data = {k.removeprefix(GLUE_PREFIX): v for k, v in output.get("data", {}).items()}
        if "text/plain" in data:
            values[key] = (format_plain_text(data["text/plain"], ""), where(key))
    return values


def _text_outputs(cell: nbformat.NotebookNode) -> str:
    """A code cell's text output (streams and text/plain results), or a note for a figure."""
    texts, figures = [], 0
    for output in cell.get("outputs", []):
        if output.get("metadata", {}).get("scrapbook", {}).get("mime_prefix"):
            continue
        if output.output_type == "stream":
            texts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            data = output.get("data", {})
            if any(k.startswith("image/") for k in data):
                figures += 1
            elif "text/markdown" in data:
                texts.append(data["text/markdown"])
            elif "text/plain" in data:
                texts.append(data["text/plain"])
    parts = []
    if texts:
        parts.append("The build's output:\n\n```text\n" + "".join(
            t if t.endswith("\n") else t + "\n" for t in texts) + "```")  # fmt: skip
    if figures:
        parts.append(f"*It draws {'a figure' if figures == 1 else f'{figures} figures'}: run it.*")
    return "\n\n".join(parts)


def _widget_fallback(output: nbformat.NotebookNode, page: str | None) -> str | None:
    """The text fallback of a calculator's HTML output, with where to use the live one."""
    page_html = output.get("data", {}).get("text/html", "")
    if isinstance(page_html, list):
        page_html = "".join(page_html)
    if WIDGET_MARKER not in page_html:
        return None
    title = re.search(r'<div class="setlab-widget-title">(.*?)</div>', page_html, re.S)
    widget = re.search(r'<figure class="setlab-widget" id="([^"]+)"', page_html)
    fallback = re.search(r'<details class="setlab-widget-fallback">.*?</details>', page_html, re.S)
    where = (
        f'<a href="{page}#{widget.group(1) if widget else ""}">on the book\'s page</a>'
        if page
        else "on the book's page"
    )
    name = title.group(1) if title else "calculator"
    note = (
        f"<p><b>{name}</b>: this calculator needs the page's JavaScript and moves only {where}. "
        "Run the cell in JupyterLab to get it as a live Vega-Lite chart; here are its numbers "
        "at a few settings.</p>"
    )
    return note + (fallback.group(0).replace("<details ", "<details open ", 1) if fallback else "")


def plain_notebook(
    notebook: nbformat.NotebookNode, docname: str, refs: References, glue: Mapping[str, Mapping]
) -> nbformat.NotebookNode:
    """An executed MyST chapter as a notebook with no MyST left in it (see the module's doc);
    ``glue`` is its glued outputs (:func:`glued_values`)."""
    context = _Context(docname, refs, glued_values(notebook, glue))
    cells: list[nbformat.NotebookNode] = []
    pending: list[str] = []  # Markdown of the cell being assembled
    solution: list[str] | None = None  # the open solution's parts
    solution_of = ""
    in_exercise = False

    def flush() -> None:
        text = "\n\n".join(p.strip("\n") for p in pending if p.strip())
        pending.clear()
        if text:
            cells.append(nbformat.v4.new_markdown_cell(text))

    def number(label: str) -> str:
        return refs.numbers.get(label) or "Exercise"

    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for block in _blocks(cell.source):
                if isinstance(block, _Directive) and block.name in GATED:
                    if block.name == "exercise-start":
                        label = block.options.get("label", "")
                        anchor = f'<a id="{label}"></a>' if label else ""
                        (solution if solution is not None else pending).append(
                            f"{anchor}**{number(label)}.**"
                        )
                        in_exercise = True
                    elif block.name == "exercise-end":
                        in_exercise = False
                    elif block.name == "solution-start":
                        flush()
                        solution, solution_of = [], block.argument.strip()
                    else:  # solution-end
                        if solution is None:
                            raise ValueError(f"{docname}: solution-end without a start")
                        body = "\n\n".join(p.strip("\n") for p in solution if p.strip())
                        cells.append(nbformat.v4.new_markdown_cell(
                            f"<details>\n<summary>Solution to {number(solution_of)}</summary>"
                            f"\n\n{body}\n\n</details>"))  # fmt: skip
                        solution = None
                    continue
                text = context.markdown(block) if isinstance(block, str) else context.markdown(
                    _unblock(block))  # fmt: skip
                (solution if solution is not None else pending).append(text)
            continue
        if cell.cell_type != "code":
            continue
        if solution is not None:
            solution.append(f"```python\n{cell.source.rstrip()}\n```")
            solution.append(_text_outputs(cell))
            continue
        flush()
        cells.append(_code_cell(cell, in_exercise, refs.page_url(docname)))
    if solution is not None:
        raise ValueError(f"{docname}: a solution is not closed")
    flush()
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {k: v for k, v in notebook.metadata.items() if k in ("kernelspec",)}
    out.metadata["language_info"] = {"name": "python"}
    return out


def _unblock(block: _Directive) -> str:
    """A non-gated directive back as MyST source, for :meth:`_Context.markdown` to convert."""
    options = "".join(f":{k}: {v}\n" for k, v in block.options.items())
    return f":::{{{block.name}}} {block.argument}\n{options}{block.body}\n:::"


def _code_cell(
    cell: nbformat.NotebookNode, in_exercise: bool, page: str | None
) -> nbformat.NotebookNode:
    tags = list(cell.get("metadata", {}).get("tags", []))
    if in_exercise:
        tags.append(EXERCISE_TAG)
    out = nbformat.v4.new_code_cell(cell.source)
    if tags:
        out.metadata["tags"] = tags
    if {"remove-input", "remove-cell"} & set(tags):
        out.metadata["jupyter"] = {"source_hidden": True}
    if in_exercise or {"remove-output", "remove-cell"} & set(tags):
        return out  # no outputs: an exercise's answer appears when the reader runs it
    out.execution_count = cell.get("execution_count")
    for output in cell.get("outputs", []):
        scrapbook = output.get("metadata", {}).get("scrapbook")
        if scrapbook and scrapbook.get("mime_prefix"):
            continue  # a hidden glued value: the prose already shows it
        fallback = _widget_fallback(output, page) if "data" in output else None
        if fallback is not None:
            output = nbformat.v4.new_output("display_data", data={"text/html": fallback})
        if "data" in output and scrapbook:
            output = nbformat.from_dict({**output, "metadata": {}})
        out.outputs.append(output)
    return out


# -- what the book knows ---------------------------------------------------------------------------


def citations(bib_files: list[Path]) -> dict[str, tuple[str, str, str, str]]:
    """(authors, year, title, url) of every entry of the book's BibTeX files, for ``{cite:t}``:
    "Bloom", "Kirsch and Mitzenmacher", "Fan et al."; the url is the entry's ``url`` or DOI."""
    from pybtex.database import parse_file

    out: dict[str, tuple[str, str, str, str]] = {}
    for path in bib_files:
        for key, entry in parse_file(str(path)).entries.items():
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
            if not names:
                names = [entry.fields.get("organization", entry.fields.get("howpublished", key))]
            authors = (
                names[0] if len(names) == 1
                else " and ".join(names) if len(names) == 2
                else f"{names[0]} et al."
            )  # fmt: skip
            title = entry.fields.get("title", key).replace("{", "").replace("}", "")
            doi = entry.fields.get("doi", "")
            url = entry.fields.get("url", "") or (f"https://doi.org/{doi}" if doi else "")
            out[key] = (authors, entry.fields.get("year", "n.d."), title, url)
    return out


def references_from_sphinx(env, config, srcdir: Path, notebooks: frozenset[str]) -> References:
    """:class:`References` from a finished Sphinx build's environment and configuration."""
    numbers = {}
    for fignumbers in env.toc_fignumbers.values():
        for figtype, labels in fignumbers.items():
            form = config.numfig_format.get(figtype, f"{figtype.title()} %s")
            for label, number in labels.items():
                numbers[label] = form % ".".join(map(str, number))
    labels = {
        label: (docname, anchor, title)
        for label, (docname, anchor, title) in env.domaindata["std"]["labels"].items()
    }
    return References(
        titles={docname: title.astext() for docname, title in env.titles.items()},
        labels=labels,
        numbers=numbers,
        citations=citations([srcdir / name for name in config.bibtex_bibfiles]),
        substitutions=dict(config.myst_substitutions or {}),
        notebooks=notebooks,
        site_url=config.html_baseurl or "",
    )
