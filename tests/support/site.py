"""Check a built site as a reader's browser sees it: serve it on localhost, open every page in
headless Chromium, and look for tracebacks, error output, missing images and broken links — and,
measured in the page itself (site_measure.js, injected when the URL asks for it), for what makes a
page hard to read: tables or code that stick out of the column or scroll without a visible hint,
figures whose text is smaller than 11 px on screen or that are blurry PNGs, alt text that is a
file name, and verdict colours below 4.5:1 contrast in light or dark mode."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

from bs4 import BeautifulSoup

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--hide-scrollbars",
]  # fmt: skip


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

#: Headless Chromium will not make a window narrower than this; narrower views (a 390 px phone)
#: are an iframe of that width on a page served for the purpose (``/__frame__``).
MIN_WINDOW = 500
_FRAME = """<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe src="{src}" width="{width}" height="{height}" style="border:0;display:block"></iframe>
<script>window.addEventListener("message", function (event) {{
  var out = document.createElement("script"); out.type = "application/json";
  out.id = "setlab-measure"; out.textContent = event.data; document.body.append(out);
}});</script></body></html>"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site; a page asked for with ``?setlab-measure=1`` gets site_measure.js."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path == "/__frame__":
            query = parse_qs(parts.query)
            frame = _FRAME.format(src=query["src"][0], width=int(query["width"][0]),
                                  height=int(query["height"][0]))  # fmt: skip
            self._send(frame.encode())
            return
        if "setlab-measure" not in parse_qs(parts.query) or not parts.path.endswith(".html"):
            super().do_GET()
            return
        path = Path(self.translate_path(parts.path))
        if not path.is_file():
            self.send_error(404)
            return
        page = path.read_text()
        script = f"<script>{MEASURE_JS}</script>"
        self._send(page.replace("</body>", script + "</body>", 1).encode())

    def _send(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _run_chromium(args: list[str], timeout: int = 120) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip


def rendered_dom(url: str) -> str:
    """The page's DOM after its scripts ran (MathJax typesetting included)."""
    result = _run_chromium(["--virtual-time-budget=10000", "--dump-dom", url])
    return result.stdout


DARK = ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"]


def _framed(url: str, width: int, height: int) -> str:
    """``url`` itself, or a page showing it in an iframe ``width`` px wide when the browser
    window cannot be that narrow."""
    if width >= MIN_WINDOW:
        return url
    parts = urlsplit(url)
    inner = parts.path + (f"?{parts.query}" if parts.query else "")
    return (f"{parts.scheme}://{parts.netloc}/__frame__?width={width}&height={height}"
            f"&src={quote(inner, safe='')}")  # fmt: skip


def screenshot(
    url: str, path: Path, dark: bool = False, height: int = 6000, width: int = 1280
) -> None:
    """A screenshot ``width`` px wide (light, or dark via prefers-color-scheme). Below
    :data:`MIN_WINDOW` px the page is in an iframe of that width at the image's left edge."""
    extra = DARK if dark else []
    _run_chromium([
        *extra, "--virtual-time-budget=10000", f"--window-size={max(width, MIN_WINDOW)},{height}",
        f"--screenshot={path}", _framed(url, width, height),
    ])  # fmt: skip
    if width < MIN_WINDOW and path.is_file():
        from PIL import Image

        with Image.open(path) as image:
            image.crop((0, 0, width, image.height)).save(path)


def measure(url: str, width: int = 1280, dark: bool = False) -> dict:
    """What a reader sees on the page at ``url`` (served by :func:`serve`), measured in the
    browser at ``width`` px, light or dark: see site_measure.js."""
    query = "setlab-measure=1" + ("&setlab-theme=dark" if dark else "&setlab-theme=light")
    extra = DARK if dark else []
    page = f"{url}{'&' if '?' in url else '?'}{query}"
    result = _run_chromium([
        *extra, "--virtual-time-budget=15000", f"--window-size={max(width, MIN_WINDOW)},900",
        "--dump-dom", _framed(page, width, 900),
    ])  # fmt: skip
    found = re.search(r'<script type="application/json" id="setlab-measure">(.*?)</script>',
                      result.stdout, re.S)  # fmt: skip
    if not found:
        raise RuntimeError(f"no measurement from {url} at {width} px: {result.stderr[-500:]}")
    return json.loads(found.group(1))


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
    the column)."""
    found = [f"sticks out of the column by {c['overBy']} px: {c['what']}" for c in seen["clipped"]]
    for s in seen["scrolling"]:
        if not s["hinted"]:
            found.append(f"scrolls sideways without a hint ({s['overBy']} px): {s['what']}")
        elif wide:
            found.append(f"{s['kind']} wider than the column by {s['overBy']} px: {s['what']}")
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
        if parts.fragment and target.suffix == ".html":
            ids = BeautifulSoup(target.read_text(), "html.parser").find_all(id=parts.fragment)
            if not ids:
                found.append(f"link to a missing anchor {href}")
    return found
