"""setlab.core.progress: one line on stderr, rewritten in place, silent unless enabled."""

from __future__ import annotations

from setlab.core.progress import Progress


def test_a_disabled_report_prints_nothing_but_still_counts(capsys):
    report = Progress(100, "work", enabled=False)
    report.update(40)
    report.update(2)
    report.close()
    assert report.done == 42
    assert capsys.readouterr().err == ""


def test_close_prints_count_total_percentage_and_rate_on_stderr(capsys):
    report = Progress(200, "load", unit="bits", every=3600)
    report.update(50)  # within `every` of the start: no intermediate line
    assert capsys.readouterr().err == ""
    report.close()
    err = capsys.readouterr().err
    assert err.startswith("\rload: 50/200 (25%, ETA") and err.endswith(" bits/s\n")


def test_an_unknown_total_prints_no_percentage(capsys):
    report = Progress(None, "reading", every=0.0)
    report.update(1_234)
    err = capsys.readouterr().err
    assert err.startswith("\rreading: 1,234,") and "%" not in err and not err.endswith("\n")
