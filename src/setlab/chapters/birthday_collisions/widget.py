"""Chapter birthday-collisions, interactive: the birthday explorer.

The reader sets how many IDs ``n`` are hashed into a bitmap of ``M = 2^bits`` offsets; the figure
answers with the exact chance that two share an offset (:func:`setlab.models.birthday.
collision_probability`) and the expected number of sharing pairs, and draws the chance against
``n`` for that ``M`` with seed 000 §3.4's table cells on it (the seed's printed figure, coloured by
our verdict; the cells of the reader's ``M`` stand out).

In the browser the chance is ``1 - e^(-x)`` with ``x = -Σ log(1 - i/M)`` summed as its series
``S1/M + S2/2M² + S3/3M³ + S4/4M⁴`` (``S_j = Σ_{i<n} i^j``, closed forms): wherever the chance is
not 1 to double precision, ``n/M`` is below 0.04 and the next term is under 10⁻⁶ of ``x``. The
tests check it against the exact model, which ``setlab calc birthday`` prints.
"""

from __future__ import annotations

from setlab.chapters.birthday_collisions import seed_000_cells
from setlab.core.formats import format_probability
from setlab.render.vega_lite import alt
from setlab.render.widgets import Command, Control, Readout, Settings, Widget
from setlab.tools.calc.birthday import birthday_report

#: Seed 000's §3.4 setting: 1,000 likers per item in 2^32 offsets.
DEFAULTS = {"n": 1000, "bits": 32}
#: The text fallback's other settings: the seed's wrong cell (2^20, 1,000), seed 004's 100,000
#: UUIDs in 2^32, a 64-bit hash of a billion IDs, and 2^16 offsets for 300 IDs.
SETTINGS = ({"n": 1000, "bits": 20}, {"n": 100_000, "bits": 32}, {"n": 10**9, "bits": 64},
            {"n": 300, "bits": 16})  # fmt: skip
MAX_N = 10**9


def chance_expr(n: str) -> str:
    """The chance that ``n`` IDs in ``M`` offsets collide, as a Vega expression (see above)."""
    s1 = f"({n} * ({n} - 1) / 2)"
    s2 = f"(({n} - 1) * {n} * (2 * {n} - 1) / 6)"
    s4 = f"(({n} - 1) * {n} * (2 * {n} - 1) * (3 * ({n} - 1) * ({n} - 1) + 3 * ({n} - 1) - 1) / 30)"
    m = "offsets"
    terms = [f"{s1} / {m}", f"{s2} / (2 * pow({m}, 2))", f"{s1} * {s1} / (3 * pow({m}, 3))",
             f"{s4} / (4 * pow({m}, 4))"]  # fmt: skip
    x = f"({' + '.join(terms)})"
    small = f"({x} - {x} * {x} / 2 + {x} * {x} * {x} / 6)"
    return f"({n} > {m} ? 1 : ({x} < 1e-5 ? {small} : 1 - exp(-{x})))"


def _data(s: Settings) -> dict:
    return birthday_report(round(s["n"]), round(s["bits"])).data


def _chart() -> alt.LayerChart:
    ns = sorted({max(2, round(10 ** (i / 20))) for i in range(0, 181)})  # P(1 ID) = 0
    curve = (
        alt.Chart(alt.Data(values=[{"n": n} for n in ns]))
        .transform_calculate(chance=chance_expr("datum.n"))
        .mark_line()
        .encode(
            x=alt.X("n:Q", title="IDs hashed (n)", scale=alt.Scale(type="log")),
            y=alt.Y("chance:Q", title="P(two IDs share an offset)",
                    scale=alt.Scale(type="log", domain=[1e-12, 1], clamp=True),
                    axis=alt.Axis(values=[1e-12, 1e-9, 1e-6, 1e-3, 1],
                                  labelExpr="datum.value >= 0.001 ? format(datum.value, '~g')"
                                            " : format(datum.value, '.0e')")),
        )
    )  # fmt: skip
    cells = [
        {"n": c.n, "printed": c.seed_value, "bits": c.log2_m, "verdict": c.verdict,
         "cell": f"2^{c.log2_m}, {c.n:,}: seed {c.printed}"}
        for c in seed_000_cells()
    ]  # fmt: skip
    seed = (
        alt.Chart(alt.Data(values=cells))
        .mark_point(size=70, filled=True, shape="diamond")
        .encode(
            x="n:Q",
            y=alt.Y("printed:Q", scale=alt.Scale(type="log")),
            color=alt.Color("verdict:N", title="seed 000's cell",
                            scale=alt.Scale(domain=["correct", "imprecise", "wrong"],
                                            range=["#2e7d32", "#b26a00", "#c62828"]),
                            legend=alt.Legend(orient="bottom")),
            opacity=alt.condition("datum.bits == bits", alt.value(1), alt.value(0.25)),
            tooltip=["cell:N", "verdict:N"],
        )
    )  # fmt: skip
    here = (
        alt.Chart(alt.Data(values=[{}]))
        .transform_calculate(n="n", chance="chance")
        .mark_point(size=90, shape="circle", filled=False, strokeWidth=2)
        .encode(x="n:Q", y="chance:Q")
    )
    return alt.layer(curve, seed, here).properties(
        width="container", height=240, title="Chance of a shared offset, for your M"
    )


def _check(name: str):
    """``setlab calc birthday``'s checks of ``-n`` or ``--bits``: parsed as a count, then the
    report's own limits (n up to 2^62, 1 to 64 bits), with their words."""
    from setlab.core.quantities import parse_count

    def check(v: float) -> None:
        value = parse_count(str(v), name)
        birthday_report(value, DEFAULTS["bits"]) if name == "n" else birthday_report(2, value)

    return check


def explorer() -> Widget:
    """The birthday explorer of chapter birthday-collisions (see the module docstring)."""
    readouts = [
        Readout("space", "offsets M", "offsets", lambda s: _data(s)["space"], kind="int"),
        Readout("chance", "P(any two share an offset)", chance_expr("n"),
                lambda s: _data(s)["collision_probability"], kind="percent"),
        Readout("pairs", "expected sharing pairs", "n * (n - 1) / (2 * offsets)",
                lambda s: _data(s)["expected_colliding_pairs"]),
    ]  # fmt: skip
    return Widget(
        "birthday", "Birthday explorer: IDs hashed into a bitmap of M offsets", _chart(),
        controls=[
            Control("n", "IDs n", DEFAULTS["n"], 2, MAX_N, log=True, integer=True,
                    check=_check("n"), cli=(1, 2**62)),
            Control("bits", "offset space M = 2^bits", DEFAULTS["bits"], 16, 64, integer=True,
                    check=_check("bits"), cli=(1, 64)),
        ],
        readouts=readouts,
        caption="Set how many IDs you hash and the bitmap's size. The curve is the exact chance "
        "that two of them land on one offset; the diamonds are seed 000 §3.4's printed figures, "
        "coloured by our verdict, bold where M is yours. With 2^32 offsets, one item in "
        f"{1 / _data(DEFAULTS)['collision_probability']:,.0f} with a thousand likers has two on "
        f"one offset; with {SETTINGS[1]['n']:,} likers the chance is "
        f"{format_probability(_data(SETTINGS[1])['collision_probability'])}.",
        source="the exact birthday model (setlab.models.birthday) as a series in your browser; "
        "the same as setlab calc birthday",
        settings=SETTINGS,
        derived={"offsets": "pow(2, bits)"},
        commands=[Command("the same in a terminal:", "setlab calc birthday -n {n} --bits {bits}")],
    )  # fmt: skip
