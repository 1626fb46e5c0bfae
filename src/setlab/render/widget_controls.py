"""A widget's inputs (:mod:`setlab.render.widgets`): :class:`Control` (a slider and a number box,
or a quantity the reader may leave out for the widget to solve), :class:`Choice` (one of a closed
list, such as the server a calculator prices for), :class:`Command` (a line to copy that the page
rewrites), and how a control refuses what ``setlab calc`` refuses, in its words — or, where only
the page stops, in the page's (:meth:`Control.refusals`)."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
#: what a :class:`Choice`'s option may be: a word a shell and a URL carry as it is
_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: where a value goes in a :class:`Command`'s template
PLACE = re.compile(r"\{([a-z][a-z0-9_]*)\}")


@dataclass(frozen=True)
class Control:
    """One input: a Vega-Lite parameter ``name`` in [``low``, ``high``], starting at ``value``.

    ``log`` makes the slider move in powers of ten (the number box takes any value in range);
    ``integer`` rounds what the reader types. ``unit`` is shown after the number box.

    ``check`` is the validator ``setlab calc`` applies to the same input (a model's function
    that raises ``ValueError`` with the message the CLI prints). With it, a typed value the
    CLI refuses (below ``low``, above ``high``, or off ``grid``, the only values a model has) is
    refused in the page with that message, not snapped to the nearest value it can show. ``cli``
    is the span the CLI takes when it is wider than the control's: a value in it but outside
    [``low``, ``high``] is refused too, with :meth:`beyond`'s message (the formulas and tables
    in the page are built for the control's span). ``grid_text`` says which values ``grid``
    holds where the CLI takes values between them: one between is refused with
    :meth:`off_grid`'s message, not snapped to its neighbour.

    ``optional`` gives the control a "given" checkbox (ticked when ``given``): a reader who
    leaves it out has the widget solve it, as ``setlab calc bloom`` solves what is not given.
    The Vega parameter :attr:`flag` (``<name>_given``, 1 or 0) says which; the box then shows
    the readout named ``solved``, and the control leaves the page's address.
    """

    name: str
    label: str
    value: float
    low: float
    high: float
    step: float | None = None
    log: bool = False
    integer: bool = False
    unit: str = ""
    check: Callable[[float], object] | None = None
    grid: tuple[float, ...] | None = None
    optional: bool = False
    given: bool = True
    solved: str | None = None
    cli: tuple[float, float] | None = None
    grid_text: str = ""

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.optional != (self.solved is not None):
            raise ValueError(
                f"control {self.name!r}: an optional control names the readout that solves it "
                "(solved=…), and only an optional one does"
            )
        if not self.low <= self.value <= self.high:
            raise ValueError(
                f"value of control {self.name!r} must be in [{self.low}, {self.high}], "
                f"got {self.value!r}"
            )
        if self.log and self.low <= 0:
            raise ValueError(f"a log control needs low > 0, got {self.low!r} for {self.name!r}")

    @property
    def flag(self) -> str:
        """The Vega parameter that says whether an optional control is given (1) or solved (0)."""
        return f"{self.name}_given"

    def beyond(self) -> str:
        """The page's message for a value outside [``low``, ``high``] that the CLI takes
        (``{value}`` is where the typed value goes)."""
        return (f"{self.label} {{value}} is outside what this calculator computes "
                f"({_number_text(self, self.low)} to {_number_text(self, self.high)}): run "
                "the line below in a terminal for setlab calc's answer")  # fmt: skip

    def off_grid(self) -> str:
        """The page's message for a value between the ``grid`` values it has computed, where the
        CLI computes any (``{value}`` is where the typed value goes)."""
        return (f"{self.label} {{value}} is not one this calculator has computed "
                f"({self.grid_text}): run the line below in a terminal for setlab calc's "
                "answer")  # fmt: skip

    def refusals(self) -> dict[str, str]:
        """The CLI's messages for a value below and above what it takes (:attr:`cli`, or
        [``low``, ``high``] without it) and off ``grid``, as templates with ``{value}`` (or
        ``{value:,}``, thousands separators) where the value goes: :attr:`check` is asked about
        two such values, and the messages differ only there (``"negative"`` too, when the
        span starts at 0 or 1). Where the check takes the value, the page's own message instead:
        ``"beyond"`` (:meth:`beyond`) outside [``low``, ``high``], ``"grid"`` (:meth:`off_grid`)
        between the grid's values. A control without a check has none (the page keeps its value
        in range)."""
        if self.check is None:
            return {}
        low, high = self.cli if self.cli is not None else (self.low, self.high)
        step = 1 if self.integer else max(abs(self.high - self.low) / 1e3, 1e-9)
        probes = {
            "below": (low - step, low - 2 * step),
            "above": (high + 7 * step, high + 31 * step),
        }
        if low >= 0 and low - 2 * step < 0:
            # a CLI that parses a count or a rate says one thing of 0 and another of "-1" (not
            # a number at all): a message for what is below the span but not negative, and one
            # for negative numbers
            zero = max(0, low - step)
            probes.update(below=(zero, zero), negative=(-3 * step, -7 * step))
        if self.integer:
            probes = {side: (int(a), int(b)) for side, (a, b) in probes.items()}
        if self.grid is not None:
            # two values off the grid: the first above its lowest value and the last below its
            # highest (whole numbers), or between its first two and its last two
            g = self.grid
            off: list[float] = [(g[0] + g[1]) / 2, (g[-2] + g[-1]) / 2]
            if self.integer:
                up, down = int(self.low), int(self.high)
                while up in self.grid and up < down:
                    up += 1
                while down in self.grid and down > up:
                    down -= 1
                off = [up, down] if up not in self.grid and down not in self.grid else []
            if len(off) == 2:
                probes["grid"] = (off[0], off[1])
        found = {}
        for side, values in probes.items():
            messages = [_refusal(self.check, v) for v in values]
            if None not in messages:
                found[side] = _template(*messages, *values)  # type: ignore[arg-type]
            elif side in ("below", "above"):
                found["beyond"] = self.beyond()
            elif side == "grid" and self.grid_text:
                found["grid"] = self.off_grid()
        if self.cli is not None:
            found["beyond"] = self.beyond()
        return found

    def slider(self) -> tuple[float, float, float, float]:
        """(min, max, step, value) of the slider, in log10 units when :attr:`log`."""
        if self.log:
            return (math.log10(self.low), math.log10(self.high), 0.01, math.log10(self.value))
        step = self.step if self.step is not None else (1 if self.integer else "any")
        return (self.low, self.high, step, self.value)  # type: ignore[return-value]


@dataclass(frozen=True)
class Choice:
    """One input from a closed list: a Vega-Lite parameter ``name`` holding one of the words
    in ``options`` (word → the label the reader sees), starting at ``value``.

    The word is what ``setlab calc`` takes for the same input (``"8.2"`` for ``--redis 8.2``):
    a :class:`Command` template's ``{name}`` writes it, the page's address keeps it
    (``?setbit.redis=8.2``), and a readout's expression compares the parameter with it
    (:func:`setlab.render.widgets.choice_expr`). The page shows a ``<select>``, which stays one
    line at 390 px however many options there are. Nothing is refused: the list is closed, and
    a word in the address that is not in it leaves the choice at ``value``.
    """

    name: str
    label: str
    options: Mapping[str, str]
    value: str

    def __post_init__(self) -> None:
        check_name(self.name)
        bad = [word for word in self.options if not _WORD.match(word)]
        if bad:
            raise ValueError(f"choice {self.name!r}: options must match {_WORD.pattern} (a "
                             f"shell and a URL carry them as they are), got {bad}")  # fmt: skip
        if self.value not in self.options:
            raise ValueError(f"choice {self.name!r} starts at {self.value!r}, not one of its "
                             f"options {list(self.options)}")  # fmt: skip

    def text(self, word: str) -> str:
        """The option ``word`` as the text fallback writes it: its label."""
        return self.options[word]


@dataclass(frozen=True)
class Command:
    """A line the reader copies to get the same numbers elsewhere (``setlab calc …``, the Redis
    command): ``template`` with ``{name}`` where a control's value (as its box holds it) or an
    ``int`` readout's value (every digit) goes. The page rewrites it with every change."""

    label: str
    template: str

    def names(self) -> list[str]:
        return PLACE.findall(self.template)


def _refusal(check: Callable[[float], object], value: float) -> str | None:
    """What ``check`` says of ``value``, or None if it accepts it."""
    try:
        check(value)
    except ValueError as exc:
        return str(exc)
    return None


def _template(one: str, other: str, a: float, b: float) -> str:
    """The message with its value replaced by a placeholder: ``one`` and ``other`` are the
    check's messages for ``a`` and ``b``, equal outside the printed value."""
    start = next((i for i, (x, y) in enumerate(zip(one, other, strict=False)) if x != y), None)
    if start is None:
        return one  # the message does not print the value
    end = 0
    while end < min(len(one), len(other)) - start and one[-1 - end] == other[-1 - end]:
        end += 1
    # widen to the whole printed number: digits, separators, a sign, a point
    number = "0123456789,.-"
    while start > 0 and one[start - 1] in number:
        start -= 1
    while end > 0 and one[len(one) - end] in number:
        end -= 1
    printed = one[start : len(one) - end]
    # repr first: a small number reads the same in both; "{pow2:,}" is 2^value (a control in
    # log2 units, such as a range typed as its exponent, whose CLI prints the range itself)
    for fmt in ("{value}", "{value:,}", "{pow2:,}"):
        if printed == _format(fmt, a) and other[start : len(other) - end] == _format(fmt, b):
            return one[:start] + fmt + one[len(one) - end :]
    raise ValueError(f"cannot find {a!r} in the check's message {one!r}")


def _format(fmt: str, value: float) -> str:
    if fmt == "{pow2:,}":
        return f"{2 ** int(value):,}" if float(value).is_integer() else ""
    return fmt.format(value=value)


def _number_text(c: Control, value: float) -> str:
    return f"{round(value):,}" if c.integer else f"{value:g}"


def control_text(c: Control, value: float) -> str:
    """A control's value as the text fallback writes it, with its unit."""
    return f"{_number_text(c, value)} {c.unit}".strip()


def control_html(wid: str, c: Control, row: Mapping[str, float]) -> str:
    """The control in widget ``wid`` at setting ``row``: a slider and a number box (disabled and
    holding the solution when an optional control starts left out), with the refusals and grid
    setlab-widgets.js checks typed values against."""
    lo, hi, step, value = c.slider()
    ident = f"{wid}-{c.name}"
    label = f'<label for="{ident}">{html.escape(c.label)}</label>'
    box_value, off = plain_value(c.value, c.integer), ""
    if c.optional:
        given = bool(row[c.flag])
        label = (f'<span class="setlab-control-name"><input type="checkbox" class="setlab-given" '
                 f'id="{ident}-given" aria-label="given: {html.escape(c.label)}"'
                 f'{" checked" if given else ""}> {label}</span>')  # fmt: skip
        if not given:
            shown = min(c.high, max(c.low, row[c.solved]))  # type: ignore[index]
            box_value, off = plain_value(row[c.solved], c.integer), " disabled"  # type: ignore[index]
            value = math.log10(shown) if c.log else shown
    number_step = "1" if c.integer else (str(c.step) if c.step is not None else "any")
    refuse = "".join(
        f' data-refuse-{side}="{html.escape(text)}"' for side, text in c.refusals().items()
    )
    if c.grid is not None:
        refuse += f' data-grid="{",".join(plain_value(v, c.integer) for v in c.grid)}"'
    if c.cli is not None:  # every digit: a bound past 2^53 is compared as a whole number
        refuse += "".join(
            f' data-cli-{side}="{_exact(v)}"'
            for side, v in zip(("low", "high"), c.cli, strict=True)
        )
    solved = f' data-solved="{c.solved}"' if c.optional else ""
    return (
        f'<div class="setlab-control" data-control="{c.name}" data-log="{int(c.log)}" '
        f'data-integer="{int(c.integer)}" data-low="{c.low!r}" data-high="{c.high!r}"'
        f"{solved}{refuse}>{label}"
        f'<input type="range" aria-label="{html.escape(c.label)} (slider)" min="{lo!r}" '
        f'max="{hi!r}" step="{step}" value="{value!r}"{off}>'
        f'<input type="number" id="{ident}" min="{c.low!r}" max="{c.high!r}" '
        f'step="{number_step}" value="{box_value}"{off}>'
        f'<span class="setlab-unit">{html.escape(c.unit)}</span></div>'
    )


def choice_html(wid: str, c: Choice, row: Mapping[str, object]) -> str:
    """The choice in widget ``wid`` at setting ``row``: a labelled ``<select>`` with
    ``row[c.name]`` selected (setlab-widgets.js feeds it to the chart and the address)."""
    ident = f"{wid}-{c.name}"
    options = "".join(
        f'<option value="{html.escape(word)}"{" selected" if word == row[c.name] else ""}>'
        f"{html.escape(label)}</option>"
        for word, label in c.options.items()
    )
    return (
        f'<div class="setlab-choice" data-choice="{c.name}">'
        f'<label for="{ident}">{html.escape(c.label)}</label>'
        f'<select id="{ident}">{options}</select></div>'
    )


def _exact(value: float) -> str:
    """A bound as JavaScript reads it back: every digit of an int, a float's repr."""
    return str(value) if isinstance(value, int) else repr(float(value))


def plain_value(value: float, integer: bool) -> str:
    """A value as a number box holds it (and a line to copy takes it)."""
    return str(round(value)) if integer else repr(float(value))


def check_name(name: str) -> None:
    """Refuse a parameter name Vega or the page's URL could not carry."""
    if not _NAME.match(name):
        raise ValueError(f"a widget parameter name must match {_NAME.pattern}, got {name!r}")
