"""What the page of the chapter audit opens with (setlab.chapters.audit.start): the banner
alone, since the demo's cell names the run its audit comes from, in the chapter's namespace."""

from __future__ import annotations

from setlab.chapters import audit as chapter


def test_the_page_opens_with_the_banner_alone_in_the_chapters_namespace(monkeypatch, capsys):
    monkeypatch.setenv("SETLAB_BACKEND", "fake")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SETLAB_SCALE", raising=False)
    monkeypatch.delenv("SETLAB_USER", raising=False)
    lab = chapter.start()
    try:
        (banner,) = capsys.readouterr().out.splitlines()
        assert banner.startswith("embedded fakeredis ")
        assert lab.key("x") == "setlab:audit:x"
    finally:
        lab.cleanup()
