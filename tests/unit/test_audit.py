"""The parts of ``setlab audit`` that need no server: key patterns, the Bloom filter's reserved
rate recovered from BF.INFO, the bits of a sampled bitmap, RDB versions, the sample's interval.

References: RedisBloom's own BF.INFO sizes as the layout model gives them (checked against the
module in tests/lab/runs/test_live_redisbloom.py), rdb.h's RDB_VERSION per release, and a binomial
simulation for the interval.
"""

from __future__ import annotations

import numpy as np
import pytest

from setlab.models import redisbloom
from setlab.tools.audit import findings, patterns, snapshot
from setlab.tools.audit.reader import WINDOW_BYTES, KeyInfo, ReadOnly, windows
from setlab.tools.audit.report import Group


@pytest.mark.parametrize(
    "key, folded",
    [
        ("like:bit:42", "like:bit:{n}"),
        ("session:5f1c2a3b-9d8e-4f70-a1b2-c3d4e5f60718", "session:{uuid}"),
        ("device:0f3a9c2e1b7d4455:seen", "device:{hex}:seen"),
        ("stats:2026-12-07:v2", "stats:{n}-{n}-{n}:v{n}"),
        ("cafebabe", "cafebabe"),  # hex without a digit is a word
        (b"bin:\xff\xfe:1", "bin:\\xff\\xfe:{n}"),
    ],
)
def test_keys_fold_into_patterns(key, folded):
    assert patterns.pattern(key) == folded


@pytest.mark.parametrize(
    "error, capacity, items, expansion, nonscaling",
    [(0.01, 1000, 5000, 2, False), (0.001, 100_000, 50_000, 2, False),
     (0.05, 700, 700, 1, True), (1e-6, 12345, 40_000, 4, False), (0.2, 500, 2000, 2, False)],
)  # fmt: skip
def test_the_reserved_rate_comes_back_from_bf_info(error, capacity, items, expansion, nonscaling):
    layout = redisbloom.ChainLayout(error, capacity, expansion, nonscaling)
    info = layout.info(items)
    found = findings.reserved_error(capacity, info["Size"], info["Number of filters"], items,
                                    expansion, nonscaling)  # fmt: skip
    assert found == error


def test_a_rate_no_round_number_explains_is_found_between_the_ones_that_fit():
    layout = redisbloom.ChainLayout(0.0137, 10_000)
    info = layout.info(10_000)
    found = findings.reserved_error(10_000, info["Size"], 1, 10_000, 2, False)
    assert redisbloom.ChainLayout(found, 10_000).memory(10_000) == info["Size"]
    assert 0.01 < found < 0.02


def _sampled(strlen: int, set_bits: list[int]) -> KeyInfo:
    """A string of ``strlen`` bytes with ``set_bits`` set, read as the audit reads it."""
    data = np.zeros(strlen, dtype=np.uint8)
    for bit in set_bits:
        data[bit // 8] |= 0x80 >> (bit % 8)  # Redis's bit order
    info = KeyInfo(b"k", "string", "raw", size=strlen)
    info.windows = [int(np.unpackbits(data[a : b + 1]).sum()) for a, b in windows(strlen)]
    return info


def test_a_bitmap_with_only_its_top_bit_is_counted_one_not_scaled_from_its_last_window():
    strlen = 64 << 20
    count, most, exact = findings.bits_set(_sampled(strlen, [strlen * 8 - 1]))
    assert (count, exact) == (1, False) and 1 < most < 0.001 * strlen * 8


def test_a_uniform_bitmap_is_estimated_within_its_bound():
    rng = np.random.default_rng(7)
    strlen = 8 << 20
    bits = [*rng.choice(strlen * 8, size=200_000, replace=False).tolist(), strlen * 8 - 1]
    count, most, _ = findings.bits_set(_sampled(strlen, bits))
    assert abs(count - len(bits)) < 0.1 * len(bits) and most >= len(bits)


def test_windows_cover_the_first_and_last_bytes():
    spans = windows(1 << 20)
    assert spans[0][0] == 0 and spans[-1][1] == (1 << 20) - 1
    assert all(b - a + 1 == WINDOW_BYTES for a, b in spans)


@pytest.mark.parametrize(
    "server, newest", [((6, 2, 14), 9), ((7, 0, 15), 10), ((7, 2, 4), 11), ((7, 4, 1), 12),
                       ((8, 0, 2), 12)],
)  # fmt: skip
def test_each_redis_server_loads_the_rdb_formats_of_its_release(server, newest):
    assert snapshot.loadable_version(server) == newest


def test_a_file_that_is_no_rdb_is_refused(tmp_path):
    path = tmp_path / "x.rdb"
    path.write_bytes(b"hello")
    with pytest.raises(ValueError, match="not a Redis RDB snapshot"):
        snapshot.rdb_version(path)


def test_the_sample_interval_holds_the_truth_about_95_times_in_100():
    rng = np.random.default_rng(11)
    total, share, n, inside = 100_000, 0.03, 2000, 0
    for _ in range(400):
        k = int(rng.binomial(n, share))
        group = Group("p", "string", keys=k, scale=total / n, sample=n)
        _, low, high = group.estimated(k)
        inside += low <= share * total <= high
    assert 0.92 < inside / 400 < 0.98


def test_a_command_that_writes_never_reaches_the_socket():
    with pytest.raises(Exception, match="does not send SET"):
        ReadOnly.check(["SET", "k", "v"])
    ReadOnly.check(["MEMORY", "USAGE", "k"])  # allowed: no error


@pytest.mark.parametrize(
    "args, env, said",
    [((), {}, "nothing to audit: set REDIS_URL"),
     (("--timeout", "-1"), {"REDIS_URL": "redis://127.0.0.1:1/0"}, "--timeout must be"),
     (("--rdb", "/nonexistent/dump.rdb"), {}, "no such file")],
)  # fmt: skip
def test_setlab_audit_says_what_is_missing_in_one_line(args, env, said):
    import os
    import subprocess
    import sys

    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | env
    done = subprocess.run([sys.executable, "-m", "setlab", "audit", *args], env=environment,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert said in done.stderr
