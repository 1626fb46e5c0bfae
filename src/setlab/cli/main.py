"""The ``setlab`` command (also ``python -m setlab``).

* ``setlab calc <calculator>`` — the book's models as calculators, each declared once beside
  its engine in :mod:`setlab.tools.calc` and made a subcommand by :mod:`setlab.cli.calculators`
  (numbers read by :mod:`setlab.core.quantities`);
* ``setlab advise FILE`` — read IDs (:mod:`setlab.models.ids`), histogram them
  (:mod:`setlab.tools.analysis`), price every structure for them and recommend one
  (:mod:`setlab.tools.advise`; string IDs: :mod:`setlab.tools.advise_strings`);
* ``setlab audit [--rdb FILE]`` — a read-only analysis of the Redis at ``REDIS_URL`` or of an
  RDB snapshot (:mod:`setlab.tools.audit`);
* ``setlab backend`` — which backend ``connect()`` would use here (``live`` or ``fake``), with the
  banner when ``--verbose``; the Makefile uses it to say which backend built the book, and with
  ``--check`` to stop before building on a ``REDIS_URL`` it cannot use;
* ``setlab doctor`` — is this machine ready for the book? One line per check, with the fix;
* ``setlab cleanup [--all-mine]`` — remove what this user's stopped runs left on ``REDIS_URL``
  (:mod:`setlab.lab.expiry`);
* ``setlab classroom start|add|monitor|kick|remove`` — a Redis for a class, one ACL-confined
  user per participant (:mod:`setlab.cli.classroom`).

Every subcommand has ``--help``; those that compute have ``--json``. Bad input exits with code 2
and one line on stderr, never a traceback. Modules are imported when a subcommand needs them, so
``setlab calc`` starts without loading Redis clients or matplotlib.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from typing import Any, NoReturn

from setlab.cli.options import (
    allocator_option,
    count,
    format_option,
    json_option,
    max_ids_option,
    memory_option,
    plain,
    progress_option,
    redis_option,
    scale_options,
    typed,
)


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


def _advise(args: argparse.Namespace) -> int:
    from setlab.models import string_ids
    from setlab.models.ids import read_ids
    from setlab.tools import advise, advise_strings, analysis, capacity
    from setlab.tools.calc import choice

    server, source = capacity.server_budget(args.server_memory)
    options = choice.Needs(
        error=args.error, deletes=args.deletes, count_only=args.count_only, release=args.redis,
        allocator=args.allocator, sets=args.sets, server=server, server_source=source,
    )  # fmt: skip
    strings, source = args.format == "str", args.file
    if args.format == "auto":  # a pipe or a FIFO comes back open, its head to be replayed
        strings, source = string_ids.sniff(args.file)
    with source if isinstance(source, io.IOBase) else contextlib.nullcontext():
        if strings:
            if args.plot:
                raise ValueError("--plot draws the histograms of integer IDs; string IDs have none")
            found = string_ids.read_strings(source, args.progress, args.memory)
            advice = advise_strings.advise_strings(found, options)
        else:
            ids = read_ids(source, args.progress, args.format, args.max_ids)
            described = analysis.analyse(ids)
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


def _audit(args: argparse.Namespace) -> int:
    from setlab.tools import audit
    from setlab.tools.audit import snapshot

    if not 0 < args.timeout <= 600:
        raise ValueError(f"--timeout must be a number of seconds in (0, 600]; got {args.timeout}")
    options = dict(match=args.match, sample=args.sample, rate=args.rate, timeout=args.timeout,
                   progress=_progress(args.progress), db=args.db)  # fmt: skip
    if args.rdb:
        try:
            with snapshot.loaded(args.rdb) as loaded:
                result = audit.audit(loaded.url, label=f"the snapshot {args.rdb}",
                                     snapshot=loaded.as_json(), **options)  # fmt: skip
        except snapshot.SnapshotRefused as err:
            if args.verbose and err.log:  # the server's own words, before the one line
                print(err.log.rstrip(), file=sys.stderr)
            raise
    else:
        url = os.environ.get("REDIS_URL", "")
        if not url:
            raise ValueError(
                "nothing to audit: set REDIS_URL to your server (redis://host:6379/0, with a user "
                "and password if it asks for them), or give a snapshot with --rdb dump.rdb"
            )
        result = audit.audit(url, **options)
    print(json.dumps(result.as_json(), indent=1, default=plain) if args.json else result.text())
    return 0


def _progress(flag: bool | None) -> bool:
    return sys.stderr.isatty() if flag is None else flag


# -- the parser -----------------------------------------------------------------------------------


def _add_calc(sub: Any) -> None:
    from setlab.cli.calculators import add_parsers
    from setlab.tools import calc

    names = [c.name for c in calc.CALCULATORS]
    calc = sub.add_parser(
        "calc", help=f"sizing calculators: {', '.join(names)}",
        description="Sizing calculators built on the book's models. Numbers may be written "
        "1.2e8, 120M, 120_000_000 or 2^32; rates 0.01, 1% or 1/100; sizes in bits or with a "
        "unit (128MiB, 1.5GB).",
    )  # fmt: skip
    add_parsers(calc.add_subparsers(dest="calculator", required=True, metavar="CALCULATOR"))


def build_parser() -> argparse.ArgumentParser:
    from setlab.core.quantities import parse_probability

    parser = _Parser(prog="setlab", description="Tools from the book 'Huge sets of IDs in Redis'.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_calc(sub)

    p = sub.add_parser(
        "advise", help="histogram a file of IDs and recommend a structure",
        description="Seed 003's advice as a tool: read IDs, one per line — decimal, hex or "
        "UUIDs (range, bit width, density, duplicates, the per-chunk histogram), or strings "
        "such as openids and emails (distinct count, lengths) — price every structure for "
        "these IDs and recommend one.",
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
    format_option(p, strings=True)
    scale_options(p)
    max_ids_option(p)
    memory_option(p)
    redis_option(p)
    allocator_option(p)
    progress_option(p)
    json_option(p)
    p.set_defaults(func=_advise)

    from setlab.tools.audit import limits

    p = sub.add_parser(
        "audit", help="read-only analysis of your Redis (REDIS_URL) or of an RDB snapshot",
        description="Read every key of the server at REDIS_URL (or of a snapshot loaded into a "
        "private server of a release that reads its format) without writing anything, group "
        "keys by pattern, and report "
        "what the book's chapters would: sparse or far-reaching bitmaps, Bloom filters past "
        "their capacity, integer SETs out of the intset encoding, big keys and what a DEL of "
        "them blocks, each with what the alternative costs.",
    )  # fmt: skip
    p.add_argument("--rdb", metavar="FILE",
                   help="audit this RDB snapshot instead (read by a private server)")  # fmt: skip
    p.add_argument("--verbose", "-v", action="store_true",
                   help="with --rdb: print the server's log when it refuses the file")  # fmt: skip
    p.add_argument("--db", type=count("db", low=0), metavar="N",
                   help="read database N only (default: every database INFO keyspace lists; "
                   "a database in REDIS_URL, redis://host/2, also picks one)")  # fmt: skip
    p.add_argument("--match", metavar="PATTERN", help="only keys matching this SCAN pattern")
    p.add_argument("--sample", type=count("sample"), metavar="N",
                   help="read the first N keys SCAN returns and scale to the keyspace")  # fmt: skip
    p.add_argument(
        "--rate", type=count("rate", low=0), default=limits.DEFAULT_RATE, metavar="KEYS",
        help=f"keys read per second at most (default {limits.DEFAULT_RATE:,}: a few %% of one "
        "core; 0: no limit)",
    )  # fmt: skip
    p.add_argument("--timeout", type=float, default=limits.TIMEOUT_S, metavar="S",
                   help="stop when a command gets no answer in S seconds "
                   f"(default {limits.TIMEOUT_S:g})")  # fmt: skip
    progress_option(p)
    json_option(p)
    p.set_defaults(func=_audit)

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
