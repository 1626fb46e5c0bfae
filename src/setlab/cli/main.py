"""The ``setlab`` command (also ``python -m setlab``).

* ``setlab calc bloom|cuckoo|roaring|set|hll|birthday|setbit|…`` — the book's models as calculators
  (:mod:`setlab.tools.calc`; numbers read by :mod:`setlab.core.quantities`); ``cuckoo-load``,
  ``sharded-bloom`` and ``density`` are registered by :mod:`setlab.cli.widget_calc`;
* ``setlab advise FILE`` — read IDs (:mod:`setlab.models.ids`), histogram them
  (:mod:`setlab.tools.analysis`), price every structure for them and recommend one
  (:mod:`setlab.tools.advise`);
* ``setlab backend`` — which backend ``connect()`` would use here (``live`` or ``fake``), with the
  banner when ``--verbose``; the Makefile uses it to say which backend built the book, and with
  ``--check`` to stop before building on a ``REDIS_URL`` it cannot use;
* ``setlab doctor`` — is this machine ready for the book? One line per check, with the fix;
* ``setlab cleanup [--all-mine]`` — remove what this user's stopped runs left on ``REDIS_URL``
  (:mod:`setlab.lab.expiry`);
* ``setlab classroom start|add|monitor|remove`` — a Redis for a class, one ACL-confined user per
  participant (:mod:`setlab.cli.classroom`).

Every subcommand has ``--help``; those that compute have ``--json``. Bad input exits with code 2
and one line on stderr, never a traceback. Modules are imported when a subcommand needs them, so
``setlab calc`` starts without loading Redis clients or matplotlib.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, NoReturn

from setlab.cli.options import count, emit, json_option, plain, typed


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``setlab calc bloom: <what> (see --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


# -- subcommands ----------------------------------------------------------------------------------


def _backend(args: argparse.Namespace) -> int:
    from setlab.lab import backend

    choice = backend.resolve_backend()
    # connected first: a URL that fails prints one line and exits 2, before any name
    lab = backend.connect("cli", quiet=True) if args.verbose or args.check else None
    print("live" if choice == "url" else choice)
    if lab is not None:
        if args.verbose:
            print(lab.banner)
        lab.close()
    return 0


def _cleanup(args: argparse.Namespace) -> int:
    from setlab.lab import backend
    from setlab.lab.errors import ConfigurationError

    if not os.environ.get(backend.URL_ENV):
        raise ConfigurationError(
            f"{backend.URL_ENV} is not set: the keys of a private server or of the embedded "
            "backend go with the process that made them; set it to the server to clean"
        )
    lab = backend.connect("cli", backend="auto", quiet=True)  # removes the stopped runs
    removed = lab.stale_removed + (lab.cleanup_stale(max_age_s=0) if args.all_mine else 0)
    runs = "every other run" if args.all_mine else "the stopped runs"
    print(f"removed {removed} keys of {runs} of user {lab.user} on Redis at {lab.address}")
    lab.close()
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from setlab.cli import doctor

    checks = doctor.run(run_chapter=args.book)
    print(json.dumps(doctor.as_json(checks), indent=1) if args.json else doctor.render(checks))
    return 0 if doctor.ready(checks) else 1


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


def _advise(args: argparse.Namespace) -> int:
    from setlab.models.ids import read_ids
    from setlab.tools import advise, analysis

    described = analysis.analyse(read_ids(args.file, args.progress, args.format, args.max_ids))
    options = advise.Needs(
        error=args.error, deletes=args.deletes, count_only=args.count_only, version=args.redis
    )
    advice = advise.advise(described, options)
    if args.plot:
        analysis.save_figure(described, args.plot)
    if args.json:
        print(json.dumps(advice.as_json(), indent=1, default=plain))
    else:
        print(advice.text())
        if args.plot:
            print(f"\nHistograms saved to {args.plot}")
    return 0


# -- the parser -----------------------------------------------------------------------------------


def _progress_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress line on stderr while reading (default: when stderr is a terminal)",
    )  # fmt: skip


def _format_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format", choices=("auto", "dec", "hex", "uuid"), default="auto",
        help="the kind of ID in the file (default auto: the first ID decides, and a line of "
        "another kind is an error)",
    )  # fmt: skip


def _max_ids_option(p: argparse.ArgumentParser) -> None:
    from setlab.models.ids import MAX_IDS

    p.add_argument(
        "--max-ids", type=count("max-ids"), default=MAX_IDS, metavar="N",
        help=f"stop with an error after more than N IDs (default {MAX_IDS:,}; an ID takes "
        "about 9 bytes as read, and up to 18 more while the IDs are analysed)",
    )  # fmt: skip


def _redis_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--redis", choices=("7.0", "7.2"), default="7.0",
                   help="Redis version of the SET model (7.0 exact, 7.2 modelled)")  # fmt: skip


def _add_calc(sub: Any) -> None:
    from setlab.core.quantities import parse_bits, parse_probability, parse_range
    from setlab.tools.calc import MEMBER_TYPES

    calc = sub.add_parser(
        "calc", help="sizing calculators: Bloom, cuckoo, Roaring, SET, HyperLogLog",
        description="Sizing calculators built on the book's models. Numbers may be written "
        "1.2e8, 120M, 120_000_000 or 2^32; rates 0.01, 1% or 1/100; sizes in bits or with a "
        "unit (128MiB, 1.5GB).",
    )  # fmt: skip
    kinds = calc.add_subparsers(dest="calculator", required=True, metavar="{bloom,cuckoo,...}")

    p = kinds.add_parser(
        "bloom", help="solve a Bloom filter from any two or three of n, p, m, k",
        description="Give any two or three of n, p, m, k and get the rest, with bits per item "
        "against the lower bound log2(1/p). --redisbloom adds the chain BF.RESERVE builds.",
    )  # fmt: skip
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
    json_option(p)
    p.set_defaults(func=_calc_bloom)

    p = kinds.add_parser(
        "cuckoo", help="size a cuckoo filter (and RedisBloom's CF.RESERVE)",
        description="A cuckoo filter for n items at rate p: fingerprint bits, table, bytes, "
        "the rate it reaches; then RedisBloom's CF with its fixed 8-bit fingerprints.",
    )  # fmt: skip
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
    json_option(p)
    p.set_defaults(func=_calc_cuckoo)

    p = kinds.add_parser(
        "roaring", help="Roaring containers and bytes, from a count and range or a file",
        description="Roaring bitmap size for COUNT IDs spread uniformly over a range (or dense), "
        "or for the IDs in FILE (one per line, '-' for stdin).",
    )  # fmt: skip
    p.add_argument("file", nargs="?", help="file of IDs, one per line ('-' for stdin)")
    p.add_argument("-n", "--count", type=count("count"), help="how many IDs")
    p.add_argument(
        "--range",
        type=typed(parse_range, "range"),
        help="LOW:HIGH the IDs fall in, half-open (default 0:2^32)",
    )
    p.add_argument("--dense", action="store_true", help="consecutive IDs instead of random")
    p.add_argument("--seed", type=count("seed", low=0), default=0, help="random seed")
    _format_option(p)
    _max_ids_option(p)
    _progress_option(p)
    json_option(p)
    p.set_defaults(func=_calc_roaring)

    p = kinds.add_parser(
        "set", help="what a Redis SET costs, by member type and Redis version",
        description="Memory of a Redis SET (Redis 7.0 exact MEMORY USAGE, 7.2 modelled) of N "
        "members of a type, or of the IDs in FILE as written.",
    )  # fmt: skip
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
    _format_option(p)
    _max_ids_option(p)
    _redis_option(p)
    _progress_option(p)
    json_option(p)
    p.set_defaults(func=_calc_set)

    p = kinds.add_parser(
        "hll", help="a HyperLogLog's memory and error for n distinct elements",
        description="HyperLogLog (Redis 7.0): memory for N distinct elements, standard error, "
        "and an exact SET of N integers beside it.",
    )  # fmt: skip
    p.add_argument(
        "-n", "--items", dest="n", type=count("n"), required=True, help="distinct elements"
    )
    json_option(p)
    p.set_defaults(func=_calc_hll)

    from setlab.cli import widget_calc

    widget_calc.add_parsers(kinds)

    from setlab.cli import bitmap_calc

    bitmap_calc.add_parsers(kinds)


def build_parser() -> argparse.ArgumentParser:
    from setlab.core.quantities import parse_probability

    parser = _Parser(prog="setlab", description="Tools from the book 'Huge sets of IDs in Redis'.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_calc(sub)

    p = sub.add_parser(
        "advise", help="histogram a file of IDs and recommend a structure",
        description="Seed 003's advice as a tool: read IDs (decimal, hex or UUIDs, one per "
        "line), report range, bit width, density, duplicates and the per-chunk histogram, price "
        "every structure for these IDs and recommend one.",
    )  # fmt: skip
    p.add_argument("file", help="file of IDs, one per line ('-' for stdin)")
    p.add_argument(
        "-p",
        "--error",
        type=typed(parse_probability, "error"),
        default=0.01,
        help="false-positive rate for Bloom and cuckoo filters (default 1%%)",
    )
    p.add_argument("--deletes", action="store_true", help="you must be able to remove IDs")
    p.add_argument(
        "--count-only",
        action="store_true",
        help="you only need how many distinct IDs, not membership",
    )
    p.add_argument("--plot", metavar="PNG", help="save the histograms to this PNG file")
    _format_option(p)
    _max_ids_option(p)
    _redis_option(p)
    _progress_option(p)
    json_option(p)
    p.set_defaults(func=_advise)

    p = sub.add_parser("backend", help="print which Redis backend connect() would use")
    p.add_argument("--verbose", "-v", action="store_true", help="also connect and print the banner")
    p.add_argument(
        "--check", action="store_true", help="also connect: exit 2 with one line if that fails"
    )
    p.set_defaults(func=_backend)
    from setlab.cli import classroom

    classroom.add_parser(sub)
    p = sub.add_parser(
        "cleanup", help="remove the keys your stopped runs left on REDIS_URL",
        description="Delete the keys of this user's runs (setlab:@<user>:<run>:…) on the server "
        "REDIS_URL names whose heartbeat has stopped (a killed kernel) or that are over a day "
        "old; nothing outside them. Prints how many keys it removed.",
    )  # fmt: skip
    p.add_argument("--all-mine", action="store_true",
                   help="remove every run of this user, running or not")  # fmt: skip
    p.set_defaults(func=_cleanup)
    p = sub.add_parser("doctor", help="check that this machine is ready for the book")
    p.add_argument("--book", action="store_true", help="also execute chapter 1 (about a minute)")
    json_option(p)
    p.set_defaults(func=_doctor)
    return parser


def _name(args: argparse.Namespace) -> str:
    parts = [args.command, getattr(args, "calculator", None), getattr(args, "action", None)]
    return " ".join(filter(None, ["setlab", *parts]))


def _reported(err: BaseException) -> bool:
    """Errors that are the user's input or environment, reported in one line: ``ValueError``,
    ``OSError``, ``MemoryError`` and every setlab error (only checked once its module is loaded,
    so a calculator never imports the Redis client just to catch it)."""
    if isinstance(err, ValueError | OSError | MemoryError):
        return True
    errors = sys.modules.get("setlab.lab.errors")
    redis = sys.modules.get("redis")
    return (errors is not None and isinstance(err, errors.SetlabError)) or (
        redis is not None and isinstance(err, redis.exceptions.RedisError)
    )


def _one_line(err: BaseException) -> str:
    """The error as one line, with any secret from REDIS_URL masked."""
    from setlab.core.secrets import redact, url_secrets

    if isinstance(err, MemoryError):
        text = "out of memory: the input is too big for this machine (try a sample of it)"
    else:
        text = " ".join(str(err).split()) or type(err).__name__
    return redact(text, url_secrets(os.environ.get("REDIS_URL", "")))


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (2 with a one-line message for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # `setlab … | head`: the reader left, which is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 0
    except KeyboardInterrupt:
        print(f"\n{_name(args)}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:
        if not _reported(err):
            raise
        print(f"{_name(args)}: {_one_line(err)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
