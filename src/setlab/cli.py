"""The ``setlab`` command (also ``python -m setlab``).

Subcommands so far:

* ``setlab backend`` — which backend ``connect()`` would use here (``live`` or ``fake``), with the
  banner when ``--verbose``; the Makefile uses it to say which backend built the book.
* ``setlab doctor`` — is this machine ready for the book? One line per check, with the fix.
"""

from __future__ import annotations

import argparse
import json
import sys

from setlab import backend, doctor


def _backend(args: argparse.Namespace) -> int:
    choice = backend.resolve_backend()
    print("live" if choice == "url" else choice)
    if args.verbose:
        lab = backend.connect("cli", quiet=True)
        print(lab.banner)
        lab.close()
    return 0


def _doctor(args: argparse.Namespace) -> int:
    checks = doctor.run(run_chapter=args.book)
    print(json.dumps(doctor.as_json(checks), indent=1) if args.json else doctor.render(checks))
    return 0 if doctor.ready(checks) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="setlab", description="Tools from the book 'Huge sets of IDs in Redis'."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("backend", help="print which Redis backend connect() would use")
    p.add_argument("--verbose", "-v", action="store_true", help="also connect and print the banner")
    p.set_defaults(func=_backend)
    p = sub.add_parser("doctor", help="check that this machine is ready for the book")
    p.add_argument("--book", action="store_true", help="also execute chapter 1 (about a minute)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_doctor)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (2 with a one-line message for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, backend.ServerError) as err:
        print(f"setlab {args.command}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
