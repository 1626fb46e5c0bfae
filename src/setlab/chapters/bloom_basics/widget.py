"""Chapter bloom-basics, interactive: a Bloom calculator that knows what Redis allocates.

The reader sets the items ``n``, the false-positive rate ``p`` and how full the filter really
gets (items added, as a multiple of ``n``). The figure answers with the classic filter (``m``,
``k``, bytes, fill; :mod:`setlab.models.bloom`), RedisBloom's real layout for ``BF.RESERVE key p
n`` — the default chain, whose first sub-filter is sized for ``p/2``, and ``NONSCALING``, sized for
``p`` (:class:`setlab.models.redisbloom.ChainLayout`) — with what jemalloc hands out for each (a
size class, :func:`setlab.models.bitmap.jemalloc_size_class`, looked up from a table computed here
at build time), and the rate once more items arrive than were planned: a fixed filter keeps
filling, the default chain adds sub-filters, and ``NONSCALING`` refuses the adds.

The formulas are the models' own, written as Vega expressions; every readout is also computed by
``setlab calc bloom`` (its ``model``), and the tests check the two agree.
"""

from __future__ import annotations

import math

from setlab.models import bloom, redisbloom
from setlab.models.bitmap import jemalloc_size_class
from setlab.render.vega_lite import alt
from setlab.render.widgets import (
    Command,
    Control,
    Readout,
    Settings,
    Widget,
    decade_axis,
    step_expr,
)
from setlab.tools import calc, scale

#: The chapter's case: seed 002's 800 million openids at 1%, filled exactly to capacity.
DEFAULTS = {"n": 800_000_000, "p": 0.01, "load": 1.0}
#: The text fallback's other settings.
SETTINGS = ({"n": 1_000_000, "p": 0.001, "load": 2.0}, {"n": 10_000_000, "p": 1e-4, "load": 0.5},
            {"n": 800_000_000, "p": 0.01, "load": 3.0, "sets": 100})  # fmt: skip
#: Loads drawn on the curve, as multiples of ``n`` (the default chain then has at most three
#: sub-filters: they hold n, 2n and 4n).
MAX_LOAD = 4.0
#: Largest bit array the jemalloc table covers, bytes: the default chain's third sub-filter at
#: the controls' extremes (4 × 10^10 items at 10^-6 / 8) is ~165 GB.
MAX_ALLOCATION = 2**38


def _n(x: float) -> str:
    return repr(float(x))


def jemalloc_expr(var: str) -> str:
    """jemalloc's size class of ``var`` bytes, as a step table computed from the model."""
    breaks, values, size = [], [], 1
    while size <= MAX_ALLOCATION:
        cls = jemalloc_size_class(size)
        breaks.append(size)
        values.append(cls)
        size = cls + 1
    return step_expr(var, breaks, values)


def _link(cap: str, err: str) -> tuple[str, str]:
    """(bits, hashes) of ``sub_filter(cap, err)``, as Vega expressions."""
    bpe = f"(-log({err}) / {_n(redisbloom.LN2_SQUARED)})"
    bits = f"(ceil(max(1, floor({cap} * {bpe})) / 64) * 64)"
    return bits, f"ceil({_n(redisbloom.LN2)} * {bpe})"


def chain_fpr_expr(items: str) -> str:
    """The default chain's expected rate holding ``items`` (``ChainLayout.expected_fpr``): up to
    three sub-filters of capacity n, 2n, 4n at p/2, p/4, p/8, filled oldest first."""
    miss, used = [], "0"
    for i in range(3):
        cap, err = f"(n * {2**i})", f"(p * {0.5 ** (i + 1)!r})"
        bits, hashes = _link(cap, err)
        size = f"min(max(0, {items} - {used}), {cap})"
        miss.append(f"(1 - pow(1 - exp(-{hashes} * {size} / {bits}), {hashes}))")
        used = f"({used} + {cap})"
    return f"(1 - {' * '.join(miss)})"


def fixed_fpr_expr(items: str) -> str:
    """The classic filter's rate (``m``, ``k`` fixed) holding ``items``: ``(1 - e^(-k n/m))^k``."""
    return f"pow(1 - exp(-k * {items} / m), k)"


def _classic(s: Settings) -> dict:
    return calc.bloom_report(calc.solve_bloom(n=round(s["n"]), p=s["p"])).data


def _layout(s: Settings, nonscaling: bool = False, load: int | None = None) -> dict:
    return calc.redisbloom_layout(round(s["n"]), s["p"], nonscaling=nonscaling, load=load).data


def _items(s: Settings) -> int:
    return math.ceil(s["load"] * round(s["n"]))


def _fixed_rate(s: Settings) -> float:
    c = _classic(s)
    return calc.solve_bloom(n=_items(s), m=c["m"], k=c["k"]).p


def _chart() -> alt.LayerChart:
    steps = round(MAX_LOAD / 0.05)
    base = alt.Chart(alt.Data(values=[{"x": round(0.05 * i, 2)} for i in range(1, steps + 1)]))
    items = "ceil(datum.x * n)"
    # Vega reads dots in field names as paths: the curves are "fixed" and "chain", labelled after.
    labels = {"fixed": "one filter of m bits", "chain": "BF.RESERVE default chain"}
    curves = (
        base.transform_calculate(fixed=fixed_fpr_expr(items), chain=chain_fpr_expr(items))
        .transform_fold(list(labels), as_=["curve", "rate"])
        .transform_calculate(
            filter=f"datum.curve == 'fixed' ? '{labels['fixed']}' : '{labels['chain']}'"
        )
    )
    log_rate = alt.Scale(type="log", domain={"expr": "[p / 1000, 1]"}, clamp=True)
    y = alt.Y("rate:Q", title="false-positive rate", scale=log_rate, axis=decade_axis())
    x = alt.X("x:Q", title="items added ÷ n (1 = the planned capacity)")
    legend = alt.Legend(orient="bottom", direction="vertical")  # one per line fits a phone
    lines = curves.mark_line().encode(
        x=x, y=y, color=alt.Color("filter:N", title=None, legend=legend)
    )
    capacity = (
        alt.Chart(alt.Data(values=[{"x": 1}]))
        .mark_rule(strokeDash=[4, 3], color="#888888")  # grey: seen on light and dark
        .encode(x="x:Q")
    )
    here = (
        alt.Chart(alt.Data(values=[{}]))
        .transform_calculate(x="load", rate="rate_chain")
        .mark_point(size=80, filled=True)
        .encode(x="x:Q", y=alt.Y("rate:Q", scale=alt.Scale(type="log")))
    )
    return alt.layer(lines, capacity, here).properties(
        width="container", height=230,
        title="The rate past the planned capacity",
    )  # fmt: skip


def calculator() -> Widget:
    """The Bloom calculator of chapter bloom-basics (see the module docstring)."""
    # the default chain's sub-filters (n, 2n, 4n at p/2, p/4, p/8) and NONSCALING's one
    rb = {"nsub": "1 + (items > n ? 1 : 0) + (items > 3 * n ? 1 : 0)"}
    for i in range(3):
        bits, _ = _link(f"(n * {2**i})", f"(p * {0.5 ** (i + 1)!r})")
        rb[f"rb_bytes{i}"] = f"({bits} / 8)"
    rb["ns_bytes0"] = f"({_link('n', '(p)')[0]} / 8)"
    alloc = jemalloc_expr("{}")
    structs = jemalloc_size_class(redisbloom.CHAIN_BYTES) + jemalloc_size_class(
        redisbloom.LINK_BYTES
    )
    overhead = redisbloom.CHAIN_BYTES + redisbloom.LINK_BYTES
    # BF.INFO Size and jemalloc's blocks for the sub-filters the chain has at this load
    present = [f"(nsub > {i} ? 1 : 0)" for i in range(3)]
    rb_size = f"{redisbloom.CHAIN_BYTES} + " + " + ".join(
        f"{on} * ({redisbloom.LINK_BYTES} + rb_bytes{i})" for i, on in enumerate(present)
    )
    rb_alloc = (
        f"{jemalloc_size_class(redisbloom.CHAIN_BYTES)} + "
        f"{alloc.replace('{}', f'({redisbloom.LINK_BYTES} * nsub)')} + "
        + " + ".join(
            f"{on} * {alloc.replace('{}', f'rb_bytes{i}')}" for i, on in enumerate(present)
        )
    )
    best = f"(m / n * {_n(bloom.LN2)})"
    klo, khi = f"max(1, floor({best}))", f"max(1, ceil({best}))"
    readouts = [
        Readout("m", "bits m", f"ceil(-n * log(p) / ({_n(bloom.LN2)} * {_n(bloom.LN2)}))",
                lambda s: _classic(s)["m"], kind="int"),
        Readout("k", "hashes k",
                f"(pow(1 - exp(-{klo} * n / m), {klo}) <= pow(1 - exp(-{khi} * n / m), {khi})"
                f" ? {klo} : {khi})", lambda s: _classic(s)["k"], kind="int"),
        Readout("bytes", "bit array", "ceil(m / 8)", lambda s: _classic(s)["bytes"],
                kind="bytes"),
        Readout("bpi", "bits per item", "m / n", lambda s: _classic(s)["bits_per_item"]),
        Readout("bound", "lower bound, any structure", "-log(pow(1 - exp(-k * n / m), k)) / LN2",
                lambda s: _classic(s)["lower_bound_bits_per_item"], unit="bits per item"),
        Readout("keys", "Redis strings it takes (2^32 bits each)", f"ceil(m / {2**32})",
                lambda s: _classic(s)["redis_keys"], kind="int"),
        Readout("fill", "bits set at n", "1 - exp(-k * n / m)", lambda s: _classic(s)["fill"],
                kind="percent"),
        Readout("rb_size", "BF.RESERVE: BF.INFO Size at this load", rb_size,
                lambda s: _layout(s, load=_items(s))["bytes"], kind="bytes"),
        Readout("rb_alloc", "BF.RESERVE: jemalloc gives at this load", rb_alloc,
                lambda s: _layout(s, load=_items(s))["allocated"], kind="bytes"),
        Readout("ns_size", "NONSCALING: BF.INFO Size", f"{overhead} + ns_bytes0",
                lambda s: _layout(s, nonscaling=True)["bytes"], kind="bytes"),
        Readout("ns_alloc", "NONSCALING: jemalloc gives",
                f"{structs} + {alloc.replace('{}', 'ns_bytes0')}",
                lambda s: _layout(s, nonscaling=True)["allocated"], kind="bytes"),
        Readout("ns_refused", "NONSCALING: adds refused at this load", "max(0, items - n)",
                lambda s: max(0, _items(s) - round(s["n"])), kind="int"),
        Readout("rate_fixed", "rate at this load, one filter", fixed_fpr_expr("items"),
                _fixed_rate, kind="rate"),
        Readout("rate_chain", "rate at this load, default chain", chain_fpr_expr("items"),
                lambda s: _layout(s, load=_items(s))["expected_fpr"], kind="rate"),
        Readout("filters", "sub-filters at this load", "nsub",
                lambda s: _layout(s, load=_items(s))["sub_filters"], kind="int"),
        Readout("added", "items added", "items", _items, kind="int"),
    ]  # fmt: skip
    sets, at_scale = scale.widget_parts("bytes", lambda s: _classic(s)["bytes"])
    return Widget(
        "bloom", "Bloom calculator: the classic filter beside what RedisBloom allocates",
        _chart(),
        controls=[
            Control("n", "items n", DEFAULTS["n"], 1e3, 1e10, log=True, integer=True),
            Control("p", "false-positive rate p", DEFAULTS["p"], 1e-6, 0.5, log=True),
            Control("load", "items added ÷ n", DEFAULTS["load"], 0.05, MAX_LOAD, step=0.05),
            sets,
        ],
        readouts=readouts + at_scale,
        caption="Set n and p; the readouts give the classic filter (m, k, bytes, fill), the "
        "BF.INFO Size of BF.RESERVE key p n (its first sub-filter is built for p/2) and of "
        "NONSCALING (built for p), and what jemalloc really hands out for each. Move the load "
        "past 1: one filter of m bits fills up and its rate climbs; the default chain adds "
        "sub-filters of 2n and 4n, its size grows with them and its rate stays under p; "
        "NONSCALING keeps its size and refuses the adds past n "
        "(\"non scaling filter is full\"). Set how many such filters you keep (one per "
        "campaign, per day) for the total and the 16 GiB servers it takes.",
        source="formulas of setlab.models.bloom and .redisbloom run in your browser; jemalloc's "
        "size classes from a table computed at build time; the same as setlab calc bloom",
        settings=SETTINGS,
        derived={"items": "ceil(load * n)", **rb},
        commands=[
            Command("the same in a terminal:",
                    "setlab calc bloom -n {n} -p {p} --load {added} --redisbloom --sets {sets}"),
            Command("in Redis (the default chain):", "BF.RESERVE ids {p} {n}"),
        ],
    )  # fmt: skip
