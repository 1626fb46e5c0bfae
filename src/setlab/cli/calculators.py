"""``setlab calc <name>``: one argparse subcommand per calculator declared in
:data:`setlab.tools.calc.CALCULATORS`, made from its declaration and nothing else.

A declaration (:class:`setlab.tools.calc.calculator.Calculator`) gives the subcommand's help,
description, options and the function that answers them; here its options become arguments (a
value read by the declared setlab parser, whose ``ValueError`` becomes argparse's one-line
error), the shared options it names are added after them, then ``--sets`` and
``--server-memory`` for a calculator that sizes one key, and ``--json`` for all. Engines import
their models when they run, so ``setlab calc`` starts without loading Redis clients or
matplotlib.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from setlab.cli.options import (
    allocator_option,
    argument_type,
    emit,
    format_option,
    json_option,
    max_ids_option,
    progress_option,
    redis_option,
    scale_options,
)
from setlab.tools import calc
from setlab.tools.calc.calculator import Calculator, Option

#: the CLI's options calculators share, by the names a declaration gives them
#: (:data:`setlab.tools.calc.calculator.SHARED_OPTIONS`)
SHARED: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "format": format_option, "max-ids": max_ids_option, "redis": redis_option,
    "allocator": allocator_option, "progress": progress_option,
}  # fmt: skip


def add_parsers(kinds: argparse._SubParsersAction) -> None:
    """Register every calculator of :data:`~setlab.tools.calc.CALCULATORS` on ``setlab calc``'s
    subparsers, in their order."""
    for calculator in calc.CALCULATORS:
        p = kinds.add_parser(
            calculator.name, help=_plain(calculator.help), description=calculator.description
        )
        for option in calculator.options:
            _add(p, option)
        for name in calculator.shared:
            SHARED[name](p)
        if calculator.key_bytes:
            scale_options(p)
        json_option(p)
        p.set_defaults(func=_runner(calculator), key_bytes=calculator.key_bytes)


def _plain(text: str) -> str:
    """Help text as written: argparse %-formats help strings, so a ``%`` is doubled."""
    return text.replace("%", "%%")


def _add(p: argparse.ArgumentParser, option: Option) -> None:
    """One declared option as an argparse argument."""
    settings: dict[str, Any] = {"help": _plain(option.help)}
    if option.switch:
        settings["action"] = "store_true"
    else:
        settings["default"] = option.default
    if option.read is not None:
        settings["type"] = argument_type(option.read, option.name)
    if option.choices is not None:
        settings["choices"] = option.choices
    if option.optional:
        settings["nargs"] = "?"
    if option.dest is not None:
        settings["dest"] = option.dest
    if option.required:
        settings["required"] = True
    p.add_argument(*option.flags, **settings)


def _runner(calculator: Calculator) -> Callable[[argparse.Namespace], int]:
    """What ``setlab calc <name>`` runs: the declared run on the parsed options, its reports
    printed (with the total for ``--sets``); the exit code."""

    def run(args: argparse.Namespace) -> int:
        emit(args, calculator.run(vars(args)))
        return 0

    return run
