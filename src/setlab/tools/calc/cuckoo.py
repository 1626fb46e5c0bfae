"""Cuckoo filters: a table for n items at rate p, and RedisBloom's ``CF.RESERVE`` beside it
(:mod:`setlab.models.cuckoo`, :mod:`setlab.models.redisbloom_cuckoo`)."""

from __future__ import annotations

import math

from setlab.core.formats import format_bytes
from setlab.core.validate import check_int, check_probability
from setlab.models.cuckoo_walls import Spread
from setlab.tools.calc.calculator import Calculator, Given, Option, count, rate
from setlab.tools.calc.report import Report, rate_text, size_text


def cuckoo_sizing(
    n: int,
    p: float | None = 0.01,
    *,
    bucket_size: int = 4,
    load: float | None = None,
    fingerprint_bits: int | None = None,
    max_iterations: int = 20,  # RedisBloom's default MAXITERATIONS
) -> Report:
    """A cuckoo filter for ``n`` items: fingerprint bits for rate ``p`` (or given), a power-of-two
    table kept below ``load`` (default: the load the paper reaches with ``bucket_size``), its
    bytes and rate; then RedisBloom's ``CF.RESERVE`` for the same ``n`` (8-bit fingerprints; its
    table and ``CF.INFO`` Size from :mod:`setlab.models.redisbloom_cuckoo`) with the load at which
    the module first reported full in the reference run.

    Fan et al. 2014: fingerprints of ``ceil(log2(2b/p))`` bits; rate ``1 - (1 - 1/(2^f-1))^(2bα)``
    at load α.
    """
    from setlab.models import bloom, cuckoo, redisbloom_cuckoo

    n = check_int("n", n, 1, 2**50)
    b = check_int("bucket_size", bucket_size, 1, redisbloom_cuckoo.RB_MAX_BUCKET_SIZE)
    if load is None:
        if b not in cuckoo.PAPER_LOAD_FACTORS:
            raise ValueError(f"give --load for bucket size {b} (the paper reports b = 1, 2, 4, 8)")
        load = cuckoo.PAPER_LOAD_FACTORS[b]
    if not 0.0 < float(load) <= 1.0:
        raise ValueError(f"load must be in (0, 1], got {load!r}")
    if fingerprint_bits is None:
        if p is None:
            raise ValueError("give p or the fingerprint bits")
        f = cuckoo.fingerprint_bits_for(check_probability("p", p), b)
    else:
        f = check_int("fingerprint_bits", fingerprint_bits, 2, 32)
    buckets = cuckoo.next_pow2(math.ceil(n / (b * load)))
    slots = buckets * b
    alpha = n / slots
    rate = cuckoo.expected_fpr(b, f, alpha)
    bloom_bits = bloom.bits_per_item(rate)
    report = Report(f"Cuckoo filter: {n:,} items, bucket size {b}, {f}-bit fingerprints")
    report.rows = [
        ("table", f"{buckets:,} buckets × {b} slots = {slots:,} slots (a power of two)"),
        ("load", f"{alpha:.1%} (kept at or below {float(load):.0%})"),
        ("size", size_text(slots * f)),
        ("bits per item", f"{slots * f / n:.2f} ({f} / load)"),
        ("rate at n", f"{rate_text(rate)} (bound 2b/2^f = {rate_text(min(1.0, 2 * b / 2**f))})"),
        ("Bloom, same rate", f"{bloom_bits:.2f} bits/item"),
    ]
    rb_buckets = redisbloom_cuckoo.reserve_buckets(n, b)
    rb_slots = rb_buckets * b
    rb_bytes = redisbloom_cuckoo.info_size(rb_slots)
    rb_load = n / rb_slots
    wall = _redisbloom_cuckoo_wall(b, max_iterations, rb_slots)
    rb_rate = cuckoo.expected_fpr(b, 8, min(rb_load, 1.0))
    report.rows += [
        ("RedisBloom", f"CF.RESERVE key {n} BUCKETSIZE {b} MAXITERATIONS {max_iterations}: "
                       f"{rb_buckets:,} buckets, {format_bytes(rb_bytes)}, load {rb_load:.1%}, "
                       f"8-bit fingerprints → rate {rate_text(rb_rate)}"),
    ]  # fmt: skip
    if wall is not None:
        spread, at = wall
        report.rows.append(
            (
                "RedisBloom wall",
                f"first 'full' at {spread.percent()} load (median, lowest–highest over "
                f"{spread.count} streams at 2^{at} slots, reference run; then it adds a "
                "sub-filter)",
            )
        )
        if rb_load > spread.low:
            report.notes.append(
                f"at {rb_load:.1%} load RedisBloom may run into failed inserts (its wall is "
                f"{spread.percent()} with b = {b}, {max_iterations} iterations): reserve "
                f"{math.ceil(n / spread.low):,} or more"
            )
        if rb_slots > 2**at:
            report.notes.append(
                f"the wall was measured up to 2^{at} slots; with small buckets or few iterations "
                "it is lower in bigger tables"
            )
    if f > 8:
        report.notes.append(
            f"RedisBloom's fingerprints are 8 bits whatever you need: its rate is "
            f"{rate_text(rb_rate)}, not {rate_text(rate)}"
        )
    report.data = {
        "n": n, "bucket_size": b, "fingerprint_bits": f, "buckets": buckets, "load": alpha,
        "bytes": math.ceil(slots * f / 8), "bits_per_item": slots * f / n, "fpr": rate,
        "bloom_bits_per_item_same_rate": bloom_bits,
        "redisbloom": {"buckets": rb_buckets, "bytes": rb_bytes, "load": rb_load, "fpr": rb_rate,
                       "wall_load": None if wall is None else wall[0].median,
                       "wall_low": None if wall is None else wall[0].low,
                       "max_iterations": max_iterations},
    }  # fmt: skip
    return report


def _redisbloom_cuckoo_wall(
    bucket_size: int, max_iterations: int, slots: int
) -> tuple[Spread, int] | None:
    """Load at which RedisBloom first answered "full" (``EXPANSION 0``): median and range over
    the streams of the stored run at the measured table size nearest ``slots`` (it depends on
    the size), and that size as log2 slots
    (:class:`setlab.lab.full_scale.cuckoo_walls.CuckooWallsReference`, package data); None for a
    configuration the run did not measure."""
    from setlab.lab.full_scale.cuckoo_walls import stored

    sizes = stored().sizes()
    at = min(sizes, key=lambda k: abs(k - math.log2(slots)))
    try:
        return stored().first_fail(at, bucket_size, max_iterations), at
    except ValueError:
        return None


def _run(given: Given) -> list[Report]:
    """``setlab calc cuckoo``."""
    return [cuckoo_sizing(
        given["n"], given["p"], bucket_size=given["bucket_size"], load=given["load"],
        fingerprint_bits=given["fingerprint_bits"], max_iterations=given["max_iterations"],
    )]  # fmt: skip


CALCULATOR = Calculator(
    "cuckoo",
    help="size a cuckoo filter (and RedisBloom's CF.RESERVE)",
    description="A cuckoo filter for n items at rate p: fingerprint bits, table, bytes, "
    "the rate it reaches; then RedisBloom's CF with its fixed 8-bit fingerprints.",
    options=(
        Option(("-n", "--items"), "items", dest="n", read=count("n"), required=True),
        Option(("-p", "--error"), "target false-positive rate (default 1%)", dest="p",
               read=rate("p"), default=0.01),
        Option(("-b", "--bucket-size"), "slots per bucket (default 4)",
               read=count("bucket size"), default=4),
        Option(("--load",), "highest load to plan for (default: the paper's for this bucket "
               "size)", read=rate("load")),
        Option(("-f", "--fingerprint-bits"), "fingerprint bits (default: enough for p)",
               read=count("fingerprint bits")),
        Option(("--max-iterations",), "RedisBloom MAXITERATIONS (default 20)",
               read=count("max iterations"), default=20),
    ),
    run=_run,
    key_bytes="bytes",
    example="setlab calc cuckoo -n 1.2e8 -p 0.03%",
)  # fmt: skip
