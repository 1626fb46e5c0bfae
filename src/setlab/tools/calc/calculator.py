"""How a calculator of ``setlab calc`` is declared: once, next to its engine.

A :class:`Calculator` holds everything ``setlab calc <name>`` is: its name, the line
``setlab calc --help`` lists (also the question the book's calculators page says it answers),
the description its own ``--help`` opens with, its options (:class:`Option`), the function that
answers them with reports (:class:`~setlab.tools.calc.report.Report`), and, for a calculator
that sizes one key, the report field holding that key's bytes (then it takes ``--sets`` and
``--server-memory``). :data:`setlab.tools.calc.CALCULATORS` collects every declaration;
:mod:`setlab.cli.calculators` turns each into an argparse subcommand and the book's widgets name
one by their ``setlab calc <name> …`` line (:mod:`setlab.site.calculators`).

Nothing here imports argparse: an option's ``read`` is one of setlab's own parsers
(:mod:`setlab.core.quantities`), whose ``ValueError`` names the option, and help text is plain
(a ``%`` is written as itself).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from setlab.core.quantities import parse_count, parse_probability
from setlab.tools.calc.report import Report

#: Options ``setlab`` commands share, added by the CLI after a calculator's own, in the order a
#: calculator names them: ``--format`` (the kind of ID in a file), ``--max-ids``, ``--redis``
#: and ``--allocator`` (the server build whose memory is priced, :mod:`.release`) and
#: ``--progress``.
SHARED_OPTIONS = ("format", "max-ids", "redis", "allocator", "progress")


def count(name: str, low: int = 1) -> Callable[[str], int]:
    """Reads a whole count as people type it (``1.2e8``, ``120M``, ``2^32``), at least ``low``;
    a ``ValueError`` names ``name`` (:func:`setlab.core.quantities.parse_count`)."""
    return partial(parse_count, name=name, low=low)


def rate(name: str) -> Callable[[str], float]:
    """Reads a rate (``0.01``, ``1%``, ``1/1000``) strictly between 0 and 1; a ``ValueError``
    names ``name`` (:func:`setlab.core.quantities.parse_probability`)."""
    return partial(parse_probability, name=name)


@dataclass(frozen=True)
class Option:
    """One option of a calculator, as its ``--help`` lists it: ``flags`` (``("-n", "--items")``,
    or one name without dashes for a positional), the ``help`` line, where the value lands
    (``dest``: by default the long flag's name with ``_`` for ``-``) and how it is read."""

    flags: tuple[str, ...]
    help: str
    dest: str | None = None
    read: Callable[[str], Any] | None = None  #: text → value; its ValueError names the option
    default: Any = None
    required: bool = False
    switch: bool = False  #: takes no value: True when given, else False
    choices: tuple[str, ...] | None = None
    optional: bool = False  #: a positional that may be left out (then ``default``)

    def __post_init__(self) -> None:
        if not self.flags:
            raise ValueError("flags must name the option at least once; got none")
        positional = not self.flags[0].startswith("-")
        if positional and (len(self.flags) > 1 or self.dest is not None or self.required):
            raise ValueError(f"a positional has one name and no dest or required; got "
                             f"{self.flags}")  # fmt: skip
        if self.optional and not positional:
            raise ValueError(f"optional is for positionals; {self.flags} is a flag")
        if self.switch and (self.read is not None or self.choices is not None):
            raise ValueError(f"{self.flags}: a switch takes no value, so no read or choices")

    @property
    def name(self) -> str:
        """Where the value lands in the options a calculator's ``run`` gets."""
        if self.dest is not None:
            return self.dest
        long = next((f for f in self.flags if f.startswith("--")), self.flags[0])
        return long.lstrip("-").replace("-", "_")


#: The options of one run, by :attr:`Option.name` (and the shared options' names with ``_``).
Given = Mapping[str, Any]


@dataclass(frozen=True)
class Calculator:
    """One ``setlab calc`` subcommand, declared once (see the module's doc)."""

    name: str
    help: str  #: the line ``setlab calc --help`` lists: what it answers
    description: str  #: what ``setlab calc <name> --help`` opens with
    options: tuple[Option, ...]
    run: Callable[[Given], list[Report]]  #: the reports, in the order they print
    #: :data:`SHARED_OPTIONS` it takes, after its own, in the order its help lists them
    shared: tuple[str, ...] = ()
    #: the report's field holding one key's bytes: the calculator then takes --sets and
    #: --server-memory and prints the total (None: it sizes no single key)
    key_bytes: str | None = None
    #: a line to try, as people type numbers (``1e6``, ``1%``, ``2^17``): the calculators page
    #: shows it, and a test runs it
    example: str = ""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9-]*", self.name):
            raise ValueError(f"name must be lowercase letters, digits and '-'; got {self.name!r}")
        unknown = [s for s in self.shared if s not in SHARED_OPTIONS]
        if unknown:
            raise ValueError(f"calculator {self.name!r}: shared options must be among "
                             f"{SHARED_OPTIONS}; got {unknown}")  # fmt: skip
        names = [o.name for o in self.options] + [s.replace("-", "_") for s in self.shared]
        if len(set(names)) != len(names):
            raise ValueError(f"calculator {self.name!r}: options land on one name twice: {names}")
        if not self.example.startswith(f"setlab calc {self.name} "):
            raise ValueError(f"calculator {self.name!r}: example must be a line starting "
                             f"'setlab calc {self.name} '; got {self.example!r}")  # fmt: skip
