"""Chapter "Choosing a structure: histogram your IDs first" (Part IV): its figures, claims, plots
and tables.

Seed 003 closes with a selection table (一张表，我自己的选型依据) and the advice to histogram the
IDs before choosing. This module recomputes that table with the advisor
(:mod:`setlab.tools.advise`), each row at the seed's own scale and described rather than listed
(:func:`setlab.tools.analysis.synthetic`); runs the advisor on three ID populations a service
would export (:func:`example_ids`); sweeps the density of a million IDs (:func:`density_sweep`);
and checks the SET model the advisor uses against a real server (:func:`set_model_check`).

Every number the page shows is a figure here, computed once from the models (deterministic,
seeded), so the prose, the verdict table and the errata read the same values on every backend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from setlab.chapters import open_page
from setlab.chapters.choosing import claims
from setlab.core.figure_cache import kept
from setlab.core.formats import format_bytes, format_bytes_si, format_count
from setlab.core.validate import check_int
from setlab.lab import reference
from setlab.lab.reference import Measurement, beside
from setlab.lab.runs import memory as memory_runs
from setlab.lab.runs.memory import SetMemoryReference
from setlab.models import bloom, redis_memory
from setlab.models.hyperloglog import HLL_STANDARD_ERROR
from setlab.models.ids import IDs, from_integers, set_members, texts
from setlab.models.snowflake import SEED_000_ID
from setlab.render.claims import Figures
from setlab.tools import advise
from setlab.tools.advise import Advice
from setlab.tools.analysis import synthetic
from setlab.tools.calc import choice
from setlab.tools.calc.choice import Needs

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from setlab.lab.backend import Lab

FIGURES = Figures("choosing")


def start() -> Lab:
    """Open the page (:func:`open_page`): its figures are the models' alone, so no stored run
    needs naming before the first number."""
    return open_page(FIGURES)


# -- seed 003's selection table -------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """One row of seed 003's selection table, made concrete."""

    key: str
    seed_case: str  #: the seed's scenario, in our words
    seed_pick: str  #: what the seed recommends, and its figure
    count: int
    shape: str
    needs: Needs

    @property
    def description(self) -> str:
        what = {"dense": "consecutive integer IDs", "random32": "random 32-bit integer IDs",
                "hashed64": "16-hex device IDs (64-bit hashes)"}[self.shape]  # fmt: skip
        extra = "; deletes needed" if self.needs.deletes else ""
        extra += "; counting only" if self.needs.count_only else ""
        return f"{format_count(self.count)} {what}{extra}"


#: Seed 003's table ("一张表，我自己的选型依据"), each row at the seed's own scale.
SEED_003_TABLE = (
    Scenario("dense", "IDs within 32 bits, dense (orders, auto-increment, ad slots)",
             "Roaring: 12.5 MB per 10^8, exact, deletable", 10**8, "dense", Needs()),
    Scenario("sparse64", "IDs sparse, 64-bit, insert-only",
             "Bloom: 1.2 bytes per element is about the ceiling", 120_000_000, "hashed64",
             Needs()),
    Scenario("deletes", "deletes needed, up to 5 × 10^7",
             "Cuckoo filter or just a Redis SET: don't optimise early", 50_000_000, "hashed64",
             Needs(deletes=True)),
    Scenario("small", "below ten million",
             "Redis SET / intset: the memory saved does not pay for the operations", 10_000_000,
             "random32", Needs()),
    Scenario("count", "only the UV count, 1% error allowed",
             "HyperLogLog: 12 KB fixed, counts only", 120_000_000, "hashed64",
             Needs(count_only=True)),
)  # fmt: skip
#: The structures of the selection table, in its column order.
STRUCTURES = ("Redis SET", "plain bitmap", "Roaring bitmap", "Bloom filter", "cuckoo filter",
              "HyperLogLog")  # fmt: skip
#: The exact ones (the others err, or only count).
EXACT = ("Redis SET", "plain bitmap", "Roaring bitmap")
#: The error rate the seed's table assumes for filters (and for the bounds quoted with it).
SEED_ERROR = 0.01
#: Bytes per element a Bloom filter spends at 1%, and the least any membership structure needs
#: at 1% (``log2(1/p)`` bits, Carter et al. 1978).
BLOOM_BYTES = bloom.bits_per_item(SEED_ERROR) / 8
FLOOR_BYTES = bloom.bits_per_item_lower_bound(SEED_ERROR) / 8


@cache
def seed_003_advice() -> dict[str, Advice]:
    """The advisor's answer for each row of :data:`SEED_003_TABLE` (cached: a few seconds)."""
    return {s.key: advise.advise(synthetic(s.count, s.shape), s.needs) for s in SEED_003_TABLE}


def _scenario(key: str) -> Scenario:
    return next(s for s in SEED_003_TABLE if s.key == key)


def row_bytes(key: str) -> dict[str, int | None]:
    """Bytes of each structure in :data:`STRUCTURES` for one row (None: impossible), and
    ``"roaring_plain"``: the Roaring bitmap before ``run_optimize()``."""
    advice = seed_003_advice()[key]
    found = {c.name.split(",")[0]: c.memory for c in advice.candidates}
    return {**found, "roaring_plain": advice.analysis.roaring.plain_bytes}


def smallest_exact(key: str) -> int:
    """Bytes of the smallest exact structure for one row."""
    sizes = row_bytes(key)
    return min(sizes[n] for n in EXACT if sizes[n] is not None)


def pick(key: str) -> str:
    """The advisor's pick for one row."""
    return seed_003_advice()[key].recommendation.choice.name


#: Column heads of the selection table, one per row of seed 003's table.
CASE_HEADS = {"dense": "dense, 32-bit", "sparse64": "sparse, 64-bit", "deletes": "deletes",
              "small": "below 10^7", "count": "count only"}  # fmt: skip


def selection_markdown() -> str:
    """Seed 003's table recomputed, one column per case of the seed's table: the IDs, the seed's
    pick, each structure's memory and the advisor's pick (narrow enough for the page)."""
    cases = list(SEED_003_TABLE)
    lines = ["| | " + " | ".join(CASE_HEADS[c.key] for c in cases) + " |",
             "|:--|" + ":--|" * len(cases)]  # fmt: skip
    lines.append("| IDs | " + " | ".join(c.description for c in cases) + " |")
    lines.append("| seed's pick | " + " | ".join(c.seed_pick for c in cases) + " |")
    for name in STRUCTURES:
        cells = []
        for c in cases:
            size = row_bytes(c.key)[name]
            cells.append("impossible" if size is None else format_bytes(size))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| **advisor's pick** | " + " | ".join(f"**{pick(c.key)}**" for c in cases) + " |")
    return "\n".join(lines)


def power_of_ten(count: int) -> str:
    """A count as the seed writes it: ``10^8``, ``1.2 × 10^8``, ``5 × 10^7``."""
    count = check_int("count", count, 1)
    exponent = math.floor(math.log10(count))
    mantissa = count / 10**exponent
    return f"10^{exponent}" if mantissa == 1 else f"{mantissa:g} × 10^{exponent}"


# -- three populations, and a density sweep -------------------------------------------------------

POPULATIONS = ("auto-increment", "device IDs", "snowflake")
#: IDs per population on the page ("each about a million strong"), and the seed of their draw.
POPULATION_IDS, POPULATION_SEED = 1_000_000, 3
#: Hex digits of a device ID (a 64-bit hash written out, as in seed 003's SETs).
DEVICE_ID_DIGITS = 16
#: Short names of the populations in figure names (``ch-auto-pick``).
POPULATION_SLUGS = {"auto-increment": "auto", "device IDs": "device", "snowflake": "snowflake"}


def example_ids(name: str, count: int, seed: int = 0) -> IDs:
    """One of the chapter's three ID populations, ``count`` IDs (about, for snowflakes):

    * ``auto-increment`` — a user table's primary keys from 10,000,001 on, 3% of rows deleted;
    * ``device IDs`` — 64-bit hashes of device identifiers as 16 hex digits (seed 003's OAIDs);
    * ``snowflake`` — Twitter-layout snowflake IDs of users who signed up over two years from
      2024-01-01 on 8 machines (:func:`setlab.models.snowflake.simulate_stream`).
    """
    count = check_int("count", count, 1, 10**8)
    rng = np.random.default_rng(seed)
    if name == "auto-increment":
        rows = np.arange(10_000_001, 10_000_001 + round(count / 0.97), dtype=np.uint64)
        return from_integers(rows[rng.random(rows.size) >= 0.03], source=f"example {name}")
    if name == "device IDs":
        values = rng.integers(0, 2**64 - 1, count, dtype=np.uint64, endpoint=True)
        return from_integers(values, source=f"example {name}", hex_digits=DEVICE_ID_DIGITS)
    if name == "snowflake":
        return from_integers(_signups(count, seed), source=f"example {name}")
    raise ValueError(f"name must be one of {', '.join(POPULATIONS)}; got {name!r}")


@kept("choosing-signups")
def _signups(count: int, seed: int) -> np.ndarray:
    """About ``count`` snowflake IDs of two years of sign-ups on 8 machines (a second of
    Python per million: one generator step per ID, so kept)."""
    from setlab.models import snowflake

    span_s = 2 * 365 * 86_400
    return snowflake.simulate_stream(start_unix_ms=1_704_067_200_000, span_s=span_s,
                                     machines=8, rate_per_s=count / span_s, bursts=0,
                                     burst_size=0, seed=seed)  # fmt: skip


@cache
def populations() -> dict[str, Advice]:
    """The advisor on each of :data:`POPULATIONS` (:data:`POPULATION_IDS` IDs, seeded)."""
    from setlab.tools.analysis import analyse

    return {
        name: advise.advise(analyse(example_ids(name, POPULATION_IDS, seed=POPULATION_SEED)))
        for name in POPULATIONS
    }


def density_sweep(
    count: int = 1_000_000, error: float = 0.01, points: int = 25, seed: int = 0
) -> dict[str, Any]:
    """Bytes per ID of every membership structure, and the advisor's pick, for ``count`` random
    integer IDs spread over ranges from ``count`` values (density 1) to 2^32."""
    count = check_int("count", count, 1, 2**32)
    densities = np.logspace(0, math.log10(count / 2**32), check_int("points", points, 2))
    rows: dict[str, list[float]] = {}
    picks = []
    for density in densities:
        universe = min(2**32, max(count, round(count / density)))
        advice = advise.advise(synthetic(count, "random32", universe=universe, seed=seed),
                               Needs(error=error))  # fmt: skip
        for c in advice.candidates:
            if c.membership:
                rows.setdefault(c.name.split(",")[0], []).append(c.memory / count)
        picks.append(advice.recommendation.choice.name.split(",")[0])
    bytes_per_id = {name: np.array(values) for name, values in rows.items()}
    return {"density": densities, "bytes_per_id": bytes_per_id, "pick": picks}


@cache
@kept("choosing-sweep")
def sweep() -> dict[str, Any]:
    """The page's density sweep: a million IDs at 1% (:func:`density_sweep`'s defaults)."""
    return density_sweep()


def density_figure(swept: dict[str, Any]) -> Figure:
    """:func:`density_sweep` drawn: bytes per ID against density, shaded by the advisor's pick."""
    from setlab.render.plots import STRUCTURE_COLOURS, new_figure

    fig, ax = new_figure(height=4.2)
    colours = STRUCTURE_COLOURS  # the calculator below uses the same
    d = swept["density"]
    bounds = np.r_[d[0] * 1.2, np.sqrt(d[1:] * d[:-1]), d[-1] / 1.2]
    for i, chosen in enumerate(swept["pick"]):
        ax.axvspan(bounds[i + 1], bounds[i], color=colours.get(chosen, "grey"), alpha=0.12, lw=0)
    for name, values in swept["bytes_per_id"].items():
        ax.plot(d, values, "o-", ms=3, color=colours[name], label=name)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="density: IDs / values in their range",
        ylabel="bytes per ID",
        xlim=(bounds[0], bounds[-1]),
        title="What each structure costs as the same IDs spread out (shading: the pick)",
    )
    ax.legend(ncols=2)
    return fig


# -- the SET model against a real server ----------------------------------------------------------

#: Device IDs added to a SET on this run's server to check the SET model.
CHECK_IDS = 20_000
#: The stored row of the same check: a SET of a million 16-hex device IDs.
CHECK_REFERENCE_KIND = "16-hex device ids"


@dataclass(frozen=True)
class SetCheck:
    """A SET of 16-hex device IDs on a real server: ``MEMORY USAGE`` beside the model."""

    members: int
    measured: int  #: bytes, ``MEMORY USAGE key SAMPLES 0``
    predicted: int  #: bytes, :func:`setlab.models.redis_memory.set_cost`

    def text(self) -> str:
        return (f"the server reports {self.measured:,} bytes for a SET of {self.members:,} "
                f"device IDs, the model predicts {self.predicted:,}")  # fmt: skip


def measure_set_check(lab: Lab) -> SetCheck:
    """``SADD`` :data:`CHECK_IDS` device IDs (16 hex digits) to a SET on ``lab``, finish its
    incremental rehash (``SISMEMBER`` in a Lua loop), then ``MEMORY USAGE key SAMPLES 0``."""
    sample = example_ids("device IDs", CHECK_IDS, seed=4)
    key = lab.key("devices")
    memory_runs.sadd_all(lab, key, texts(sample, np.arange(len(sample))))
    memory_runs.settle_set(lab, key)
    measured = memory_runs.measure(lab, key).memory_usage
    predicted = redis_memory.set_cost(set_members(sample), key).memory_usage
    return SetCheck(len(sample), int(measured), int(predicted))


def reference_set_check() -> SetCheck:
    """The same check in the stored reference run (a million device IDs), the model recomputed."""
    row = SetMemoryReference.load().big_set(CHECK_REFERENCE_KIND)
    members = redis_memory.Members.fixed_length(row.n, DEVICE_ID_DIGITS)
    predicted = redis_memory.set_cost(members, row.key).memory_usage
    return SetCheck(row.n, int(row.memory_usage), int(predicted))


def set_model_check(lab: Lab) -> Measurement[SetCheck]:
    """The SET model against ``MEMORY USAGE``: measured on ``lab`` when it is a real server,
    else the stored reference run's (labelled either way)."""
    return reference.live_or_reference(
        lab, measure_set_check, reference_set_check, needs=("real", "memory_usage"),
        run_info=SetMemoryReference.load().run,
    )  # fmt: skip


def live_set_check(measurement: Measurement[SetCheck]) -> str:
    """The sentence the page shows beside the reference check (``live-check``)."""
    return beside(measurement, SetCheck.text)


# -- figures --------------------------------------------------------------------------------------

FIGURES.add("ch-premium", lambda: f"{choice.EXACT_PREMIUM:g}")
FIGURES.add("ch-slack", lambda: format_bytes(choice.EXACT_SLACK))
FIGURES.add("ch-native-premium", lambda: f"{choice.NATIVE_PREMIUM:g}")
FIGURES.add("ch-native-slack", lambda: format_bytes(choice.NATIVE_SLACK))


def _first_density(structure: str) -> str:
    swept = sweep()
    return f"{swept['density'][swept['pick'].index(structure)]:.2g}"


FIGURES.add("ch-to-roaring", lambda: _first_density("Roaring bitmap"))
FIGURES.add("ch-to-bloom", lambda: _first_density("Bloom filter"))
FIGURES.add("ch-bloom-per", lambda: f"{sweep()['bytes_per_id']['Bloom filter'][0]:.2f} bytes")
FIGURES.add("ch-set-per", lambda: f"{sweep()['bytes_per_id']['Redis SET'][-1]:.0f} bytes")


def _bytes(key: str, structure: str) -> str:
    size = row_bytes(key)[structure]
    if size is None:
        return "impossible"
    # Roaring's bitsets are what seed 003 prices in decimal MB: show both units
    return format_bytes_si(size) if structure == "roaring_plain" else format_bytes(size)


#: figure-name word of each structure (``ch-dense-plain``, ``ch-count-hyperloglog``)
_WORD = {"Redis SET": "redis", "plain bitmap": "plain", "Roaring bitmap": "roaring",
         "Bloom filter": "bloom", "cuckoo filter": "cuckoo", "HyperLogLog": "hyperloglog",
         "roaring_plain": "roaring-plain"}  # fmt: skip
for _s in SEED_003_TABLE:
    FIGURES.add(f"ch-{_s.key}-count", lambda s=_s: power_of_ten(s.count))
    FIGURES.add(f"ch-{_s.key}-pick", lambda s=_s: pick(s.key))
    FIGURES.add(f"ch-{_s.key}-exact", lambda s=_s: format_bytes(smallest_exact(s.key)))
    for _structure, _word in _WORD.items():
        FIGURES.add(f"ch-{_s.key}-{_word}", lambda s=_s, n=_structure: _bytes(s.key, n))


def _ratio(key: str, over: str, under: str) -> str:
    sizes = row_bytes(key)
    return f"{sizes[over] / sizes[under]:.0f}"


FIGURES.add("ch-deletes-ratio", lambda: _ratio("deletes", "Redis SET", "cuckoo filter"))
FIGURES.add("ch-small-ratio", lambda: _ratio("small", "Redis SET", "Roaring bitmap"))
FIGURES.add(
    "ch-dense-exact-per", lambda: f"{smallest_exact('dense') / _scenario('dense').count:.2g} B"
)
FIGURES.add(
    "ch-sparse64-exact-per",
    lambda: f"{smallest_exact('sparse64') / _scenario('sparse64').count:.3g} B",
)
FIGURES.add("ch-floor", lambda: f"{FLOOR_BYTES:.2f} bytes")
FIGURES.add("ch-bloom-bytes", lambda: f"{BLOOM_BYTES:.2f} bytes")
FIGURES.add(
    "ch-decade",
    lambda: (
        f"{(bloom.bits_per_item(SEED_ERROR / 10) - bloom.bits_per_item(SEED_ERROR)) / 8:.2f} bytes"
    ),
)
FIGURES.add("ch-intset", lambda: str(redis_memory.SET_MAX_INTSET_ENTRIES))
FIGURES.add("ch-hll-error", lambda: f"{HLL_STANDARD_ERROR:.2%}")


def _population(name: str) -> Advice:
    return populations()[name]


def _per_id(name: str, structure: str) -> str:
    advice = _population(name)
    found = next(c for c in advice.candidates if c.name.split(",")[0] == structure)
    if found.memory is None:
        return "impossible"
    return f"{found.memory / advice.analysis.distinct:.3g} bytes"


for _name, _slug in POPULATION_SLUGS.items():
    FIGURES.add(f"ch-{_slug}-n", lambda n=_name: format_count(_population(n).analysis.distinct))
    FIGURES.add(f"ch-{_slug}-density", lambda n=_name: f"{_population(n).analysis.density:.3g}")
    FIGURES.add(f"ch-{_slug}-chunks", lambda n=_name: format_count(_population(n).analysis.chunks))
    FIGURES.add(f"ch-{_slug}-bits", lambda n=_name: str(_population(n).analysis.bit_width))
    FIGURES.add(f"ch-{_slug}-pick", lambda n=_name: _population(n).recommendation.choice.name)
    FIGURES.add(f"ch-{_slug}-reason", lambda n=_name: _population(n).recommendation.reason)
    for _structure, _word in _WORD.items():
        if _structure in STRUCTURES:
            FIGURES.add(f"ch-{_slug}-{_word}-per", lambda n=_name, c=_structure: _per_id(n, c))


@FIGURES.figure("ch-check-ref")
def _check_reference() -> str:
    return reference_set_check().text()


FIGURES.add("ch-check-run", lambda: SetMemoryReference.load().run.label)


# -- seed 000 §8.4's rule for bitmaps -------------------------------------------------------------

#: Seed 000's dense example: 10^8 users with consecutive IDs.
SEED_000_DENSE_USERS = 100_000_000


def _set_member_bytes() -> float:
    """MEMORY USAGE per member of a 10^5-member SET of consecutive snowflake IDs (bytes)."""
    ids = redis_memory.Members.decimal_range(SEED_000_ID, SEED_000_ID + 100_000)
    return redis_memory.set_cost(ids).memory_usage / 100_000


FIGURES.add("ch-bitmap-breakeven", lambda: f"1 in {8 * _set_member_bytes():.0f}")
FIGURES.add(
    "ch-dense-1e8-bitmap",
    lambda: format_bytes(redis_memory.bitmap_cost([SEED_000_DENSE_USERS - 1]).memory_usage),
)


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
