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
    text_lookup,
)
from setlab.tools import calc
from setlab.tools.capacity import widget_parts

#: The chapter's case: seed 002's 800 million openids at 1%, filled exactly to capacity.
DEFAULTS = {"n": 800_000_000, "p": 0.01, "load": 1.0}
#: The text fallback's other settings: three more loads, and a filter of 2^32 bits (one Redis
#: string) with 7 hashes whose capacity at 1% is solved.
SETTINGS = ({"n": 1_000_000, "p": 0.001, "load": 2.0}, {"n": 10_000_000, "p": 1e-4, "load": 0.5},
            {"n": 800_000_000, "p": 0.01, "load": 3.0, "sets": 100},
            {"n_given": 0, "m": 2**32, "m_given": 1, "k": 7, "k_given": 1})  # fmt: skip
#: Loads drawn on the curve, as multiples of ``n`` (the default chain then has at most three
#: sub-filters: they hold n, 2n and 4n).
MAX_LOAD = 4.0
#: Largest bit array the jemalloc table covers, bytes: the default chain's largest sub-filter at
#: the controls' extremes is ~550 GB (2^38 bits and one hash hold 1.9 × 10^11 items at p = 1/2;
#: the third sub-filter holds four times as many at 1/16). tests/chapters/test_widget_bloom.py
#: checks the extremes stay inside it.
MAX_ALLOCATION = 2**40


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
    three sub-filters of capacity n, 2n, 4n at p/2, p/4, p/8, filled oldest first (the solved
    ``nn`` and the rate ``BF.RESERVE`` is given, ``prb``)."""
    miss, used = [], "0"
    for i in range(3):
        cap, err = f"(nn * {2**i})", f"(prb * {0.5 ** (i + 1)!r})"
        bits, hashes = _link(cap, err)
        size = f"min(max(0, {items} - {used}), {cap})"
        miss.append(f"(1 - pow(1 - exp(-{hashes} * {size} / {bits}), {hashes}))")
        used = f"({used} + {cap})"
    return f"(1 - {' * '.join(miss)})"


def fixed_fpr_expr(items: str) -> str:
    """The classic filter's rate (the solved ``mm``, ``kk`` fixed) holding ``items``:
    ``(1 - e^(-k n/m))^k``."""
    return f"pow({fill_expr(f'kk * {items} / mm')}, kk)"


#: the four quantities a reader may give, in the CLI's order (``setlab calc bloom -n -p -m -k``)
GIVEN = ("n", "p", "m", "k")
#: What a setting of the given checkboxes starts with: the chapter's n and p; m and k solved.
START_GIVEN = {"n": True, "p": True, "m": False, "k": False}
#: The page computes m up to 2^38 bits (32 GiB, eight Redis strings): the RedisBloom chain for the
#: most items such a filter holds (k = 1 at p = 1/2) stays inside the jemalloc table.
MAX_BITS = 2**38
#: The values ``setlab calc bloom --redisbloom`` takes (``-n`` up to the module's capacity limit),
#: wider than the page's.
CLI_SPANS = {"n": (1, redisbloom.MAX_CAPACITY), "m": (1, 2**64), "k": (1, bloom.MAX_K),
             "p": (math.nextafter(0.0, 1.0), math.nextafter(1.0, 0.0))}  # fmt: skip


def given(s: Settings) -> dict[str, float]:
    """The quantities setting ``s`` gives, as ``setlab calc bloom`` takes them (whole n, m, k)."""
    out: dict[str, float] = {}
    for name in GIVEN:
        if s.get(f"{name}_given", START_GIVEN[name]):
            out[name] = s[name] if name == "p" else round(s[name])
    return out


def _solution(s: Settings) -> calc.BloomSolution:
    return calc.solve_bloom(**given(s))  # type: ignore[arg-type]


def _classic(s: Settings) -> dict:
    return calc.bloom_report(_solution(s)).data


def _reserve_p(s: Settings) -> float:
    """The rate ``BF.RESERVE`` is given: p as given, or the solved one (as the CLI does)."""
    return s["p"] if "p" in given(s) else _solution(s).p


def _layout(s: Settings, nonscaling: bool = False, load: int | None = None) -> dict:
    return calc.redisbloom_layout(
        _solution(s).n, _reserve_p(s), nonscaling=nonscaling, load=load
    ).data


def _items(s: Settings) -> int:
    return math.ceil(s["load"] * _solution(s).n)


def _fixed_rate(s: Settings) -> float:
    c = _classic(s)
    return calc.solve_bloom(n=_items(s), m=c["m"], k=c["k"]).p


def fill_expr(x: str) -> str:
    """``1 - e^(-x)``, the fraction of bits set, to full precision for tiny ``x`` (the models use
    ``-expm1(-x)``; Vega has no expm1): Kahan's ``(u - 1) x / log(u)`` with ``u = e^(-x)``, and
    1 once ``u`` underflows."""
    u = f"exp(-({x}))"
    return f"({u} == 1 ? ({x}) : {u} == 0 ? 1 : -(({u} - 1) * -({x}) / log({u})))"


def _log1p(x: str) -> str:
    """``log(1 + x)`` to full precision for tiny ``x`` (Vega has no log1p): Goldberg's
    ``log(u) x / (u - 1)`` with ``u = 1 + x``."""
    return f"((1 + {x}) == 1 ? {x} : log(1 + {x}) * {x} / ((1 + {x}) - 1))"


def _best_k(m: str, n: str) -> str:
    """``bloom.optimal_k(m, n)``: floor or ceil of ``(m/n) ln 2``, whichever has the lower
    rate (the smaller on a tie), at least 1."""
    best = f"({m} / {n} * {_n(bloom.LN2)})"
    lo, hi = f"max(1, floor({best}))", f"max(1, ceil({best}))"
    rate = {k: f"pow({fill_expr(f'{k} * {n} / {m}')}, {k})" for k in (lo, hi)}
    return f"({rate[lo]} <= {rate[hi]} ? {lo} : {hi})"


def solve_exprs() -> dict[str, str]:
    """``calc.solve_bloom`` as Vega parameters over the controls and their ``<name>_given``
    flags: ``mode`` (which pair it starts from, in the function's order: n and p, m and p, n
    and m, n and k, m and k), then the solved ``nn``, ``mm``, ``kk``, the rate at ``nn`` items
    ``pp`` and the rate ``BF.RESERVE`` is given, ``prb``."""
    sq = f"({_n(bloom.LN2)} * {_n(bloom.LN2)})"
    fixed_k_m = f"ceil(-k * n / {_log1p('(-pow(p, 1 / k))')})"
    return {
        "mode": "n_given && p_given ? 0 : m_given && p_given ? 1 : n_given && m_given ? 2"
                " : n_given ? 3 : 4",
        "cap": f"(m * {sq} / -log(p))",  # m and p: the capacity with the best k
        "mm": f"mode == 0 ? (k_given ? {fixed_k_m} : ceil(-n * log(p) / {sq}))"
              f" : mode == 3 ? ceil(k * n / {_n(bloom.LN2)}) : m",
        "kk": f"k_given ? k : mode == 0 ? {_best_k('mm', 'n')}"
              f" : mode == 1 ? {_best_k('m', 'max(cap, 1)')} : {_best_k('m', 'n')}",
        "nn": f"mode == 1 ? floor(-(m / kk) * {_log1p('(-pow(p, 1 / kk))')})"
              f" : mode == 4 ? max(1, floor(m * {_n(bloom.LN2)} / k)) : n",
        "pp": f"pow({fill_expr('kk * nn / mm')}, kk)",
        "prb": "p_given ? p : pp",
    }  # fmt: skip


def refusal_expr() -> str:
    """What ``setlab calc bloom`` says of the given checkboxes' setting, "" where it solves it:
    each of the 16 combinations is put to ``calc.solve_bloom`` here (its own message); m and p
    that cannot hold one item, and a filter so full that its rate rounds to 1, are refused with
    the function's words (tests/chapters/test_widget_bloom.py compares them)."""
    flags = " + ".join(f"({name}_given ? {2**i} : 0)" for i, name in enumerate(GIVEN))
    sample = {"n": 1000, "p": 0.01, "m": 10_000, "k": 3}
    messages = []
    for mask in range(2 ** len(GIVEN)):
        args = {name: sample[name] for i, name in enumerate(GIVEN) if mask >> i & 1}
        try:
            calc.solve_bloom(**args)  # type: ignore[arg-type]
            messages.append("")
        except ValueError as err:
            messages.append(str(err))
    percent = "(100 * p)"
    # format_rate: 3 significant digits, written out in full where Python's "g" would use
    # an exponent (below 10^-4 once rounded)
    digits = f"(2 + max(0, -floor(log({percent}) / LN10)))"
    rate = (f"(toNumber(format({percent}, '.2e')) < 0.0001 ? format({percent}, '.' + {digits}"
            f" + 'f') : format({percent}, '.3~g')) + '%'")  # fmt: skip
    empty = "'m = ' + format(m, ',') + ' bits cannot hold even one item at p = ' + " + rate
    full = ("'m = ' + format(mm, ',') + ' bits for n = ' + format(nn, ',') + ' items: every bit"
            " ends up set and every query answers maybe (the rate rounds to 1)'")  # fmt: skip
    return (f"{text_lookup(f'({flags})', messages)} || (mode == 1 && nn < 1 ? {empty} : '')"
            f" || (pp >= 1 ? {full} : '')")  # fmt: skip


def _chart() -> alt.LayerChart:
    steps = round(MAX_LOAD / 0.05)
    base = alt.Chart(alt.Data(values=[{"x": round(0.05 * i, 2)} for i in range(1, steps + 1)]))
    items = "ceil(datum.x * nn)"
    # Vega reads dots in field names as paths: the curves are "fixed" and "chain", labelled after.
    labels = {"fixed": "one filter of m bits", "chain": "BF.RESERVE default chain"}
    curves = (
        base.transform_calculate(fixed=fixed_fpr_expr(items), chain=chain_fpr_expr(items))
        .transform_fold(list(labels), as_=["curve", "rate"])
        .transform_calculate(
            filter=f"datum.curve == 'fixed' ? '{labels['fixed']}' : '{labels['chain']}'"
        )
    )
    log_rate = alt.Scale(type="log", domain={"expr": "[prb / 1000, 1]"}, clamp=True)
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


def _checks() -> dict[str, object]:
    """Each given quantity checked as ``setlab calc bloom --redisbloom`` checks it: parsed as
    its option is, then by ``solve_bloom`` and the RedisBloom layout (n up to 2^50)."""
    from setlab.core.quantities import parse_bits, parse_count, parse_probability
    from setlab.core.validate import check_int

    def n(v: float) -> None:
        calc.redisbloom_layout(calc.solve_bloom(n=parse_count(str(v), "n"), p=0.01).n, 0.01)

    return {
        "n": n,
        "p": lambda v: calc.solve_bloom(n=1000, p=parse_probability(repr(v), "p")),
        "m": lambda v: parse_bits(str(v), "m"),
        "k": lambda v: check_int("k", parse_count(str(v), "k"), 1, bloom.MAX_K),
    }


def calculator() -> Widget:
    """The Bloom calculator of chapter bloom-basics (see the module docstring)."""
    # the default chain's sub-filters (nn, 2nn, 4nn at prb/2, /4, /8) and NONSCALING's one
    rb = {"nsub": "1 + (items > nn ? 1 : 0) + (items > 3 * nn ? 1 : 0)"}
    for i in range(3):
        bits, _ = _link(f"(nn * {2**i})", f"(prb * {0.5 ** (i + 1)!r})")
        rb[f"rb_bytes{i}"] = f"({bits} / 8)"
    rb["ns_bytes0"] = f"({_link('nn', '(prb)')[0]} / 8)"
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
    readouts = [
        Readout("sol_n", "items n", "nn", lambda s: _classic(s)["n"], kind="int"),
        Readout("sol_p", "false-positive rate at n items", "pp", lambda s: _classic(s)["p"],
                kind="rate"),
        Readout("sol_m", "bits m", "mm", lambda s: _classic(s)["m"], kind="int"),
        Readout("sol_k", "hashes k", "kk", lambda s: _classic(s)["k"], kind="int"),
        Readout("bytes", "bit array", "ceil(mm / 8)", lambda s: _classic(s)["bytes"],
                kind="bytes"),
        Readout("bpi", "bits per item", "mm / nn", lambda s: _classic(s)["bits_per_item"]),
        Readout("bound", "lower bound, any structure", "-log(pp) / LN2",
                lambda s: _classic(s)["lower_bound_bits_per_item"], unit="bits per item"),
        Readout("keys", "Redis strings it takes (2^32 bits each)", f"ceil(mm / {2**32})",
                lambda s: _classic(s)["redis_keys"], kind="int"),
        Readout("fill", "bits set at n", fill_expr("kk * nn / mm"), lambda s: _classic(s)["fill"],
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
        Readout("ns_refused", "NONSCALING: adds refused at this load", "max(0, items - nn)",
                lambda s: max(0, _items(s) - _solution(s).n), kind="int"),
        Readout("rate_fixed", "rate at this load, one filter", fixed_fpr_expr("items"),
                _fixed_rate, kind="rate"),
        Readout("rate_chain", "rate at this load, default chain", chain_fpr_expr("items"),
                lambda s: _layout(s, load=_items(s))["expected_fpr"], kind="rate"),
        Readout("filters", "sub-filters at this load", "nsub",
                lambda s: _layout(s, load=_items(s))["sub_filters"], kind="int"),
        Readout("added", "items added", "items", _items, kind="int"),
    ]  # fmt: skip
    sets, at_scale = widget_parts("bytes", lambda s: _classic(s)["bytes"])
    checks = _checks()

    def quantity(
        name: str, label: str, value: float, low: float, high: float, integer: bool = True
    ) -> Control:
        return Control(name, label, value, low, high, log=True, integer=integer, optional=True,
                       given=START_GIVEN[name], solved=f"sol_{name}", check=checks[name],
                       cli=CLI_SPANS[name])  # type: ignore[arg-type]  # fmt: skip

    default = calc.solve_bloom(n=DEFAULTS["n"], p=DEFAULTS["p"])
    return Widget(
        "bloom", "Bloom calculator: the classic filter beside what RedisBloom allocates",
        _chart(),
        controls=[
            quantity("n", "items n", DEFAULTS["n"], 1, 1e10),
            quantity("p", "false-positive rate p", DEFAULTS["p"], 1e-9, 0.99, integer=False),
            quantity("m", "bits m", default.m, 1, MAX_BITS),
            quantity("k", "hashes k", default.k, 1, bloom.MAX_K),
            Control("load", "items added ÷ n", DEFAULTS["load"], 0.05, MAX_LOAD, step=0.05),
            sets,
        ],
        readouts=readouts + at_scale,
        caption="Tick the two or three of n, p, m and k you know and the calculator solves the "
        "rest, as setlab calc bloom does (n and p: the bits and hashes; m and p: how many items "
        "fit; n, m and k: the rate). The readouts give the classic filter (m, k, bytes, fill), "
        "the BF.INFO Size of BF.RESERVE key p n (its first sub-filter is built for p/2) and of "
        "NONSCALING (built for p), and what jemalloc really hands out for each. Move the load "
        "past 1: one filter of m bits fills up and its rate climbs; the default chain adds "
        "sub-filters of 2n and 4n, its size grows with them and its rate stays under p; "
        "NONSCALING keeps its size and refuses the adds past n "
        "(\"non scaling filter is full\"). Set how many such filters you keep (one per "
        "campaign, per day) for the total and the 16 GiB servers it takes.",
        source="formulas of setlab.models.bloom and .redisbloom run in your browser; jemalloc's "
        "size classes from a table computed at build time; the same as setlab calc bloom",
        settings=SETTINGS,
        derived={**solve_exprs(), "items": "ceil(load * nn)", **rb},
        commands=[
            Command("the same in a terminal:",
                    "setlab calc bloom [-n {n}] [-p {p}] [-m {m}] [-k {k}] --load {added} "
                    "--redisbloom --sets {sets}"),
            Command("in Redis (the default chain):", "BF.RESERVE ids {p} {n}"),
        ],
        refusal=refusal_expr(),
    )  # fmt: skip
