"""What a built page's prose must not show a reader: the build's own bookkeeping.

A page is read long after its build: a private server's ``127.0.0.1:<port>`` is gone with the
kernel, a registry id (``000-alloc-1e9``) is the book's internal name for a claim, and a file or
test name, or a remark about the build, says nothing about Redis. Code (``<pre>``, ``<code>``),
scripts, styles and the theme's chrome are not prose and are not read.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: elements whose text is not prose
_NOT_PROSE = frozenset({"script", "style", "pre", "code", "kbd", "samp", "nav", "header", "footer"})
_PATTERNS = (
    (re.compile(r"\b(?:127\.0\.0\.1|localhost|\[::1\]):\d+"), "an ephemeral endpoint"),
    (re.compile(r"\bthis build\b", re.I), "a remark about the build"),
    (re.compile(r"\b[\w/-]+\.(?:py|ipynb|json|toml|yml)\b"), "a file name"),
    (re.compile(r"\btests?/[\w/]+|\btest_\w+"), "a test name"),
)
_WORD = re.compile(r"\b\d{3}-[A-Za-z0-9^._-]*[A-Za-z0-9]")


class _Prose(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in _NOT_PROSE:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _NOT_PROSE and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.parts.append(data)


def prose(html: str) -> str:
    """The text a reader reads in a page's main column (the whole page if it has none)."""
    main = re.search(r"<main\b.*?</main>", html, re.S)
    parser = _Prose()
    parser.feed(main.group(0) if main else html)
    return re.sub(r"\s+", " ", " ".join(parser.parts))


def prose_problems(html: str, claim_ids: frozenset[str]) -> list[str]:
    """Each piece of bookkeeping in a page's prose, with its context: ephemeral endpoints,
    build remarks, file and test names, and registry ids (any of ``claim_ids``)."""
    text = prose(html)
    found = []

    def context(match: re.Match[str]) -> str:
        return text[max(0, match.start() - 60) : match.end() + 20]

    for pattern, what in _PATTERNS:
        found += [f"{what}: …{context(m)}…" for m in pattern.finditer(text)]
    found += [
        f"a registry id: …{context(m)}…" for m in _WORD.finditer(text) if m.group(0) in claim_ids
    ]
    return found
