"""``setlab calc birthday | setbit``: the two bitmap calculators behind the birthday explorer and
the SETBIT offset figure (engines in :mod:`setlab.tools.calc.birthday` and
:mod:`setlab.tools.calc.setbit`).

Registered on ``setlab calc`` by :func:`add_parsers`; each has ``--json``, which the browser tests
compare with what the figures show.
"""

from __future__ import annotations

import argparse
from typing import Any

from setlab.cli.options import count, emit, json_option


def _birthday(args: argparse.Namespace) -> int:
    from setlab.tools.calc.birthday import birthday_report

    emit(args, [birthday_report(args.n, args.bits)])
    return 0


def _setbit(args: argparse.Namespace) -> int:
    from setlab.tools.calc.setbit import setbit_report

    emit(args, [setbit_report(args.offset)])
    return 0


def add_parsers(kinds: Any) -> None:
    """Add ``birthday`` and ``setbit`` to ``setlab calc``'s subparsers."""

    p = kinds.add_parser(
        "birthday", help="chance that n hashed IDs share one of 2^bits offsets",
        description="n distinct IDs hashed uniformly into a bitmap of 2^bits offsets: the exact "
        "chance that two share an offset (the birthday problem), the expected number of sharing "
        "pairs, and the most IDs that keep the chance at or below 1%%.",
    )  # fmt: skip
    p.add_argument("-n", "--ids", dest="n", type=count("n"), required=True, help="IDs hashed")
    p.add_argument("--bits", type=count("bits"), required=True,
                   help="log2 of the offset space M (1 to 64)")  # fmt: skip
    json_option(p)
    p.set_defaults(func=_birthday)

    p = kinds.add_parser(
        "setbit", help="what a first SETBIT at an offset allocates, and how long it took",
        description="SETBIT key OFFSET 1 on a key that does not exist: STRLEN, the jemalloc "
        "block, MEMORY USAGE (one-letter key), and the time inside Redis in the stored reference "
        "run, interpolated between its measured offsets.",
    )  # fmt: skip
    p.add_argument("offset", type=count("offset", low=0), help="bit offset (0 to 2^32 - 1)")
    json_option(p)
    p.set_defaults(func=_setbit)
