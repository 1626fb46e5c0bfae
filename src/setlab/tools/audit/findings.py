"""What the book's chapters say about the keys an audit read: findings, each with its figures,
what the alternative costs, and the chapter that explains it.

One function per kind of key (:func:`findings` dispatches): a string that is a sparse or
far-reaching bitmap, a RedisBloom Bloom or cuckoo filter past what it was reserved for, a SET of
integers that left the intset encoding, a HyperLogLog kept dense while it counts little, and any
big key (what a ``DEL`` of it would block, from the stored stall run). The figures come from the
models of :mod:`setlab.models` and the reference runs of :mod:`setlab.lab`; every estimate says
it is one.

What a key would cost as another structure is priced for the audited server's own release and
allocator (:class:`Context`, from its :class:`~setlab.lab.versions.ServerProfile`): a hash
table SET on Redis 7.2 or later allocates about half what 7.0 does, and its ``MEMORY USAGE``
overstates that, so there the SET's own cost is the modelled allocation, with ``MEMORY USAGE``
beside it. Whether a ``DEL`` blocks follows the server's ``lazyfree-lazy-user-del``: with it
(Valkey 8's default) a ``DEL`` frees a collection of more than 64 elements in a background
thread, as ``UNLINK`` does (``lazyfree.c``: a string is one allocation and is freed at once).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from setlab.core.formats import format_bytes, format_duration, format_rate
from setlab.models import builds, redisbloom
from setlab.models import redis_memory as rm
from setlab.tools.audit.patterns import text
from setlab.tools.audit.reader import BLOOM_TYPE, CUCKOO_TYPE, WINDOW_BYTES, KeyInfo

if TYPE_CHECKING:
    from setlab.lab.versions import ServerProfile

#: A key this big is a "big key" (seed 000 §5): what a DEL of it blocks is worth knowing.
BIG_KEY_BYTES = 10 << 20
#: ... or a collection with this many elements.
BIG_KEY_ELEMENTS = 100_000
#: A bitmap whose bits are set this sparsely costs more than the IDs' other structures.
SPARSE_DENSITY = 0.01
#: A bitmap this long (its top offset ≥ 2^28): a first write there allocates it at once.
FAR_BITMAP_BYTES = 32 << 20
#: A dense HyperLogLog (12 KiB) counting fewer than this could be sparse (about 5 bytes each).
DENSE_HLL_FEW = 1000
SEVERITIES = ("high", "medium", "low")
#: lazyfree.c LAZYFREE_THRESHOLD: a DEL under lazyfree-lazy-user-del frees in the background a
#: value of more elements than this (a string always at once)
LAZYFREE_THRESHOLD = 64
#: the release families whose hash table SET allocates what MEMORY USAGE does not say
#: (no dictEntry for a member alone in its bucket, or none at all)
UNCOUNTED_FAMILIES = frozenset({"7.2", "8.2", "valkey-8.1"})


@dataclass(frozen=True)
class Context:
    """What the findings need of the audited server: the build their alternatives are priced
    for, and whether a DEL frees a big collection in the background."""

    build: builds.Build = field(default_factory=builds.Build)
    #: why :attr:`build` is not the server's own ("": it is)
    build_note: str = ""
    lazy_user_del: bool = False  #: ``lazyfree-lazy-user-del yes``
    lazy_source: str = "CONFIG GET"  #: where :attr:`lazy_user_del` comes from
    #: a Redis Cluster node (INFO ``cluster_enabled:1``): a big key cannot be spread over nodes
    cluster: bool = False

    @classmethod
    def of(
        cls, profile: ServerProfile | None, config: dict[str, str] | None, cluster: bool = False
    ) -> Context:
        """The context of a server with this profile and configuration (``None``: CONFIG GET
        was refused, so its release's default: ``yes`` on Valkey 8, ``no`` on Redis), a Cluster
        node or not."""
        build, note = pricing_build(profile)
        if config is not None and "lazyfree-lazy-user-del" in config:
            lazy, source = config["lazyfree-lazy-user-del"] == "yes", "CONFIG GET"
        else:
            lazy = build.is_valkey
            source = f"{build.label.split(',')[0]}'s default; CONFIG GET was refused"
        return cls(build, note, lazy, source, cluster)

    @property
    def server(self) -> str:
        """``"Redis 8.2"``, ``"Valkey 8.1"``: the release the prices are for."""
        return self.build.label.split(",")[0]

    @property
    def uncounted(self) -> bool:
        """A hash table SET here allocates what MEMORY USAGE does not say (7.2 and later)."""
        return self.build.family in UNCOUNTED_FAMILIES


def pricing_build(profile: ServerProfile | None) -> tuple[builds.Build, str]:
    """The build an audit prices alternatives for, and why when it is not the server's own:
    the profile's build; its release with the usual allocator when the allocator is unknown
    (INFO refused); else the book's reference build."""
    if profile is not None and profile.build is not None:
        return profile.build, ""
    release = None
    if profile is not None and profile.version:
        valkey = profile.version if profile.flavour == "Valkey" else ()
        release = builds.release_of(profile.version, valkey)
    if release is not None:
        build = builds.Build(release)
        return build, f"its allocator is unknown: priced with the usual one ({build.label})"
    build = builds.Build()
    name = profile.name if profile is not None else "this server"
    return build, f"the models know no layout for {name}: priced as the book's reference"


@dataclass
class Finding:
    """One thing worth changing about one key."""

    key: str
    kind: str
    message: str
    chapter: str  #: the chapter slug that explains it
    severity: str = "medium"
    bytes: int | None = None  #: what the key costs now
    alternative_bytes: int | None = None  #: what the suggested structure would cost
    figures: dict[str, float | int | str | None] = field(default_factory=dict)

    @property
    def rank(self) -> tuple[int, int]:
        """Order: severity first, then the bytes it would save (most first)."""
        saving = (self.bytes or 0) - (self.alternative_bytes or self.bytes or 0)
        return (SEVERITIES.index(self.severity), -saving)

    def as_json(self) -> dict[str, object]:
        return {
            "key": self.key, "kind": self.kind, "severity": self.severity,
            "message": self.message, "chapter": self.chapter, "bytes": self.bytes,
            "alternative_bytes": self.alternative_bytes, **self.figures,
        }  # fmt: skip


def findings(info: KeyInfo, ctx: Context | None = None) -> list[Finding]:
    """Every finding about one key, priced for ``ctx``'s server (default: the book's
    reference build)."""
    ctx = ctx or Context()
    out: list[Finding] = []
    if info.type == "string":
        if info.head.startswith(b"HYLL"):
            out += _hyperloglog(info)
        elif info.bits_set is not None or info.windows:
            out += _bitmap(info, ctx)
    elif info.type == BLOOM_TYPE:
        out += _bloom(info)
    elif info.type == CUCKOO_TYPE:
        out += _cuckoo(info)
    elif info.type == "set":
        out += _integer_set(info, ctx)
    out += _big(info, ctx)
    return out


def set_allocation(info: KeyInfo, ctx: Context) -> int | None:
    """What a hash table SET allocates on ``ctx``'s server (modelled), where ``MEMORY USAGE``
    does not say it (Redis 7.2 and later, Valkey); ``None`` elsewhere, or when the audit has no
    sample of its members. The members are priced by the lengths of the sampled ones, in the
    sample's proportions (a member's allocation depends only on its length)."""
    if info.type != "set" or info.encoding != "hashtable" or not ctx.uncounted:
        return None
    if not info.members or not info.size:
        return None
    cost = rm.set_cost(_sampled_members(info, ctx.build.allocator), version=ctx.build.release,
                       allocator=ctx.build.allocator)  # fmt: skip
    return cost.allocated if cost.encoding == "hashtable" else None


def _sampled_members(info: KeyInfo, allocator: str) -> Any:
    """A :class:`~setlab.models.redis_memory.Members` of ``info.size`` members whose lengths
    are in the sample's proportions (the largest share takes what rounding leaves)."""
    count, sample = info.size or 0, info.members
    lengths = Counter(len(m) for m in sample)
    shares = {n: count * k // len(sample) for n, k in lengths.items()}
    shares[lengths.most_common(1)[0][0]] += count - sum(shares.values())
    parts = [rm.Members.fixed_length(k, n, allocator) for n, k in shares.items() if k]
    numbers = [rm.redis_integer(m) for m in sample]
    integers = all(n is not None for n in numbers)
    width = max((rm.intset_width(n) for n in numbers if n is not None), default=0)
    return rm.Members.disjoint_union(parts, integers=integers, int_width=width if integers else 0)


def _bitmap_bytes(offset: int, ctx: Context) -> int:
    """``MEMORY USAGE`` of a key ``k`` after one SETBIT at ``offset`` on ``ctx``'s server."""
    return rm.bitmap_cost([offset], version=ctx.build.release,
                          allocator=ctx.build.allocator).memory_usage  # fmt: skip


def bits_set(info: KeyInfo) -> tuple[int, int, bool]:
    """(estimate, 95% upper bound, exact) of the bits set in a string: BITCOUNT of the whole
    string, or of its sampled windows (:func:`setlab.tools.audit.reader.windows`). The last
    window is counted as it is: a bitmap's length comes from its highest set bit, so its last
    byte always holds one; the other windows' share is scaled to the rest of the string (the
    rule of three bounds it when they hold none)."""
    if info.bits_set is not None:
        return info.bits_set, info.bits_set, True
    if not info.windows:
        return 0, 0, False
    window = WINDOW_BYTES * 8
    last, others = info.windows[-1], info.windows[:-1]
    rest = max(0, (info.size or 0) * 8 - window)
    seen = len(others) * window
    found = sum(others)
    if not seen:
        return last, last, False
    upper = 3 / seen if found == 0 else min(1.0, (found + 2 * math.sqrt(found)) / seen)
    return last + round(found / seen * rest), last + math.ceil(upper * rest), False


def _bitmap(info: KeyInfo, ctx: Context) -> list[Finding]:
    strlen = info.size or 0
    count, most, whole = bits_set(info)
    bits = strlen * 8
    if strlen < 1024 or count >= 0.2 * bits:  # text, or a dense bitmap: nothing to say
        return []
    share, upper = count / bits, most / bits
    top = bits - 1
    now = info.bytes or _bitmap_bytes(top, ctx)
    stall = _first_write_ms(top)
    name = text(info.key)
    out = []
    if upper < SPARSE_DENSITY:
        plural = "bit" if count == 1 else "bits"
        counted = (
            f"{count:,} {plural} set" if whole
            else f"about {count:,} {plural} set (sampled; at most {most:,})"
        )  # fmt: skip
        # priced for the most bits the sample allows: an estimate never flatters the change
        members = max(1, most)
        offsets = rm.Members.decimal_range(max(0, top - members + 1), top + 1, ctx.build.allocator)
        as_set = rm.set_cost(offsets, version=ctx.build.release,
                             allocator=ctx.build.allocator).allocated  # fmt: skip
        as_roaring = _roaring_bytes(members, bits)
        best = min(as_set, as_roaring)
        at_most = "" if whole else " at most"
        out.append(Finding(
            name, "sparse-bitmap",
            f"a bitmap of {format_bytes(strlen)} with {counted}: {format_bytes(now)} for them, "
            f"where a SET of those offsets would take{at_most} {format_bytes(as_set)} on "
            f"{ctx.server} and a Roaring bitmap{at_most} {format_bytes(as_roaring)}; recreating "
            "it stalls Redis "
            f"about {format_duration(stall / 1e3)} at the first SETBIT (stored reference run)",
            "setbit-offset", "high" if now >= 64 << 20 or stall >= 100 else "medium",
            now, best, {"strlen": strlen, "bits_set": count, "bits_set_upper": most,
                        "density": share, "first_write_ms": stall,
                        "set_bytes": as_set, "roaring_bytes": as_roaring},
        ))  # fmt: skip
    elif strlen >= FAR_BITMAP_BYTES:
        out.append(Finding(
            name, "far-offset-bitmap",
            f"a bitmap reaching offset {top:,} ({format_bytes(strlen)}): recreating it (after a "
            f"DEL or an expiry) allocates it all at the first SETBIT and stalls Redis about "
            f"{format_duration(stall / 1e3)} (stored reference run); write its highest offset "
            "first from a quiet moment, or shrink the offsets",
            "setbit-offset", "medium", now, None, {"strlen": strlen, "first_write_ms": stall},
        ))  # fmt: skip
    return out


def _roaring_bytes(count: int, universe: int) -> int:
    from setlab.tools.calc import roaring_estimate

    return int(roaring_estimate(min(count, universe), 0, universe).data["serialized_bytes"])


@cache
def _first_write_ms(offset: int) -> float:
    from setlab.tools.calc.setbit import first_write_ms

    return first_write_ms(offset)


def _bloom(info: KeyInfo) -> list[Finding]:
    i = info.info
    try:
        total, size = int(i["Capacity"]), int(i["Size"])
        filters, items = int(i["Number of filters"]), int(i["Number of items inserted"])
    except (KeyError, TypeError, ValueError):
        return []
    expansion = i.get("Expansion rate")
    nonscaling = expansion is None
    expansion = 1 if nonscaling else int(expansion)
    first = total if nonscaling or (expansion == 1 and filters == 1) else round(
        total / sum(expansion**j for j in range(filters)))  # fmt: skip
    error = reserved_error(first, size, filters, items, expansion, nonscaling)
    if error is None or (items <= first and filters == 1):
        return []
    layout = redisbloom.ChainLayout(error, first, max(expansion, 1), nonscaling)
    now = layout.expected_fpr(items)
    right = redisbloom.ChainLayout(error, max(items, 1), nonscaling=True)
    name = text(info.key)
    if nonscaling:
        message = (f"a NONSCALING Bloom filter reserved for {first:,} items at "
                   f"{format_rate(error)} holds {items:,}: it is full and refuses every new "
                   f"item; its false-positive rate is {format_rate(now)}")  # fmt: skip
    else:
        message = (
            f"a Bloom filter reserved for {first:,} items at {format_rate(error)} holds "
            f"{items:,} ({items / first:.1f}×) in {filters} sub-filters: its false-positive "
            f"rate is now {format_rate(now)}, and every lookup probes {filters} sub-filters; "
            f"one reserved for {items:,} would take {format_bytes(right.memory(items))} at "
            f"{format_rate(right.expected_fpr(items))}"
        )
    return [Finding(
        name, "bloom-over-capacity", message, "scalable-bloom",
        "high" if now >= 5 * error else "medium", info.bytes or size,
        right.memory(items), {"capacity": first, "items": items, "filters": filters,
                              "error_reserved": error, "fpr_now": now},
    )]  # fmt: skip


def reserved_error(
    capacity: int, size: int, filters: int, items: int, expansion: int, nonscaling: bool
) -> float | None:
    """The error rate ``BF.RESERVE`` was given, recovered from ``BF.INFO``'s Size (which it
    does not report): the round rate (1, 2 or 5 × 10^-d) whose layout has that size, else the
    middle of the rates that do, else None. A filter of a few hundred bits, rounded to 64, fits
    several rates: the largest round one is taken."""

    def size_at(p: float) -> int:
        layout = redisbloom.ChainLayout(p, capacity, max(expansion, 1), nonscaling)
        return layout.memory(min(items, layout.items_for(filters)))

    round_rates = [m * 10.0**-d for d in range(1, 10) for m in (5, 2, 1)]
    exact = [p for p in round_rates if p < 1 and size_at(p) == size]
    if exact:
        return exact[0]
    low, high = 1e-12, 0.999  # size falls as p rises
    if not size_at(high) <= size <= size_at(low):
        return None
    for _ in range(80):
        mid = math.sqrt(low * high)
        low, high = (mid, high) if size_at(mid) > size else (low, mid)
    return math.sqrt(low * high)


def _cuckoo(info: KeyInfo) -> list[Finding]:
    i = info.info
    try:
        buckets, filters = int(i["Number of buckets"]), int(i["Number of filters"])
        items, slots = int(i["Number of items inserted"]), int(i["Bucket size"])
    except (KeyError, TypeError, ValueError):
        return []
    if filters <= 1:
        return []
    # 8-bit fingerprints: each filter a lookup reads answers yes by chance about 2b/2^8 of the
    # time at full load (chapter cuckoo-kick-chains); every filter is read
    per_filter = 2 * slots / 256
    return [Finding(
        text(info.key), "cuckoo-sub-filters",
        f"a cuckoo filter of {buckets:,} buckets × {slots} slots holds {items:,} items in "
        f"{filters} filters: every lookup and delete reads all {filters}, and the "
        f"false-positive rate grows to about {format_rate(1 - (1 - per_filter) ** filters)} "
        f"(one filter: {format_rate(per_filter)}); reserve for the items you expect",
        "cuckoo-kick-chains", "medium", info.bytes, None,
        {"filters": filters, "items": items, "buckets": buckets},
    )]  # fmt: skip


def _integer_set(info: KeyInfo, ctx: Context) -> list[Finding]:
    if info.encoding != "hashtable" or not info.members or not info.size:
        return []
    numbers = [rm.redis_integer(m) for m in info.members]
    if any(n is None or n < 0 for n in numbers):
        return []
    low, high, k = min(numbers), max(numbers), len(numbers)  # type: ignore[type-var]
    # the sample's range, widened by the expected gap beyond its extremes (k draws)
    span = (high - low) * (k + 1) / max(k - 1, 1)  # type: ignore[operator]
    top = min(int(low + span), 2**32 - 1) if high < 2**32 else None  # type: ignore[operator]
    if top is None:
        return []
    count = info.size
    allocated = set_allocation(info, ctx)
    if allocated is not None:  # MEMORY USAGE does not say it: the model does
        now = allocated
        cost = (f"{format_bytes(now)} allocated on {ctx.server} ({now / count:.0f} B each, "
                f"modelled; MEMORY USAGE says {_bytes_or_unknown(info.bytes)})")  # fmt: skip
    else:
        members = rm.Members.decimal_range(low, low + count, ctx.build.allocator)  # type: ignore[arg-type]
        now = (
            info.bytes
            or rm.set_cost(
                members, version=ctx.build.release, allocator=ctx.build.allocator
            ).allocated
        )
        cost = f"{format_bytes(now)} ({now / count:.0f} B each)"
    as_bitmap = _bitmap_bytes(top, ctx)
    as_roaring = _roaring_bytes(count, top + 1)
    best = min(as_bitmap, as_roaring)
    if best >= now:
        return []
    return [Finding(
        text(info.key), "integer-set",
        f"a SET of {count:,} integers past set-max-intset-entries ({rm.SET_MAX_INTSET_ENTRIES}): "
        f"a hash table of strings at {cost}; in 0 … {top:,} (from {k} sampled members) a "
        f"bitmap would take {format_bytes(as_bitmap)} and a Roaring bitmap "
        f"{format_bytes(as_roaring)}",
        "redis-set-memory", "medium" if now - best >= 1 << 20 else "low", now, best,
        {"members": count, "sampled_low": low, "sampled_high": high, "range_top": top,
         "bitmap_bytes": as_bitmap, "roaring_bytes": as_roaring, "memory_usage": info.bytes,
         "allocated_model": allocated},
    )]  # fmt: skip


def _bytes_or_unknown(value: int | None) -> str:
    return "?" if value is None else format_bytes(value)


def _hyperloglog(info: KeyInfo) -> list[Finding]:
    head = info.head
    if len(head) < 16 or head[4] != 0:  # sparse, or unreadable
        return []
    cached = int.from_bytes(head[8:16], "little")
    if cached >> 63 or cached >= DENSE_HLL_FEW:  # stale cache, or enough to be dense
        return []
    return [Finding(
        text(info.key), "dense-hyperloglog",
        f"a dense HyperLogLog (12 KiB) counting about {cached:,}: a sparse one would take a "
        "few hundred bytes, but a HyperLogLog never returns to sparse (PFMERGE writes dense "
        "when any input is): rebuild it from its sources to shrink it",
        "hyperloglog", "low", info.bytes, None, {"cached_count": cached},
    )]  # fmt: skip


def _big(info: KeyInfo, ctx: Context) -> list[Finding]:
    nbytes = info.bytes or 0
    elements = info.size if info.type in ("set", "hash", "list", "zset", "stream") else None
    if nbytes < BIG_KEY_BYTES and (elements or 0) < BIG_KEY_ELEMENTS:
        return []
    allocated = set_allocation(info, ctx)
    size = format_bytes(nbytes) if nbytes else "?"
    if allocated is not None:
        size += f" MEMORY USAGE, about {format_bytes(allocated)} allocated on {ctx.server}"
    what = f"a big key ({info.type}, {size}" + (
        f", {elements:,} element{'s' * (elements != 1)}" if elements else ""
    )
    # on a Cluster node the key cannot be spread: the whole of it is this one node's load
    cluster = "; one Cluster node holds it all" if ctx.cluster else ""
    if info.type == "string":
        ms, how = del_ms("string", info.size or nbytes)
        blocks = True
        advice = "UNLINK does not help a string: freeing one block takes as long"
        if ctx.lazy_user_del:
            advice += " (and lazyfree-lazy-user-del frees a string at once too)"
    else:
        ms, how = del_ms("set", elements or 0)
        blocks = not (ctx.lazy_user_del and (elements or 0) > LAZYFREE_THRESHOLD)
        advice = "UNLINK frees it in a background thread"
    if blocks:
        message = (
            f"{what}): a DEL of it blocks Redis about {format_duration(ms / 1e3)} ({how} from "
            f"the stored reference run); {advice}{cluster}"
        )
        severity = "high" if ms >= 100 else "medium" if ms >= 10 else "low"
    else:
        message = (
            f"{what}): a DEL of it does not block: lazyfree-lazy-user-del is yes "
            f"({ctx.lazy_source}), so DEL frees it in a background thread as UNLINK does "
            f"(freeing it in place would take about {format_duration(ms / 1e3)}, {how} from "
            f"the stored reference run){cluster}"
        )
        severity = "low"
    return [Finding(
        text(info.key), "big-key", message, "one-slow-command", severity, info.bytes, None,
        {"del_ms": ms, "del_blocks": blocks, "allocated_model": allocated},
    )]  # fmt: skip


def del_ms(kind: str, size: int, command: str = "del") -> tuple[float, str]:
    """How long ``command`` ("del" or "unlink") of a ``kind`` ("string": ``size`` bytes; "set":
    ``size`` members, standing for any collection) blocks Redis, ms, and how that was found:
    the stored stall run (:class:`setlab.lab.runs.stalls.StallsReference`), log–log between its
    sizes, proportional past its largest."""
    from setlab.core.interpolation import interpolate
    from setlab.lab.runs.stalls import StallsReference

    rows = StallsReference.load().deletes
    points = sorted((r.size, r.server_ms) for r in rows if r.kind == kind and r.command == command)
    if not points:
        raise ValueError(f"the stall run has no {command} of a {kind}; kinds: string, set")
    sizes, ms = [float(s) for s, _ in points], [m for _, m in points]
    if size > sizes[-1]:
        return ms[-1] * size / sizes[-1], "extrapolated"
    return interpolate(float(max(size, sizes[0])), sizes, ms), "interpolated"
