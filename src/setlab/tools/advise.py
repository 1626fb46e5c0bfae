"""``setlab advise``: seed 003's closing advice ("histogram your IDs first") as a tool.

Seed 003 ends with: before choosing a structure, count your IDs, draw a histogram of them, then
decide. The advisor does that for a file of IDs, one per line, in three steps:

* :func:`setlab.models.ids.read_ids` reads the IDs (decimal, hex or UUIDs);
* :func:`setlab.tools.analysis.analyse` reports what the structures care about: count,
  duplicates, range, bit width, density and the per-chunk histogram;
* this module prices every structure the book discusses for *these* IDs (:func:`candidates`) —
  Redis SET (:mod:`setlab.models.redis_memory`, exact for Redis 7.0), a plain bitmap
  (:mod:`setlab.models.bitmap`), Roaring (:mod:`setlab.models.roaring`), a Bloom filter
  (:mod:`setlab.models.bloom`) and a cuckoo filter (:mod:`setlab.tools.calc`'s sizing) at the
  chosen error, and HyperLogLog — with what each cannot do here; :func:`recommend` picks one
  and says why, and :func:`advise` does both.

The models are the chapters' models; this module only decides which to ask and what to do with
the answers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from setlab.core.units import format_bytes
from setlab.core.validate import check_int, check_probability
from setlab.models.roaring import ARRAY_MAX
from setlab.tools import calc, capacity
from setlab.tools.analysis import Analysis

# -- the candidates -------------------------------------------------------------------------------

#: An exact structure is preferred while it costs at most this many times the smallest filter
#: that errs (a judgement: exactness, deletes and set algebra are worth a factor of two).
EXACT_PREMIUM = 2.0
#: ... or while it costs at most this many bytes more (seed 003: "don't optimise early").
EXACT_SLACK = 1 << 20
#: A structure built into Redis is preferred over Roaring (a module or client-side blob) while
#: it costs at most this many times as much.
NATIVE_PREMIUM = 1.25
#: ... or while it costs at most this many bytes more (not worth a module or client code).
NATIVE_SLACK = 1 << 20
#: One key above this many bytes is a "big key" (seed 000 §5): DEL blocks, one node holds it.
BIG_KEY_BYTES = 10 << 20
#: A first SETBIT that allocates this much stalls the server noticeably (chapter setbit-offset).
STALL_BYTES = 8 << 20


@dataclass(frozen=True)
class Needs:
    """What the IDs are for."""

    error: float = 0.01  #: false-positive rate a filter may have
    deletes: bool = False  #: IDs must be removable
    count_only: bool = False  #: only the number of distinct IDs is needed
    version: str = "7.0"  #: Redis version of the SET model
    sets: int = 1  #: sets of such IDs (keys: one per post, per day …), priced together
    server: int = capacity.DEFAULT_SERVER_BYTES  #: one Redis's memory, bytes
    server_source: str = capacity.DEFAULT_SOURCE  #: where :attr:`server` came from

    def __post_init__(self) -> None:
        check_probability("error", self.error)
        check_int("sets", self.sets, 1)
        if self.version not in ("7.0", "7.2"):
            raise ValueError(f"version must be 7.0 or 7.2; got {self.version!r}")


@dataclass(frozen=True)
class Candidate:
    """One structure, priced for these IDs."""

    name: str
    memory: int | None  #: bytes, None when the structure cannot hold these IDs
    error: str  #: "exact", a false-positive rate, or the error on a count
    deletes: str  #: "yes", "no", or the condition
    where: str  #: "Redis", "RedisBloom module", "module or client"
    caveats: tuple[str, ...]
    membership: bool = True  #: answers "is this ID in?"
    exact: bool = True

    shared: int = 0  #: bytes of ``memory`` that every set over the same IDs shares (paid once)
    sets: int = 1  #: how many sets ``memory`` is for

    @property
    def possible(self) -> bool:
        return self.memory is not None

    def for_sets(self, sets: int) -> Candidate:
        """This candidate priced for ``sets`` sets: what they share once, the rest each."""
        if self.memory is None:
            return replace(self, sets=sets)
        total = self.shared + sets * (self.memory - self.shared)
        return replace(self, memory=total, sets=sets)


def _fmt(nbytes: float) -> str:
    return format_bytes(nbytes)


def set_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models import redis_memory

    cost = redis_memory.set_cost(a.members, version=needs.version)  # type: ignore[arg-type]
    caveats = []
    if cost.encoding == "hashtable" and a.members.integers:
        caveats.append(f"{a.distinct:,} members is over set-max-intset-entries "
                       f"({redis_memory.SET_MAX_INTSET_ENTRIES}): a hash table of strings, "
                       f"not an intset")  # fmt: skip
    if cost.encoding == "intset":
        caveats.append(f"intset: {a.members.int_width} bytes per ID while at most "
                       f"{redis_memory.SET_MAX_INTSET_ENTRIES} members")  # fmt: skip
    if cost.allocated > BIG_KEY_BYTES:
        caveats.append(f"one key of {_fmt(cost.allocated)}: a big key (DEL blocks: use UNLINK; "
                       "one Cluster node holds it all)")  # fmt: skip
    if needs.version == "7.2":
        caveats.append("Redis 7.2 is modelled from its source, not measured")
    return Candidate("Redis SET", cost.allocated, "exact", "yes (SREM)", "Redis",
                     tuple(caveats))  # fmt: skip


def _bitmap_candidate(a: Analysis) -> Candidate:
    from setlab.models import bitmap

    name, where = "plain bitmap", "Redis"
    if a.bits == 128:
        return Candidate(
            name,
            None,
            "exact",
            "yes (SETBIT 0)",
            where,
            ("128-bit IDs are not bit offsets: map them to dense integers first",),
        )
    dense = bitmap.first_setbit_memory_usage(a.distinct - 1)
    if a.high <= bitmap.MAX_OFFSET:
        usage, top, caveats = bitmap.first_setbit_memory_usage(a.high), a.high, []
        shifted = bitmap.first_setbit_memory_usage(a.span - 1)
        if a.low > 0 and shifted < 0.8 * usage:
            caveats.append(f"offset = ID − {a.low:,} ({_fmt(usage)} with the IDs as offsets)")
            usage, top = shifted, a.span - 1
        if bitmap.bytes_for_offset(top) >= STALL_BYTES:
            caveats.append(f"a first SETBIT at the top offset allocates {_fmt(usage)} at once "
                           "and stalls the server (chapter setbit-offset)")  # fmt: skip
        if a.density < 0.01:
            caveats.append(f"mostly zeros: {_share(a.density)} of the bits are set")
        return Candidate(name, usage, "exact", "yes (SETBIT 0)", where, tuple(caveats))
    if a.span - 1 <= bitmap.MAX_OFFSET:
        usage = bitmap.first_setbit_memory_usage(a.span - 1)
        return Candidate(name, usage, "exact", "yes (SETBIT 0)", where, (
            f"IDs reach 2^{a.bit_width}, past the 2^32 bit offsets of a Redis string: the offset "
            f"must be ID − {a.low:,}",))  # fmt: skip
    return Candidate(name, None, "exact", "yes (SETBIT 0)", where, (
        f"IDs reach 2^{a.bit_width}, past the 2^32 bit offsets of a Redis string; a dense remap "
        f"(a mapping table to 0 … {a.distinct - 1:,}) would make it {_fmt(dense)} plus the map",
    ))  # fmt: skip


def _roaring_candidate(a: Analysis) -> Candidate:
    name, where = "Roaring bitmap", "module or client"
    r = a.roaring
    if r is None:
        return Candidate(name, None, "exact", "yes", where,
                         ("Roaring holds integers below 2^64: map these IDs to dense integers "
                          "first",))  # fmt: skip
    caveats = ["not built into Redis: a module, or a serialized blob the client reads, changes "
               "and writes back under WATCH (chapter roaring-containers)"]  # fmt: skip
    if r.buckets is not None:
        caveats.append(f"64-bit IDs: Roaring64, {r.buckets:,} buckets of 2^32")
    if r.containers > a.distinct / 4:
        caveats.append(f"sparse at the 2^16 scale: {r.containers:,} containers for "
                       f"{a.distinct:,} IDs, each with its own header")  # fmt: skip
    if r.serialized_bytes < 0.5 * r.plain_bytes:
        caveats.append(f"{_fmt(r.plain_bytes)} until run_optimize() turns runs of consecutive IDs "
                       "into run containers")  # fmt: skip
    if r.estimated:
        caveats.append("scaled from a sample of the IDs")
    return Candidate(name, r.serialized_bytes, "exact", "yes", where, tuple(caveats))


def bloom_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models import bloom, redisbloom
    from setlab.models.bloom import format_rate

    sizing = bloom.size_for(a.distinct, needs.error)
    chain = redisbloom.ChainLayout(needs.error, a.distinct)
    caveats = [
        "no deletes: removing an ID means rebuilding the filter (chapter scalable-bloom)",
        f"sized for {a.distinct:,} IDs: at twice as many its rate is "
        f"{format_rate(bloom.fpr(2 * a.distinct, sizing.m, sizing.k))}",
        f"RedisBloom BF.RESERVE key {needs.error:g} {a.distinct} takes "
        f"{_fmt(chain.memory(a.distinct))} (its first sub-filter aims at half the error)",
    ]
    if sizing.m > bloom.MAX_BITS_PER_KEY:
        caveats.append("more bits than one Redis string holds: shard it (chapter sharded-bloom)")
    return Candidate(f"Bloom filter, {format_rate(needs.error)}", sizing.bytes,
                     f"{format_rate(sizing.achieved_fpr)} false positives", "no",
                     "RedisBloom module (or client-side over bitmaps)", tuple(caveats),
                     exact=False)  # fmt: skip


def cuckoo_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models.bloom import format_rate
    from setlab.models.cuckoo import PAPER_LOAD_FACTORS

    data = calc.cuckoo_sizing(a.distinct, needs.error).data
    rb, b = data["redisbloom"], data["bucket_size"]
    caveats = [
        f"b = {b}, {data['fingerprint_bits']}-bit fingerprints, {data['load']:.0%} load "
        f"(a power-of-two table); inserts start failing near {PAPER_LOAD_FACTORS[b]:.0%}",
        f"RedisBloom's CF has 8-bit fingerprints: {format_rate(rb['fpr'])} at the same load",
        "delete only IDs you know were added: deleting a false positive removes another ID",
    ]
    return Candidate(f"cuckoo filter, {format_rate(needs.error)}", data["bytes"],
                     f"{format_rate(data['fpr'])} false positives", "only IDs known present",
                     "RedisBloom module", tuple(caveats), exact=False)  # fmt: skip


def hll_candidate(a: Analysis) -> Candidate:
    from setlab.models.hyperloglog import HLL_STANDARD_ERROR

    cost = calc.hll_key_cost(a.distinct)
    return Candidate("HyperLogLog", cost.allocated,
                     f"±{HLL_STANDARD_ERROR:.2%} on the count", "no", "Redis",
                     ("counts only: it cannot answer whether one ID is in",),
                     membership=False, exact=False)  # fmt: skip


def candidates(a: Analysis, needs: Needs | None = None) -> list[Candidate]:
    """Every structure the book discusses, priced for these IDs (memory in bytes)."""
    needs = needs or Needs()
    return [
        set_candidate(a, needs),
        _bitmap_candidate(a),
        _roaring_candidate(a),
        bloom_candidate(a, needs),
        cuckoo_candidate(a, needs),
        hll_candidate(a),
    ]


@dataclass(frozen=True)
class Recommendation:
    choice: Candidate
    reason: str


def _smallest(found: list[Candidate]) -> Candidate:
    return min(found, key=lambda c: c.memory)  # type: ignore[arg-type, return-value]


def recommend(a: Analysis, options: list[Candidate], needs: Needs | None = None) -> Recommendation:
    """Pick one candidate and say why.

    Counting only: HyperLogLog unless an exact structure is no bigger. Membership: the smallest
    exact structure (preferring one built into Redis over Roaring unless Roaring is more than
    :data:`NATIVE_PREMIUM` times and :data:`NATIVE_SLACK` bytes smaller), unless a filter at the
    chosen error is more than :data:`EXACT_PREMIUM` times and :data:`EXACT_SLACK` bytes smaller
    still; with ``deletes`` the Bloom filter is out.
    """
    needs = needs or Needs()
    if needs.sets > 1:  # compare what every set costs, with what the sets share paid once
        chosen = recommend(a, [c.for_sets(needs.sets) for c in options], replace(needs, sets=1))
        original = next(c for c in options if c.name == chosen.choice.name)
        return Recommendation(original, chosen.reason)
    possible = [c for c in options if c.possible]
    exact = [c for c in possible if c.exact]
    best = _smallest(exact)
    native = [c for c in exact if c.where == "Redis"]
    built_in = ""
    if best.where != "Redis" and native:
        closest = _smallest(native)
        extra = closest.memory - best.memory  # type: ignore[operator]
        if closest.memory <= NATIVE_PREMIUM * best.memory or extra <= NATIVE_SLACK:  # type: ignore[operator]
            built_in = (f"; one key built into Redis, where a {best.name} ({best.where}) "
                        f"would save only {_fmt(extra)}")  # fmt: skip
            best = closest
    per_id = best.memory / (a.distinct * best.sets)  # type: ignore[operator]
    if needs.count_only:
        hll = next(c for c in possible if c.name == "HyperLogLog")
        if best.memory <= hll.memory:  # type: ignore[operator]
            return Recommendation(
                best,
                f"an exact {best.name} of these IDs ({_for(best)}) "
                f"is no bigger than a HyperLogLog ({_for(hll)})",
            )
        return Recommendation(hll, f"{hll.memory and best.memory / hll.memory:,.0f}× smaller than "
                                   f"the smallest exact structure ({best.name}, "
                                   f"{_for(best)}), for {hll.error}")  # fmt: skip
    filters = [c for c in possible if c.membership and not c.exact]
    if needs.deletes:
        filters = [c for c in filters if c.deletes != "no"]
    why_exact = _why(a, best, smallest=not built_in)
    if not filters:
        return Recommendation(best, why_exact + built_in)
    approx = _smallest(filters)
    if best.memory <= approx.memory:  # type: ignore[operator]
        return Recommendation(best, f"{why_exact}, smaller even than a {approx.name}{built_in}")
    extra = best.memory - approx.memory  # type: ignore[operator]
    if best.memory <= EXACT_PREMIUM * approx.memory or extra <= EXACT_SLACK:  # type: ignore[operator]
        return Recommendation(
            best, f"{why_exact}; a {approx.name} would save only {_fmt(extra)} and err{built_in}"
        )
    return Recommendation(approx, (
        f"{best.memory / approx.memory:.0f}× smaller than the smallest exact structure "
        f"({best.name}, {_for(best)}, {per_id:.3g} B per ID), for {approx.error}"
        + ("; it can delete only IDs known present" if needs.deletes else "")))  # fmt: skip


def _for(c: Candidate) -> str:
    """``c``'s memory, and for how many sets when more than one."""
    return _fmt(c.memory) + (f" for {c.sets:,} sets" if c.sets > 1 else "")  # type: ignore[arg-type]


def _why(a: Analysis, best: Candidate, smallest: bool = True) -> str:
    per_id = best.memory / (a.distinct * best.sets)  # type: ignore[operator]
    head = f"exact and deletable at {_for(best)} ({per_id:.3g} B per ID)"
    if best.name == "plain bitmap":
        return f"{head}: the IDs fill {_share(a.density)} of their range, one bit per possible ID"
    if best.name == "Roaring bitmap":
        r = a.roaring
        if r is not None and r.serialized_bytes < 0.5 * r.plain_bytes:
            return (f"{head}: runs of consecutive IDs collapse into run containers "
                    f"({_fmt(r.plain_bytes)} before run_optimize())")  # fmt: skip
        return f"{head}: too sparse for a plain bitmap, clustered enough for Roaring's containers"
    if not smallest:  # the reason that follows says what is smaller
        return head
    return f"{head}: the smallest exact structure for these IDs"


#: "chapter <slug>" in a caveat: a link in the book's Markdown
_CHAPTER = re.compile(r"chapter ([a-z]+(?:-[a-z]+)+)")


# -- the advice -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Advice:
    """The analysis, the priced candidates and the recommendation, ready to print."""

    analysis: Analysis
    needs: Needs
    candidates: list[Candidate]
    recommendation: Recommendation

    def scale(self, c: Candidate) -> capacity.Scale:
        """``c`` at the asked number of sets, against one Redis."""
        n = self.needs
        return capacity.Scale(c.memory - c.shared, n.sets, c.shared, n.server, n.server_source)  # type: ignore[operator]

    def text(self) -> str:
        """The advice as the terminal shows it (:func:`render_text`); an advisor for another
        kind of ID overrides it, as :class:`setlab.tools.advise_strings.StringAdvice` does."""
        return render_text(self)

    def as_json(self) -> dict[str, Any]:
        """The analysis, the priced candidates and the pick, for ``--json``; overridden like
        :meth:`text`."""
        a = self.analysis
        return {
            "source": a.source, "kind": a.kind, "bits": a.bits, "ids": a.ids,
            "blank_lines": a.blank_lines, "distinct": a.distinct, "duplicates": a.duplicates,
            "most_repeated": None if a.most_repeated is None else {
                "id": a.most_repeated[0], "times": a.most_repeated[1]},
            "low": str(a.low) if a.bits == 128 else a.low,
            "high": str(a.high) if a.bits == 128 else a.high,
            "bit_width": a.bit_width, "density": a.density, "runs": a.runs,
            "chunks": a.chunks, "bitmap_chunks": a.bitmap_chunks,
            "chunk_histogram": [{"low": lo, "high": hi, "chunks": n}
                                for lo, hi, n in a.chunk_histogram()],
            "range_histogram": {"edges": a.range_edges.tolist(),
                                "counts": a.range_counts.tolist()},
            "notes": list(a.notes), **candidates_json(self),
        }  # fmt: skip

    def candidates_markdown(self) -> str:
        """The candidate table as Markdown (for the book)."""
        lines = [
            "| structure | memory | per ID | error | deletes | where | caveats for these IDs |",
            "|:--|--:|--:|:--|:--|:--|:--|",
        ]
        for c in self.candidates:
            memory = "impossible" if c.memory is None else _fmt(c.memory)
            per = "" if c.memory is None else _per_id(c.memory / self.analysis.distinct)
            name = f"**{c.name}**" if c is self.recommendation.choice else c.name
            caveats = _CHAPTER.sub(r"{doc}`\1`", "; ".join(c.caveats))
            lines.append(f"| {name} | {memory} | {per} | {c.error} | {c.deletes} | {c.where} "
                         f"| {caveats} |")  # fmt: skip
        return "\n".join(lines)


def candidates_json(advice: Advice) -> dict[str, Any]:
    """What was asked, the priced candidates and the pick, for ``--json`` (any kind of ID)."""
    n, distinct = advice.needs, advice.analysis.distinct
    choice = advice.recommendation.choice
    return {
        "needs": {"error": n.error, "deletes": n.deletes, "count_only": n.count_only,
                  "redis": n.version, "sets": n.sets, "server_memory": n.server},
        "candidates": [{
            "name": c.name, "memory": c.memory,
            "bytes_per_id": None if c.memory is None else c.memory / distinct,
            "error": c.error, "deletes": c.deletes, "where": c.where,
            "membership": c.membership, "exact": c.exact, "caveats": list(c.caveats),
            "scale": None if c.memory is None else advice.scale(c).as_json(),
        } for c in advice.candidates],
        "recommendation": {"name": choice.name, "reason": advice.recommendation.reason,
                           "scale": advice.scale(choice).as_json(),
                           "scale_notes": advice.scale(choice).notes()},
    }  # fmt: skip


def advise(analysis: Analysis, needs: Needs | None = None) -> Advice:
    """Price every candidate for ``analysis`` and recommend one."""
    needs = needs or Needs()
    options = candidates(analysis, needs)
    return Advice(analysis, needs, options, recommend(analysis, options, needs))


def _per_id(value: float) -> str:
    return f"{value:.3g} B" if value < 1024 else _fmt(value)


_SPARK = " ▁▂▃▄▅▆▇█"


def sparkline(counts: np.ndarray) -> str:
    """Counts as a row of block characters, highest = █, empty = space."""
    counts = np.asarray(counts, dtype=float)
    if counts.size == 0 or counts.max() <= 0:
        return ""
    levels = np.ceil(counts / counts.max() * (len(_SPARK) - 1)).astype(int)
    return "".join(_SPARK[i] for i in levels)


def _share(value: float) -> str:
    return f"{value:.1%}" if value >= 0.001 else f"{value:.3g}"


def _number(value: int) -> str:
    return f"{value:,}" if value < 10**15 else f"{value:,} (≈ 2^{math.log2(value):.1f})"


def render_text(advice: Advice) -> str:
    """The advice as the terminal shows it."""
    a = advice.analysis
    kind = {"decimal": "decimal integers", "hex": "hexadecimal IDs", "uuid": "UUIDs"}[a.kind]
    lines = [f"{a.ids:,} IDs in {a.source}: {kind}, {a.bits}-bit"
             + (f" ({a.blank_lines:,} blank lines skipped)" if a.blank_lines else "")]  # fmt: skip
    repeated = (f"; most repeated: {a.most_repeated[0]} ({a.most_repeated[1]:,} times)"
                if a.most_repeated else "")  # fmt: skip
    rows = [
        ("distinct", f"{a.distinct:,} ({a.duplicates:,} duplicates{repeated})"),
        ("range", f"{_number(a.low)} … {_number(a.high)} ({a.bit_width} bits)"),
        ("density", f"{_share(a.density)} of the values in that range are IDs"
                    + (f"; {a.runs:,} run{'s' * (a.runs != 1)} of consecutive IDs"
                       if a.bits == 64 else "")),
    ]  # fmt: skip
    if a.chunks is not None:
        rows.append(
            (
                "2^16 chunks",
                f"{a.chunks:,} non-empty; {a.bitmap_chunks:,} hold more than "
                f"{ARRAY_MAX:,} IDs (Roaring bitmap containers)",
            )
        )
    rows.append(("over the range", f"|{sparkline(a.range_counts)}|"))
    width = max(len(label) for label, _ in rows)
    lines += [f"  {label.ljust(width)}  {value}" for label, value in rows]
    lines += [f"  note: {note}" for note in a.notes]
    if a.chunks is not None:
        lines.append("\nIDs per 2^16 chunk (Roaring container):")
        histogram = a.chunk_histogram()
        top = max(n for _, _, n in histogram) or 1
        for lo, hi, n in histogram:
            label = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
            bar = "#" * (0 if n == 0 else max(1, round(40 * n / top)))
            lines.append(f"  {label.rjust(13)}  {n:>10,} chunks  {bar}")
    return "\n".join(lines) + "\n" + render_candidates(advice)


def render_candidates(advice: Advice) -> str:
    """The priced candidates, their caveats and the recommendation, as the terminal shows
    them (for integer and string IDs alike)."""
    from setlab.models.bloom import format_rate

    a = advice.analysis
    sets = advice.needs.sets
    lines = [f"\nCandidates (filters at {format_rate(advice.needs.error)}):"]
    table = [("structure", "memory", "per ID", "error", "deletes", "where")]
    if sets > 1:
        table[0] = (*table[0][:2], f"{sets:,} sets", *table[0][2:])
    for c in advice.candidates:
        memory = "impossible" if c.memory is None else _fmt(c.memory)
        per = "" if c.memory is None else _per_id(c.memory / a.distinct)
        row = (c.name, memory, per, c.error, c.deletes, c.where)
        if sets > 1:
            total = "" if c.memory is None else _fmt(advice.scale(c).total)
            row = (*row[:2], total, *row[2:])
        table.append(row)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip())  # fmt: skip
    lines.append("\nCaveats for these IDs:")
    for c in advice.candidates:
        for caveat in c.caveats:
            lines.append(f"  {c.name}: {caveat}")
    r = advice.recommendation
    lines.append(f"\nRecommendation: {r.choice.name} — {r.reason}.")
    at_scale = advice.scale(r.choice)
    if sets > 1 or not at_scale.fits:
        width = max(len(label) for label, _ in at_scale.rows())
        lines += [f"  {label.ljust(width)}  {value}" for label, value in at_scale.rows()]
        lines += [f"  note: {note}" for note in at_scale.notes()]
    return "\n".join(lines)
