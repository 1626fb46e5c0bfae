"""Chapter sharded-bloom: sharding a filter over keys, and bulk loading (seed 002 §4–8, 003 sizing).

Seed 003's 8000 per-campaign filters and the campaign model that reproduces them, the spread of
shard loads in seed 002's layout (:func:`setlab.models.bloom.sharded_fpr`,
:func:`~setlab.models.bloom.worst_shard_load`), the stored bulk-load run
(:class:`setlab.lab.runs.bulk_load.BulkLoadReference`), the chapter's figures and its claims (its
pictures are in :mod:`.plots`). Every figure is a formula, a seeded model or the stored reference
run, so the page reads the same on every backend; what this run measures live is shown beside
it, labelled.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

import numpy as np

from setlab.chapters import open_page
from setlab.chapters.sharded_bloom import claims
from setlab.core.formats import (
    format_bytes,
    format_bytes_si,
    format_count,
    format_duration,
    format_hours,
)
from setlab.lab.backend import Lab
from setlab.lab.full_scale.mass_insertion import MassInsertionReference, PipeRow
from setlab.lab.full_scale.peers import PeerRow, PeersReference
from setlab.lab.full_scale.phpredis import PhpredisReference
from setlab.lab.full_scale.sharded_bloom import FullScaleReference
from setlab.lab.runs.bloom import RedisBloomFilter
from setlab.lab.runs.bulk_load import SEED_002_BIT_WRITES, BulkLoadReference
from setlab.models import bitmap, bloom, packed_bloom
from setlab.models.seeds import SEED_002_BITS, SEED_002_FIX_CONTAINERS, SEED_002_FIX_K
from setlab.models.seeds import SEED_002_ITEMS as SEED_002_REAL
from setlab.render.claims import Figures

FIGURES = Figures("sharded-bloom")

#: Seed 002 §8: its pipelined load of 8 × 10^9 bit writes took about 20 hours.
SEED_002_LOAD_HOURS = 20
#: Seed 003: 8000 per-campaign filters took 380 MB against the theory's 137 MiB for one.
SEED_003_FILTERS_BYTES, SEED_003_ONE_FILTER_BYTES = 380e6, 137 * 2**20
SEED_003_RATIO = SEED_003_FILTERS_BYTES / SEED_003_ONE_FILTER_BYTES
#: Seed 003's error rate.
SEED_003_P = 0.01


def start() -> Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


# -- seed 002: the spread of shard loads ---------------------------------------------------------


@dataclass(frozen=True)
class ShardSpread:
    """Seed 002's final layout (2^17 keys of 2^17 bits, k = 10) at the real 8 × 10^8 items."""

    mean_load: float  #: items per shard on average
    worst_load: int  #: the fullest shard's load (median over routings)
    at_mean_load: float  #: the rate of a shard at the mean load
    mean_rate: float  #: the mean rate over shards (binomial loads)
    worst_rate: float  #: the rate of the fullest shard

    @property
    def excess(self) -> float:
        """How much the mean rate exceeds the rate at the mean load (a fraction: Jensen)."""
        return self.mean_rate / self.at_mean_load - 1

    @property
    def worst_ratio(self) -> float:
        """The fullest shard's rate over the mean rate."""
        return self.worst_rate / self.mean_rate


@cache
def shard_spread() -> ShardSpread:
    """:class:`ShardSpread` from the binomial model (no sampling)."""
    n, shards, m, k = SEED_002_REAL, SEED_002_FIX_CONTAINERS, SEED_002_BITS, SEED_002_FIX_K
    worst = bloom.worst_shard_load(n, shards)
    return ShardSpread(
        n / shards, worst, float(bloom.fpr(n / shards, m, k)), bloom.sharded_fpr(n, shards, m, k),
        float(bloom.fpr(worst, m, k)),
    )  # fmt: skip


@dataclass(frozen=True)
class ShardRates:
    """One random routing of ``total`` items over seed 002's final layout (2^17 keys of 2^17
    bits, k = 10): each shard's load and its false-positive rate at that load."""

    total: float
    loads: np.ndarray  #: items per shard
    rates: np.ndarray  #: each shard's rate at its load (:func:`setlab.models.bloom.fpr`)

    def summary(self) -> str:
        """The loads' range, the rate at the mean load, the mean rate over shards and the
        worst shard's (rates as fractions)."""
        at_mean = bloom.fpr(self.total / SEED_002_FIX_CONTAINERS, SEED_002_BITS, SEED_002_FIX_K)
        return (
            f"{self.total:.0e}: loads {self.loads.min():,}..{self.loads.max():,}; "
            f"rate at mean load {at_mean:.3g}, mean over shards {self.rates.mean():.3g}, "
            f"worst shard {self.rates.max():.3g}"
        )


def route_to_shards(rng: np.random.Generator, total: float) -> ShardRates:
    """Route ``total`` items to seed 002's 2^17 shards as hashing does, each to a shard uniformly
    at random (one multinomial draw from ``rng``), and price every shard at its own load (the
    binomial spread :func:`shard_spread` takes in closed form)."""
    shards = SEED_002_FIX_CONTAINERS
    loads = rng.multinomial(int(total), np.full(shards, 1 / shards))
    return ShardRates(total, loads, bloom.fpr(loads, SEED_002_BITS, SEED_002_FIX_K))


def filter_check(filt: RedisBloomFilter, members: np.ndarray, strangers: np.ndarray) -> str:
    """The test a filter needs (bloom-basics: strangers, after filling), as one line: how many
    keys the filter's lab holds and one of them (shard 0x2A), whether every one of ``members``
    is found, and the share of ``strangers`` it lets through beside its layout's expected rate
    for that many members."""
    found = filt.contains_many(members).all()
    through = filt.contains_many(strangers).mean()
    expected = filt.layout.expected_fpr(members.size)
    return (
        f"{len(filt.lab.keys())} keys, e.g. {filt.key_for(0x2A)}; members found: {found}; "
        f"strangers through: {through:.4f} (expected {expected:.4f})"
    )


# -- seed 002: what its final layout really costs in Redis ----------------------------------------

#: A container's key in the layout (the longest number a 2^17-key layout needs).
LAYOUT_KEY = "bloom:131071"
#: Keys simulated for the grown layout (the mean of a seeded sample, scaled to 2^17 keys).
LAYOUT_SAMPLE_KEYS = 8192


@dataclass(frozen=True)
class LayoutMemory:
    """Seed 002's final layout (2^17 keys of 2^17 bits) in Redis: ``MEMORY USAGE`` summed over
    its keys (bytes), presized or grown by SETBIT, on one jemalloc build."""

    keys: int
    payload: int  #: the bits as bytes: 2^34 / 8
    presized_per_key: int  #: one key created at its full 16 KiB in one write
    grown_per_key: float  #: mean over keys filled by the load's random SETBITs alone
    grown_classes: tuple[int, ...]  #: the value allocations grown keys end in (bytes)

    @property
    def presized(self) -> int:
        return self.keys * self.presized_per_key

    @property
    def grown(self) -> float:
        return self.keys * self.grown_per_key


@cache
def layout_memory(allocator: str = "debian") -> LayoutMemory:
    """:class:`LayoutMemory` of seed 002's final layout at the real 8 × 10^8 items × k writes."""
    bits, keys = SEED_002_BITS, SEED_002_FIX_CONTAINERS
    overhead = bitmap.key_overhead_bytes(LAYOUT_KEY, allocator)
    writes = round(SEED_002_REAL / keys * SEED_002_FIX_K)
    grown = bitmap.random_fill_allocations(bits, writes, LAYOUT_SAMPLE_KEYS, 2, allocator)
    return LayoutMemory(
        keys, keys * bits // 8, bitmap.SdsString.new(bits // 8, allocator).allocation + overhead,
        float(np.mean(grown)) + overhead, tuple(sorted(set(grown))),
    )  # fmt: skip


# -- seed 003: 8000 filters, each sized for its own peak -------------------------------------------


@dataclass(frozen=True)
class CampaignModel:
    """Seed 003's campaigns as :func:`setlab.models.bloom.skewed_daily_loads` draws them."""

    keys: int = 8000
    days: int = 30
    daily_total: float = 1.2e8
    spread: float = 1.5  #: lognormal shape of the campaigns' typical sizes
    day_to_day: float = 0.55  #: lognormal shape of each campaign's daily variation
    seed: int = 4

    def daily(self) -> np.ndarray:
        """Items per campaign per day, shape ``(days, keys)``."""
        return bloom.skewed_daily_loads(
            np.random.default_rng(self.seed), self.keys, self.days, self.daily_total, self.spread,
            self.day_to_day,
        )  # fmt: skip


#: The model the chapter and its claim use: campaign sizes vary by about half from day to day.
CAMPAIGNS = CampaignModel()


@dataclass(frozen=True)
class Campaigns:
    """Memory of per-campaign filters (each for its own peak) against one shared filter."""

    per_campaign: float  #: bytes of all per-campaign filters at 1%
    shared: int  #: bytes of one filter for the peak of the daily total, at 1%
    utilisation: float  #: average daily items over the sum of the capacities
    peak_total: float  #: items on the model's busiest day, what the shared filter is sized for

    @property
    def ratio(self) -> float:
        return self.per_campaign / self.shared


@cache
def campaigns(model: CampaignModel = CAMPAIGNS) -> Campaigns:
    """Size every campaign's filter for its own peak, and one filter for the peak of the sum."""
    daily = model.daily()
    peaks = daily.max(axis=0)
    peak_total = float(daily.sum(axis=1).max())
    return Campaigns(
        bloom.filters_bytes(peaks, SEED_003_P),
        bloom.size_for(peak_total, SEED_003_P).bytes,
        float(daily.sum(axis=1).mean() / peaks.sum()),
        peak_total,
    )


def campaign_sweep(variation: np.ndarray) -> list[Campaigns]:
    """:func:`campaigns` for each day-to-day variation in ``variation`` (the rest as
    :data:`CAMPAIGNS`)."""
    return [campaigns(dataclasses.replace(CAMPAIGNS, day_to_day=float(v))) for v in variation]


# -- seed 002 §8: the bulk load (the stored reference run) ----------------------------------------


def reference_run() -> BulkLoadReference:
    """The stored benchmark of every loading strategy."""
    return BulkLoadReference.load()


def strategies_markdown() -> str:
    """The reference run's strategies as a Markdown table, with seed 002's load at each rate."""
    lines = [
        "| strategy | batch | bits/s | × SETBIT ceiling | 8 × 10^9 bits would take |",
        "|---|---|---|---|---|",
    ]
    for r in reference_run().rows:
        lines.append(
            f"| {r.strategy} | {r.batch or ''} | {r.bits_per_second:,.0f} | "
            f"{r.ratio_to_setbit_ceiling:.2f} | {format_hours(r.seed_002_seconds)} |"
        )
    return "\n".join(lines)


def seed_002_rate() -> float:
    """Bits a second that seed 002's 20 hours for 8 × 10^9 bit writes imply."""
    return SEED_002_BIT_WRITES / (SEED_002_LOAD_HOURS * 3600)


# -- figures --------------------------------------------------------------------------------------


def _php_mode(name: str) -> str:
    row = PhpredisReference.load().mode(name)
    sent = "MULTI … EXEC around them" if row.transaction else "no MULTI, no EXEC"
    return f"{name}: {sent}"


FIGURES.add("sb-php-default", lambda: _php_mode("default"))
FIGURES.add("sb-php-pipeline", lambda: _php_mode("Redis::PIPELINE"))
FIGURES.add("sb-php-source", lambda: PhpredisReference.load().run.label)
FIGURES.add("sb-php-version", lambda: PhpredisReference.load().phpredis)

FIGURES.add("sb-mean-load", lambda: format_count(shard_spread().mean_load))
FIGURES.add("sb-worst-load", lambda: format_count(shard_spread().worst_load))
FIGURES.add("sb-worst-ratio", lambda: f"{shard_spread().worst_ratio:.1f}×")
FIGURES.add("sb-jensen", lambda: f"{shard_spread().excess:.1%}")
FIGURES.add("sb-shard-bytes", lambda: format_bytes(SEED_002_BITS / 8))

FIGURES.add("sb-layout-payload", lambda: format_bytes(layout_memory().payload))
FIGURES.add("sb-layout-presized", lambda: format_bytes(layout_memory().presized))
FIGURES.add("sb-layout-grown", lambda: format_bytes(layout_memory().grown))
FIGURES.add("sb-layout-presized-key", lambda: format_bytes(layout_memory().presized_per_key))
FIGURES.add("sb-layout-grown-key", lambda: format_bytes(layout_memory().grown_per_key))
FIGURES.add(
    "sb-layout-grown-classes",
    lambda: ", ".join(format_bytes(c) for c in layout_memory().grown_classes),
)
FIGURES.add(
    "sb-layout-presized-over",
    lambda: f"{layout_memory().presized / layout_memory().payload - 1:.0%}",
)
FIGURES.add(
    "sb-layout-grown-over", lambda: f"{layout_memory().grown / layout_memory().payload - 1:.0%}"
)
FIGURES.add(
    "sb-layout-bundled",
    lambda: (
        f"{format_bytes(layout_memory('bundled').presized)} / "
        f"{format_bytes(layout_memory('bundled').grown)}"
    ),
)

FIGURES.add("sb-per-campaign", lambda: format_bytes_si(campaigns().per_campaign))
FIGURES.add("sb-shared", lambda: format_bytes(campaigns().shared))
FIGURES.add("sb-shared-peak", lambda: f"{campaigns().peak_total / 1e8:.2f} × 10^8")
FIGURES.add("sb-ratio", lambda: f"{campaigns().ratio:.2f}×")
FIGURES.add("sb-util", lambda: f"{campaigns().utilisation:.0%}")
FIGURES.add("sb-seed-ratio", lambda: f"{SEED_003_RATIO:.2f}×")

FIGURES.add("sb-ref-label", lambda: reference_run().run.label)
FIGURES.add("sb-ratio-multi", lambda: f"{reference_run().pipeline_vs_multi:.0f}×")


@FIGURES.figure("sb-multi-vs-single")
def _multi_vs_single() -> str:
    """Seed 002's MULTI (a round trip per queued command) against one SETBIT per round trip."""
    run = reference_run()
    multi, single = run.row("multi-roundtrip", 1000), run.row("one-by-one")
    return f"{multi.bits_per_second / single.bits_per_second:.1f}×"


@FIGURES.figure("sb-multi-trips")
def _multi_trips() -> str:
    """Round trips per bit written: MULTI as seed 002 uses it, then one command at a time."""
    run = reference_run()
    rows = (run.row("multi-roundtrip", 1000), run.row("one-by-one"))
    return " vs ".join(f"{r.round_trips / r.bits:.3f}" for r in rows)


FIGURES.add(
    "sb-multi-8e9",
    lambda: format_hours(reference_run().row("multi-roundtrip", 1000).seed_002_seconds),
)
FIGURES.add("sb-pipe-8e9", lambda: format_hours(reference_run().best("pipeline").seed_002_seconds))
FIGURES.add(
    "sb-pipe-ceiling", lambda: f"{reference_run().best('pipeline').ratio_to_setbit_ceiling:.0%}"
)
FIGURES.add("sb-local-8e9", lambda: format_hours(reference_run().row("local").seed_002_seconds))
FIGURES.add("sb-seed-rate", lambda: format_count(seed_002_rate()))
FIGURES.add(
    "sb-rtt",
    lambda: format_duration(reference_run().rtt_seconds),
    quantity="PING on loopback | median round trip | bulk-load reference run",
)
FIGURES.add("sb-ceiling", lambda: format_count(reference_run().setbit_ceiling))
FIGURES.add("sb-rtt50", lambda: format_duration(reference_run().rtt_for(50, 1000)))
FIGURES.add("sb-c", lambda: format_duration(reference_run().pipelined_seconds_per_bit))

# -- the mass-insertion ceiling: redis-cli --pipe (reference/measure_mass_insertion.py) -----------


def _pipe(kind: str) -> PipeRow:
    """The last repeat of one command kind in the stored mass-insertion run."""
    return MassInsertionReference.load().final(kind)


FIGURES.add("sb-mi-label", lambda: MassInsertionReference.load().run.label)
for _kind, _tag, _unit in (("SETBIT", "setbit", "SETBITs"), ("BF.MADD", "madd", "items")):
    FIGURES.add(
        f"sb-mi-{_tag}-cli", lambda k=_kind, u=_unit: f"{_pipe(k).redis_cli_rate:,.0f} {u}/s"
    )
    FIGURES.add(
        f"sb-mi-{_tag}-pump",
        lambda k=_kind, u=_unit: f"{_pipe(k).writes / _pipe(k).setlab_pipe_seconds:,.0f} {u}/s",
    )
    FIGURES.add(
        f"sb-mi-{_tag}-setlab", lambda k=_kind, u=_unit: f"{_pipe(k).setlab_rate:,.0f} {u}/s"
    )
    FIGURES.add(f"sb-mi-{_tag}-ratio", lambda k=_kind: f"{_pipe(k).ratio:.2f}")
    FIGURES.add(f"sb-mi-{_tag}-e2e", lambda k=_kind: f"{_pipe(k).ratio_with_generation:.2f}")
    FIGURES.add(f"sb-mi-{_tag}-strict", lambda k=_kind: f"{_pipe(k).ratio_setlab_encoding:.2f}")
    FIGURES.add(
        f"sb-mi-{_tag}-ratios",
        lambda k=_kind: ", ".join(f"{r.ratio:.2f}" for r in MassInsertionReference.load().of(k)),
    )
FIGURES.add("sb-mi-writes", lambda: format_count(_pipe("SETBIT").writes))
FIGURES.add("sb-mi-items", lambda: format_count(_pipe("BF.MADD").writes))
FIGURES.add("sb-mi-repeats", lambda: str(len(MassInsertionReference.load().of("SETBIT"))))


def _busy_range() -> str:
    """The least and most busy Redis's main thread was over every load of the stored run."""
    shares = [s for r in MassInsertionReference.load().rows for s in r.redis_busy.values()]
    return f"{min(shares):.0%} to {max(shares):.0%}"


FIGURES.add("sb-mi-busy", _busy_range)


# -- seed 002 at full scale, really run (reference/measure_full_scale_002.py) ---------------------


def full_scale_run() -> FullScaleReference:
    """The stored full-scale run of seed 002's load (reference file ``full-scale-002``)."""
    return FullScaleReference.load()


def full_scale_markdown() -> str:
    """The full-scale run's phases and its end-to-end time beside seed 002's 20 hours."""
    run = full_scale_run()
    what = {
        "hash": f"generate and hash {format_count(run.ids)} IDs (a pass of its own)",
        "build": f"hash again, set {run.ids * run.k:,} bits in one "
        f"{format_bytes(run.payload_bytes)} array",
        "load": f"SET {format_count(run.shards)} keys of {format_bytes(run.bits_per_shard // 8)}, "
        "pipelined",
        "verify": f"ask Redis about {format_count(run.queries)} inserted and as many absent IDs",
    }
    lines = ["| phase | what | time |", "|---|---|---|"]
    lines += [f"| {k} | {what[k]} | {format_duration(v)} |" for k, v in run.phases.items()]
    lines.append(f"| **end to end** | all of the above | **{format_duration(run.wall_seconds)}** |")
    lines.append(f"| seed 002 (§8) | pipelined SETBITs | about {SEED_002_LOAD_HOURS} h |")
    return "\n".join(lines)


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.2g}%"


FIGURES.add("sb-full-label", lambda: full_scale_run().run.label)
FIGURES.add("sb-full-wall", lambda: format_duration(full_scale_run().wall_seconds))
FIGURES.add("sb-full-speedup", lambda: f"{full_scale_run().speedup:,.0f}×")
FIGURES.add("sb-full-build", lambda: format_duration(full_scale_run().phases["build"]))
FIGURES.add("sb-full-load", lambda: format_duration(full_scale_run().phases["load"]))
FIGURES.add("sb-full-rss", lambda: format_bytes(full_scale_run().peak_rss_bytes))
FIGURES.add(
    "sb-full-rss-ratio",
    lambda: f"{full_scale_run().peak_rss_bytes / full_scale_run().payload_bytes:.2f}×",
)
FIGURES.add("sb-full-fn", lambda: format_count(full_scale_run().false_negatives))
FIGURES.add("sb-full-queries", lambda: format_count(full_scale_run().queries))
FIGURES.add("sb-full-fp", lambda: format_count(full_scale_run().false_positives))
FIGURES.add("sb-full-fpr", lambda: _percent(full_scale_run().measured_fpr))
FIGURES.add("sb-full-fpr-model", lambda: _percent(full_scale_run().model_fpr))
FIGURES.add(
    "sb-full-fpr-range",
    lambda: " to ".join(_percent(x) for x in full_scale_run().model_fpr_interval),
)
FIGURES.add("sb-full-used", lambda: format_bytes(full_scale_run().used_memory_growth))
FIGURES.add("sb-full-used-model", lambda: format_bytes(full_scale_run().model_used_memory_growth))
FIGURES.add("sb-full-usage", lambda: f"{full_scale_run().memory_usage:,} bytes")
FIGURES.add("sb-full-usage-model", lambda: f"{full_scale_run().model_memory_usage:,} bytes")

FIGURES.add("sb-build-chunk", lambda: f"2^{packed_bloom.NUMBA_CHUNK.bit_length() - 1}")
FIGURES.add("sb-build-group", lambda: format_bytes(packed_bloom.GROUP_BITS // 8))
FIGURES.add("sb-full-floor", lambda: format_duration(full_scale_run().build_floor_seconds))
FIGURES.add(
    "sb-full-floor-ratio",
    lambda: f"{full_scale_run().phases['build'] / full_scale_run().build_floor_seconds:.1f}×",
)

# -- seed 002 at full scale, every peer in one run (reference/measure_peers_002.py) --------------


def peers_run() -> PeersReference:
    """The stored run of every peer on seed 002's IDs (reference file ``peers-002``)."""
    return PeersReference.load()


def peers_markdown() -> str:
    """One row per tool: what ran, its time (and, for a slice, the time scaled to all the IDs),
    peak memory of client and server, Redis's used_memory, and the false-positive rate."""
    run = peers_run()
    lines = [
        "| tool | what ran | IDs loaded | time | at 8 × 10^8 IDs | client peak RSS "
        "| server peak RSS | Redis `used_memory` | false-positive rate |",
        "|:--|:--|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in run.rows:
        # as code, so the page's smart punctuation leaves "--pipe" alone
        peer, how = (t.replace("redis-cli --pipe", "`redis-cli --pipe`") for t in (r.peer, r.how))
        full = (
            f"{format_hours(r.full_seconds)} (scaled)" if r.scaled else format_hours(r.full_seconds)
        )
        server = format_bytes(r.server_peak_rss) if r.server_peak_rss else "— (no Redis)"
        used = format_bytes(r.used_memory_growth) if r.used_memory_growth else "—"
        fpr = _percent(r.fpr) if r.fpr is not None else "— (a slice)"
        lines.append(
            f"| {peer} | {how} | {format_count(r.ids)} | {format_duration(r.seconds)} "
            f"| {full} | {format_bytes(r.client_peak_rss)} | {server} | {used} | {fpr} |"
        )
    return "\n".join(lines)


def _peer(name: str) -> PeerRow:
    return peers_run().row(name)


FIGURES.add("sb-peers-label", lambda: peers_run().run.label)
FIGURES.add("sb-peers-rate", lambda: _percent(peers_run().rate))
FIGURES.add("sb-peers-slice", lambda: format_count(peers_run().slice_ids))
FIGURES.add("sb-peers-setlab", lambda: format_duration(_peer("setlab").seconds))
FIGURES.add("sb-peers-redisbloom", lambda: format_duration(_peer("redisbloom").seconds))
FIGURES.add(
    "sb-peers-redisbloom-ratio",
    lambda: f"{_peer('redisbloom').seconds / _peer('setlab').seconds:.0f}×",
)
FIGURES.add("sb-peers-rbloom", lambda: format_duration(_peer("rbloom").seconds))
FIGURES.add(
    "sb-peers-rbloom-ratio", lambda: f"{_peer('rbloom').seconds / _peer('setlab').seconds:.1f}×"
)
FIGURES.add("sb-peers-setlab-used", lambda: format_bytes(_peer("setlab").used_memory_growth or 0))
FIGURES.add(
    "sb-peers-slice-used",
    lambda: format_bytes(_peer("redis-py SETBIT").used_memory_growth or 0),
)
FIGURES.add(
    "sb-full-random-rate",
    lambda: f"{full_scale_run().machine_limits['random_bits_per_second'] / 1e6:,.0f} M bits/s",
)
FIGURES.add(
    "sb-full-cached-rate",
    lambda: f"{full_scale_run().machine_limits['cached_bits_per_second'] / 1e6:,.0f} M bits/s",
)
FIGURES.add("sb-peers-py-full", lambda: format_hours(_peer("redis-py SETBIT").full_seconds))
FIGURES.add("sb-peers-cli-full", lambda: format_hours(_peer("redis-cli --pipe").full_seconds))

# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
