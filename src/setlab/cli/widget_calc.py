"""``setlab calc cuckoo-load | sharded-bloom | density``: the calculators behind three of the
book's interactive figures (engines in :mod:`setlab.tools.widget_calcs`).

Registered on ``setlab calc`` by :func:`add_parsers`; each has ``--json``, which the browser tests
compare with what the figures show.
"""

from __future__ import annotations

import argparse
from typing import Any

from setlab.cli.options import count, emit, json_option, typed


def _cuckoo_load(args: argparse.Namespace) -> int:
    from setlab.tools import widget_calcs

    emit(args, [widget_calcs.cuckoo_load(args.bucket_size, args.fingerprint_bits, args.slots)])
    return 0


def _sharded_bloom(args: argparse.Namespace) -> int:
    from setlab.tools import widget_calcs

    emit(args, [widget_calcs.sharded_bloom(args.n, args.shards, args.capacity, args.p)])
    return 0


def _density(args: argparse.Namespace) -> int:
    from setlab.tools import widget_calcs

    emit(args, [widget_calcs.density(args.n, args.range, args.p)])
    return 0


def add_parsers(kinds: Any) -> None:
    """Add the three subcommands to ``setlab calc``'s subparsers."""
    from setlab.core.quantities import parse_probability

    rate = typed(parse_probability, "p")
    p = kinds.add_parser(
        "cuckoo-load", help="load at a cuckoo filter's first failed insert (simulated grid)",
        description="Load factor at the first failed insert of a cuckoo filter (random victims, "
        "500 kicks; the mean of three seeded simulations stored in the package), with bits per "
        "item and the false-positive rate at that load.",
    )  # fmt: skip
    p.add_argument("-b", "--bucket-size", type=count("bucket size"), default=4,
                   help="slots per bucket: 1, 2, 4 or 8 (default 4)")  # fmt: skip
    p.add_argument("-f", "--fingerprint-bits", type=count("fingerprint bits"), default=12,
                   help="fingerprint bits, 4 … 16 (default 12)")  # fmt: skip
    p.add_argument("--slots", type=count("slots"), default=2**14,
                   help="slots in the table: 2^10, 2^12, … 2^18 (default 2^14)")  # fmt: skip
    json_option(p)
    p.set_defaults(func=_cuckoo_load)

    p = kinds.add_parser(
        "sharded-bloom", help="worst-shard false-positive rate of a Bloom filter over many keys",
        description="N items routed by hash over SHARDS Bloom filters, each sized for CAPACITY "
        "items at rate p: the fullest shard's load and rate against the mean.",
    )  # fmt: skip
    p.add_argument("-n", "--items", dest="n", type=count("n"), required=True, help="items")
    p.add_argument("--shards", type=count("shards"), required=True, help="shards (keys)")
    p.add_argument("--capacity", type=count("capacity"), required=True,
                   help="items each shard is sized for")  # fmt: skip
    p.add_argument("-p", "--error", dest="p", type=rate, default=0.01,
                   help="rate each shard is sized for at its capacity (default 1%%)")  # fmt: skip
    json_option(p)
    p.set_defaults(func=_sharded_bloom)

    p = kinds.add_parser(
        "density", help="bytes per ID of every structure for N IDs in a range, and the pick",
        description="N distinct IDs spread uniformly over 0 … RANGE-1 (RANGE at most 2^32, or "
        "2^64 for uniform 64-bit hashes): bytes per ID of a Redis SET, a plain bitmap, Roaring, "
        "Bloom and cuckoo filters and a HyperLogLog, and the structure the advisor picks.",
    )  # fmt: skip
    p.add_argument("-n", "--count", dest="n", type=count("count"), required=True, help="IDs")
    p.add_argument("--range", type=count("range"), default=2**32,
                   help="values the IDs come from (default 2^32; 2^64: hashed IDs)")  # fmt: skip
    p.add_argument("-p", "--error", dest="p", type=rate, default=0.01,
                   help="false-positive rate of the filters (default 1%%)")  # fmt: skip
    json_option(p)
    p.set_defaults(func=_density)
