"""The tests' one Playwright browser on the system Chromium (no browser download).

The ``browser`` fixture (tests/conftest.py) starts Chromium once per test process (each
pytest-xdist worker has its own) and hands every test the same :class:`Session`, emptied of
what the previous test saw. Every request that leaves 127.0.0.1 is aborted and recorded, and
every console error is recorded, so a test can assert that a page works offline and without
errors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from tests.support.site import chromium

LOOPBACK = {"127.0.0.1", "localhost", ""}


@dataclass
class Session:
    """A browser context plus what it saw: requests off loopback and console errors."""

    context: object
    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    pages: list = field(default_factory=list)

    def page(self, width: int = 1280, height: int = 800, dark: bool = False):
        """A new page of ``width`` × ``height`` CSS px, in dark mode if ``dark``."""
        page = self.context.new_page()
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme="dark" if dark else "light")
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.pages.append(page)
        return page

    def reset(self) -> None:
        """Close every page and forget what was seen (between two tests)."""
        for page in self.pages:
            with contextlib.suppress(Exception):
                page.close()
        self.pages.clear()
        self.outside.clear()
        self.errors.clear()


@contextlib.contextmanager
def open_browser() -> Iterator[Session]:
    """Start the system Chromium under Playwright; requests off loopback are recorded and
    aborted (the site must work offline)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium(),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-quic"],
        )  # fmt: skip
        context = browser.new_context()
        session = Session(context)

        def route(r):
            host = urlsplit(r.request.url).hostname or ""
            if r.request.url.startswith(("data:", "blob:")) or host in LOOPBACK:
                r.continue_()
            else:
                session.outside.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        try:
            yield session
        finally:
            context.close()
            browser.close()
