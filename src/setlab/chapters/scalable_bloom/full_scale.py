"""Seed 003 at full scale for the chapter "Scalable Bloom filters": the stored run of
``reference/measure_full_scale_003.py`` (:class:`setlab.lab.full_scale.redisbloom.FullScale003`) as
the chapter's figures and a table, beside the seed's 137 MiB and 1 %.

Registered on :data:`setlab.chapters.scalable_bloom.FIGURES` by :func:`register` (called once, at
the end of that module), so the page glues them with the chapter's other figures.
"""

from __future__ import annotations

from functools import cache

from setlab.core.formats import format_bytes, format_count, format_duration, format_rate
from setlab.lab.full_scale.redisbloom import CONFIGS, FullScale003, FullScaleRow
from setlab.render.claims import Figures


@cache
def full_scale() -> FullScale003:
    """The stored full-scale run (reference file ``full-scale-003``)."""
    return FullScale003.load()


def _reserve(row: FullScaleRow) -> str:
    scaling = " NONSCALING" if row.nonscaling else ""
    return f"BF.RESERVE key 0.01 {row.capacity:,}{scaling}".replace(",", "")


def full_scale_markdown() -> str:
    """One row per configuration: load, memory measured and modelled, false-positive rates."""
    lines = [
        "| reservation | load | BF.INFO Size (model) | used memory | FPR (model) |",
        "|---|---|---|---|---|",
    ]
    for r in full_scale().rows:
        links = "sub-filter" if r.filters == 1 else "sub-filters"
        lines.append(
            f"| `{_reserve(r)}`: {r.filters} {links} (model {r.model_filters}) "
            f"| {format_duration(r.load_seconds)} "
            f"| {format_bytes(r.info_size)} ({format_bytes(r.model_size)}) "
            f"| +{format_bytes(r.used_memory_delta)} "
            f"| {format_rate(r.fpr_measured)} ({format_rate(r.fpr_model)}) |"
        )
    return "\n".join(lines)


def register(figures: Figures) -> None:
    """Add the full-scale figures (``sbf-fs-…``) to the chapter's ``FIGURES``."""
    figures.add("sbf-fs-label", lambda: full_scale().run.label)
    figures.add("sbf-fs-items", lambda: format_count(full_scale().rows[0].sent))
    figures.add(
        "sbf-fs-rss", lambda: format_bytes(max(r.peak_rss_bytes for r in full_scale().rows))
    )
    figures.add(
        "sbf-fs-load-range",
        lambda: " to ".join(
            format_duration(f(r.load_seconds for r in full_scale().rows)) for f in (min, max)
        ),
    )
    figures.add(
        "sbf-fs-rate-best",
        lambda: f"{format_count(max(r.items_per_second for r in full_scale().rows))} items/s",
    )
    for config in CONFIGS:
        tag = f"sbf-fs-{config}"

        def row(c: str = config) -> FullScaleRow:
            return full_scale().row(c)

        figures.add(f"{tag}-load", lambda r=row: format_duration(r().load_seconds))
        figures.add(f"{tag}-rate", lambda r=row: f"{format_count(r().items_per_second)} items/s")
        figures.add(f"{tag}-size", lambda r=row: format_bytes(r().info_size))
        figures.add(f"{tag}-used", lambda r=row: format_bytes(r().used_memory_delta))
        figures.add(f"{tag}-alloc", lambda r=row: format_bytes(r().model_allocated))
        figures.add(f"{tag}-fpr", lambda r=row: format_rate(r().fpr_measured))
        figures.add(f"{tag}-fpr-model", lambda r=row: format_rate(r().fpr_model))
        figures.add(f"{tag}-filters", lambda r=row: str(r().filters))
        figures.add(f"{tag}-bpi", lambda r=row: f"{r().info_size * 8 / r().inserted:.1f}")
