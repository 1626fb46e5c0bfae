"""Chapter "What a Redis SET really costs": its seed figures, claims, plots and tables.

Every number the page shows is a figure here, computed once: memory from the model
(:mod:`setlab.models.redis_memory`, exact against ``MEMORY USAGE`` on Redis 7.0.15 / jemalloc
5.3) and measurements from the stored reference run
(:class:`setlab.lab.runs.memory.SetMemoryReference`). What a live server measures on this run
is printed by the page with its label, beside them, never instead of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from setlab.chapters import open_page
from setlab.chapters.redis_set_memory import claims, per_release
from setlab.core.formats import format_bytes
from setlab.lab.backend import Lab
from setlab.lab.runs.memory import (
    BigSetRow,
    GrowthRow,
    Seed004Row,
    SetMemoryReference,
    seed_004_keys,
)
from setlab.models import bitmap
from setlab.models import redis_memory as rm
from setlab.models.snowflake import SEED_000_ID
from setlab.render.claims import Figures
from setlab.render.plots import PALETTE, new_figure

FIGURES = Figures("redis-set-memory")

#: Seed 003's deployment: 1.2e8 device IDs (16 hex digits) a day over ~8,000 per-plan sets.
SEED_003_MEMBERS = 120_000_000
SEED_003_PLANS = 8_000
SEED_003_KEY = "freq:12345:20240601"
#: Seed 003's per-member bill, part by part, as the seed wrote it.
SEED_003_PARTS = {
    "member string (sds)": "16 + 3 → 24 or 32",
    "robj": "16",
    "dictEntry": "24",
    "bucket array": "~8",
}
#: Seed 004 §2 built its keys from 100,000 users.
SEED_004_USERS = 100_000
#: Seed 000's snowflake id (§4), the start of the integer IDs priced here.
SEED_000_SNOWFLAKE = SEED_000_ID  # seed 000 §4's example snowflake ID
#: The ``set-max-intset-entries`` values the page tries.
INTSET_LIMITS = (128, 512, 1000)
#: The member kind of the big-set experiment (seed 003's device IDs).
BIG_SET_KIND = "16-hex device ids"
#: The largest of seed 004's keys, a bitmap reaching offset 2^32 - 1 (each key is freed after).
SEED_004_PEAK_BYTES = bitmap.bytes_for_offset(bitmap.MAX_OFFSET)


def start() -> Lab:
    """Open the page (:func:`open_page`), naming the stored run its figures come from."""
    return open_page(FIGURES, reference().run.label)


@cache
def reference() -> SetMemoryReference:
    """The stored run (read once)."""
    return SetMemoryReference.load()


def seed_003_plan_cost(version: rm.Version = "7.0", allocator: str = "debian") -> rm.KeyCost:
    """One of seed 003's per-plan sets: 15,000 device IDs of 16 hex digits, on the given jemalloc
    build (:mod:`setlab.models.allocator`)."""
    members = rm.Members.fixed_length(SEED_003_MEMBERS // SEED_003_PLANS, 16, allocator)
    return rm.set_cost(members, SEED_003_KEY, version=version, allocator=allocator)


@cache
def _plan_parts(allocator: str = "debian") -> dict[str, tuple[float, float]]:
    return rm.per_member_parts(seed_003_plan_cost(allocator=allocator))


def _per_member(allocator: str = "debian") -> tuple[float, float]:
    """Seed 003's member, (MEMORY USAGE, allocated) bytes, on the given jemalloc build."""
    parts = _plan_parts(allocator).values()
    return sum(u for u, _ in parts), sum(a for _, a in parts)


def snowflake_ids(count: int) -> rm.Members:
    """``count`` consecutive snowflake IDs from seed 000's, as decimal strings."""
    return rm.Members.decimal_range(SEED_000_SNOWFLAKE, SEED_000_SNOWFLAKE + count)


# -- figures: the model -------------------------------------------------------------------------


@FIGURES.figure("rsm-usage-per")
def _usage_per() -> str:
    return f"{_per_member()[0]:.1f} B"


@FIGURES.figure("rsm-alloc-per")
def _alloc_per() -> str:
    return f"{_per_member()[1]:.1f} B"


FIGURES.add("rsm-alloc-per-bundled", lambda: f"{_per_member('bundled')[1]:.1f} B")


@FIGURES.figure("rsm-sds")
def _sds() -> str:
    return f"{_plan_parts()['member string (sds)'][0]:.0f} B"


@FIGURES.figure("rsm-bucket")
def _bucket() -> str:
    return f"{_plan_parts()['bucket array'][0]:.1f} B"


@FIGURES.figure("rsm-plan-members")
def _plan_members() -> str:
    return f"{seed_003_plan_cost().size:,}"


@FIGURES.figure("rsm-plans")
def _plans() -> str:
    return f"{SEED_003_PLANS:,}"


@FIGURES.figure("rsm-total-alloc")
def _total_alloc() -> str:
    return format_bytes(seed_003_plan_cost().allocated * SEED_003_PLANS)


@FIGURES.figure("rsm-total-usage")
def _total_usage() -> str:
    return format_bytes(seed_003_plan_cost().memory_usage * SEED_003_PLANS)


def _million(kind: str, version: rm.Version = "7.0") -> rm.KeyCost:
    return rm.set_cost(rm.growth_summary(kind, 10**6), version=version)


@FIGURES.figure("rsm-hex-usage")
def _hex_usage() -> str:
    return f"{_million('16-hex device ids').usage_per_member:.0f} B"


@FIGURES.figure("rsm-hex-alloc")
def _hex_alloc() -> str:
    return f"{_million('16-hex device ids').allocated_per_member:.0f} B"


@FIGURES.figure("rsm-hex-72")
def _hex_72() -> str:
    return f"{_million('16-hex device ids', '7.2').allocated_per_member:.0f} B"


@FIGURES.figure("rsm-int-usage")
def _int_usage() -> str:
    return f"{_million('integer ids').usage_per_member:.0f} B"


@FIGURES.figure("rsm-intset-per")
def _intset_per() -> str:
    return f"{rm.set_cost(range(rm.SET_MAX_INTSET_ENTRIES)).usage_per_member:.1f} B"


def _ten_thousand() -> tuple[rm.KeyCost, rm.KeyCost]:
    ids = snowflake_ids(10_000)
    return rm.set_cost(ids), rm.set_cost(ids, max_intset_entries=10_000)


@FIGURES.figure("rsm-10k-hash")
def _10k_hash() -> str:
    return format_bytes(_ten_thousand()[0].memory_usage)


@FIGURES.figure("rsm-10k-intset")
def _10k_intset() -> str:
    return format_bytes(_ten_thousand()[1].memory_usage)


@FIGURES.figure("rsm-10k-ratio")
def _10k_ratio() -> str:
    as_hash, as_intset = _ten_thousand()
    return f"{as_hash.memory_usage / as_intset.memory_usage:.1f}"


@FIGURES.figure("rsm-1e8-one-set")
def _one_set() -> str:
    return format_bytes(rm.set_cost(snowflake_ids(10**8), "like:post:42").memory_usage)


# -- figures: the reference run -----------------------------------------------------------------


def _big():
    return reference().big_set(BIG_SET_KIND)


@FIGURES.figure("rsm-big-n")
def _big_n() -> str:
    return f"{_big().n:,}"


@FIGURES.figure("rsm-big-usage")
def _big_usage() -> str:
    return format_bytes(_big().memory_usage)


@FIGURES.figure("rsm-big-exact")
def _big_exact() -> str:
    big = _big()
    model = rm.set_cost(rm.growth_summary(big.kind, big.n), big.key).memory_usage
    if big.memory_usage == model:
        return "exactly"
    return f"within {abs(big.memory_usage - model):,} bytes of"


@FIGURES.figure("rsm-big-freed")
def _big_freed() -> str:
    return format_bytes(_big().freed)


@FIGURES.figure("rsm-big-gap")
def _big_gap() -> str:
    big = _big()
    allocated = rm.set_cost(rm.growth_summary(big.kind, big.n), big.key).allocated
    return f"{abs(big.freed - allocated):,} bytes"


@FIGURES.figure("rsm-big-hidden")
def _big_hidden() -> str:
    return f"{(_big().freed / _big().memory_usage - 1) * 100:.0f}%"


@FIGURES.figure("rsm-sample-error")
def _sample_error() -> str:
    sampling = reference().sampling
    return f"{(sampling.default_samples / sampling.exact - 1) * 100:+.0f}%"


@FIGURES.figure("rsm-switch-512")
def _switch_512() -> str:
    return str(reference().switch_points([rm.SET_MAX_INTSET_ENTRIES])[rm.SET_MAX_INTSET_ENTRIES])


def _row(name: str) -> Seed004Row:
    return reference().seed_004_row(name)


@FIGURES.figure("rsm-004-hash")
def _004_hash() -> str:
    return format_bytes(_row("bitMap10w_hash").memory_usage)


@FIGURES.figure("rsm-004-uuid")
def _004_uuid() -> str:
    return format_bytes(_row("set10w_uuid").memory_usage)


@FIGURES.figure("rsm-004-incr")
def _004_incr() -> str:
    return format_bytes(_row("bitMap10w_incr").memory_usage)


@FIGURES.figure("rsm-004-ints")
def _004_ints() -> str:
    return format_bytes(_row("set10w_incr").memory_usage)


@FIGURES.figure("rsm-004-ratio")
def _004_ratio() -> str:
    return f"{_row('bitMap10w_hash').memory_usage / _row('set10w_uuid').memory_usage:.0f}"


@FIGURES.figure("rsm-004-bitcount")
def _004_bitcount() -> str:
    return f"{_row('bitMap10w_hash').count:,}"


@FIGURES.figure("rsm-004-pairs")
def _004_pairs() -> str:
    items = _row("bitMap10w_hash").items
    return f"{items * (items - 1) / 2 / 2**32:.2f}"


@FIGURES.figure("rsm-004-query-ms")
def _004_query_ms() -> str:
    ms = [_row(n).query_ms for n in ("set10w_uuid", "set10w_incr", "bitMap10w_incr")]
    return " / ".join(f"{m:.2f}" for m in ms) + f" / {_row('bitMap10w_hash').query_ms:.0f}"


@FIGURES.figure("rsm-004-check")
def _004_check() -> str:
    """Whether the model, recomputed now from the seed's keys, equals every stored measurement."""
    rows = {r.name: r for r in reference().seed_004 if r.memory_usage is not None}
    specs = [s for s in seed_004_keys(SEED_004_USERS) if s.name in rows]
    equal = all(s.model(rows[s.name].key).memory_usage == rows[s.name].memory_usage for s in specs)
    return f"all {len(rows)} keys equal the model" if equal else "some keys differ from the model"


# -- seed 000's Set sizes (§5.5, §7.2, §7.5) ------------------------------------------------------

#: Seed 000 §7.2: a viral post's likers, and a user's likes ("几百~几千").
SEED_000_VIRAL, SEED_000_USER_LIKES = 1_000_000, (300, 3_000)


#: The key of seed 000 §7.1's per-user design (``like:user:{userId}:{targetType}``).
SEED_000_USER_KEY = "like:user:1:1"


def _set_usage(count: int) -> str:
    """MEMORY USAGE of a Set grown by one SADD per like (how the design fills it)."""
    return format_bytes(rm.set_cost(snowflake_ids(count), SEED_000_USER_KEY).memory_usage)


FIGURES.add("rsm-viral-set", lambda: _set_usage(SEED_000_VIRAL))
FIGURES.add(
    "rsm-user-sets",
    lambda: " / ".join(_set_usage(n) for n in SEED_000_USER_LIKES),
    quantity=f"MEMORY USAGE of Sets of {' / '.join(map(str, SEED_000_USER_LIKES))} like IDs "
    f"under {SEED_000_USER_KEY}",
)
FIGURES.add("rsm-1e4-dense-bitmap", lambda: format_bytes(bitmap.first_setbit_memory_usage(9_999)))
FIGURES.add(
    "rsm-hashed-bitmap", lambda: format_bytes(bitmap.first_setbit_memory_usage(bitmap.MAX_OFFSET))
)


# -- what this run measured, in words (for the page's live- glue) -------------------------------


def big_set_text(big: BigSetRow) -> str:
    """One live big set in a clause: its ``MEMORY USAGE`` against the model, and ``DEL``."""
    agrees = "equal to" if big.memory_usage == big.model_usage else "not equal to"
    return (
        f"{big.n:,} members, MEMORY USAGE {format_bytes(big.memory_usage)}, {agrees} the model; "
        f"DEL freed {format_bytes(big.freed)}"
    )


def seed_004_text(rows: Sequence[Seed004Row]) -> str:
    """How many of seed 004's keys built on this run equal the model."""
    built = [r for r in rows if r.built]
    return f"{sum(r.memory_usage == r.model for r in built)} of {len(built)} keys equal the model"


def switch_text(points: Mapping[int, int | None]) -> str:
    """One line per ``set-max-intset-entries`` value of ``points``: the member at which a set
    of integers became a hashtable, or that it was not measured (``None``)."""
    return "\n".join(
        f"set-max-intset-entries {limit:>5}: "
        + (
            f"hashtable from member {at}"
            if at
            else "not measured (the config changes only on a server setlab started)"
        )
        for limit, at in points.items()
    )


def growth_mismatches(rows: Sequence[GrowthRow]) -> int:
    """How many measured growth rows differ from the model, recomputed now for their key."""
    return sum(
        r.memory_usage != rm.set_cost(rm.growth_summary(r.kind, r.n), r.key).memory_usage
        for r in rows
        if r.memory_usage is not None
    )


# -- tables -------------------------------------------------------------------------------------


def per_member_markdown() -> str:
    """Seed 003's member, part by part: the seed's bytes, ``MEMORY USAGE``'s, the allocator's."""
    lines = [
        "| per member | seed 003 | MEMORY USAGE counts | allocator hands out |",
        "|:--|--:|--:|--:|",
    ]
    lines += [
        f"| {name} | {SEED_003_PARTS[name]} | {u:.1f} B | {a:.1f} B |"
        for name, (u, a) in _plan_parts().items()
    ]
    lines.append(
        f"| **total** | **70–100** | **{FIGURES['rsm-usage-per']}** "
        f"| **{FIGURES['rsm-alloc-per']}** |"
    )
    return "\n".join(lines)


def _per_item(value: float) -> str:
    return format_bytes(value) if value >= 1024 else f"{value:,.1f} B"


def seed_004_markdown(rows: Sequence[Seed004Row], label: str) -> str:
    """Seed 004's keys as a Markdown table: measured (``rows``, from ``label``) beside the model."""
    lines = [
        f"| key ({label}) | what | encoding | MEMORY USAGE | model | per item "
        "| SCARD / BITCOUNT | query |",
        "|:--|:--|:--|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        measured = (
            format_bytes(row.memory_usage)
            if row.memory_usage is not None
            else "not measured"
            if row.built
            else "not built"
        )
        count = f"{row.count:,}" if row.count is not None else "–"
        query = f"{row.query_ms:.2f} ms" if row.query_ms is not None else "–"
        lines.append(
            f"| `{row.name}` | {row.description} | {row.encoding or row.model_encoding} "
            f"| {measured} | {format_bytes(row.model)} "
            f"| {_per_item(row.model / row.items)} | {count} | {query} |"
        )
    return "\n".join(lines)


# -- plots --------------------------------------------------------------------------------------


def set_layout_figure(member: str = "a1b2c3d4e5f60718") -> Figure:
    """How a hashtable SET holds its members on Redis 7.0, with each part's bytes."""
    cost = rm.set_cost([member], "freq:plan:date")
    fig, ax = new_figure(width=8, height=3.6)
    ax.set_xlim(0, 22)
    ax.set_ylim(0, 9)
    ax.axis("off")

    def box(x, y, w, h, text, colour, size=9):
        ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor="k", alpha=0.9))
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size)

    def arrow(a, b):
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle="->", mutation_scale=10, color="k"))

    sds = bitmap.sds_new_alloc(len(member))
    box(0.2, 6.2, 4.2, 1.6, "keyspace dictEntry\n24 B (32 allocated)", "#dddddd")
    box(0.2, 3.6, 4.2, 1.6, f"key name sds\n{cost.parts['key name (sds)']} B", "#dddddd")
    box(5.4, 6.2, 3.2, 1.6, "robj\n16 B", PALETTE[5])
    box(9.6, 6.2, 3.6, 1.6, f"dict struct\n{rm.DICT_BYTES} B (64 allocated)", PALETTE[5])
    box(14.2, 6.2, 7.4, 1.6, "bucket array: 8 B × buckets\n(power of two ≥ members)", PALETTE[1])
    box(14.2, 3.4, 3.6, 1.6, "dictEntry\n24 B (32 allocated)", PALETTE[2])
    box(18.2, 3.4, 3.4, 1.6, f"member sds\n{sds} B", PALETTE[2])
    box(14.2, 0.6, 3.6, 1.6, "next dictEntry\n(same bucket)", PALETTE[2], 9)
    arrow((2.3, 6.2), (2.3, 5.2))
    arrow((4.4, 7.0), (5.4, 7.0))
    arrow((8.6, 7.0), (9.6, 7.0))
    arrow((13.2, 7.0), (14.2, 7.0))
    arrow((15.4, 6.2), (15.9, 5.0))
    arrow((17.8, 4.2), (18.2, 4.2))
    arrow((16.0, 3.4), (16.0, 2.2))
    ax.text(
        18.2,
        1.4,
        "per member: dictEntry\n+ member sds\n+ its share of the buckets",
        fontsize=9,
        va="center",
        color=PALETTE[2],
    )
    ax.set_title(f"A Redis 7.0 SET as a hashtable: the parts of one key (member {member!r})")
    return fig


def growth_figure(measured: Sequence[GrowthRow], label: str, max_n: int = 1_000_000) -> Figure:
    """Bytes per member as a set grows, one panel per member kind of ``GROWTH_KINDS``.

    Lines: the 7.0 model's ``MEMORY USAGE`` and allocated bytes, and the 7.2 model (dashed,
    never measured). Markers: the ``measured`` rows, named ``label``; the model uses their key
    name, since the key's own bytes count too.
    """
    sizes = np.unique(np.geomspace(1, max_n, 160).astype(int))
    fig, axes = new_figure(ncols=len(rm.GROWTH_KINDS), width=10, height=4.2)
    for ax, kind in zip(axes, rm.GROWTH_KINDS, strict=True):
        rows = [r for r in measured if r.kind == kind and r.memory_usage]
        key = rows[0].key if rows else "k"
        old = [rm.set_cost(rm.growth_summary(kind, n), key) for n in sizes]
        new = [rm.set_cost(rm.growth_summary(kind, n), key, version="7.2") for n in sizes]
        lines = [
            ([c.usage_per_member for c in old], "-", PALETTE[0], "7.0 MEMORY USAGE (model)"),
            ([c.allocated_per_member for c in old], ":", PALETTE[0], "7.0 allocated (model)"),
            ([c.allocated_per_member for c in new], "--", PALETTE[3],
             "7.2+ allocated (modelled, not measured)"),
        ]  # fmt: skip
        for values, style, colour, name in lines:
            ax.semilogx(sizes, values, style, color=colour, label=name)
        ax.semilogx(
            [r.n for r in rows],
            [r.memory_usage / r.n for r in rows],
            "o",
            color=PALETTE[1],
            ms=4,
            label=label,
        )
        ax.set(title=kind, xlabel="members", ylim=(0, 160))
    axes[0].set_ylabel("bytes per member")
    # one legend under the panels: inside the last one it covered the UUIDs' curves
    fig.legend(*axes[-1].get_legend_handles_labels(), loc="outside lower center", ncols=2,
               fontsize=9)  # fmt: skip
    fig.suptitle("What one member costs as the set grows (key overhead included)")
    return fig


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)

# every release measured: the stored per-release run (reference/measure_releases.py)
per_release.register(FIGURES)
