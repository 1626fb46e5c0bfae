"""Chapter setbit-offset, interactive: what one ``SETBIT`` at the reader's offset costs.

The reader sets the offset of a first ``SETBIT`` on a key that does not exist. The figure answers
with the string Redis must create (``STRLEN`` = offset/8 + 1), the block jemalloc hands out for it
(a size class) and ``MEMORY USAGE`` for a one-letter key (:mod:`setlab.models.bitmap`; both are
step functions of the offset, tabulated here at build time by bisection of the model and looked up
in the browser), and how long the first write took inside Redis in the stored reference run,
interpolated in log–log space between its measured offsets (:mod:`setlab.tools.calc.setbit`,
labelled as the reference run). ``setlab calc setbit`` prints the same numbers.
"""

from __future__ import annotations

from setlab.chapters.setbit_offset import SEED_INCIDENT_OFFSET
from setlab.models import bitmap
from setlab.render.vega_lite import alt
from setlab.render.widgets import (
    Command,
    Control,
    Readout,
    Settings,
    Widget,
    decade_axis,
    interp_expr,
    step_expr,
    step_table,
)
from setlab.tools.calc.setbit import reference_points, setbit_report
from setlab.tools.capacity import widget_parts

#: Seed 000 §1: the incident's offset.
DEFAULTS = {"offset": SEED_INCIDENT_OFFSET}
#: The text fallback's other settings: a small user id, a million, 2^31, the largest offset.
SETTINGS = ({"offset": 1000, "sets": 1000}, {"offset": 1_000_000}, {"offset": 2**31},
            {"offset": bitmap.MAX_OFFSET, "sets": 100_000})  # fmt: skip


def _data(s: Settings) -> dict:
    return setbit_report(round(s["offset"])).data


def _allocation(offset: int) -> int:
    return bitmap.SdsString.new(bitmap.bytes_for_offset(offset)).allocation


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
    alloc = step_table(_allocation, 0, bitmap.MAX_OFFSET)
    usage = step_table(bitmap.first_setbit_memory_usage, 0, bitmap.MAX_OFFSET)
    readouts = [
        Readout("strlen", "STRLEN", "floor(offset / 8) + 1", lambda s: _data(s)["strlen"],
                kind="int", unit="bytes"),
        Readout("alloc", "jemalloc block", step_expr("offset", *alloc),
                lambda s: _data(s)["allocation"], kind="bytes"),
        Readout("usage", "MEMORY USAGE (key 'k')", step_expr("offset", *usage),
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
        readouts=readouts + at_scale,
        caption="Set the offset of a first SETBIT on a new key. Redis grows the string to "
        "offset/8 + 1 bytes and zero-fills it before it answers: the memory follows the offset, "
        "not the number of bits set, and so does the time. The dots are the stored run's "
        "measured offsets; between them the time is interpolated (a straight line on these "
        f"log axes). Times: {label}, not your machine. Set how many such bitmaps you keep "
        "(one per post) for the total and the 16 GiB servers it takes.",
        source="the bitmap model (setlab.models.bitmap) tabulated at build time, the stored "
        "reference run interpolated; the same as setlab calc setbit",
        settings=SETTINGS,
        commands=[Command("the same in a terminal:", "setlab calc setbit {offset} --sets {sets}")],
    )  # fmt: skip
