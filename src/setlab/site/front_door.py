"""The book's front door (``book/index.md``) and its printable handout (``book/handout.md``): the
decision card "what should I use for my IDs?", and the cost formulas behind it.

The card has four rows, one per shape of ID set (:data:`SHAPES`): dense auto-increment keys,
sparse snowflake or hashed IDs that need exact answers, membership where false positives are
allowed, and counting only. Nothing here prices a structure itself: each row is the advisor's
answer (:func:`setlab.tools.calc.choice.recommend`) on one of the choosing chapter's populations
(:func:`setlab.chapters.choosing.populations`, a million IDs each, seeded), asked with that row's
needs. The measured errors come from a simulation of the filter the advisor sizes
(:func:`filter_measurement`) and from the HyperLogLog chapter's simulated sketches.

The handout's formulas are the models' own (:mod:`setlab.models.bitmap`,
:mod:`~setlab.models.bloom`, :mod:`~setlab.models.redisbloom`, :mod:`~setlab.models.redis_memory`,
:mod:`~setlab.models.hyperloglog`, :mod:`~setlab.models.roaring`); the figures below are their
worked examples, so the page shows no number that was typed.

Both pages glue :data:`FIGURES` and include the same card (``book/_decision-card.md``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np

from setlab.chapters import choosing
from setlab.chapters import hyperloglog as hll_chapter
from setlab.core.formats import format_bytes, format_count, format_rate
from setlab.models import bitmap, bloom, cuckoo, redis_memory, redisbloom, roaring
from setlab.models import hyperloglog as hll
from setlab.models.bloom_sim import BloomLayout, BloomSimulator
from setlab.models.seeds import SEED_002_ITEMS
from setlab.render.claims import Figures
from setlab.tools import calc
from setlab.tools.advise import Advice
from setlab.tools.calc import choice
from setlab.tools.calc.choice import Candidate, Needs

FIGURES = Figures("front-door")


# -- the card -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """One row of the card: an ID shape, the population that stands for it, and what it needs."""

    key: str  #: figure-name word (``fd-dense-pick``)
    population: str  #: one of :data:`setlab.chapters.choosing.POPULATIONS`
    exact: bool = False  #: only exact structures may answer (no false positives)
    count_only: bool = False  #: only the number of distinct IDs is needed


SHAPES = (
    Shape("dense", "auto-increment", exact=True),
    Shape("sparse", "snowflake", exact=True),
    Shape("filter", "device IDs"),
    Shape("count", "device IDs", count_only=True),
)

#: The Redis commands of each structure the advisor can pick: add, test, count, remove, and a
#: note. A Roaring bitmap has none built in: a module's (redis-roaring), or a serialized blob
#: the client reads and writes back under WATCH (chapter roaring-containers).
COMMANDS = {
    "plain bitmap": ("SETBIT key id 1", "GETBIT key id", "BITCOUNT key", "SETBIT key id 0",
                     "the first write allocates up to the offset: start offsets at 0"),
    "Roaring bitmap": ("R.SETBIT key id 1", "R.GETBIT key id", "R.BITCOUNT key",
                       "R.SETBIT key id 0", "a module; without one, GET, change and "
                       "WATCH/MULTI/SET a serialized blob"),
    "Redis SET": ("SADD key id", "SISMEMBER key id", "SCARD key", "SREM key id",
                  "UNLINK, not DEL, for a big one"),
    "Bloom filter": ("BF.RESERVE key p n, then BF.ADD / BF.MADD", "BF.EXISTS / BF.MEXISTS",
                     "BF.CARD key", "none: rebuild", "RedisBloom; past n it adds sub-filters"),
    "cuckoo filter": ("CF.RESERVE key n, then CF.ADD", "CF.EXISTS", "none", "CF.DEL",
                      "RedisBloom; delete only IDs you added"),
    "HyperLogLog": ("PFADD key id", "none", "PFCOUNT key", "none",
                    "PFMERGE for a union of days"),
}  # fmt: skip


_SEPARATOR = re.compile(r"(, then | / )")


def card_commands(name: str) -> str:
    """The card's short list of commands for a structure: the first verb of each step that adds,
    tests or counts (alternatives after " / " left to the handout)."""
    verbs = []
    for cell in COMMANDS[name][:3]:
        for step in cell.split(", then "):
            verb = step.split(" / ")[0].split(" ")[0]
            if verb != "none":
                verbs.append(verb)
    return " · ".join(verbs)


def _code(cell: str) -> str:
    if cell.startswith("none"):
        return cell
    return "".join(p if _SEPARATOR.fullmatch(p) else f"`{p}`" for p in _SEPARATOR.split(cell))


def commands_markdown() -> str:
    """The handout's table of commands, one row per structure of :data:`COMMANDS`."""
    lines = ["| structure | add | test | count | remove | note |", "|:--|:--|:--|:--|:--|:--|"]
    for name, cells in COMMANDS.items():
        lines.append(f"| {name} | " + " | ".join(map(_code, cells[:4])) + f" | {cells[4]} |")
    return "\n".join(lines)


#: The chapter that proves each structure's cost (the card links it).
CHAPTER_OF = {
    "Redis SET": "redis-set-memory",
    "plain bitmap": "setbit-offset",
    "Roaring bitmap": "roaring-containers",
    "Bloom filter": "bloom-basics",
    "cuckoo filter": "cuckoo-kick-chains",
    "HyperLogLog": "hyperloglog",
}
#: Strangers (IDs never added) asked of the simulated filter, and the seed of both draws.
STRANGERS, FILTER_SEED = 1_000_000, 13
#: The cardinality at which the HyperLogLog's error is measured (the card's scale).
COUNT_SCALE = choosing.POPULATION_IDS


def _shape(key: str) -> Shape:
    found = [s for s in SHAPES if s.key == key]
    if not found:
        raise ValueError(f"key must be one of {', '.join(s.key for s in SHAPES)}; got {key!r}")
    return found[0]


def _advice(shape: Shape) -> Advice:
    return choosing.populations()[shape.population]


@cache
def pick(key: str) -> Candidate:
    """The advisor's pick for one row of the card, asked with that row's needs: only exact
    structures for the exact rows, ``count_only`` for counting, the default needs otherwise."""
    shape = _shape(key)
    advice = _advice(shape)
    options = advice.candidates
    if shape.exact:
        options = [c for c in options if c.exact and c.membership]
    needs = Needs(error=advice.needs.error, count_only=shape.count_only)
    return choice.recommend(advice.analysis, options, needs).choice


def structure(key: str) -> str:
    """The structure (without its error rate) the card picks for one row."""
    return pick(key).name.split(",")[0]


def per_id(key: str) -> float:
    """Bytes per distinct ID of the row's pick (``memory / distinct``)."""
    chosen = pick(key)
    if chosen.memory is None:
        raise ValueError(f"the advisor picked {chosen.name}, which cannot hold these IDs")
    return chosen.memory / _advice(_shape(key)).analysis.distinct


def _bytes_per_id(value: float) -> str:
    return f"{value:.3g} B"


@dataclass(frozen=True)
class FilterMeasurement:
    """The card's Bloom filter, simulated: its design, and the rate measured on strangers."""

    members: int
    bits: int
    hashes: int
    strangers: int
    false_positives: int

    @property
    def rate(self) -> float:
        return self.false_positives / self.strangers


@cache
def filter_measurement() -> FilterMeasurement:
    """Build the Bloom filter the advisor sized for the filter row (as many random 64-bit IDs,
    at its error rate) in the pure simulator, then ask it :data:`STRANGERS` IDs never added:
    the false positives it actually gives, not the formula's."""
    analysis = _advice(_shape("filter")).analysis
    layout = BloomLayout.for_items(analysis.distinct, _advice(_shape("filter")).needs.error)
    rng = np.random.default_rng(FILTER_SEED)
    members = rng.integers(0, 2**63, size=analysis.distinct, dtype=np.int64).astype(np.uint64)
    strangers = rng.integers(0, 2**63, size=STRANGERS, dtype=np.int64).astype(np.uint64) | (
        np.uint64(1) << np.uint64(63)
    )  # the top bit set: never one of the members
    simulator = BloomSimulator(layout)
    simulator.add(members)
    found = int(simulator.contains(strangers).sum())
    return FilterMeasurement(analysis.distinct, layout.total_bits, layout.k, STRANGERS, found)


def _error(key: str) -> str:
    """The row's error: none for an exact pick, else what was measured at the card's scale."""
    chosen = pick(key)
    if chosen.exact:
        return "none: exact"
    if chosen.name.startswith("Bloom filter"):
        return f"{format_rate(filter_measurement().rate)} false positives (measured)"
    if chosen.name == "HyperLogLog":
        return f"±{float(np.std(hll_chapter.simulated_errors(COUNT_SCALE))):.2%} (measured σ)"
    return chosen.error


def _native_alternative(key: str) -> str:
    """The row's cheapest exact structure built into Redis, when the pick is not built in."""
    advice = _advice(_shape(key))
    native = [c for c in advice.candidates if c.exact and c.where == "Redis" and c.possible]
    best = min(native, key=lambda c: c.memory)  # type: ignore[arg-type, return-value]
    return f"{best.name}, {_bytes_per_id(best.memory / advice.analysis.distinct)}"  # type: ignore[operator]


def _reserve_per_id() -> str:
    """Bytes per ID ``BF.RESERVE`` really allocates for the filter row (RedisBloom's chain)."""
    if structure("filter") != "Bloom filter":
        raise ValueError(f"the filter row's pick is {pick('filter').name}, not a Bloom filter")
    advice = _advice(_shape("filter"))
    n = advice.analysis.distinct
    return _bytes_per_id(redisbloom.ChainLayout(advice.needs.error, n).memory(n) / n)


FIGURES.add("fd-scale", lambda: format_count(choosing.POPULATION_IDS))
FIGURES.add("fd-error", lambda: format_rate(Needs().error))
FIGURES.add("fd-dense-fill", lambda: f"{_advice(_shape('dense')).analysis.density:.0%}")
for _s in SHAPES:
    FIGURES.add(f"fd-{_s.key}-pick", lambda k=_s.key: structure(k))
    FIGURES.add(f"fd-{_s.key}-where", lambda k=_s.key: pick(k).where.split(" (")[0])
    FIGURES.add(f"fd-{_s.key}-per", lambda k=_s.key: _bytes_per_id(per_id(k)))
    FIGURES.add(f"fd-{_s.key}-error", lambda k=_s.key: _error(k))
    FIGURES.add(f"fd-{_s.key}-cmds", lambda k=_s.key: card_commands(structure(k)))
FIGURES.add("fd-sparse-native", lambda: _native_alternative("sparse"))
FIGURES.add("fd-filter-reserve", _reserve_per_id)
FIGURES.add("fd-count-key", lambda: format_bytes(pick("count").memory or 0))
FIGURES.add("fd-strangers", lambda: format_count(filter_measurement().strangers))
FIGURES.add("fd-sketches", lambda: f"{hll_chapter.simulated_errors(COUNT_SCALE).size:,}")


# -- the handout's formulas, each with a worked example ------------------------------------------

#: The examples' count, seed 002's 8 × 10^8 openids (the bitmap's offset, the Bloom, cuckoo and
#: Roaring examples' items), and the filters' rate, seed 002's 1%.
EXAMPLE_OFFSET = int(SEED_002_ITEMS)
EXAMPLE_N, EXAMPLE_P = int(SEED_002_ITEMS), 0.01
#: Members of the SET examples: 16-hex device IDs (seed 003) and decimal integer IDs.
EXAMPLE_SET_MEMBERS = 10**6


@cache
def example_bloom() -> bloom.Sizing:
    """The optimal filter for :data:`EXAMPLE_N` items at :data:`EXAMPLE_P`."""
    return bloom.size_for(EXAMPLE_N, EXAMPLE_P)


def _set_per_member(members: redis_memory.Members) -> str:
    return f"{redis_memory.set_cost(members).allocated_per_member:.1f} B"


FIGURES.add("fd-bm-max", lambda: f"{bitmap.MAX_OFFSET:,}")
FIGURES.add("fd-bm-offset", lambda: f"{EXAMPLE_OFFSET:,}")
FIGURES.add("fd-bm-len", lambda: format_bytes(bitmap.bytes_for_offset(EXAMPLE_OFFSET)))
FIGURES.add("fd-bm-mem", lambda: format_bytes(bitmap.first_setbit_memory_usage(EXAMPLE_OFFSET)))
FIGURES.add(
    "fd-bm-worst", lambda: format_bytes(bitmap.first_setbit_memory_usage(bitmap.MAX_OFFSET))
)

FIGURES.add("fd-example-n", lambda: f"{EXAMPLE_N:,}")
FIGURES.add("fd-bloom-p", lambda: format_rate(EXAMPLE_P))
FIGURES.add("fd-bloom-m", lambda: f"{example_bloom().m:,}")
FIGURES.add("fd-bloom-k", lambda: str(example_bloom().k))
FIGURES.add("fd-bloom-bytes", lambda: format_bytes(example_bloom().bytes))
FIGURES.add("fd-bloom-bits", lambda: f"{bloom.bits_per_item(EXAMPLE_P):.2f}")
FIGURES.add("fd-bloom-floor", lambda: f"{bloom.bits_per_item_lower_bound(EXAMPLE_P):.2f}")
FIGURES.add("fd-rb-tight", lambda: f"{redisbloom.TIGHTENING:g}")
FIGURES.add("fd-rb-expansion", lambda: str(redisbloom.DEFAULT_EXPANSION))
FIGURES.add(
    "fd-rb-bytes",
    lambda: format_bytes(redisbloom.ChainLayout(EXAMPLE_P, EXAMPLE_N).memory(EXAMPLE_N)),
)


@cache
def example_cuckoo() -> dict:
    """``setlab calc cuckoo`` for :data:`EXAMPLE_N` items at :data:`EXAMPLE_P` (bucket size 4)."""
    return calc.cuckoo_sizing(EXAMPLE_N, EXAMPLE_P).data


FIGURES.add("fd-cf-b", lambda: str(example_cuckoo()["bucket_size"]))
FIGURES.add("fd-cf-f", lambda: str(example_cuckoo()["fingerprint_bits"]))
FIGURES.add(
    "fd-cf-max-load", lambda: f"{cuckoo.PAPER_LOAD_FACTORS[example_cuckoo()['bucket_size']]:.0%}"
)
FIGURES.add("fd-cf-bytes", lambda: format_bytes(example_cuckoo()["bytes"]))
FIGURES.add("fd-cf-load", lambda: f"{example_cuckoo()['load']:.1%}")
FIGURES.add("fd-cf-bits", lambda: f"{example_cuckoo()['bits_per_item']:.1f}")
FIGURES.add("fd-cf-rate", lambda: format_rate(example_cuckoo()["fpr"]))
FIGURES.add("fd-cf-rb-bytes", lambda: format_bytes(example_cuckoo()["redisbloom"]["bytes"]))
FIGURES.add("fd-cf-rb-rate", lambda: format_rate(example_cuckoo()["redisbloom"]["fpr"]))

FIGURES.add("fd-set-intset-max", lambda: str(redis_memory.SET_MAX_INTSET_ENTRIES))
FIGURES.add(
    "fd-set-widths",
    lambda: ", ".join(str(redis_memory.intset_width(v)) for v in (1, 2**20, 2**40)),
)
FIGURES.add("fd-set-entry", lambda: f"{bitmap.DICT_ENTRY_BYTES} B")
FIGURES.add(
    "fd-set-entry-class", lambda: f"{bitmap.jemalloc_size_class(bitmap.DICT_ENTRY_BYTES)} B"
)
FIGURES.add("fd-set-pointer", lambda: f"{redis_memory.POINTER_BYTES} B")
FIGURES.add("fd-set-n", lambda: format_count(EXAMPLE_SET_MEMBERS))
FIGURES.add(
    "fd-set-hex",
    lambda: _set_per_member(redis_memory.Members.fixed_length(EXAMPLE_SET_MEMBERS, 16)),
)
FIGURES.add(
    "fd-set-int",
    lambda: _set_per_member(redis_memory.Members.decimal_range(10**9, 10**9 + EXAMPLE_SET_MEMBERS)),
)

FIGURES.add("fd-hll-registers", lambda: f"{hll.HLL_REGISTERS:,}")
FIGURES.add("fd-hll-bits", lambda: str(hll.HLL_BITS))
FIGURES.add("fd-hll-header", lambda: f"{hll.HLL_HEADER_BYTES} B")
FIGURES.add("fd-hll-dense", lambda: f"{hll.HLL_DENSE_BYTES:,} B")
FIGURES.add("fd-hll-usage", lambda: hll_chapter.FIGURES["hll-dense"])
FIGURES.add("fd-hll-se", lambda: f"{hll.HLL_STANDARD_ERROR:.2%}")
FIGURES.add("fd-hll-sparse", lambda: f"{hll.HLL_SPARSE_MAX_BYTES:,} B")

FIGURES.add("fd-rc-chunk", lambda: f"{roaring.CHUNK:,}")
FIGURES.add("fd-rc-array-max", lambda: f"{roaring.ARRAY_MAX:,}")
FIGURES.add("fd-rc-bitset", lambda: format_bytes(roaring.BITSET_BYTES))
FIGURES.add(
    "fd-rc-dense-plain",
    lambda: format_bytes(roaring.dense_layout(EXAMPLE_N).serialized_bytes),
)
FIGURES.add(
    "fd-rc-dense-runs",
    lambda: format_bytes(roaring.dense_layout(EXAMPLE_N, run_optimize=True).serialized_bytes),
)
