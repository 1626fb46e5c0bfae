"""The pictures of the chapter sharded-bloom: the shard rates of one routing, the campaigns'
memory against their utilisation, the bulk-load strategies of the reference run and what
batching saves at each round-trip time.

Every value drawn comes from the chapter's module (:mod:`setlab.chapters.sharded_bloom`) or
the stored run it is given; nothing here computes a figure the prose quotes.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from setlab.chapters.sharded_bloom import SEED_003_RATIO, Campaigns, ShardRates, seed_002_rate
from setlab.lab.runs.bulk_load import BulkLoadReference
from setlab.lab.wire import loading
from setlab.render.plots import (
    PALETTE,
    count_axis,
    describe,
    legend_below,
    new_figure,
    seconds_axis,
    share_axis,
    short_count,
)


def plot_shard_rates(rows: list[ShardRates]) -> Figure:
    """Histograms of the per-shard false-positive rate, one per routing in ``rows``, with each
    routing's mean (dotted) and worst shard (dashed)."""
    fig, ax = new_figure()
    for row in rows:
        label = f"{short_count(row.total)} items over 2^17 shards"
        ax.hist(row.rates, bins=80, alpha=0.7, label=label)
        ax.axvline(row.rates.mean(), color="black", ls=":")
        ax.axvline(row.rates.max(), color="black", ls="--")
    ax.set(xscale="log", yscale="log", xlabel="false-positive rate of a shard", ylabel="shards",
           title="Every shard has its own rate (dotted: mean, dashed: worst)")  # fmt: skip
    share_axis(ax, "x")
    count_axis(ax, "y")
    ax.legend(loc="upper right")
    return describe(fig, "The worst shard's rate sits well to the right of the mean.")


def plot_campaigns(sweep: list[Campaigns], own: Campaigns) -> Figure:
    """Memory of per-campaign filters over one shared filter, against their utilisation."""
    fig, ax = new_figure()
    ax.plot([c.utilisation for c in sweep], [c.ratio for c in sweep], "o-", label="the model")
    ax.plot([own.utilisation], [own.ratio], "*", ms=14, color=PALETTE[3],
            label="day-to-day variation 0.55")  # fmt: skip
    ax.axhline(SEED_003_RATIO, color="grey", ls="--", label="seed 003: 380 MB over 137 MiB")
    ax.set(xlabel="utilisation (average daily items / sum of capacities)",
           ylabel="memory / one shared filter",
           title="Per-key capacity reservations cost memory")  # fmt: skip
    share_axis(ax, "x")
    ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:g}×")
    ax.legend(loc="upper right")
    return describe(fig, "The less of their capacity the filters use, the more memory they take.")


def plot_bulk_load(ref: BulkLoadReference) -> Figure:
    """Bits set per second by each loading strategy of the reference run, against the server's
    SETBIT ceiling and the rate seed 002's 20 hours imply."""
    labels = [f"{r.strategy} {r.batch or ''}".strip() for r in ref.rows]
    fig, ax = new_figure(height=4.8)
    ax.barh(labels, [r.bits_per_second for r in ref.rows], color=PALETTE[0])
    ax.axvline(ref.setbit_ceiling, color=PALETTE[3], ls="--",
               label="redis-benchmark SETBIT, -P 64")  # fmt: skip
    ax.axvline(seed_002_rate(), color="grey", ls=":", label="seed 002: 8G bits in 20 h")
    ax.set(xscale="log", xlabel="bits set per second",
           title="Bulk-load strategies (reference run)")  # fmt: skip
    count_axis(ax, "x")
    ax.grid(axis="y", visible=False)
    ax.invert_yaxis()
    legend_below(ax)
    return describe(fig, "Building the bits locally beats every per-bit command.")


def plot_batching(ref: BulkLoadReference) -> Figure:
    """The speedup of batches of 100, 1,000 and 10,000 over one round trip per bit, against the
    round-trip time (with the reference run's per-bit cost)."""
    c = ref.pipelined_seconds_per_bit
    rtts = np.logspace(-6, -2.5, 200)
    fig, ax = new_figure()
    for b in (100, 1000, 10_000):
        speedups = [loading.speedup_from_rtt(r, c, b) for r in rtts]
        ax.plot(rtts, speedups, label=f"batch {b:,}")
    at50 = ref.rtt_for(50, 1000)
    ax.axhline(50, color="grey", ls="--")
    ax.axvline(ref.rtt_seconds, color="grey", ls=":")
    ax.text(ref.rtt_seconds, 1.2, " reference run's loopback", rotation=90, fontsize=9,
            va="bottom")  # fmt: skip
    ax.plot([at50], [50], "*", ms=12, color=PALETTE[3], label="50× at batch 1,000")
    ax.set(xscale="log", yscale="log", xlabel="round-trip time",
           ylabel="speedup over a round trip per bit",
           title="Batching pays in proportion to the round trip")  # fmt: skip
    seconds_axis(ax, "x")
    ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:g}×")
    ax.legend(loc="upper left")
    return describe(fig, "The longer the round trip, the more a batch saves.")
