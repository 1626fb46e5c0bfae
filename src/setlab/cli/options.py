"""What every ``setlab`` subcommand shares: argument types from setlab's parsers, the
``--json`` option, and printing reports as text or JSON.

Its own module so the subcommands registered from other modules (:mod:`setlab.cli.bitmap_calc`,
:mod:`setlab.cli.widget_calc`) use it without importing :mod:`setlab.cli.main`, which imports them.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def typed(parse: Any, name: str, **options: Any) -> Any:
    """An argparse ``type=`` from a setlab parser: its ValueError message becomes the error."""

    def convert(text: str) -> Any:
        try:
            return parse(text, name, **options)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    convert.__name__ = name
    return convert


def emit(args: argparse.Namespace, reports: list[Any]) -> None:
    if args.json:
        payload = [r.as_json() for r in reports]
        print(json.dumps(payload[0] if len(payload) == 1 else payload, indent=1, default=plain))
    else:
        print("\n\n".join(r.text() for r in reports))


def plain(value: Any) -> Any:
    """numpy scalars and the like, for json.dumps."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def count(name: str, low: int = 1) -> Any:
    from setlab.core.quantities import parse_count

    return typed(parse_count, name, low=low)


def json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")
