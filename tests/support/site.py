"""Check a built site as a reader's browser sees it: serve it on localhost, open every page in
the tests' one Playwright browser, and look for tracebacks, error output, missing images and
broken links — and, measured in the page itself (site_measure.js, added to the open page), for
what makes a page hard to read: tables or code that stick out of the column or scroll without a
visible hint, figures whose text is smaller than 11 px on screen or that are blurry PNGs, alt
text that is a file name, and verdict colours below 4.5:1 contrast in light or dark mode.

A page is loaded once (:func:`load`); :func:`view` then changes its viewport and colour scheme
in place (the theme follows ``prefers-color-scheme``, setlab.js re-marks overflowing tables on
resize), and :func:`measure` and :func:`screenshot` read what it shows."""

from __future__ import annotations

import contextlib
import functools
import http.server
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve ``root`` on a free loopback port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


MEASURE_JS = (Path(__file__).parent / "site_measure.js").read_text()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


_SETTLE = """async () => {
  if (document.fonts && document.fonts.ready) await document.fonts.ready;
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  window.dispatchEvent(new Event("resize"));  // setlab.js marks what overflows, now laid out
}"""


def load(page, url: str) -> None:
    """Open ``url`` in ``page`` and wait for what a reader waits for: the load event, web fonts,
    MathJax's typesetting and setlab.js's marking of what overflows."""
    page.goto(url, wait_until="load")
    page.evaluate(_SETTLE)
    page.wait_for_timeout(250)


def view(page, width: int = 1280, dark: bool = False, height: int = 800) -> None:
    """Show the open page at ``width`` × ``height`` CSS px, light or dark, without reloading."""
    page.set_viewport_size({"width": width, "height": height})
    scheme = "dark" if dark else "light"
    page.emulate_media(color_scheme=scheme)
    # the theme answers the media change from a listener: on a loaded machine (CI, stop 36) 150 ms
    # was not always enough, and a dark view was measured light. A page without the theme has no
    # data-theme and is not waited for.
    page.wait_for_function(
        "s => [undefined, s].includes(document.documentElement.dataset.theme)",
        arg=scheme, timeout=10_000,
    )  # fmt: skip
    page.wait_for_timeout(150)  # setlab.js re-marks overflows 100 ms after a resize


def rendered_dom(page) -> str:
    """The open page's DOM after its scripts ran (MathJax typesetting included)."""
    return page.content()


def screenshot(page, path: Path, height: int = 6000) -> None:
    """The top ``height`` px of the open page at its current viewport and colour scheme, as a
    PNG or (a ``.jpg`` path: four times faster to encode, for a look by eye) a JPEG."""
    width = page.viewport_size["width"]
    full = page.evaluate("document.documentElement.scrollHeight")
    jpeg = path.suffix == ".jpg"
    page.screenshot(
        path=str(path), full_page=True, type="jpeg" if jpeg else "png",
        clip={"x": 0, "y": 0, "width": width, "height": min(height, full)},
        **({"quality": 85} if jpeg else {}),
    )  # fmt: skip


def measure(page) -> dict:
    """What a reader sees on the open page at its current viewport and colour scheme: see
    site_measure.js."""
    if not page.evaluate("typeof window.setlabMeasure === 'function'"):
        page.add_script_tag(content=MEASURE_JS)
    return page.evaluate("window.setlabMeasure()")


# -- what a page's look depends on ------------------------------------------------------------

#: what a page loads (not what it links to: the sidebar links every page)
_LOCAL_REF = re.compile(r'(?:\ssrc="|<link\b[^>]*?\shref=")([^"#?:]+)')


@functools.cache
def _static_digest(html_root: Path) -> bytes:
    """SHA-256 of the built site's ``_static`` (every script, style sheet and font)."""
    from setlab.core.fingerprint import tree_digest

    return tree_digest(html_root / "_static").digest()


@functools.cache
def browser_identity() -> str:
    """The system Chromium's ``--version`` and the Playwright that drives it."""
    import subprocess
    from importlib import metadata

    version = subprocess.run(
        [chromium() or "chromium", "--version"], capture_output=True, text=True, timeout=30
    ).stdout.strip()
    return f"{version} | playwright {metadata.version('playwright')}"


def page_key(page: Path, html_root: Path, inputs: list[Path]) -> str:
    """What a browser shows of ``page`` depends on, as a hash: its bytes, every local file it
    loads (images, scripts, style sheets), the site's ``_static``, the browser, and the checks
    that look at it (``inputs``: the test, this module, site_measure.js, …). Not in it: the
    pages it links to (``<link rel="next">`` and the rest; the checks of its links read them
    afresh) and ``searchindex.js``, the words of every page, which any prose edit changes and
    the page reads only when the reader searches (the edited page itself loads the new one)."""
    import hashlib

    digest = hashlib.sha256(_static_digest(html_root))
    text = page.read_bytes()
    digest.update(text)
    for ref in sorted(set(_LOCAL_REF.findall(text.decode()))):
        if ref.endswith((".html", "searchindex.js")):
            continue
        target = (page.parent / unquote(ref)).resolve()
        if target.is_file():
            digest.update(b"\0" + ref.encode() + b"\0" + target.read_bytes())
    for path in [Path(__file__), Path(__file__).with_name("site_measure.js"), *inputs]:
        digest.update(b"\0" + path.read_bytes())
    digest.update(browser_identity().encode())
    return digest.hexdigest()


# -- what makes a page hard to read -----------------------------------------------------------

#: The smallest text a figure may show on a 1280 px screen, in CSS pixels.
MIN_FIGURE_TEXT_PX = 11.0
#: WCAG AA for normal text.
MIN_CONTRAST = 4.5
_FILE_NAME = re.compile(r"(^|/)[0-9a-f]{16,}|\.(png|svg|jpe?g|gif)$|^_images/|^\.\./", re.I)
_SVG_FONT = re.compile(r"font-size:\s*([0-9.]+)px")
_SVG_VIEWBOX = re.compile(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) [0-9.]+"')


def contrast(fg: dict, bg: dict) -> float:
    """WCAG contrast ratio of two opaque colours given as {"r", "g", "b"} (0–255)."""

    def luminance(c: dict) -> float:
        def channel(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c["r"]) + 0.7152 * channel(c["g"]) + 0.0722 * channel(c["b"])

    high, low = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def svg_smallest_text(svg: str) -> tuple[float, float] | None:
    """(smallest font size, viewBox width) of an SVG whose text is text, in its user units."""
    sizes = [float(s) for s in _SVG_FONT.findall(svg)]
    box = _SVG_VIEWBOX.search(svg)
    if not sizes or not box:
        return None
    return min(sizes), float(box.group(1))


def layout_problems(seen: dict, wide: bool) -> list[str]:
    """Tables or code that stick out of the column, or scroll without a hint; at the wide
    viewport (``wide``), anything that scrolls at all (at 1280 px tables and code lines must fit
    the column), and any word of a table cell broken across two lines (a column squeezed below
    its longest word: "mem|ory")."""
    found = [f"sticks out of the column by {c['overBy']} px: {c['what']}" for c in seen["clipped"]]
    for s in seen["scrolling"]:
        if not s["hinted"]:
            found.append(f"scrolls sideways without a hint ({s['overBy']} px): {s['what']}")
        elif wide:
            found.append(f"{s['kind']} wider than the column by {s['overBy']} px: {s['what']}")
    if wide:  # on a phone a four-column table is cards, and a long word may have to break
        found += [f"a word broken across lines in a table: {w['word']!r} in {w['what']}"
                  for w in seen.get("brokenWords", [])]  # fmt: skip
    return found


def figure_problems(page: Path, seen: dict) -> list[str]:
    """Images with a file name (or nothing) for alt text, blurry PNGs, and figures whose smallest
    text is under :data:`MIN_FIGURE_TEXT_PX` on screen (measured at 1280 px)."""
    found = []
    for img in seen["images"]:
        src, alt = img["src"] or "", (img["alt"] or "").strip()
        name = src.rsplit("/", 1)[-1][:24]
        if not alt or _FILE_NAME.search(alt) or len(alt.split()) < 4:
            found.append(f"{name}: alt text {alt[:60]!r} does not say what the figure shows")
        if src.endswith(".png") and img["naturalWidth"] < 2 * img["shownWidth"] - 1:
            found.append(f"{name}: a PNG at {img['naturalWidth'] / img['shownWidth']:.2f}x "
                         f"(needs SVG, or >= 2x with an explicit width)")  # fmt: skip
        if src.endswith(".svg") and img["shownWidth"] > 0:
            file = (page.parent / unquote(urlsplit(src).path)).resolve()
            measured = svg_smallest_text(file.read_text()) if file.is_file() else None
            if measured is None:
                found.append(f"{name}: SVG without measurable text (svg.fonttype must be none)")
                continue
            smallest, box_width = measured
            px = smallest * img["shownWidth"] / box_width
            if px < MIN_FIGURE_TEXT_PX - 0.05:
                found.append(f"{name}: smallest text {px:.1f} px on screen "
                             f"(< {MIN_FIGURE_TEXT_PX:g} px)")  # fmt: skip
    return found


def contrast_problems(seen: dict) -> list[str]:
    """Verdict badges whose colour has less than :data:`MIN_CONTRAST` against their background."""
    found = []
    for v in seen["verdicts"]:
        ratio = contrast(v["fg"], v["bg"])
        if ratio < MIN_CONTRAST:
            found.append(f"{v['cls']} {v['text']!r} at {ratio:.2f}:1 in {seen['theme']} mode")
    return sorted(set(found))


@functools.cache
def _ids(page: Path) -> frozenset[str]:
    """Every ``id`` in a built page (read once: the errata links each chapter hundreds of
    times)."""
    return frozenset(re.findall(r'(?<![\w-])id="([^"]+)"', page.read_text()))


def problems(page: Path, html_root: Path, dom: str) -> list[str]:
    """What is wrong with one page: error output, missing images, broken internal links."""
    found = []
    soup = BeautifulSoup(dom, "html.parser")
    main = soup.find("main") or soup
    text = main.get_text(" ")
    if "Traceback (most recent call last)" in text:
        found.append("a Python traceback")
    for output in main.select("div.output.stderr, div.output.error, div.output.traceback"):
        found.append(f"error output: {output.get_text(' ')[:120]!r}")
    for img in soup.find_all("img"):
        src = img.get("src", "")
        if src.startswith("data:") or urlsplit(src).scheme:
            continue
        if not (page.parent / unquote(urlsplit(src).path)).resolve().is_file():
            found.append(f"missing image {src}")
    for link in soup.find_all("a", href=True):
        href = link["href"]
        parts = urlsplit(href)
        if parts.scheme or href.startswith(("mailto:", "javascript:")) or not parts.path:
            continue
        target = (page.parent / unquote(parts.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file() or html_root.resolve() not in target.parents:
            found.append(f"broken link {href}")
            continue
        if parts.fragment and target.suffix == ".html" and parts.fragment not in _ids(target):
            found.append(f"link to a missing anchor {href}")
    return found
