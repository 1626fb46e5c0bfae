"""Chapter setbit-offset, interactive: what one ``SETBIT`` at the reader's offset costs.

The reader sets the offset of a first ``SETBIT`` on a key that does not exist, and chooses the
server (a release ``setlab calc setbit --redis`` takes, on its usual allocator). The figure answers
with the string Redis must create (``STRLEN`` = offset/8 + 1), the block that server's allocator
hands out for it and ``MEMORY USAGE`` for a one-letter key (:mod:`setlab.models.bitmap`), and how
long the first write took inside Redis in the stored reference run (Redis 7.0, whichever server is
chosen), interpolated in log–log space between its measured offsets
(:mod:`setlab.tools.calc.setbit`, labelled as the reference run). ``setlab calc setbit OFFSET
--redis R`` prints the same numbers.

The block is a step function of the offset: for each jemalloc build (Debian's 16-byte quantum,
the bundled 8-byte one) it is tabulated here at build time by bisection of the model and looked
up in the browser; glibc's has some 140,000 steps (16-byte chunks to 128 KiB, then 4 KiB pages),
so it is glibc's rounding written as a Vega expression (:func:`glibc_expr`). ``MEMORY USAGE`` is
that block plus the key's own bytes, which depend on the release and not on the offset.
"""

from __future__ import annotations

from setlab.chapters.setbit_offset import SEED_INCIDENT_OFFSET
from setlab.models import bitmap, builds, redis_memory
from setlab.models.allocator import (
    GLIBC_ALIGN,
    GLIBC_HEADER,
    GLIBC_MIN_CHUNK,
    GLIBC_MMAP_THRESHOLD,
    PAGE_BYTES,
)
from setlab.models.sds import sds_header_bytes
from setlab.render.vega_lite import alt
from setlab.render.widgets import (
    Choice,
    Command,
    Control,
    Readout,
    Settings,
    Widget,
    choice_expr,
    decade_axis,
    interp_expr,
    step_expr,
    step_table,
)
from setlab.tools.calc.setbit import reference_points, setbit_report
from setlab.tools.capacity import widget_parts

#: Seed 000 §1: the incident's offset, on the book's reference server.
DEFAULTS = {"offset": SEED_INCIDENT_OFFSET, "redis": builds.DEFAULT_RELEASE}
#: The text fallback's other settings: a small user id (on Redis 8.2, whose key lives in its
#: object), a million, the largest offset, and the largest on Valkey's glibc (512 MiB + 4 KiB
#: where jemalloc's class is 640 MiB). Five columns: a sixth squeezed the offsets of a 720 px
#: page onto two lines.
SETTINGS = ({"offset": 1000, "sets": 1000, "redis": "8.2"}, {"offset": 1_000_000},
            {"offset": bitmap.MAX_OFFSET, "sets": 100_000},
            {"offset": bitmap.MAX_OFFSET, "redis": "valkey-8.1"})  # fmt: skip
#: How the server choice names each allocator (setlab.models.allocator's builds).
ALLOCATOR_WORDS = {"debian": "Debian's jemalloc", "bundled": "its own jemalloc",
                   "libc": "glibc malloc"}  # fmt: skip


def servers() -> dict[str, str]:
    """Every release ``--redis`` takes (:data:`setlab.models.builds.RELEASES`) → the words the
    server choice shows: the server, its usual allocator, and which is the default."""
    out = {}
    for release in builds.RELEASES:
        build = builds.Build(release)
        name = f"Valkey {release.split('-', 1)[1]}" if build.is_valkey else f"Redis {release}"
        default = ", the default" if release == builds.DEFAULT_RELEASE else ""
        out[release] = f"{name} ({ALLOCATOR_WORDS[build.allocator]}{default})"
    return out


def _data(s: Settings) -> dict:
    return setbit_report(round(s["offset"]), s.get("redis", builds.DEFAULT_RELEASE)).data


def _allocation(offset: int, allocator: str) -> int:
    """The block ``allocator`` hands out for the string a first SETBIT at ``offset`` creates."""
    return bitmap.SdsString.new(bitmap.bytes_for_offset(offset), allocator).allocation


def _key_bytes(release: str) -> int:
    """What ``MEMORY USAGE`` counts besides the string's block on ``release`` (its usual
    allocator): the key's robj, name and dictEntry, or the object holding the name (8.x,
    Valkey). The same at every offset; read off the model at the smallest."""
    build = builds.Build(release)
    usage = redis_memory.bitmap_cost([0], version=release, allocator=build.allocator)
    return usage.memory_usage - _allocation(0, build.allocator)


def glibc_expr(size: str) -> str:
    """glibc's usable size for a request of ``size`` bytes, as a Vega expression: the twin of
    :func:`setlab.models.allocator.size_class` with ``"libc"``, from its constants (the chunk's
    8-byte header, 16-byte alignment, 32-byte smallest chunk; from 128 KiB a mapping of whole
    4 KiB pages less two headers)."""
    chunk = f"({size} + {GLIBC_HEADER})"
    mapped = f"ceil({chunk} / {PAGE_BYTES}) * {PAGE_BYTES} - {2 * GLIBC_HEADER}"
    heap = f"max({GLIBC_MIN_CHUNK}, ceil({chunk} / {GLIBC_ALIGN}) * {GLIBC_ALIGN}) - {GLIBC_HEADER}"
    return f"({chunk} >= {GLIBC_MMAP_THRESHOLD} ? {mapped} : {heap})"


def block_exprs() -> dict[str, str]:
    """allocator → a Vega expression over ``offset`` of the block it hands out for the string:
    a table for each jemalloc build, glibc's rounding of ``sdsnewlen``'s request (the header
    tabulated from :func:`setlab.models.sds.sds_header_bytes`, then the string and its NUL)."""
    exprs = {}
    for allocator in dict.fromkeys(builds.USUAL_ALLOCATOR.values()):
        if allocator == "libc":
            length = "(floor(offset / 8) + 1)"
            header = step_expr(length, *step_table(sds_header_bytes, 1, bitmap.MAX_OFFSET // 8 + 1))
            exprs[allocator] = glibc_expr(f"({header} + {length} + 1)")
        else:
            table = step_table(lambda o, a=allocator: _allocation(o, a), 0, bitmap.MAX_OFFSET)
            exprs[allocator] = step_expr("offset", *table)
    return exprs


def _chart(offsets: tuple[float, ...], ms: tuple[float, ...]) -> alt.LayerChart:
    points = [{"offset": o, "ms": t} for o, t in zip(offsets, ms, strict=True)]
    x = alt.X(
        "offset:Q",
        title="bit offset of the first SETBIT",
        scale=alt.Scale(type="log"),
        axis=decade_axis("~s"),
    )  # 1k … 1G: full digits ran together at 390 px
    y = alt.Y("ms:Q", title="ms inside Redis (reference run)", scale=alt.Scale(type="log"))
    measured = alt.Chart(alt.Data(values=points))
    line = measured.mark_line(opacity=0.6).encode(x=x, y=y)
    dots = measured.mark_point(filled=True, size=40).encode(
        x="offset:Q", y="ms:Q", tooltip=["offset:Q", "ms:Q"]
    )
    here = (
        alt.Chart(alt.Data(values=[{}]))
        .transform_calculate(offset="offset", ms="first_ms")
        .mark_point(size=110, shape="circle", filled=False, strokeWidth=2, color="#c62828")
        .encode(x="offset:Q", y="ms:Q")
    )
    return alt.layer(line, dots, here).properties(
        width="container", height=230, title="First SETBIT, reference run"
    )


def offset_explorer() -> Widget:
    """The SETBIT offset widget of chapter setbit-offset (see the module docstring)."""
    offsets, ms, label = reference_points()
    blocks = block_exprs()
    usual = {r: builds.Build(r).allocator for r in builds.RELEASES}
    readouts = [
        Readout("strlen", "STRLEN", "floor(offset / 8) + 1", lambda s: _data(s)["strlen"],
                kind="int", unit="bytes"),
        Readout("alloc", "allocator's block",
                choice_expr("redis", {r: blocks[a] for r, a in usual.items()}),
                lambda s: _data(s)["allocation"], kind="bytes"),
        Readout("usage", "MEMORY USAGE (key 'k')",
                "alloc + " + choice_expr("redis", {r: str(_key_bytes(r)) for r in usual}),
                lambda s: _data(s)["memory_usage"], kind="int", unit="bytes"),
        Readout("first_ms", "first write, reference run", interp_expr("offset", offsets, ms),
                lambda s: _data(s)["first_write_ms"], unit="ms"),
    ]  # fmt: skip
    sets, at_scale = widget_parts("usage", lambda s: _data(s)["memory_usage"])
    return Widget(
        "setbit", "SETBIT offset: what the first write at your offset costs",
        _chart(offsets, ms),
        controls=[Control("offset", "bit offset", DEFAULTS["offset"], 1, bitmap.MAX_OFFSET,
                          log=True, integer=True, check=bitmap.check_offset), sets],
        choices=[Choice("redis", "server", servers(), DEFAULTS["redis"])],
        readouts=readouts + at_scale,
        caption="Set the offset of a first SETBIT on a new key. Redis grows the string to "
        "offset/8 + 1 bytes and zero-fills it before it answers: the memory follows the offset, "
        "not the number of bits set, and so does the time. Choose the server: its allocator "
        "rounds the string up to its own block (at the largest offset, 640 MiB on every "
        "jemalloc build, 512 MiB + 4 KiB on Valkey's glibc), and MEMORY USAGE adds that "
        "release's bytes for the key. The dots are the stored run's measured offsets; between "
        "them the time is interpolated (a straight line on these log axes). Times: "
        f"{label}, not your machine, whichever server you choose. Set how many such bitmaps "
        "you keep (one per post) for the total and the 16 GiB servers it takes.",
        source="the bitmap model (setlab.models.bitmap) for each release, jemalloc's blocks "
        "tabulated at build time, glibc's rounding as a formula; the stored reference run "
        "interpolated; the same as setlab calc setbit --redis",
        settings=SETTINGS,
        commands=[Command("the same in a terminal:",
                          "setlab calc setbit {offset} --redis {redis} --sets {sets}")],
    )  # fmt: skip
