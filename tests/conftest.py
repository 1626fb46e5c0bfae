"""Shared fixtures: a private real redis-server for live tests, the embedded lab for the rest,
the book built on the embedded backend, and the one browser.

Live tests start their own server on a free loopback port (never 6379) through setlab.lab.server.
Where no redis-server is installed they are skipped — unless SETLAB_REQUIRE_LIVE=1 (CI sets it),
which turns the skip into a failure so a missing server can never pass silently. The browser
tests skip without Chromium unless SETLAB_REQUIRE_BROWSER=1 (CI sets it too).

Figures: this process computes every figure afresh (a test checks a figure against an oracle,
not against a cache); the kernels and builds it starts share the checkout's figure cache and
execution cache under ``_build/.cache`` (``make test-fresh`` empties them).
"""

from __future__ import annotations

import contextlib
import os

import pytest

import setlab
import setlab.lab.backend  # live_lab patches it, whatever else a test module imports
from setlab.core import figure_cache
from setlab.lab.server import RedisServer, find_redis_server
from tests.support.notebooks import FIGURE_CACHE
from tests.support.site import chromium

REQUIRE_LIVE = os.environ.get("SETLAB_REQUIRE_LIVE", "").lower() in {"1", "true", "yes"}
REQUIRE_BROWSER = os.environ.get("SETLAB_REQUIRE_BROWSER", "").lower() in {"1", "true", "yes"}

figure_cache.disable()
os.environ.setdefault(figure_cache.CACHE_ENV, str(FIGURE_CACHE))
#: seconds a test may take before pytest-timeout fails it: 15 min for most (pyproject), an hour
#: for the book builds and the chapter runs, which take minutes on a loaded 2-core machine
BOOK_TIMEOUT_S = 3600
#: The tests that take minutes and wait for nothing another test makes: each goes at the head
#: of one pytest-xdist worker's queue, so that they start at once on two workers. In collection
#: order the embedded and live builds (and then a Binder install, since replaced by pip's
#: resolver) ran one after the other on one worker, which ended 170 s after the others.
FIRST = (
    "tests/book/test_book.py::test_book_builds_on_the_embedded_backend",
    "tests/book/test_book.py::test_book_builds_on_live_redis",
)
#: Modules whose module-scoped fixture is dear (a server, a three-master cluster, a wheel built
#: and installed, every page visited in four views): ``make test``'s ``--dist loadgroup`` runs
#: each on one worker, so the fixture is made once (see pytest_xdist_make_scheduler). Under
#: ``--dist worksteal`` (stop 36) a stolen half of a module made it again on another worker: a
#: cold run took 38 CPU-minutes, not 31.
ONE_WORKER = frozenset(
    {
        "tests/browser/test_site.py",
        "tests/browser/test_site_checks.py",
        "tests/lab/test_live_allocator.py",
        "tests/lab/classroom/test_live_classroom.py",
        "tests/lab/classroom/test_live_classroom_limits.py",
        "tests/lab/test_live_cluster.py",
        "tests/lab/runs/test_live_cluster_bloom.py",
        "tests/lab/test_live_versions.py",
        "tests/book/test_wheel.py",
    }
)


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadgroup`` with ONE_WORKER's modules as the groups; every other test is a unit
    of its own, handed out in order as workers finish (three pending on each).

    pytest-xdist 3.8's own loadgroup reads ``xdist_group`` marks by appending ``@group`` to each
    item's ``_nodeid``, which pytest 9 no longer reads: every test ran ungrouped."""
    if config.getvalue("dist") != "loadgroup":
        return None
    # in collection order (FIRST at the head), not pytest-xdist's default of the largest group first
    config.option.loadscopereorder = False
    from xdist.scheduler import LoadScopeScheduling

    class OneWorkerModules(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::")[0]
            return module if module in ONE_WORKER else nodeid

    return OneWorkerModules(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    """A failed test's report also says where each figure its failure names is defined
    (tests/support/figure_names.py): a name built by an f-string is found by no grep."""
    report = yield
    if report.failed and report.when == "call":
        from tests.support.figure_names import figure_locations

        try:
            lines = figure_locations(str(report.longrepr))
        except Exception:  # the package itself is broken: the failure says so already
            lines = []
        if lines:
            report.sections.append(("where the figures named above are defined", "\n".join(lines)))
    return report


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("book") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(BOOK_TIMEOUT_S))
    first = [
        next((item for item in items if item.nodeid.startswith(prefix)), None) for prefix in FIRST
    ]
    first = [item for item in first if item is not None]
    # a pytest-xdist worker is told "loadgroup" (xdist.remote.setup_config sets its dist to "no")
    if config.getoption("dist", "no") == "loadgroup" or config.getoption("loadgroup", False):
        # pytest-xdist's --dist loadgroup (make test) hands out one test (or group) at a time,
        # in order, keeping three pending per worker (xdist.scheduler.loadscope._reschedule):
        # the first three go to three workers. What reads the embedded build goes last: handed
        # out early (stop 37), browser tests sat 167–303 s waiting for the build.
        # That part ends the run, so its longest tests head it (SITE_LONGEST): the worker that
        # drew the last long one no longer ends 70 s after the others.
        rest = sorted(
            (item for item in items if item not in first),
            key=lambda item: (_reads_site(item), _site_rank(item)),
        )
        items[:] = first + rest
        return
    # --dist load gives each worker a first chunk of a quarter of its share
    # (xdist.scheduler.load.LoadScheduling.schedule), and the rest as they finish
    rest = [item for item in items if item not in first]
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    chunk = max(2, len(items) // workers // 4)
    for n, item in enumerate(first):
        rest.insert(n * chunk, item)
    items[:] = rest


#: The tests that read the embedded build and take longest, longest first (a cold run's seconds,
#: stop 43): handed out first in their part, so the short ones fill the end of the run
SITE_LONGEST = (
    "tests/browser/test_site.py::",  # 158 s: every page visited in four views
    "tests/book/test_notebooks.py::test_a_downloaded_chapter_runs_in_a_fresh_jupyter",  # 50 s
    "tests/browser/test_jupyterlab.py::",  # 57 s, two tests
    "tests/browser/test_widgets_filters_density_browser.py::test_screenshots",  # 37 s
    "tests/browser/test_site_exercises.py::test_no_answer_is_visible",  # 26 s
)


def _site_rank(item: pytest.Item) -> int:
    """Where ``item`` goes among the tests that read the embedded build (SITE_LONGEST)."""
    ranks = (n for n, prefix in enumerate(SITE_LONGEST) if item.nodeid.startswith(prefix))
    return next(ranks, len(SITE_LONGEST))


def _reads_site(item: pytest.Item) -> bool:
    """Whether ``item`` reads the book built on the embedded backend (``fake_book_html``):
    asked for as an argument, or while running (marked ``site``)."""
    return "fake_book_html" in item.fixturenames or item.get_closest_marker("site") is not None


def need_chromium() -> None:
    """Skip (or, with SETLAB_REQUIRE_BROWSER=1, fail) when the system Chromium is missing."""
    if chromium() is not None:
        return
    if REQUIRE_BROWSER:
        pytest.fail("SETLAB_REQUIRE_BROWSER=1 but chromium is not installed")
    pytest.skip("chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="session")
def browser_session():
    """The one Playwright Chromium of this test process (module fixtures may hold it)."""
    from tests.support.browser import open_browser

    need_chromium()
    with open_browser() as session:
        yield session


@pytest.fixture
def browser(browser_session):
    """The shared browser for one test: no page open, nothing seen yet."""
    browser_session.reset()
    yield browser_session
    browser_session.reset()


def _need_redis_server() -> None:
    if find_redis_server():
        return
    if REQUIRE_LIVE:
        pytest.fail("SETLAB_REQUIRE_LIVE=1 but no redis-server binary is installed")
    pytest.skip("no redis-server binary installed (apt-get install redis-server)")


def start_class_server(maxmemory: str = "256mb"):
    """``classroom.start_server`` on a port picked free, picking again if another process takes
    it before the server binds it (a kernel's ZMQ ports are picked the same way; stop 37 lost a
    module's class server to it). start_server refuses a taken port, as it must for a reader."""
    from setlab.lab import classroom
    from setlab.lab.server import PortInUse, free_port

    _need_redis_server()
    for _ in range(2):
        with contextlib.suppress(PortInUse):
            return classroom.start_server(port=free_port(), maxmemory=maxmemory)
    return classroom.start_server(port=free_port(), maxmemory=maxmemory)


@pytest.fixture(scope="session")
def redis_server():
    """One private redis-server (with RedisBloom when available) for the whole test session."""
    _need_redis_server()
    server = RedisServer.start()
    yield server
    server.stop()


@pytest.fixture
def foreign_server():
    """A fresh redis-server that setlab treats as somebody else's (reached through REDIS_URL)."""
    _need_redis_server()
    server = RedisServer.start(module=False)
    yield server
    server.stop()


@pytest.fixture
def live_lab(monkeypatch, redis_server, request):
    """A Lab on the session's private server, as if setlab had started it; cleaned up after."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SETLAB_USER", raising=False)
    monkeypatch.setattr(setlab.lab.backend, "_private_server", redis_server)
    chapter = "test-" + request.node.name.split("[")[0][-40:].replace("_", "-").strip("-")
    lab = setlab.connect(chapter, backend="live", quiet=True)
    yield lab
    lab.cleanup()
    lab.close()


@pytest.fixture
def fake_lab(request):
    """A Lab on embedded fakeredis, cleaned up after."""
    chapter = "test-" + request.node.name.split("[")[0][-40:].replace("_", "-").strip("-")
    lab = setlab.connect(chapter, backend="fake", quiet=True)
    yield lab
    lab.cleanup()


@pytest.fixture(scope="module")
def fake_lab_module(request):
    """A module-scoped embedded Lab (for hypothesis tests, which dislike function fixtures)."""
    lab = setlab.connect(
        "test-" + request.module.__name__.split(".")[-1].replace("_", "-"),
        backend="fake",
        quiet=True,
    )
    yield lab
    lab.cleanup()


@pytest.fixture(scope="session")
def fake_book_html():
    """The whole book built on the embedded backend (the site tests read it): one build per
    fingerprint of the book and the package, shared by every test process and every run."""
    import re

    from tests.support.notebooks import built_site

    code, report, html = built_site("fake")
    assert code == 0, f"book build failed on the embedded backend:\n{report}"
    assert not re.search(r": WARNING: ", report), report
    assert (html / "index.html").is_file()
    return html
