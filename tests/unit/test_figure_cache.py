"""The figure cache (setlab.core.figure_cache) and the fingerprint it keys on
(setlab.core.fingerprint): a figure computed once is read back by a later process of the same
package, never by one whose package, Python or libraries differ; a damaged or unwritable cache
only means computing again."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from setlab.core import figure_cache, fingerprint
from setlab.render.claims import Figures


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The cache on in this test (the suite turns it off), in a folder of its own."""
    monkeypatch.setattr(figure_cache, "_disabled", False)
    monkeypatch.setenv(figure_cache.CACHE_ENV, str(tmp_path))
    return tmp_path


def _figures(calls: list[str]) -> Figures:
    figures = Figures("demo-chapter")

    @figures.figure("demo-size")
    def _size() -> str:
        calls.append("demo-size")
        return "640 MiB"

    return figures


def test_a_second_process_reads_the_figure_instead_of_computing_it(cache):
    calls: list[str] = []
    assert _figures(calls)["demo-size"] == "640 MiB"
    assert _figures(calls)["demo-size"] == "640 MiB"  # a new Figures: what a new kernel has
    assert calls == ["demo-size"]
    (file,) = cache.rglob("demo-chapter.jsonl")
    assert file.parent.name == fingerprint.package_fingerprint()[:16]
    assert json.loads(file.read_text()) == {"name": "demo-size", "value": "640 MiB"}


def test_another_fingerprint_computes_again(cache, monkeypatch):
    calls: list[str] = []
    _figures(calls)["demo-size"]
    monkeypatch.setattr(figure_cache, "package_fingerprint", lambda: "f" * 64)
    _figures(calls)["demo-size"]
    assert calls == ["demo-size", "demo-size"]
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 2


def test_a_damaged_line_is_computed_again_and_the_rest_still_read(cache):
    calls: list[str] = []
    _figures(calls)["demo-size"]
    (file,) = cache.rglob("demo-chapter.jsonl")
    file.write_text('{"name": "other", "value": "1"}\n{"name": "demo-si')
    assert _figures(calls)["demo-size"] == "640 MiB"
    assert calls == ["demo-size", "demo-size"]
    assert figure_cache.FigureCache(cache, "demo-chapter").get("other") == "1"


@pytest.mark.parametrize("setting", ["off", "0", "none"])
def test_off_writes_nothing(cache, monkeypatch, setting):
    monkeypatch.setenv(figure_cache.CACHE_ENV, setting)
    calls: list[str] = []
    _figures(calls)["demo-size"]
    _figures(calls)["demo-size"]
    assert calls == ["demo-size", "demo-size"]
    assert list(cache.iterdir()) == []


def test_a_folder_that_cannot_be_written_only_means_computing(cache, monkeypatch):
    blocked = cache / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(figure_cache.CACHE_ENV, str(blocked))
    calls: list[str] = []
    assert _figures(calls)["demo-size"] == "640 MiB"
    assert _figures(calls)["demo-size"] == "640 MiB"
    assert calls == ["demo-size", "demo-size"]


def test_the_default_is_the_users_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(figure_cache, "_disabled", False)
    monkeypatch.delenv(figure_cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert figure_cache.root() == tmp_path / "setlab" / "figures"


def test_only_the_newest_fingerprints_are_kept(cache):
    for n in range(figure_cache.KEEP + 3):
        old = cache / f"{n:016x}"
        old.mkdir()
        os.utime(old, (1_000_000 + n, 1_000_000 + n))
    _figures([])["demo-size"]
    kept = sorted(p.name for p in cache.iterdir())
    assert len(kept) == figure_cache.KEEP
    assert fingerprint.package_fingerprint()[:16] in kept
    assert f"{figure_cache.KEEP + 2:016x}" in kept and f"{0:016x}" not in kept


def test_the_tree_digest_sees_every_byte_and_ignores_bytecode(tmp_path):
    (tmp_path / "pkg" / "data").mkdir(parents=True)
    (tmp_path / "pkg" / "model.py").write_text("RATE = 0.01\n")
    (tmp_path / "pkg" / "data" / "run.json").write_text("{}")
    before = fingerprint.tree_digest(tmp_path / "pkg").hexdigest()
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "__pycache__" / "model.cpython-311.pyc").write_bytes(b"\0\1")
    assert fingerprint.tree_digest(tmp_path / "pkg").hexdigest() == before
    (tmp_path / "pkg" / "model.py").write_text("RATE = 0.02\n")
    assert fingerprint.tree_digest(tmp_path / "pkg").hexdigest() != before
    (tmp_path / "pkg" / "model.py").write_text("RATE = 0.01\n")
    (tmp_path / "pkg" / "data" / "run.json").rename(tmp_path / "pkg" / "data" / "run2.json")
    assert fingerprint.tree_digest(tmp_path / "pkg").hexdigest() != before  # names count too


def test_the_package_fingerprint_names_python_and_the_libraries():
    versions = fingerprint.library_versions()
    assert set(versions) == set(fingerprint.LIBRARIES)
    assert versions["numpy"] == __import__("numpy").__version__
    code = "from setlab.core.fingerprint import package_fingerprint as f; print(f())"

    def another_process() -> str:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()

    assert another_process() == another_process()  # the same package: the same key
    assert len(another_process()) == 64


def test_kept_results_are_read_back_per_argument_and_never_across_fingerprints(cache, monkeypatch):
    import numpy as np

    calls: list[tuple] = []

    def simulate(n: int, seed: int = 1) -> np.ndarray:
        calls.append((n, seed))
        return np.random.default_rng(seed).random(n)

    first = figure_cache.kept("demo-sim")(simulate)
    again = figure_cache.kept("demo-sim")(simulate)  # a later process's copy
    assert np.array_equal(first(5, seed=2), again(5, seed=2))
    assert calls == [(5, 2)]
    again(5, 2), again(n=5, seed=2)  # the same call, however its arguments are written
    assert calls == [(5, 2)]
    again(7), again(7, 1), again(7, seed=1)  # the default seed, written or not
    assert calls == [(5, 2), (7, 1)]
    calls.remove((7, 1))
    again(5, seed=3)
    again(np.int64(5), seed=2)  # a numpy scalar is a plain argument too
    assert calls == [(5, 2), (5, 3), (5, 2)]  # repr differs from 5: its own entry
    monkeypatch.setattr(figure_cache, "package_fingerprint", lambda: "e" * 64)
    again(5, seed=2)
    assert calls[-1] == (5, 2) and len(calls) == 4


def test_kept_runs_the_function_for_arguments_it_cannot_name(cache):
    calls: list[int] = []

    @figure_cache.kept("demo-rng")
    def draw(rng) -> int:
        calls.append(1)
        return int(rng.integers(10))

    import numpy as np

    draw(np.random.default_rng(1))
    draw(np.random.default_rng(1))
    assert calls == [1, 1]
    assert not any(cache.rglob("*.pickle"))


def test_a_damaged_result_is_computed_again(cache):
    calls: list[int] = []

    @figure_cache.kept("demo-damaged")
    def value(n: int) -> list[int]:
        calls.append(n)
        return list(range(n))

    value(3)
    (entry,) = cache.rglob("*.pickle")
    entry.write_bytes(b"\x80\x05not a pickle")
    assert value(3) == [0, 1, 2]
    assert calls == [3, 3]


def test_kept_keys_an_array_argument_by_its_bytes(cache):
    import numpy as np

    calls: list[int] = []

    @figure_cache.kept("demo-array")
    def total(values: np.ndarray) -> int:
        calls.append(1)
        return int(values.sum())

    assert total(np.arange(10)) == total(np.arange(10)) == 45
    assert total(np.arange(10).astype(np.uint8)) == 45  # other bytes: its own entry
    assert total(np.arange(1, 11)) == 55
    assert calls == [1, 1, 1]
