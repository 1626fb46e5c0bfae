"""Every calculator of ``setlab calc``, in one table: what the command registers, what its help
lists and what the book's widgets are checked against.

Each :class:`Calculator` names its subcommand, its one-line help and description, the options it
takes and the function that runs it; every one has ``--json``. The engines live in
:mod:`setlab.tools.calc` (bloom, cuckoo, roaring, set, hll, birthday, setbit) and
:mod:`setlab.tools.widget_calcs` (cuckoo-load, sharded-bloom, density); a widget's readouts are
those engines' values, and ``tests/browser/test_widgets_browser.py`` compares each widget with
``setlab calc <name> --json`` of the calculator the widget names. Engines are imported when a
calculator runs, so ``setlab calc`` starts without loading Redis clients or matplotlib.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from setlab.cli.options import (
    count,
    emit,
    format_option,
    json_option,
    max_ids_option,
    progress_option,
    redis_option,
    scale_options,
    typed,
)
from setlab.core.quantities import parse_bits, parse_probability, parse_range


@dataclass(frozen=True)
class Calculator:
    """One ``setlab calc`` subcommand."""

    name: str
    help: str  #: the line ``setlab calc --help`` lists
    description: str  #: what ``setlab calc <name> --help`` opens with
    arguments: Callable[[argparse.ArgumentParser], None]  #: adds its options (not --json)
    run: Callable[[argparse.Namespace], int]  #: prints the report; the exit code
    #: the report's field holding one key's bytes: the calculator takes --sets and
    #: --server-memory and prints the total (None: it sizes no single key)
    key_bytes: str | None = None


def add_parsers(kinds: argparse._SubParsersAction) -> None:
    """Register every calculator of :data:`CALCULATORS` on ``setlab calc``'s subparsers."""
    for calculator in CALCULATORS:
        p = kinds.add_parser(
            calculator.name, help=calculator.help, description=calculator.description
        )
        calculator.arguments(p)
        if calculator.key_bytes:
            scale_options(p)
        json_option(p)
        p.set_defaults(func=calculator.run, key_bytes=calculator.key_bytes)


#: the rate options' type
_rate = typed(parse_probability, "p")


# -- what each calculator runs --------------------------------------------------------------------


def _calc_bloom(args: argparse.Namespace) -> int:
    from setlab.tools import calc

    solution = calc.solve_bloom(args.n, args.p, args.m, args.k)
    reports = [calc.bloom_report(solution)]
    if args.redisbloom or args.expansion is not None or args.nonscaling:
        reports.append(
            calc.redisbloom_layout(
                solution.n,
                solution.p if args.p is None else args.p,
                expansion=2 if args.expansion is None else args.expansion,
                nonscaling=args.nonscaling,
                load=args.load,
            )
        )
    elif args.load is not None:
        raise ValueError("--load is for the RedisBloom layout: add --redisbloom")
    emit(args, reports)
    return 0


def _calc_cuckoo(args: argparse.Namespace) -> int:
    from setlab.tools import calc

    report = calc.cuckoo_sizing(
        args.n, args.p, bucket_size=args.bucket_size, load=args.load,
        fingerprint_bits=args.fingerprint_bits, max_iterations=args.max_iterations,
    )  # fmt: skip
    emit(args, [report])
    return 0


def _calc_roaring(args: argparse.Namespace) -> int:
    from setlab.models.ids import read_ids
    from setlab.tools import calc

    if args.file is not None:
        if args.count is not None or args.range is not None or args.dense:
            raise ValueError("give a FILE or --count/--range/--dense, not both")
        report = calc.roaring_from_ids(
            read_ids(args.file, args.progress, args.format, args.max_ids)
        )
    else:
        if args.count is None:
            raise ValueError("give a FILE of IDs, or --count N (and --range LOW:HIGH)")
        low, high = args.range or (0, 2**32)
        report = calc.roaring_estimate(args.count, low, high, dense=args.dense, seed=args.seed)
    emit(args, [report])
    return 0


def _calc_set(args: argparse.Namespace) -> int:
    from setlab.models.ids import read_ids
    from setlab.tools import calc

    if args.file is not None:
        if args.members is not None:
            raise ValueError("give a FILE or --members N, not both")
        report = calc.set_from_ids(
            read_ids(args.file, args.progress, args.format, args.max_ids), args.redis
        )
    else:
        if args.members is None:
            raise ValueError("give a FILE of IDs, or --members N (with --type, --length)")
        report = calc.set_estimate(
            args.members, args.type, length=args.length, start=args.start, version=args.redis
        )
    emit(args, [report])
    return 0


def _calc_hll(args: argparse.Namespace) -> int:
    from setlab.tools import calc

    emit(args, [calc.hll_estimate(args.n)])
    return 0


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


def _birthday(args: argparse.Namespace) -> int:
    from setlab.tools.calc.birthday import birthday_report

    emit(args, [birthday_report(args.n, args.bits)])
    return 0


def _setbit(args: argparse.Namespace) -> int:
    from setlab.tools.calc.setbit import setbit_report

    emit(args, [setbit_report(args.offset)])
    return 0


# -- the options of each ------------------------------------------------------------------------


def _bloom_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--items", dest="n", type=count("n"), help="items (e.g. 1.2e8)")
    p.add_argument(
        "-p",
        "--error",
        dest="p",
        type=typed(parse_probability, "p"),
        help="false-positive rate at n items (e.g. 1%%)",
    )
    p.add_argument(
        "-m",
        "--size",
        dest="m",
        type=typed(parse_bits, "m"),
        help="bits, or a size with a unit (e.g. 128MiB)",
    )
    p.add_argument("-k", "--hashes", dest="k", type=count("k"), help="hash functions")
    p.add_argument(
        "--redisbloom", action="store_true", help="also show RedisBloom's BF.RESERVE p n layout"
    )
    p.add_argument(
        "--expansion",
        type=count("expansion"),
        help="RedisBloom EXPANSION (default 2; implies --redisbloom)",
    )
    p.add_argument("--nonscaling", action="store_true", help="RedisBloom NONSCALING")
    p.add_argument(
        "--load",
        type=count("load", low=0),
        help="items actually added, for the RedisBloom layout (default n)",
    )


def _cuckoo_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--items", dest="n", type=count("n"), required=True, help="items")
    p.add_argument(
        "-p",
        "--error",
        dest="p",
        type=typed(parse_probability, "p"),
        default=0.01,
        help="target false-positive rate (default 1%%)",
    )
    p.add_argument(
        "-b",
        "--bucket-size",
        type=count("bucket size"),
        default=4,
        help="slots per bucket (default 4)",
    )
    p.add_argument(
        "--load",
        type=typed(parse_probability, "load"),
        help="highest load to plan for (default: the paper's for this bucket size)",
    )
    p.add_argument(
        "-f",
        "--fingerprint-bits",
        type=count("fingerprint bits"),
        help="fingerprint bits (default: enough for p)",
    )
    p.add_argument(
        "--max-iterations",
        type=count("max iterations"),
        default=20,
        help="RedisBloom MAXITERATIONS (default 20)",
    )


def _roaring_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help="file of IDs, one per line ('-' for stdin)")
    p.add_argument("-n", "--count", type=count("count"), help="how many IDs")
    p.add_argument(
        "--range",
        type=typed(parse_range, "range"),
        help="LOW:HIGH the IDs fall in, half-open (default 0:2^32)",
    )
    p.add_argument("--dense", action="store_true", help="consecutive IDs instead of random")
    p.add_argument("--seed", type=count("seed", low=0), default=0, help="random seed")
    format_option(p)
    max_ids_option(p)
    progress_option(p)


def _set_arguments(p: argparse.ArgumentParser) -> None:
    from setlab.tools.calc import MEMBER_TYPES

    p.add_argument("file", nargs="?", help="file of IDs, one per line ('-' for stdin)")
    p.add_argument("-n", "--members", type=count("members"), help="how many members")
    p.add_argument("--type", choices=MEMBER_TYPES, default="int", help="member type (default int)")
    p.add_argument(
        "--length", type=count("length"), help="bytes per member (hex: 16, uuid: 36 by default)"
    )
    p.add_argument(
        "--start",
        type=count("start", low=0),
        default=0,
        help="first integer for --type int (default 0)",
    )
    format_option(p)
    max_ids_option(p)
    redis_option(p)
    progress_option(p)


def _hll_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-n", "--items", dest="n", type=count("n"), required=True, help="distinct elements"
    )


def _cuckoo_load_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-b", "--bucket-size", type=count("bucket size"), default=4,
                   help="slots per bucket: 1, 2, 4 or 8 (default 4)")  # fmt: skip
    p.add_argument("-f", "--fingerprint-bits", type=count("fingerprint bits"), default=12,
                   help="fingerprint bits, 4 … 16 (default 12)")  # fmt: skip
    p.add_argument("--slots", type=count("slots"), default=2**14,
                   help="slots in the table: 2^10, 2^12, … 2^18 (default 2^14)")  # fmt: skip


def _sharded_bloom_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--items", dest="n", type=count("n"), required=True, help="items")
    p.add_argument("--shards", type=count("shards"), required=True, help="shards (keys)")
    p.add_argument("--capacity", type=count("capacity"), required=True,
                   help="items each shard is sized for")  # fmt: skip
    p.add_argument("-p", "--error", dest="p", type=_rate, default=0.01,
                   help="rate each shard is sized for at its capacity (default 1%%)")  # fmt: skip


def _density_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--count", dest="n", type=count("count"), required=True, help="IDs")
    p.add_argument("--range", type=count("range"), default=2**32,
                   help="values the IDs come from (default 2^32; 2^64: hashed IDs)")  # fmt: skip
    p.add_argument("-p", "--error", dest="p", type=_rate, default=0.01,
                   help="false-positive rate of the filters (default 1%%)")  # fmt: skip


def _birthday_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--ids", dest="n", type=count("n"), required=True, help="IDs hashed")
    p.add_argument("--bits", type=count("bits"), required=True,
                   help="log2 of the offset space M (1 to 64)")  # fmt: skip


def _setbit_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("offset", type=count("offset", low=0), help="bit offset (0 to 2^32 - 1)")


#: every calculator, in the order ``setlab calc --help`` lists them
CALCULATORS: tuple[Calculator, ...] = (
    Calculator(
        "bloom",
        help="solve a Bloom filter from any two or three of n, p, m, k",
        description="Give any two or three of n, p, m, k and get the rest, with bits per item "
        "against the lower bound log2(1/p). --redisbloom adds the chain BF.RESERVE builds.",
        arguments=_bloom_arguments,
        run=_calc_bloom,
        key_bytes="bytes",
    ),
    Calculator(
        "cuckoo",
        help="size a cuckoo filter (and RedisBloom's CF.RESERVE)",
        description="A cuckoo filter for n items at rate p: fingerprint bits, table, bytes, "
        "the rate it reaches; then RedisBloom's CF with its fixed 8-bit fingerprints.",
        arguments=_cuckoo_arguments,
        run=_calc_cuckoo,
        key_bytes="bytes",
    ),
    Calculator(
        "roaring",
        help="Roaring containers and bytes, from a count and range or a file",
        description="Roaring bitmap size for COUNT IDs spread uniformly over a range (or dense), "
        "or for the IDs in FILE (one per line, '-' for stdin).",
        arguments=_roaring_arguments,
        run=_calc_roaring,
        key_bytes="serialized_bytes",
    ),
    Calculator(
        "set",
        help="what a Redis SET costs, by member type and Redis version",
        description="Memory of a Redis SET (Redis 7.0 exact MEMORY USAGE, 7.2 modelled) of N "
        "members of a type, or of the IDs in FILE as written.",
        arguments=_set_arguments,
        run=_calc_set,
        key_bytes="allocated",
    ),
    Calculator(
        "hll",
        help="a HyperLogLog's memory and error for n distinct elements",
        description="HyperLogLog (Redis 7.0): memory for N distinct elements, standard error, "
        "and an exact SET of N integers beside it.",
        arguments=_hll_arguments,
        run=_calc_hll,
        key_bytes="allocated",
    ),
    Calculator(
        "cuckoo-load",
        help="load at a cuckoo filter's first failed insert (simulated grid)",
        description="Load factor at the first failed insert of a cuckoo filter (random victims, "
        "500 kicks; the mean of three seeded simulations stored in the package), with bits per "
        "item and the false-positive rate at that load.",
        arguments=_cuckoo_load_arguments,
        run=_cuckoo_load,
    ),
    Calculator(
        "sharded-bloom",
        help="worst-shard false-positive rate of a Bloom filter over many keys",
        description="N items routed by hash over SHARDS Bloom filters, each sized for CAPACITY "
        "items at rate p: the fullest shard's load and rate against the mean.",
        arguments=_sharded_bloom_arguments,
        run=_sharded_bloom,
    ),
    Calculator(
        "density",
        help="bytes per ID of every structure for N IDs in a range, and the pick",
        description="N distinct IDs spread uniformly over 0 … RANGE-1 (RANGE at most 2^32, or "
        "2^64 for uniform 64-bit hashes): bytes per ID of a Redis SET, a plain bitmap, Roaring, "
        "Bloom and cuckoo filters and a HyperLogLog, and the structure the advisor picks.",
        arguments=_density_arguments,
        run=_density,
        key_bytes="pick_bytes",  # --sets: the total the pick takes for that many sets
    ),
    Calculator(
        "birthday",
        help="chance that n hashed IDs share one of 2^bits offsets",
        description="n distinct IDs hashed uniformly into a bitmap of 2^bits offsets: the exact "
        "chance that two share an offset (the birthday problem), the expected number of sharing "
        "pairs, and the most IDs that keep the chance at or below 1%.",
        arguments=_birthday_arguments,
        run=_birthday,
    ),
    Calculator(
        "setbit",
        help="what a first SETBIT at an offset allocates, and how long it took",
        description="SETBIT key OFFSET 1 on a key that does not exist: STRLEN, the jemalloc "
        "block, MEMORY USAGE (one-letter key), and the time inside Redis in the stored reference "
        "run, interpolated between its measured offsets.",
        arguments=_setbit_arguments,
        run=_setbit,
        key_bytes="memory_usage",
    ),
)
