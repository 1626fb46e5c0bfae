"""What the page of the chapter choosing opens with (setlab.chapters.choosing.start): its figures
come from the models alone, so it names no stored run, and its keys live in its own namespace."""

from __future__ import annotations

from setlab.chapters import choosing as chapter


def test_the_page_opens_with_the_banner_alone_in_the_chapters_namespace(monkeypatch, capsys):
    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SETLAB_SCALE", raising=False)
    monkeypatch.delenv("SETLAB_USER", raising=False)
    lab = chapter.start()
    try:
        (banner,) = capsys.readouterr().out.splitlines()
        assert banner.startswith("embedded fakeredis ")
        assert lab.key("x") == "setlab:choosing:x"
    finally:
        lab.cleanup()
