"""Chapter "Scalable Bloom filters" (seed 003, 坑二 and 坑三): its seed figures, claims, tables
and plots.

Every number the page shows is a figure here, computed once: layouts from the exact model of
RedisBloom 2.8 (:mod:`setlab.models.redisbloom`), measurements from the stored reference run
(:class:`setlab.lab.runs.redisbloom_reference.RedisBloomReference`), the rebuild from a seeded
simulation at the reference run's load rate, and fakeredis's equal layers from a small seeded run
on the embedded backend (deterministic, on every backend). What a live server measures on this
run is glued by the page beside them, under ``live-`` names.
"""

from __future__ import annotations

import math
import statistics
from functools import cache

import numpy as np
from matplotlib.figure import Figure

from setlab.chapters import open_page
from setlab.chapters.scalable_bloom import claims, per_release
from setlab.chapters.scalable_bloom import full_scale as scalable_bloom_full_scale
from setlab.core.formats import format_bytes, format_count, format_duration, format_rate
from setlab.lab.backend import Lab, connect
from setlab.lab.reference import Measurement, beside, live_or_reference
from setlab.lab.runs import redisbloom as runs
from setlab.lab.runs.redisbloom import RoaringWindow, ScalingRow, WindowRun
from setlab.lab.runs.redisbloom_reference import RedisBloomReference
from setlab.models import bloom
from setlab.models.redisbloom import (
    DEFAULT_EXPANSION,
    REBUILD_STRATEGIES,
    ChainLayout,
    ChainSimulator,
    FreshValues,
    RebuildOutcome,
    expected_rebuild_passes,
    seed_compound_fpr,
    simulate_rebuild,
)
from setlab.render.claims import Figures
from setlab.render.plots import bytes_axis, new_figure, seconds_axis

FIGURES = Figures("scalable-bloom")

#: ``BF.RESERVE key 0.01 1000`` (``EXPANSION 2`` by default), the chapter's worked example, and
#: how many fresh items the page adds to it.
DEMO, DEMO_ITEMS = ChainLayout(0.01, 1000), 5000
#: The same reservation with ``EXPANSION 1`` (seed 003's "SCALING 1").
DEMO_FIXED = ChainLayout(0.01, 1000, 1)
#: Layers the chapter grows a chain through.
LAYERS = 5
#: The chapter's live chains at ``SETLAB_SCALE`` 1 (the reference run's ``small`` and ``fixed``).
LIVE_CAPACITY, LIVE_QUERIES = 10_000, 100_000
#: fakeredis's chain (pyprobables' equal layers): smaller, its filters are Python.
FAKE_LAYOUT, FAKE_QUERIES = ChainLayout(0.01, 5_000, 1), 20_000
#: Seed 003's rebuild: items reloaded, its window (3 minutes), checks a second (1.2 × 10^8 device
#: IDs a day, at least one check each); our assumption: share of checks for a device already
#: reached that day; the simulation's seed.
REBUILD_ITEMS, SEED_WINDOW_S, SEED_CHECKS_PER_S = 2 * 10**7, 180.0, 1.2e8 / 86_400
REPEAT_SHARE, REBUILD_SEED = 0.3, 3
#: A 7-day window; the daily filters of the chapter's live run at scale 1.
DAYS, LIVE_DAY = 7, ChainLayout(0.01, 10_000)
#: Seed 003's latency figures (seconds): one layer, the P99 after three.
SEED_RTT_ONE, SEED_P99_THREE = 0.06e-3, 0.3e-3


def start() -> Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


@cache
def reference() -> RedisBloomReference:
    """The stored RedisBloom run (read once)."""
    return RedisBloomReference.load()


@cache
def demo_chain() -> tuple[ChainSimulator, np.ndarray]:
    """:data:`DEMO` after :data:`DEMO_ITEMS` fresh items, bit for bit, and the items sent."""
    sim = ChainSimulator(DEMO)
    values = FreshValues(0).take(DEMO_ITEMS)
    sim.add(values)
    return sim, values


def demo_on_server(lab: Lab) -> str:
    """:data:`DEMO` given the :data:`DEMO_ITEMS` fresh items of :func:`demo_chain` on a server,
    beside the model, as the lines the page prints. With RedisBloom on ``lab``: whether
    ``BF.INFO`` (shown too) and ``BF.DEBUG`` equal :class:`ChainLayout`'s and ``BF.SCANDUMP``'s
    bit arrays the :class:`ChainSimulator`'s. Without it: fakeredis's ``BF.INFO`` on an
    embedded lab (pyprobables' equal layers, its "Size" an item count) above the model's. The
    key is deleted afterwards."""
    sim, values = demo_chain()
    live = lab.has_redisbloom
    server = lab if live else connect(FIGURES.chapter, backend="fake", quiet=True)
    key = server.key("demo")
    runs.reserve(server, key, DEMO)
    try:
        runs.add_items(server, key, values)
        info = runs.read_info(server, key)
        if not live:
            return f"fakeredis BF.INFO: {info}\nRedisBloom model:  {sim.info()}"
        inserted = info["Number of items inserted"]
        debug = runs.read_debug(server, key) == DEMO.debug(inserted)
        dump = runs.read_dump(server, key) == [sim.dump(i) for i in range(len(sim.links))]
    finally:
        server.r.unlink(key)
    return (
        f"BF.INFO  == model: {info == DEMO.info(inserted)} {info}\n"
        f"BF.DEBUG == model: {debug}\nBF.SCANDUMP == simulator: {dump}"
    )


@cache
def fake_layers() -> tuple[ScalingRow, ...]:
    """fakeredis's ``BF.*`` grown through :data:`LAYERS` layers of :data:`FAKE_LAYOUT` on the
    embedded backend (pyprobables: equal layers at the full 1%). Deterministic."""
    fake = connect("scalable-bloom", backend="fake", quiet=True)
    return tuple(runs.scaling_run(fake, "layers", FAKE_LAYOUT, LAYERS, FAKE_QUERIES, timed=0))


def _bits_per_item(filters: int) -> tuple[int, float, float, float]:
    """Items held with ``filters`` full sub-filters of :data:`DEMO`, and bits per item for
    ``EXPANSION`` 2, ``EXPANSION`` 1 and one filter reserved up front for the same items at
    the chain's final design rate."""
    total = DEMO.items_for(filters)
    one = ChainLayout(DEMO.design_fpr(filters), total, nonscaling=True)
    fixed = DEMO_FIXED.bits_per_item(DEMO_FIXED.items_for(filters))
    return total, DEMO.bits_per_item(total), fixed, one.bits_per_item(total)


@cache
def rebuild_outcomes() -> dict[tuple[str, str], RebuildOutcome]:
    """Delete-and-rebuild and dual-write + shadow-read of :data:`REBUILD_ITEMS` items, at seed
    003's load rate and at the reference run's (``(strategy, "seed" | "ours")``)."""
    rng = np.random.default_rng(REBUILD_SEED)
    rates = (("seed", REBUILD_ITEMS / SEED_WINDOW_S), ("ours", reference().load_items_per_second))
    return {
        (strategy, label): simulate_rebuild(
            REBUILD_ITEMS, rate, SEED_CHECKS_PER_S, REPEAT_SHARE, strategy, rng
        )
        for strategy in REBUILD_STRATEGIES
        for label, rate in rates
    }


def _window_layout() -> ChainLayout:
    return reference().layouts["window"]


def _day_rate_for_window(rate: float = 0.01, days: int = DAYS) -> float:
    """The rate each of ``days`` daily filters needs for the OR to stay at ``rate``."""
    return 1 - (1 - rate) ** (1 / days)


# -- figures: the layout model -----------------------------------------------------------------

FIGURES.add("sbf-expansion", lambda: str(DEFAULT_EXPANSION))
FIGURES.add(
    "sbf-demo-links",
    lambda: ", ".join(
        f"{link.capacity:,} items at {format_rate(link.error)}" for link in DEMO.sub_filters(3)
    ),
)
FIGURES.add("sbf-demo-counted", lambda: format_count(demo_chain()[0].size))
FIGURES.add("sbf-demo-sent", lambda: format_count(demo_chain()[1].size))
FIGURES.add("sbf-demo-filters", lambda: str(len(demo_chain()[0].links)))
FIGURES.add("sbf-demo-capacity", lambda: format_count(DEMO.capacity))
FIGURES.add("sbf-seed-3", lambda: format_rate(seed_compound_fpr(0.01, 3)))
FIGURES.add("sbf-seed-5", lambda: format_rate(seed_compound_fpr(0.01, LAYERS)))
FIGURES.add("sbf-design-5", lambda: format_rate(reference().layouts["small"].design_fpr(LAYERS)))
FIGURES.add("sbf-bpi-exp2", lambda: f"{_bits_per_item(LAYERS)[1]:.1f}")
FIGURES.add("sbf-bpi-exp1", lambda: f"{_bits_per_item(LAYERS)[2]:.1f}")
FIGURES.add("sbf-bpi-one", lambda: f"{_bits_per_item(LAYERS)[3]:.1f}")


def _large() -> ChainLayout:
    return reference().layouts["large"]


FIGURES.add("sbf-probes", lambda: f"{_large().stranger_probes(_large().items_for(1)):.1f}")
FIGURES.add("sbf-probes-3", lambda: f"{_large().stranger_probes(_large().items_for(3)):.1f}")

# -- figures: fakeredis's equal layers (a seeded run on the embedded backend) ------------------

FIGURES.add("sbf-fake-3", lambda: format_rate(fake_layers()[2].fpr_measured))
FIGURES.add("sbf-fake-5", lambda: format_rate(fake_layers()[LAYERS - 1].fpr_measured))

# -- figures: the reference run ----------------------------------------------------------------

FIGURES.add("sbf-source", lambda: reference().run.label)
FIGURES.add("sbf-first", lambda: format_rate(reference().small[0].fpr_measured))
FIGURES.add("sbf-rb-3", lambda: format_rate(reference().small[2].fpr_measured))
FIGURES.add("sbf-rb-3-model", lambda: format_rate(reference().small[2].fpr_model))
FIGURES.add("sbf-rb-5", lambda: format_rate(reference().small[LAYERS - 1].fpr_measured))
FIGURES.add("sbf-rb1-5", lambda: format_rate(reference().fixed[LAYERS - 1].fpr_measured))
FIGURES.add("sbf-large-items", lambda: format_count(reference().large[-1].items))
FIGURES.add("sbf-large-mem", lambda: format_bytes(reference().large[-1].size))
for _n in (1, 3, 5):
    FIGURES.add(
        f"sbf-srv-{_n}", lambda n=_n: format_duration(reference().large[n - 1].stranger_server)
    )
FIGURES.add(
    "sbf-rtt-1",
    lambda: format_duration(reference().large[0].stranger_rtt_p50),
    quantity="BF.EXISTS of an absent item, one sub-filter | median round trip | layers reference "
    "run",
)
FIGURES.add("sbf-rtt-3", lambda: format_duration(reference().large[2].stranger_rtt_p50))
FIGURES.add("sbf-p99-3", lambda: format_duration(reference().large[2].stranger_rtt_p99))
FIGURES.add("sbf-p99-5", lambda: format_duration(reference().large[4].stranger_rtt_p99))

# -- figures: the rebuild (simulated at the reference run's load rate) --------------------------


def _outcome(strategy: str, label: str) -> RebuildOutcome:
    return rebuild_outcomes()[strategy, label]


FIGURES.add("sbf-rate", lambda: format_count(reference().load_items_per_second) + " items/s")
FIGURES.add("sbf-seed-rate", lambda: format_count(REBUILD_ITEMS / SEED_WINDOW_S) + " items/s")
FIGURES.add(
    "sbf-window", lambda: format_duration(_outcome("delete-and-rebuild", "ours").window_seconds)
)
FIGURES.add("sbf-checks", lambda: format_count(SEED_CHECKS_PER_S))
FIGURES.add("sbf-repeat", lambda: f"{REPEAT_SHARE:.0%}")
FIGURES.add("sbf-passed-seed", lambda: format_count(_outcome("delete-and-rebuild", "seed").passed))
FIGURES.add("sbf-passed-ours", lambda: format_count(_outcome("delete-and-rebuild", "ours").passed))
FIGURES.add(
    "sbf-expected-seed",
    lambda: format_count(
        expected_rebuild_passes(
            REBUILD_ITEMS, REBUILD_ITEMS / SEED_WINDOW_S, SEED_CHECKS_PER_S, REPEAT_SHARE
        )
    ),
)
FIGURES.add("sbf-dual-passed", lambda: str(_outcome("dual-write-shadow-read", "ours").passed))
FIGURES.add(
    "sbf-dual-reads", lambda: format_count(_outcome("dual-write-shadow-read", "ours").extra_reads)
)
FIGURES.add(
    "sbf-dual-filters", lambda: str(_outcome("dual-write-shadow-read", "ours").peak_filters)
)

# -- figures: the 7-day window (reference run) ----------------------------------------------------


def _window() -> WindowRun:
    return reference().window


def _roaring() -> RoaringWindow:
    return reference().roaring


FIGURES.add("sbf-win-capacity", lambda: format_count(_window_layout().capacity))
FIGURES.add("sbf-win-fpr", lambda: format_rate(_window().fpr_measured))
FIGURES.add("sbf-win-model", lambda: format_rate(_window().fpr_model))
FIGURES.add("sbf-win-day", lambda: format_rate(_window().fpr_day_model))
FIGURES.add("sbf-win-mult", lambda: f"{_window().multiplier:.1f}")
FIGURES.add(
    "sbf-win-one",
    lambda: format_duration(_window().one_filter.p50),
    quantity="BF.EXISTS on one filter | median round trip | window reference run",
)
FIGURES.add("sbf-win-rt", lambda: format_duration(_window().round_trips.p50))
FIGURES.add("sbf-win-rt99", lambda: format_duration(_window().round_trips.p99))
FIGURES.add("sbf-win-pipe", lambda: format_duration(_window().pipelined.p50))
FIGURES.add("sbf-win-ratio", lambda: f"{_window().round_trip_ratio:.1f}×")
FIGURES.add("sbf-roar-each", lambda: format_duration(_roaring().per_query_each_day))
FIGURES.add("sbf-roar-union", lambda: format_duration(_roaring().per_query_union))
FIGURES.add("sbf-roar-bytes", lambda: f"{_roaring().bytes_per_id:.1f}")
FIGURES.add(
    "sbf-bloom-bytes",
    lambda: f"{_window_layout().memory(_window_layout().capacity) / _window_layout().capacity:.2f}",
)
FIGURES.add("sbf-day-for-1pc", lambda: format_rate(_day_rate_for_window()))


def _day_bits_ratio() -> float:
    """Bits per item of a daily filter at the rate that keeps the 7-day OR at 1%, over those of
    the daily filters measured (their first sub-filter, at half the reserved 1%)."""
    daily = _window_layout().sub_filter(0).error
    return bloom.bits_per_item(_day_rate_for_window()) / bloom.bits_per_item(daily)


FIGURES.add("sbf-day-bits", lambda: f"{_day_bits_ratio():.2f}×")


# -- live experiments and their stored counterparts (for live_or_reference) -----------------------


def chain_layouts(scale: float = 1.0) -> dict[str, ChainLayout]:
    """The two chains the page grows live: ``EXPANSION`` 2 and 1, capacity scaled."""
    capacity = max(100, int(LIVE_CAPACITY * scale))
    return {
        "EXPANSION 2": ChainLayout(0.01, capacity, 2),
        "EXPANSION 1": ChainLayout(0.01, capacity, 1),
    }


def chains_bytes(scale: float = 1.0) -> int:
    """Bytes the live chains take at their largest (one at a time)."""
    return max(layout.memory(layout.items_for(LAYERS)) for layout in chain_layouts(scale).values())


def measure_chains(lab: Lab, scale: float = 1.0) -> dict[str, list[ScalingRow]]:
    """Grow both chains of :func:`chain_layouts` through :data:`LAYERS` sub-filters on ``lab``."""
    queries = max(1000, int(LIVE_QUERIES * scale))
    return {
        label: runs.scaling_run(lab, "chain", layout, LAYERS, queries, timed=2000)
        for label, layout in chain_layouts(scale).items()
    }


def reference_chains() -> dict[str, list[ScalingRow]]:
    """The same two chains from the reference run."""
    return {"EXPANSION 2": list(reference().small), "EXPANSION 1": list(reference().fixed)}


def grown_chains(lab: Lab, scale: float = 1.0) -> Measurement[dict[str, list[ScalingRow]]]:
    """Both chains grown through :data:`LAYERS` sub-filters: measured on the lab's RedisBloom
    where it can (:func:`measure_chains` at ``scale``, if the guard lets
    :func:`chains_bytes` through), else the reference run's (:func:`reference_chains`),
    labelled either way."""
    return live_or_reference(
        lab,
        lambda lab: measure_chains(lab, scale),
        reference_chains,
        needs=("redisbloom",),
        allocates=chains_bytes(scale),
        run_info=reference().run,
    )


def measure_window(lab: Lab, scale: float = 1.0) -> tuple[WindowRun, RoaringWindow]:
    """Seven daily filters on ``lab`` and the same question in process with pyroaring."""
    day = ChainLayout(0.01, max(100, int(LIVE_DAY.capacity * scale)))
    window = runs.window_run(lab, "day", day, DAYS, queries=int(50_000 * scale), timed=1000)
    return window, runs.roaring_window_costs(DAYS, per_day=day.capacity, queries=20_000)


def reference_window() -> tuple[WindowRun, RoaringWindow]:
    """The window and its Roaring counterpart from the reference run."""
    return reference().window, reference().roaring


def live_chains_text(chains: Measurement[dict[str, list[ScalingRow]]]) -> str:
    """This run's compound rates and load rate, or why nothing was measured."""

    def describe(value: dict[str, list[ScalingRow]]) -> str:
        two, one = value["EXPANSION 2"], value["EXPANSION 1"]
        rate = statistics.median(r.load_items_per_second for r in two)
        return (
            f"{format_rate(two[2].fpr_measured)} with three full sub-filters, "
            f"{format_rate(two[-1].fpr_measured)} with five ({format_rate(one[-1].fpr_measured)} "
            f"with EXPANSION 1); pipelined BF.MADD loaded {format_count(rate)} items/s"
        )

    return beside(chains, describe)


def live_window_text(window: Measurement[tuple[WindowRun, RoaringWindow]]) -> str:
    """This run's 7-day question, or why nothing was measured."""

    def describe(value: tuple[WindowRun, RoaringWindow]) -> str:
        w, roaring = value
        return (
            f"a window rate of {format_rate(w.fpr_measured)}; seven round trips "
            f"{format_duration(w.round_trips.p50)}, one {format_duration(w.one_filter.p50)}, "
            f"one pipeline {format_duration(w.pipelined.p50)}; seven Roaring bitmaps in process "
            f"{format_duration(roaring.per_query_each_day)}"
        )

    return beside(window, describe)


# -- tables --------------------------------------------------------------------------------------


def subfilter_table(layout: ChainLayout = DEMO, count: int = LAYERS) -> str:
    """The first ``count`` sub-filters of ``layout`` (Markdown)."""
    lines = [
        "| sub-filter | capacity | error | bits per item | hashes | bytes |",
        "|---|---|---|---|---|---|",
    ]
    for link in layout.sub_filters(count):
        lines.append(
            f"| {link.index} | {link.capacity:,} | {format_rate(link.error)} "
            f"| {link.bits / link.capacity:.2f} | {link.hashes} | {link.bytes:,} |"
        )
    return "\n".join(lines)


def bits_per_item_table() -> str:
    """Bits per item of :data:`DEMO` as it grows, with ``EXPANSION 1`` and one filter (Markdown)."""
    lines = [
        "| full sub-filters | items held, BF.RESERVE key 0.01 1000 | bits/item, EXPANSION 2 "
        "| bits/item, EXPANSION 1 | one filter, same items and rate |",
        "|---|---|---|---|---|",
    ]
    for k in range(1, LAYERS + 1):
        total, exp2, exp1, one = _bits_per_item(k)
        lines.append(f"| {k} | {total:,} | {exp2:.1f} | {exp1:.1f} | {one:.1f} |")
    return "\n".join(lines)


def rebuild_table() -> str:
    """The simulated rebuilds of :func:`rebuild_outcomes` (Markdown)."""
    lines = [
        "| strategy | load rate | window | repeat checks in it | duplicates let through "
        "| extra reads | extra writes | filters at once |",
        "|---|---|---|---|---|---|---|---|",
    ]
    names = {"seed": "seed 003's rate", "ours": "reference run's rate"}
    for (strategy, label), o in rebuild_outcomes().items():
        lines.append(
            f"| {strategy} | {names[label]} | {format_duration(o.window_seconds)} "
            f"| {o.repeat_queries:,} | {o.passed:,} | {o.extra_reads:,} | {o.extra_writes:,} "
            f"| {o.peak_filters} |"
        )
    return "\n".join(lines)


# -- plots --------------------------------------------------------------------------------------


def plot_layers() -> Figure:
    """Bytes and design error of the first five layers of :data:`DEMO` with ``EXPANSION`` 2 and
    1, and of pyprobables' equal layers (fakeredis, seed 003's model)."""
    chains = {"RedisBloom, EXPANSION 2": DEMO, "RedisBloom, EXPANSION 1": DEMO_FIXED}
    fig, (ax_b, ax_e) = new_figure(ncols=2, width=9, height=3.8)
    layers = np.arange(1, LAYERS + 1)
    for (label, layout), dx in zip(chains.items(), (-0.2, 0.0), strict=True):
        links = layout.sub_filters(LAYERS)
        ax_b.bar(layers + dx, [link.bytes for link in links], width=0.2, label=label)
        ax_e.plot(layers, [link.error for link in links], "o-", label=label)
    equal = "fakeredis (pyprobables), seed 003"
    ax_b.bar(layers + 0.2, [bloom.optimal_m(DEMO.capacity, DEMO.error) / 8] * LAYERS, width=0.2,
             label=equal)  # fmt: skip
    ax_e.plot(layers, [DEMO.error] * LAYERS, "s--", label=equal)
    ax_b.set(
        yscale="log", xlabel="sub-filter (layer)", ylabel="bytes", title="Memory of each layer"
    )
    bytes_axis(ax_b)
    ax_e.set(yscale="log", xlabel="sub-filter (layer)", ylabel="design error rate",
             title="Error of each layer")  # fmt: skip
    ax_b.legend()
    ax_e.legend()
    return fig


def plot_compound(chains: Measurement[dict[str, list[ScalingRow]]]) -> Figure:
    """False-positive rate after 1 … 5 full sub-filters: RedisBloom measured and modelled (this
    run or the reference run), fakeredis's equal layers, and seed 003's formula."""
    n = np.arange(1, LAYERS + 1)
    fig, ax = new_figure()
    ax.plot(n, [seed_compound_fpr(0.01, k) for k in n], "k--", label="seed 003: 1 − (1 − 1%)^n")
    ax.plot(n, [r.fpr_measured for r in fake_layers()], "s", color="#CC79A7", ms=8,
            label="fakeredis (pyprobables), equal layers")  # fmt: skip
    for (label, rows), colour in zip(chains.value.items(), ("#0072B2", "#009E73"), strict=True):
        ax.plot(n, [r.fpr_measured for r in rows], "o", color=colour, ms=8,
                label=f"RedisBloom {label}, measured ({chains.source})")  # fmt: skip
        ax.plot(n, [r.fpr_model for r in rows], "-", color=colour, lw=1,
                label=f"RedisBloom {label}, model")  # fmt: skip
    ax.axhline(0.01, color="grey", ls=":")
    ax.text(2.2, 0.0105, "the error given to BF.RESERVE", fontsize=9)
    ax.set(xticks=n, xlabel="full sub-filters (layers)", ylabel="false-positive rate",
           title="RedisBloom's chain stays below its error; equal layers add up")  # fmt: skip
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.legend()
    return fig


def plot_latency(chains: Measurement[dict[str, list[ScalingRow]]]) -> Figure:
    """Time inside Redis and round trip per ``BF.EXISTS`` as the reference run's large chain
    grows, with this run's small chain beside it when it was measured live."""
    large = reference().large
    fig, (ax_s, ax_r) = new_figure(ncols=2, width=9, height=3.8)
    x = [r.filters_full for r in large]
    ax_s.plot(x, [r.stranger_server for r in large], "o-", label="stranger (not in the filter)")
    ax_s.plot(x, [r.member_server for r in large], "s-", label="member in the oldest sub-filter")
    if chains.live:
        ax_s.plot(x, [r.stranger_server for r in chains.value["EXPANSION 2"]], "o:", color="grey",
                  label="this run, small chain, stranger")  # fmt: skip
    ax_s.set(xticks=x, ylim=(0, None), xlabel="full sub-filters",
             ylabel="time inside Redis per BF.EXISTS", title="Server time")  # fmt: skip
    seconds_axis(ax_s)
    ax_r.plot(x, [r.stranger_rtt_p50 for r in large], "o-", label="median")
    ax_r.plot(x, [r.stranger_rtt_p99 for r in large], "^-", label="99th percentile")
    ax_r.axhline(SEED_RTT_ONE, color="grey", ls="--")
    ax_r.axhline(SEED_P99_THREE, color="grey", ls=":")
    ax_r.text(1, SEED_RTT_ONE * 1.03, "seed: 0.06 ms", fontsize=9)
    ax_r.text(1, SEED_P99_THREE * 1.03, "seed: P99 0.3 ms", fontsize=9)
    ax_r.set(xticks=x, yscale="log", xlabel="full sub-filters", ylabel="round trip (client)",
             title="Round trip, strangers")  # fmt: skip
    seconds_axis(ax_r)
    ax_s.legend()
    ax_r.legend()
    return fig


def plot_window(window: Measurement[tuple[WindowRun, RoaringWindow]]) -> Figure:
    """Time per "seen in the last 7 days?" question: one filter, seven round trips, one
    pipeline, and seven Roaring bitmaps (each, and one union) in process."""
    w, roaring = window.value
    cases = [("Redis: one filter", w.one_filter), ("Redis: 7 round trips", w.round_trips),
             ("Redis: 7 EXISTS, one pipeline", w.pipelined)]  # fmt: skip
    labels = [c for c, _ in cases] + [
        "Roaring: 7 bitmaps in process",
        "Roaring: one union in process",
    ]
    p50 = [t.p50 for _, t in cases] + [roaring.per_query_each_day, roaring.per_query_union]
    p99 = [t.p99 for _, t in cases] + [math.nan, math.nan]
    fig, ax = new_figure(height=3.4)
    ax.barh(labels, p50, color="#0072B2", label="median")
    ax.plot(p99, labels, "D", color="#D55E00", label="99th percentile")
    ax.set(xscale="log", xlabel="time per query",
           title=f"Is this device in the last 7 days? ({window.source})")  # fmt: skip
    seconds_axis(ax, "x")
    ax.invert_yaxis()
    ax.legend()
    return fig


# seed 003 at full scale (reference/measure_full_scale_003.py)
scalable_bloom_full_scale.register(FIGURES)


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)

# every release measured: the stored per-release run (reference/measure_releases.py)
per_release.register(FIGURES)
