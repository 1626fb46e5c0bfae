"""Every structure the book discusses, priced for a set of IDs, and the one the advisor picks.

The engine under ``setlab advise`` (:mod:`setlab.tools.advise` reads, analyses and prints) and
the density calculator (:mod:`setlab.tools.calc.density`, the same pick for IDs described
rather than listed): :func:`candidates` prices a Redis SET (:mod:`setlab.models.redis_memory`),
a plain bitmap (:mod:`setlab.models.bitmap`), Roaring (:mod:`setlab.models.roaring`), a Bloom
filter (:mod:`setlab.models.bloom`), a cuckoo filter
(:func:`setlab.tools.calc.cuckoo.cuckoo_sizing`) at the chosen error, and a HyperLogLog, each
with what it cannot do for these IDs; :func:`recommend` picks one and says why. Memory is in
bytes; what Redis holds (the SET, the bitmap, the HyperLogLog) is priced for the release and
allocator the reader names (:class:`Needs`, :mod:`setlab.tools.calc.release`; Redis 7.0, where
the models are exact, by default). Roaring and the filters are priced by their own layouts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from setlab.core.formats import format_bytes, format_rate, format_share
from setlab.core.validate import check_int, check_probability
from setlab.tools import capacity
from setlab.tools.analysis import Analysis
from setlab.tools.calc.cuckoo import cuckoo_sizing
from setlab.tools.calc.hll import hll_key_cost
from setlab.tools.calc.release import PricedFor

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
    release: str | None = None  #: the release whose memory is priced (None: the default)
    allocator: str | None = None  #: its allocator (None: the release's usual one)
    sets: int = 1  #: sets of such IDs (keys: one per post, per day …), priced together
    server: int = capacity.DEFAULT_SERVER_BYTES  #: one Redis's memory, bytes
    server_source: str = capacity.DEFAULT_SOURCE  #: where :attr:`server` came from

    def __post_init__(self) -> None:
        check_probability("error", self.error)
        check_int("sets", self.sets, 1)
        self.priced_for  # noqa: B018 - checks release and allocator

    @property
    def priced_for(self) -> PricedFor:
        """The build what Redis holds is priced for."""
        return PricedFor.of(self.release, self.allocator)


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


def set_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models import redis_memory

    build = needs.priced_for.build
    cost = redis_memory.set_cost(a.members, version=build.release, allocator=build.allocator)
    caveats = []
    if cost.encoding == "hashtable" and a.members.integers:
        caveats.append(f"{a.distinct:,} members is over set-max-intset-entries "
                       f"({redis_memory.SET_MAX_INTSET_ENTRIES}): a hash table of strings, "
                       f"not an intset")  # fmt: skip
    if cost.encoding == "intset":
        caveats.append(f"intset: {a.members.int_width} bytes per ID while at most "
                       f"{redis_memory.SET_MAX_INTSET_ENTRIES} members")  # fmt: skip
    if cost.allocated > BIG_KEY_BYTES:
        caveats.append(f"one key of {format_bytes(cost.allocated)}: a big key (DEL blocks: "
                       "use UNLINK; one Cluster node holds it all)")  # fmt: skip
    overstated = cost.memory_usage / cost.allocated - 1
    if cost.encoding == "hashtable" and overstated > 0.1:
        server = needs.priced_for.server
        caveats.append(f"MEMORY USAGE will say {format_bytes(cost.memory_usage)}, "
                       f"{overstated:.0%} more than {server} allocates")  # fmt: skip
    return Candidate("Redis SET", cost.allocated, "exact", "yes (SREM)", "Redis",
                     tuple(caveats))  # fmt: skip


def bitmap_bytes(offset: int, needs: Needs) -> int:
    """``MEMORY USAGE`` of a key ``k`` after one ``SETBIT`` at ``offset`` (the whole string at
    once), on the release and allocator ``needs`` prices for."""
    from setlab.models import redis_memory

    build = needs.priced_for.build
    cost = redis_memory.bitmap_cost([offset], version=build.release, allocator=build.allocator)
    return cost.memory_usage


def _bitmap_candidate(a: Analysis, needs: Needs) -> Candidate:
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
    dense = bitmap_bytes(a.distinct - 1, needs)
    if a.high <= bitmap.MAX_OFFSET:
        usage, top, caveats = bitmap_bytes(a.high, needs), a.high, []
        shifted = bitmap_bytes(a.span - 1, needs)
        if a.low > 0 and shifted < 0.8 * usage:
            caveats.append(
                f"offset = ID − {a.low:,} ({format_bytes(usage)} with the IDs as offsets)"
            )
            usage, top = shifted, a.span - 1
        if bitmap.bytes_for_offset(top) >= STALL_BYTES:
            caveats.append(f"a first SETBIT at the top offset allocates {format_bytes(usage)} at "
                           "once and stalls the server (chapter setbit-offset)")  # fmt: skip
        if a.density < 0.01:
            caveats.append(f"mostly zeros: {format_share(a.density)} of the bits are set")
        return Candidate(name, usage, "exact", "yes (SETBIT 0)", where, tuple(caveats))
    if a.span - 1 <= bitmap.MAX_OFFSET:
        usage = bitmap_bytes(a.span - 1, needs)
        return Candidate(name, usage, "exact", "yes (SETBIT 0)", where, (
            f"IDs reach 2^{a.bit_width}, past the 2^32 bit offsets of a Redis string: the offset "
            f"must be ID − {a.low:,}",))  # fmt: skip
    return Candidate(name, None, "exact", "yes (SETBIT 0)", where, (
        f"IDs reach 2^{a.bit_width}, past the 2^32 bit offsets of a Redis string; a dense remap "
        f"(a mapping table to 0 … {a.distinct - 1:,}) would make it {format_bytes(dense)} plus "
        "the map",
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
        caveats.append(f"{format_bytes(r.plain_bytes)} until run_optimize() turns runs of "
                       "consecutive IDs into run containers")  # fmt: skip
    if r.estimated:
        caveats.append("scaled from a sample of the IDs")
    return Candidate(name, r.serialized_bytes, "exact", "yes", where, tuple(caveats))


def bloom_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models import bloom, redisbloom

    sizing = bloom.size_for(a.distinct, needs.error)
    chain = redisbloom.ChainLayout(needs.error, a.distinct)
    caveats = [
        "no deletes: removing an ID means rebuilding the filter (chapter scalable-bloom)",
        f"sized for {a.distinct:,} IDs: at twice as many its rate is "
        f"{format_rate(bloom.fpr(2 * a.distinct, sizing.m, sizing.k))}",
        f"RedisBloom BF.RESERVE key {needs.error:g} {a.distinct} takes "
        f"{format_bytes(chain.memory(a.distinct))} (its first sub-filter aims at half the error)",
    ]
    if sizing.m > bloom.MAX_BITS_PER_KEY:
        caveats.append("more bits than one Redis string holds: shard it (chapter sharded-bloom)")
    return Candidate(f"Bloom filter, {format_rate(needs.error)}", sizing.bytes,
                     f"{format_rate(sizing.achieved_fpr)} false positives", "no",
                     "RedisBloom module (or client-side over bitmaps)", tuple(caveats),
                     exact=False)  # fmt: skip


def cuckoo_candidate(a: Analysis, needs: Needs) -> Candidate:
    from setlab.models.cuckoo import PAPER_LOAD_FACTORS

    data = cuckoo_sizing(a.distinct, needs.error).data
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


def hll_candidate(a: Analysis, needs: Needs | None = None) -> Candidate:
    from setlab.models.hyperloglog import HLL_STANDARD_ERROR

    build = (needs or Needs()).priced_for.build
    cost = hll_key_cost(a.distinct, build.release, build.allocator)
    return Candidate("HyperLogLog", cost.allocated,
                     f"±{HLL_STANDARD_ERROR:.2%} on the count", "no", "Redis",
                     ("counts only: it cannot answer whether one ID is in",),
                     membership=False, exact=False)  # fmt: skip


def candidates(a: Analysis, needs: Needs | None = None) -> list[Candidate]:
    """Every structure the book discusses, priced for these IDs (memory in bytes)."""
    needs = needs or Needs()
    return [
        set_candidate(a, needs),
        _bitmap_candidate(a, needs),
        _roaring_candidate(a),
        bloom_candidate(a, needs),
        cuckoo_candidate(a, needs),
        hll_candidate(a, needs),
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
                        f"would save only {format_bytes(extra)}")  # fmt: skip
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
            best,
            f"{why_exact}; a {approx.name} would save only {format_bytes(extra)} and err{built_in}",
        )
    return Recommendation(approx, (
        f"{best.memory / approx.memory:.0f}× smaller than the smallest exact structure "
        f"({best.name}, {_for(best)}, {per_id:.3g} B per ID), for {approx.error}"
        + ("; it can delete only IDs known present" if needs.deletes else "")))  # fmt: skip


def _for(c: Candidate) -> str:
    """``c``'s memory, and for how many sets when more than one."""
    return format_bytes(c.memory) + (f" for {c.sets:,} sets" if c.sets > 1 else "")  # type: ignore[arg-type]


def _why(a: Analysis, best: Candidate, smallest: bool = True) -> str:
    per_id = best.memory / (a.distinct * best.sets)  # type: ignore[operator]
    head = f"exact and deletable at {_for(best)} ({per_id:.3g} B per ID)"
    if best.name == "plain bitmap":
        share = format_share(a.density)
        return f"{head}: the IDs fill {share} of their range, one bit per possible ID"
    if best.name == "Roaring bitmap":
        r = a.roaring
        if r is not None and r.serialized_bytes < 0.5 * r.plain_bytes:
            return (f"{head}: runs of consecutive IDs collapse into run containers "
                    f"({format_bytes(r.plain_bytes)} before run_optimize())")  # fmt: skip
        return f"{head}: too sparse for a plain bitmap, clustered enough for Roaring's containers"
    if not smallest:  # the reason that follows says what is smaller
        return head
    return f"{head}: the smallest exact structure for these IDs"
