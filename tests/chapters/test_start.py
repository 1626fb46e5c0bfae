"""What every page opens with (``lab = chapter.start()``, :func:`setlab.chapters.open_page`): the
backend's one-line banner first, the lab in the chapter's own namespace, every figure glued once
for the prose, a line for a ``SETLAB_SCALE`` other than 1, and nothing else unless the chapter
passes notes (the chapters that do test their notes against their stored runs' JSON)."""

from __future__ import annotations

import importlib
import inspect
import re
from types import ModuleType

import matplotlib
import pytest

from setlab.lab.backend import Lab
from setlab.site.registry import CHAPTERS

matplotlib.use("Agg")


def opened(chapter: ModuleType, monkeypatch, capsys) -> tuple[Lab, list[str], list]:
    """``chapter.start()`` on the embedded backend at scale 1, its plot style undone afterwards:
    the lab, the lines it printed, and each call to glue the chapter's figures (the names asked
    for, None for all; recorded, not displayed)."""
    glued: list = []
    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    for name in ("SETLAB_SCALE", "SETLAB_USER", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(chapter.FIGURES, "glue", lambda names=None: glued.append(names))
    capsys.readouterr()
    with matplotlib.rc_context():
        lab = chapter.start()
    return lab, capsys.readouterr().out.splitlines(), glued


def _module(slug: str) -> ModuleType:
    return importlib.import_module("setlab.chapters." + slug.replace("-", "_"))


def _without_notes(chapter: ModuleType) -> bool:
    """Whether ``start`` is only ``open_page(FIGURES)``: then the banner is all it prints."""
    body = inspect.getsource(chapter.start).split('"""')[-1]
    return re.fullmatch(r"\s*return open_page\(FIGURES\)\s*", body) is not None


@pytest.mark.parametrize("slug", CHAPTERS)
def test_a_page_opens_with_the_banner_in_its_namespace_and_every_figure_glued(
    slug, monkeypatch, capsys
):
    chapter = _module(slug)
    lab, lines, glued = opened(chapter, monkeypatch, capsys)
    try:
        assert lines[0] == lab.banner and lab.banner.startswith("embedded fakeredis ")
        assert lab.namespace == f"setlab:{slug}:"
        assert glued == [None]  # every figure, once
        if _without_notes(chapter):
            assert lines == [lab.banner]
    finally:
        lab.cleanup()


def test_a_scale_other_than_one_is_said_after_the_notes(monkeypatch, capsys):
    from setlab.chapters import open_page
    from setlab.render.claims import Figures

    figures = Figures("scratch-page")
    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    monkeypatch.setenv("SETLAB_SCALE", "2.5")
    monkeypatch.delenv("REDIS_URL", raising=False)
    with matplotlib.rc_context():
        lab = open_page(figures, "first note", "second note")
    try:
        assert capsys.readouterr().out.splitlines() == [
            lab.banner,
            "first note",
            "second note",
            "SETLAB_SCALE=2.5: the page's simulations and runs are 2.5× their size",
        ]
    finally:
        lab.cleanup()
