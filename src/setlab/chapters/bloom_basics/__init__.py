"""Chapter bloom-basics: how a Bloom filter works, and one that cannot (seed 004 §3–4, 002 intro).

Seed 002's traffic and population, the chapter's picture of a 32-bit filter, the payoff table,
the figures (formulas of :mod:`setlab.models.bloom`, the simulator of
:mod:`setlab.models.bloom_sim`, and two tiny deterministic experiments of
:mod:`setlab.lab.runs.bloom` on an embedded fakeredis lab: they give the same answers on every
backend) and the chapter's claims. The rates of seed 002's fixed layout come from the chapter
nk-vs-m-saturation, which works them out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from setlab.chapters import open_page
from setlab.chapters.bloom_basics import claims
from setlab.core.formats import format_bytes, format_count, format_rate
from setlab.core.hashing import murmur3_32_rows, murmur3_x64_128_rows
from setlab.lab import backend
from setlab.lab.runs.bloom import LookupRun, Seed004Check, openid_lookups, seed004_check
from setlab.models import bitmap, bloom
from setlab.models.bloom_sim import BloomLayout, BloomSimulator
from setlab.models.seeds import SEED_002_PLANNED, seed_002_fix_rate
from setlab.render.claims import Figures

FIGURES = Figures("bloom-basics")

#: Seed 002 (intro): lookups reaching MySQL a day, the share for openids that do not exist, and
#: the openids the filter must hold.
SEED_002_DAILY, SEED_002_MISS_SHARE, SEED_002_MEMBERS = 10_000_000, 0.30, 800_000_000
#: The target rates of the payoff table.
PAYOFF_RATES = (0.1, 0.01, 0.001, 0.0001)
#: The picture: a 32-bit filter, 3 hashes, three items.
DEMO_BITS, DEMO_K, DEMO_NAMES = 32, 3, ("alice", "bob", "carol")

if TYPE_CHECKING:
    from matplotlib.figure import Figure

T = TypeVar("T")


def start() -> backend.Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


# -- the picture ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Demo:
    """Three items in a 32-bit filter, a stranger it rejects and one it wrongly accepts."""

    layout: BloomLayout
    positions: dict[str, list[int]]  #: each item's k bit positions
    stranger: str  #: the first ``user-<i>`` the filter answers "no" for
    liar: str  #: the first ``user-<i>`` the filter answers "maybe" for: a false positive

    def query(self, item: str) -> list[int]:
        """The bit positions of ``item``."""
        return self.layout.locate([item])[1][0].tolist()

    @property
    def shared(self) -> list[int]:
        """Bits that both alice and carol set."""
        return sorted(set(self.positions["alice"]) & set(self.positions["carol"]))


@cache
def demo() -> Demo:
    """The chapter's 32-bit filter with alice, bob and carol (pure: the simulator)."""
    layout = BloomLayout(DEMO_BITS, DEMO_K)
    sim = BloomSimulator(layout)
    sim.add(list(DEMO_NAMES))
    positions = {name: layout.locate([name])[1][0].tolist() for name in DEMO_NAMES}
    stranger = next(f"user-{i}" for i in range(1000) if not sim.contains([f"user-{i}"])[0])
    liar = next(f"user-{i}" for i in range(100_000) if sim.contains([f"user-{i}"])[0])
    return Demo(layout, positions, stranger, liar)


def demo_figure() -> Figure:
    """The picture: the filter queried by the stranger (a 0 bit: "no") and by the liar."""
    from setlab.chapters.bloom_basics.plots import filter_figure  # matplotlib only when drawing

    d = demo()
    return filter_figure(
        DEMO_BITS,
        d.positions,
        [
            (f"query {d.stranger!r}: a 0 bit, so 'no'", d.query(d.stranger)),
            (f"query {d.liar!r}: all bits 1, so 'maybe' (false positive)", d.query(d.liar)),
        ],
        title="Adding sets k = 3 bits per item; a query reads its k bits",
    )


# -- the payoff for seed 002 ----------------------------------------------------------------------


def payoff_markdown() -> str:
    """Memory, k and MySQL queries let through a day, for seed 002 at each :data:`PAYOFF_RATES`."""
    misses = SEED_002_DAILY * SEED_002_MISS_SHARE
    lines = [
        "| target rate | memory for 8e8 | k | wasted MySQL queries / day | of misses blocked |",
        "|---|---|---|---|---|",
    ]
    for p in PAYOFF_RATES:
        sizing = bloom.size_for(SEED_002_MEMBERS, p)
        lines.append(
            f"| {format_rate(p)} | {format_bytes(sizing.bytes)} | {sizing.k} | "
            f"{format_count(misses * p)} | {format_rate(1 - p, digits=5)} |"
        )
    return "\n".join(lines)


# -- the experiments, on an embedded lab (the same answers on every backend) ----------------------


def _on_embedded_lab(experiment: Callable[[backend.Lab], T]) -> T:
    lab = backend.connect("figures-bloom-basics", backend="fake", quiet=True)
    lab.cleanup()
    try:
        return experiment(lab)
    finally:
        lab.cleanup()


def lookup_summary(run: LookupRun) -> str:
    """One line for a run of :func:`setlab.lab.runs.bloom.openid_lookups`: the share of member
    lookups found (always 100%: a Bloom filter has no false negatives), and the miss lookups let
    through to MySQL, as a count of the misses and as a rate (the measured false-positive
    rate)."""
    return (
        f"members found: {run.members_found:.0%}; "
        f"misses let through to MySQL: {run.misses_through} of {run.misses} "
        f"({run.through_rate:.2%})"
    )


@cache
def openid_run() -> LookupRun:
    """:func:`setlab.lab.runs.bloom.openid_lookups` at its default size, on the embedded lab."""
    return _on_embedded_lab(lambda lab: openid_lookups(lab, miss_share=SEED_002_MISS_SHARE))


@cache
def seed004() -> Seed004Check:
    """Seed 004's own test (:func:`setlab.lab.runs.bloom.seed004_check`), on the embedded lab."""
    return _on_embedded_lab(seed004_check)


# -- figures --------------------------------------------------------------------------------------

FIGURES.add("bb-stranger", lambda: demo().stranger)
FIGURES.add("bb-liar", lambda: demo().liar)
FIGURES.add("bb-shared", lambda: ", ".join(map(str, demo().shared)))
FIGURES.add("bb-wasted", lambda: format_count(SEED_002_DAILY * SEED_002_MISS_SHARE))
FIGURES.add("bb-mem-1", lambda: format_bytes(bloom.size_for(SEED_002_MEMBERS, 0.01).bytes))
FIGURES.add("bb-mem-01", lambda: format_bytes(bloom.size_for(SEED_002_MEMBERS, 0.001).bytes))
FIGURES.add("bb-left-1", lambda: format_count(SEED_002_DAILY * SEED_002_MISS_SHARE * 0.01))
FIGURES.add("bb-run-through", lambda: format_rate(openid_run().through_rate))
FIGURES.add("bb-run-expected", lambda: format_rate(openid_run().expected_rate))
FIGURES.add("bb-fix-8e8", lambda: format_rate(seed_002_fix_rate(SEED_002_MEMBERS)))
FIGURES.add("bb-fix-2e9", lambda: format_rate(seed_002_fix_rate(SEED_002_PLANNED)))
FIGURES.add("bb-java-element4", lambda: str(seed004().element4))
FIGURES.add("bb-java-present", lambda: str(seed004().strangers_present))
FIGURES.add("bb-java-strangers", lambda: str(seed004().strangers))
FIGURES.add("bb-java-bits", lambda: str(seed004().bits_set))

# -- the rest of seed 002's intro and seed 004 §3–4 -----------------------------------------------

#: Seed 004 §3: the constructor the Java class declares, and the call its test makes.
SEED_004_DECLARED = "public BloomFilter(String filterKey, int size, int numHashFunctions)"
SEED_004_CALL = 'new BloomFilter(redisTemplate, "bloomFilter", 10000, 3)'
#: Seed 004 §4's example input: a UUID string (36 bytes).
SEED_004_UUID = b"123e4567-e89b-12d3-a456-426614174000"


def _arguments(signature: str) -> int:
    return len(signature[signature.index("(") + 1 : signature.rindex(")")].split(","))


def _murmur_both() -> str:
    row = np.frombuffer(SEED_004_UUID, dtype=np.uint8)[None, :]
    h1 = int(murmur3_x64_128_rows(row)[0][0])
    return f"x86_32 {int(murmur3_32_rows(row)[0]):#010x}, x64_128 [0] {h1:#018x}"


FIGURES.add("bb-java-declared", lambda: str(_arguments(SEED_004_DECLARED)))
FIGURES.add("bb-java-passed", lambda: str(_arguments(SEED_004_CALL)))
FIGURES.add("bb-k-probes", lambda: str(bloom.size_for(SEED_002_MEMBERS, 0.001).k))
FIGURES.add("bb-1e6-usage", lambda: format_bytes(bitmap.first_setbit_memory_usage(10**6 - 1)))
FIGURES.add("bb-murmur-both", _murmur_both)


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
