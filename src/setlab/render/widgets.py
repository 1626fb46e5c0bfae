"""Interactive figures for the static book and JupyterLab: an Altair (Vega-Lite) chart whose
parameters a reader moves, with the numbers it shows computed from the models.

A widget is three things, each checked against the models by a test:

- **controls** (:class:`Control`): the inputs, each a Vega-Lite parameter of the chart, shown on
  the page as a slider *and* a number box (log-scaled sliders for quantities spanning decades);
  and **choices** (:class:`Choice`), an input from a closed list (the server a calculator
  prices for), shown as a ``<select>``, that readouts read with :func:`choice_expr`;
- **readouts** (:class:`Readout`): the outputs, each a Vega-Lite parameter computed by a Vega
  expression over the controls, shown as text in ``<output data-readout="name"
  data-value="…">`` elements a browser test can read. Each readout also carries ``model``, the
  Python function of the book's models (or ``setlab calc``) that gives the same number: it fills
  the text fallback and the initial text, and ``tests/test_widgets.py`` evaluates the Vega
  expression with vl-convert's own Vega and compares it with ``model`` at every fallback setting;
- a **text fallback**: a small table of the readouts at the default and a few other settings,
  for readers without JavaScript (and for screen readers).

Where a model cannot be written as a short expression (a step function such as jemalloc's size
classes, a stored measurement to interpolate), compute it in Python at build time and ship it in
the expression with :func:`step_expr` / :func:`interp_expr`: the browser only looks it up, and
the caption says so (``source``).

**Adding a widget.** In the chapter's ``setlab/chapters/<chapter>/widget.py`` (it may read
``setlab.lab`` and ``setlab.tools``; see ``bloom_basics/widget.py``), one public function
returning the widget, which names the ``setlab calc`` calculator it shows in its line for the
terminal (:attr:`Widget.calculator`; ``setlab.site.calculators`` finds both)::

    def calculator() -> Widget:
        chart = alt.Chart(...).transform_calculate(y="... n ...")  # params referenced by name
        return Widget(
            "bloom", "Bloom calculator", chart,
            controls=[Control("n", "items n", 1e6, 1e3, 1e10, log=True, integer=True)],
            readouts=[Readout("m", "bits m", "ceil(-n*log(p)/(LN2*LN2))",
                              model=lambda s: bloom.optimal_m(s["n"], s["p"]), kind="int")],
            caption="…", source="formula (setlab.models.bloom)",
            settings=[{"n": 1e6, "p": 0.01}, …],   # the text fallback's columns
            derived={"items": "ceil(load * n)"},    # shared sub-expressions, not shown
            commands=[Command("the same in a terminal:", "setlab calc bloom -n {n} -p {p}")],
        )

and on the page one cell, ``widget.calculator()``. A model that depends on a closed list (the
server's release) takes a :class:`Choice` and one expression per word::

    choices=[Choice("redis", "server", {"7.0": "Redis 7.0", "valkey-8.1": "Valkey 8.1"}, "7.0")],
    readouts=[Readout("usage", "MEMORY USAGE", choice_expr("redis", {"7.0": "…", …}), …)],
    commands=[Command("the same in a terminal:", "setlab calc setbit {offset} --redis {redis}")],

The parameters are added to the chart's top level here (do not declare them in Altair). Test it
with :func:`evaluate_in_vega` against the readouts' models, and in
``tests/browser/test_widgets_browser.py`` against ``setlab calc … --json``.

In the built book (the ``setlab_vega`` Sphinx extension sets ``SETLAB_WIDGETS=static``) the
widget is HTML that ``book/_static/setlab-widgets.js`` brings to life with the Vega bundle served
from ``_static`` (no CDN); in JupyterLab it is the Vega-Lite spec with the controls bound to
Vega's own inputs (JupyterLab renders it offline).
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from setlab.core.formats import format_readout
from setlab.render.widget_controls import (
    PLACE,
    Choice,
    Command,
    Control,
    check_name,
    choice_html,
    control_html,
    control_text,
    plain_value,
)

#: Where the built book says it renders widgets as static HTML (set by book/_ext/setlab_vega.py).
STATIC_ENV = "SETLAB_WIDGETS"
#: Vega-Lite's MIME type, which JupyterLab renders with its own (offline) Vega.
VEGALITE_MIME = "application/vnd.vegalite.v5+json"
#: How a readout's number is written: :func:`setlab.core.formats.format_readout` (and
#: setlab-widgets.js).
KINDS = ("int", "bytes", "number", "percent", "rate", "text")

#: A setting: each control's number and each choice's word, by name.
Settings = Mapping[str, Any]
#: How a widget's line for the terminal starts; the next word names its calculator.
CALC_PREFIX = "setlab calc "


@dataclass(frozen=True)
class Readout:
    """One output: the Vega expression ``expr`` over the controls, and ``model``, the Python
    computation of the same number (from ``setlab.models`` or ``setlab.tools``), used for the text
    fallback and checked against ``expr`` by the tests. ``kind`` is one of :data:`KINDS`."""

    name: str
    label: str
    expr: str
    model: Callable[[Settings], float]
    kind: str = "number"
    unit: str = ""

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")


def step_expr(var: str, breaks: Sequence[float], values: Sequence[float]) -> str:
    """A Vega expression for a step function of ``var`` computed in Python: ``values[i]`` for
    ``breaks[i] <= var < breaks[i+1]`` (``values[0]`` below ``breaks[0]`` too). A balanced tree
    of comparisons, so a few hundred steps stay shallow."""
    if len(breaks) != len(values) or not breaks:
        raise ValueError(f"breaks and values must have one equal, non-zero length; "
                         f"got {len(breaks)} and {len(values)}")  # fmt: skip

    def tree(lo: int, hi: int) -> str:
        if hi - lo == 1:
            return _num(values[lo])
        mid = (lo + hi) // 2
        return f"({var} < {_num(breaks[mid])} ? {tree(lo, mid)} : {tree(mid, hi)})"

    return tree(0, len(breaks))


def step_table(fn: Callable[[int], float], low: int, high: int) -> tuple[list[int], list[float]]:
    """(breaks, values) of a non-decreasing step function ``fn`` of the integers in [``low``,
    ``high``], for :func:`step_expr`: ``breaks[i]`` is the first integer where ``fn`` takes
    ``values[i]``. Found by doubling and bisection, so a model with a few hundred steps over
    2^32 integers costs a few thousand calls."""
    breaks, values, x = [low], [fn(low)], low
    while x < high:
        current, step = values[-1], 1
        while x + step <= high and fn(x + step) == current:
            step *= 2
        lo, hi = x + step // 2, min(x + step, high)  # fn(lo) == current; fn(hi) may differ
        if fn(hi) == current:
            break
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fn(mid) == current else (lo, mid)
        breaks.append(hi)
        values.append(fn(hi))
        x = hi
    return breaks, values


def interp_expr(var: str, xs: Sequence[float], ys: Sequence[float], *, log: bool = True) -> str:
    """A Vega expression interpolating stored points ``(xs, ys)`` at ``var``: piecewise linear
    in log–log space when ``log`` (measurements spanning decades), clamped to the first and last
    point outside the range. Python's twin is :func:`setlab.core.interpolation.interpolate`."""
    if len(xs) != len(ys) or len(xs) < 2 or list(xs) != sorted(xs):
        raise ValueError("xs must be increasing and as long as ys (at least 2 points)")
    f = (lambda v: f"log({v})") if log else (lambda v: v)
    pieces = []
    for (x0, y0), (x1, y1) in zip(zip(xs, ys, strict=True), zip(xs[1:], ys[1:], strict=True),
                                  strict=False):  # fmt: skip
        a0, a1 = (math.log(x0), math.log(x1)) if log else (x0, x1)
        b0, b1 = (math.log(y0), math.log(y1)) if log else (y0, y1)
        slope = (b1 - b0) / (a1 - a0)
        line = f"{_num(b0)} + {_num(slope)} * ({f(var)} - {_num(a0)})"
        pieces.append((x1, f"exp({line})" if log else line))
    expr = _num(ys[-1])
    for x1, piece in reversed(pieces):
        expr = f"({var} <= {_num(x1)} ? {piece} : {expr})"
    return f"({var} <= {_num(xs[0])} ? {_num(ys[0])} : {expr})"


def decade_axis(fmt: str = "~g") -> Any:
    """An Altair log axis labelled at powers of ten only, in d3 format ``fmt`` (Vega labels 2
    and 5 times them too, and at 390 px they ran into each other): ``"~g"`` for rates,
    ``"~s"`` for counts (1k … 1G)."""
    from setlab.render.vega_lite import alt

    return alt.Axis(
        format=fmt, labelOverlap=True,
        labelExpr="abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) < 1e-6"
        " ? datum.label : ''",
    )  # fmt: skip


def choice_expr(var: str, cases: Mapping[str, str]) -> str:
    """A Vega expression that is ``cases[word]`` where the :class:`Choice` ``var`` is ``word``:
    each distinct expression once (options that share a model share its table), the last one
    for whatever no earlier test matches."""
    if not cases:
        raise ValueError("choice_expr needs at least one case")
    words: dict[str, list[str]] = {}
    for word, expr in cases.items():
        words.setdefault(expr, []).append(word)
    *tested, (last, _) = words.items()
    out = f"({last})"
    for expr, said in reversed(tested):
        test = " || ".join(f"{var} == {json.dumps(w)}" for w in said)
        out = f"({test} ? ({expr}) : {out})"
    return out


def text_lookup(index: str, texts: Sequence[str]) -> str:
    """A Vega expression picking ``texts[index]``: words computed in Python at build time (a
    pick, its reason) that the browser only looks up, as :func:`step_expr` does for numbers."""
    return f"[{','.join(json.dumps(t) for t in texts)}][{index}]"


def _num(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() or abs(x) >= 2**53 else str(int(x))


@dataclass
class Widget:
    """An interactive figure: ``chart`` (Altair, referring to the controls and readouts by name)
    plus its controls, readouts, caption, ``source`` (formula / grid computed at build time /
    stored measurement, said in the caption) and the ``settings`` of its text fallback (the
    defaults first)."""

    slug: str
    title: str
    chart: Any
    controls: Sequence[Control]
    readouts: Sequence[Readout]
    caption: str
    source: str
    settings: Sequence[Settings] = field(default_factory=list)
    #: Intermediate Vega params (name → expression) the readouts share, not shown on the page.
    derived: Mapping[str, str] = field(default_factory=dict)
    #: Lines to copy (setlab calc, BF.RESERVE …) that give the readouts at the current setting.
    commands: Sequence[Command] = ()
    #: A Vega expression that is "" where the setting is fine and otherwise the message
    #: ``setlab calc`` refuses it with (a combination of given controls it cannot solve): the
    #: page then shows the message and no number.
    refusal: str | None = None
    #: Inputs from a closed list (shown after the controls), each a Vega param holding a word.
    choices: Sequence[Choice] = ()

    def __post_init__(self) -> None:
        if not re.match(r"^[a-z0-9-]+$", self.slug):
            raise ValueError(f"slug must be lowercase letters, digits and '-', got {self.slug!r}")
        names = [c.name for c in self.controls] + [r.name for r in self.readouts]
        names += [c.name for c in self.choices] + list(self.derived)
        names += [c.flag for c in self.controls if c.optional]
        names += ["refusal"] if self.refusal is not None else []
        for name in self.derived:
            check_name(name)
        if len(set(names)) != len(names):
            raise ValueError(f"widget {self.slug!r}: parameter names repeat: {names}")
        usable = {c.name for c in (*self.controls, *self.choices)} | {
            r.name for r in self.readouts if r.kind == "int"
        }
        for command in self.commands:
            unknown = set(command.names()) - usable
            if unknown:
                raise ValueError(f"widget {self.slug!r}: command {command.label!r} names "
                                 f"{sorted(unknown)}, not a control, a choice or an int "
                                 "readout")  # fmt: skip
        # a page message says "run the line below": there must be one
        pointing = [c.name for c in self.controls
                    if {c.beyond(), c.off_grid()} & set(c.refusals().values())]  # fmt: skip
        if pointing and self.terminal is None:
            raise ValueError(f"widget {self.slug!r}: {pointing} point at a setlab calc line "
                             "to run, and it has none (commands=…)")  # fmt: skip
        readouts = {r.name for r in self.readouts}
        for c in self.controls:
            if c.optional and c.solved not in readouts:
                raise ValueError(f"widget {self.slug!r}: control {c.name!r} is solved by "
                                 f"{c.solved!r}, not a readout")  # fmt: skip

    @property
    def terminal(self) -> Command | None:
        """The first of :attr:`commands` that is a ``setlab calc`` line: the command whose
        numbers the readouts are, or None."""
        return next((c for c in self.commands if c.template.startswith(CALC_PREFIX)), None)

    @property
    def calculator(self) -> str | None:
        """The ``setlab calc`` calculator the widget shows (the word after ``setlab calc`` in
        :attr:`terminal`), or None: the book's calculators page and the tests look it up."""
        line = self.terminal
        return None if line is None else line.template.removeprefix(CALC_PREFIX).split()[0]

    @property
    def defaults(self) -> dict[str, Any]:
        """The controls' starting values, whether each optional control starts given, and the
        choices' starting words."""
        flags = {c.flag: float(c.given) for c in self.controls if c.optional}
        words = {c.name: c.value for c in self.choices}
        return {**{c.name: c.value for c in self.controls}, **flags, **words}

    def rows(self) -> list[dict[str, Any]]:
        """The fallback's settings with every readout computed by its model, defaults first."""
        rows = []
        for setting in [self.defaults, *self.settings]:
            full = {**self.defaults, **setting}
            if full in rows:
                continue
            rows.append(full)
        return [{**s, **{r.name: r.model(s) for r in self.readouts}} for s in rows]

    def spec(self, *, bind: bool = False) -> dict[str, Any]:
        """The Vega-Lite spec: the chart with the controls and readouts as top-level params.

        ``bind`` adds Vega's own inputs (for JupyterLab); the book binds its own."""
        spec = self.chart.to_dict()
        params = [p for p in spec.get("params", []) if p.get("name") not in self._names()]
        for c in self.controls:
            param: dict[str, Any] = {"name": c.name, "value": c.value}
            if bind:
                lo, hi = (c.low, c.high)
                param["bind"] = {"input": "number" if c.log else "range", "name": c.label}
                if not c.log:
                    param["bind"].update(min=lo, max=hi, step=c.slider()[2])
            params.append(param)
            if c.optional:
                flag: dict[str, Any] = {"name": c.flag, "value": bool(c.given) if bind else
                                        int(c.given)}  # fmt: skip
                if bind:
                    flag["bind"] = {"input": "checkbox", "name": f"given: {c.label}"}
                params.append(flag)
        for choice in self.choices:
            param = {"name": choice.name, "value": choice.value}
            if bind:
                param["bind"] = {"input": "select", "name": choice.label,
                                 "options": list(choice.options),
                                 "labels": list(choice.options.values())}  # fmt: skip
            params.append(param)
        params += self.expr_params()
        spec["params"] = params
        spec.setdefault("background", None)
        return spec

    def expr_params(self) -> list[dict[str, str]]:
        """The derived params, then the readouts, as Vega-Lite ``{name, expr}`` params."""
        derived = [{"name": name, "expr": expr} for name, expr in self.derived.items()]
        refusal = [] if self.refusal is None else [{"name": "refusal", "expr": self.refusal}]
        return derived + [{"name": r.name, "expr": r.expr} for r in self.readouts] + refusal

    def _names(self) -> set[str]:
        flags = {c.flag for c in self.controls if c.optional}
        return ({c.name for c in (*self.controls, *self.choices)}
                | {r.name for r in self.readouts} | set(self.derived) | flags
                | {"refusal"})  # fmt: skip

    def html(self) -> str:
        """The widget as HTML for the static book: controls, readouts (initial values from the
        models), the chart's place, the spec as JSON, and the text fallback."""
        wid = f"widget-{self.slug}"
        defaults = self.rows()[0]
        controls = "\n".join([*(control_html(wid, c, defaults) for c in self.controls),
                              *(choice_html(wid, c, defaults) for c in self.choices)])  # fmt: skip
        if any(c.optional for c in self.controls):
            controls = (
                '<p class="setlab-widget-hint">Tick what you know; what is not ticked is '
                "solved from it.</p>\n" + controls
            )
        readouts = "\n".join(
            f'<div class="setlab-readout"><dt>{html.escape(r.label)}</dt><dd>'
            f'<output id="{wid}-{r.name}" data-readout="{r.name}" data-kind="{r.kind}" '
            f'data-unit="{html.escape(r.unit)}" '
            f'data-value="{html.escape(_data(defaults[r.name]))}"{_long(defaults[r.name])}>'
            f"{html.escape(format_readout(defaults[r.name], r.kind, r.unit))}</output></dd></div>"
            for r in self.readouts
        )
        spec = json.dumps(self.spec(), separators=(",", ":")).replace("</", "<\\/")
        return (
            f'<figure class="setlab-widget" id="{wid}" data-widget="{self.slug}"'
            f"{' data-refusal' if self.refusal is not None else ''}>\n"
            f'<div class="setlab-widget-title">{html.escape(self.title)}</div>\n'
            f'<div class="setlab-widget-controls">\n{controls}\n</div>\n'
            '<p class="setlab-widget-refusal" role="alert" hidden></p>\n'
            f'<dl class="setlab-widget-readouts">\n{readouts}\n</dl>\n'
            f"{self.commands_html(defaults)}"
            f'<p class="setlab-widget-link"><a href="#{wid}">Link to these settings</a> '
            "(the page's address keeps them too)</p>\n"
            f'<div class="setlab-widget-chart" role="img" '
            f'aria-label="{html.escape(self.title)}: {html.escape(self.caption)}"></div>\n'
            f'<script type="application/json" class="setlab-widget-spec">{spec}</script>\n'
            f"<figcaption>{html.escape(self.caption)} <em>Numbers: "
            f"{html.escape(self.source)}.</em></figcaption>\n"
            f"{self.fallback_html()}\n</figure>"
        )

    def command_text(self, command: Command, row: Mapping[str, float]) -> str:
        """``command`` filled in at ``row`` (a setting with its readouts, see :meth:`rows`): a
        part in ``[…]`` is kept only when every optional control it names is given (``[-m {m}]``
        is dropped while m is solved), and an optional control left out reads its solution."""
        controls = {c.name: c for c in self.controls}
        choices = {c.name for c in self.choices}

        def given(name: str) -> bool:
            c = controls.get(name)
            return c is None or not c.optional or bool(row[c.flag])

        def part(m: re.Match) -> str:
            return m.group(1) + " " if all(given(n) for n in PLACE.findall(m.group(1))) else ""

        def value(m: re.Match) -> str:
            name = m.group(1)
            if name in controls:
                c = controls[name]
                shown = row[name] if given(name) else row[c.solved]  # type: ignore[index]
                return plain_value(shown, c.integer)
            if name in choices:
                return str(row[name])
            return str(round(row[name]))

        kept = re.sub(r"\[([^\]]*)\] ?", part, command.template).strip()
        return PLACE.sub(value, kept)

    def commands_html(self, row: Mapping[str, float]) -> str:
        """The commands at ``row``, each with a button that copies it (shown where scripts run)."""
        if not self.commands:
            return ""
        lines = "".join(
            f'<p class="setlab-widget-command"><span>{html.escape(c.label)}</span> '
            f'<code data-template="{html.escape(c.template)}">'
            f"{html.escape(self.command_text(c, row))}</code> "
            '<button type="button" class="setlab-copy">Copy</button></p>'
            for c in self.commands
        )
        return f'<div class="setlab-widget-commands">{lines}</div>\n'

    def fallback_html(self) -> str:
        """The text fallback: one column per setting (the default first), one row per control
        and readout, so a phone shows a few narrow columns rather than a dozen."""
        rows = self.rows()
        head = "<th></th>" + "".join(
            f'<th scope="col">{"default" if i == 0 else f"setting {i + 1}"}</th>'
            for i in range(len(rows))
        )
        # a choice's label wraps in a narrow box of its own (setlab-widgets.css): spread over
        # every column at its full length, it squeezed the numbers beside it onto two lines
        words = '<span class="setlab-widget-words">{}</span>'.format
        body = []
        for label, cells in [
            *((c.label, [html.escape(self._control_cell(c, row)) for row in rows])
              for c in self.controls),
            *((c.label, [words(html.escape(c.text(row[c.name]))) for row in rows])
              for c in self.choices),
            *((r.label, [html.escape(format_readout(row[r.name], r.kind, r.unit))
                         for row in rows]) for r in self.readouts),
        ]:  # fmt: skip
            tds = "".join(f"<td>{x}</td>" for x in cells)
            body.append(f'<tr><th scope="row">{html.escape(label)}</th>{tds}</tr>')
        return (
            '<details class="setlab-widget-fallback"><summary>The same numbers as text, '
            "at the default and a few other settings</summary>\n"
            '<div class="setlab-widget-scroll" tabindex="0"><table>'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div></details>"
        )

    def _control_cell(self, c: Control, row: Mapping[str, float]) -> str:
        """A control's value in the fallback: as set, or its solution when it is left out."""
        if not c.optional or row[c.flag]:
            return control_text(c, row[c.name])
        readout = next(r for r in self.readouts if r.name == c.solved)
        return f"{format_readout(row[c.solved], readout.kind, readout.unit)} (solved)"  # type: ignore[index]

    def text(self) -> str:
        """Plain text of the fallback table (what ``text/plain`` shows)."""
        lines = [self.title]
        for row in self.rows():
            parts = [f"{c.name}={self._control_cell(c, row)}" for c in self.controls]
            parts += [f"{c.name}={c.text(row[c.name])}" for c in self.choices]
            parts += [f"{r.label}: {format_readout(row[r.name], r.kind, r.unit)}"
                      for r in self.readouts]  # fmt: skip
            lines.append("  " + "; ".join(parts))
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """HTML in the built book; in JupyterLab the Vega-Lite spec with bound inputs."""
        if os.environ.get(STATIC_ENV) == "static":
            return {"text/html": self.html(), "text/plain": self.text()}
        return {VEGALITE_MIME: self.spec(bind=True), "text/plain": self.text()}


#: a text readout longer than this is a sentence: a line of its own, in ordinary weight
LONG_TEXT = 60


def _long(value: float | str) -> str:
    return " data-long" if isinstance(value, str) and len(value) > LONG_TEXT else ""


def _data(value: float | str) -> str:
    """A readout's value as its ``data-value`` holds it: a number's repr, words as they are."""
    return value if isinstance(value, str) else repr(value)


def evaluate_in_vega(widget: Widget, settings: Settings) -> dict[str, float]:
    """Every readout of ``widget`` at ``settings``, computed by Vega itself (vl-convert's
    embedded Vega, the same engine the page runs), for tests that compare them with the
    readouts' models, and ``"refusal"`` (the widget's message, "" when it takes the setting)
    when it has one. Unknown controls are an error; missing ones take their defaults (an
    optional control's ``<name>_given`` flag too)."""
    import vl_convert

    unknown = set(settings) - set(widget.defaults)
    if unknown:
        raise ValueError(f"settings name no control of {widget.slug!r}: {sorted(unknown)}")
    values = {**widget.defaults, **settings}
    params: list[dict[str, Any]] = [{"name": name, "value": value}
                                    for name, value in values.items()]  # fmt: skip
    params += widget.expr_params()
    outs = [r.name for r in widget.readouts] + (["refusal"] if widget.refusal is not None else [])
    joined = " + '\\u2016' + ".join(f"('' + {name})" for name in outs)
    spec = {
        "params": params,
        "data": {"values": [{}]},
        "transform": [{"calculate": joined, "as": "out"}],
        "mark": "text",
        "encoding": {"text": {"field": "out", "type": "nominal"}},
    }
    texts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("marktype") == "text":
                texts.extend(str(item["text"]) for item in node.get("items", []))
                return
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(vl_convert.vegalite_to_scenegraph(spec))
    if len(texts) != 1:
        raise RuntimeError(f"expected one text mark from Vega, got {texts!r}")
    parts = texts[0].split("\u2016")  # "‖": no readout writes it
    found: dict[str, Any] = {r.name: v if r.kind == "text" else float(v)
                             for r, v in zip(widget.readouts, parts, strict=False)}  # fmt: skip
    if widget.refusal is not None:
        found["refusal"] = parts[-1]
    return found
