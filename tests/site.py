"""Check a built site as a reader's browser sees it: serve it on localhost, open every page in
headless Chromium, and look for tracebacks, error output, missing images and broken links."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

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


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


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


def screenshot(url: str, path: Path, dark: bool = False, height: int = 6000) -> None:
    """A full-width screenshot (light, or dark via prefers-color-scheme)."""
    extra = ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] if dark else []
    _run_chromium([
        *extra, "--virtual-time-budget=10000", f"--window-size=1280,{height}",
        f"--screenshot={path}", url,
    ])  # fmt: skip


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
