"""``setlab advise`` on the inputs people give it: pipes, FIFOs and process substitutions (read
once), binary lines (refused, not counted), and HyperLogLog counts (labelled, never above the
lines read).

References: what the writer wrote (``seq``'s lines, the openids generated here, a Python set of
them), and the bit-exact HyperLogLog model of Redis 7.0 (setlab.models.hyperloglog, checked
against PFCOUNT in tests/lab) fed with the same lines for the estimate.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from setlab.models import hyperloglog
from setlab.models import string_ids as sid

OPENID_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
SETLAB = f"{shlex.quote(sys.executable)} -m setlab"


def openids(count: int, seed: int = 0) -> list[bytes]:
    """Openid-like IDs: "o" and 27 characters of [A-Za-z0-9_-] (seed 002's 28 bytes)."""
    rng = np.random.default_rng(seed)
    body = np.frombuffer(OPENID_CHARS, np.uint8)[rng.integers(0, 64, size=(count, 27))]
    return [b"o" + bytes(row) for row in body]


def _bash(command: str) -> subprocess.CompletedProcess:
    """``command`` run by bash, so that ``<(…)`` is a real process substitution (a pipe)."""
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip


# -- read once ------------------------------------------------------------------------------------


def test_a_process_substitution_of_seq_is_read_whole():
    done = _bash(f"{SETLAB} advise <(seq 1 100000)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("100,000 IDs in /dev/fd/"), done.stdout[:200]
    assert "1 … 100,000" in done.stdout


def test_a_process_substitution_of_string_ids_is_read_whole(tmp_path):
    lines = openids(100_000, seed=1)  # 2.9 MB: far more than the 64 KiB looked at first
    path = tmp_path / "openids.txt"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    done = _bash(f"{SETLAB} advise --json <(cat {shlex.quote(str(path))})")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["kind"], data["ids"], data["distinct"]) == ("string", 100_000, len(set(lines)))
    assert data["lengths"] == {"28": len(set(lines))}  # no line cut where the head ended


def _through_fifo(tmp_path: Path, data: bytes, *args: str) -> subprocess.CompletedProcess:
    """``setlab advise FIFO`` while a thread writes ``data`` into the FIFO."""
    fifo = tmp_path / "ids.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as out:  # blocks until setlab opens the FIFO
            out.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        return subprocess.run(
            [sys.executable, "-m", "setlab", "advise", str(fifo), *args], capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip
    finally:
        if writer.is_alive():  # setlab never opened it: let the writer's open return
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(10)


def test_a_named_fifo_of_string_ids_is_read_once_and_whole(tmp_path):
    lines = openids(100_000, seed=2)
    done = _through_fifo(tmp_path, b"".join(line + b"\n" for line in lines), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["ids"], data["distinct"]) == (100_000, len(set(lines)))


def test_a_named_fifo_of_decimal_ids_is_read_once_and_whole(tmp_path):
    values = np.random.default_rng(3).integers(0, 10**12, size=50_000)
    text = "".join(f"{v}\n" for v in values.tolist())
    done = _through_fifo(tmp_path, text.encode(), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["kind"], data["ids"]) == ("decimal", 50_000)
    assert data["distinct"] == np.unique(values).size
    assert (data["low"], data["high"]) == (int(values.min()), int(values.max()))


def test_a_regular_file_is_still_sniffed_by_path():
    strings, source = sid.sniff(__file__)
    assert source == __file__ and strings  # a path back: it can be opened again


# -- binary lines ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, args, message",
    [
        # among string IDs: would have been hashed and counted as one
        (b"alice\nbob\n\x89PNG\r\n\x1a\ncarol\n", (), "line 3: 0x89, a byte that is not UTF-8"),
        (b"alice\nbob\x1b[0m\ncarol\n", (), "line 2: the control byte 0x1b (byte 4 "),
        (b"alice\nbob\nca\xffrl\n", (), "line 3: 0xff, a byte that is not UTF-8 (byte 3 "),
        (b"alice\nbob\nca\xffrl\n", ("--format", "str"), "line 3: 0xff, a byte that"),
        # among decimal IDs past what is looked at first: the integer reader says the same
        ("".join(f"{i}\n" for i in range(1, 20_001)).encode() + b"12\x1b3\n",
         (), "line 20001: the control byte 0x1b (byte 3 "),
        ("".join(f"{i}\n" for i in range(1, 20_001)).encode() + b"\xc3(\n",
         (), "line 20001: 0xc3, a byte that is not UTF-8 (byte 1 "),
    ],
)  # fmt: skip
def test_a_binary_line_is_one_error_naming_it_not_an_id(tmp_path, data, args, message):
    path = tmp_path / "ids.txt"
    path.write_bytes(data)
    done = subprocess.run([sys.executable, "-m", "setlab", "advise", str(path), *args],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert message in done.stderr and "not text, so not an ID" in done.stderr


def test_utf_8_text_is_not_binary():
    lines = ["zoë", "日本語", "emoji🙂", "tab\tinside"]
    found = sid.read_strings(_stream("\n".join(lines).encode()), progress=False)
    assert (found.ids, found.distinct) == (4, 4)


def _stream(data: bytes):
    import io

    return io.BytesIO(data)


# -- estimates ------------------------------------------------------------------------------------


def _estimated(lines: list[bytes]) -> int:
    """What PFADD of ``lines``, then PFCOUNT, says (Redis 7.0's HyperLogLog, bit for bit)."""
    sketch = hyperloglog.HyperLogLog()
    sketch.add_hashes(hyperloglog.hll_hashes(lines))
    return sketch.count()


def test_an_estimate_above_the_lines_is_clamped_to_them_and_says_so(tmp_path):
    lines = openids(100_000, seed=1)
    estimate = _estimated(lines)
    assert estimate > len(lines) == len(set(lines))  # the case this test is about
    path = tmp_path / "openids.txt"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    run = [sys.executable, "-m", "setlab", "advise", str(path), "--memory", "1MiB"]
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, check=True,
                                     timeout=120).stdout)  # fmt: skip
    assert (data["exact"], data["estimate"], data["clamped"]) == (False, estimate, True)
    assert data["distinct"] == data["ids"] == len(lines) and data["duplicates"] == 0
    assert data["distinct_95"][1] == len(lines) and data["duplicates_95"][0] == 0
    assert data["lengths"] == {"28": len(lines)}  # no length above its lines either
    text = subprocess.run(run, capture_output=True, check=True, text=True, timeout=120).stdout
    counts = next(line for line in text.splitlines() if line.startswith("  distinct"))
    assert "estimate" in counts and f"about {len(lines):,} (95%: " in counts
    assert "about 0 duplicates (95%: 0 … " in counts
    assert f"the estimate, {estimate:,}, is above the {len(lines):,} lines read" in text
    assert "1.04/√m, m = 16,384 registers" in text


@pytest.mark.parametrize("seed", range(4))
def test_an_estimated_count_is_never_above_the_lines_and_is_labelled(seed):
    lines = openids(50_000, seed=10 + seed)
    lines += lines[: 1000 * seed]  # some duplicates, some none
    found = sid.parse_strings(_stream(b"\n".join(lines) + b"\n"), memory=1 << 20)
    estimate = _estimated(lines)
    assert not found.exact and found.estimate == estimate
    assert found.distinct == min(estimate, len(lines)) and found.clamped == (estimate > len(lines))
    low, high = found.distinct_95
    assert 1 <= low <= found.distinct <= high <= found.ids
    assert found.duplicates_95 == (found.ids - high, found.ids - low)
    assert all(found.lengths[n] <= found.line_lengths[n] for n in found.lengths)
    assert sum(found.lengths.values()) == found.distinct


def test_an_exact_count_has_no_estimate_and_a_point_interval():
    lines = openids(3000) + openids(500)
    found = sid.parse_strings(_stream(b"\n".join(lines) + b"\n"))
    assert found.exact and found.estimate is None and not found.clamped
    assert found.distinct_95 == (3000, 3000) and found.duplicates_95 == (500, 500)


@pytest.mark.parametrize(
    "counts, total, caps",
    [({28: 1100, 17: 50}, 1030, {28: 1000, 17: 200}), ({28: 1100, 17: 50}, 1200,
     {28: 1000, 17: 200}), ({5: 10, 6: 10, 7: 10}, 25, {5: 3, 6: 100, 7: 100})],
)  # fmt: skip
def test_lengths_scaled_to_the_total_stay_within_their_lines(counts, total, caps):
    scaled = sid._scaled(counts, total, caps)
    assert sum(scaled.values()) == total and all(scaled[n] <= caps[n] for n in scaled)
