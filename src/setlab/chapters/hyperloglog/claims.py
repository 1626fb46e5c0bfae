"""Every claim of chapter hyperloglog, in the order the seeds make them."""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.hyperloglog`)."""
    figures.claim("003-hll-12kb", "003", "selection table",
        "HyperLogLog costs a fixed 12 KB, whatever the count.",
        "12KB fixed",
        "{hll-register-bytes} of registers in a {hll-alloc} allocation (MEMORY USAGE {hll-dense}); "
        "{hll-100} at 100 readers",
        Verdict.DEPENDS,
        "On the count: fixed at 12 KB of registers (a 14 KiB allocation, within tolerance) once "
        "the key is dense, but below "
        "{hll-dense-at} "
        "distinct elements the sparse encoding is far smaller.")  # fmt: skip
    figures.claim("003-hll-1pct", "003", "selection table",
        "HyperLogLog counts distinct elements within 1% error.",
        "1%",
        "standard error {hll-se}; {hll-beyond-1} of counts of 10^6 off by more than 1% "
        "({hll-trials} seeded sketches)",
        Verdict.IMPRECISE,
        "0.81% is one standard deviation, not a bound: about one count in five misses by more than "
        "1%, one in 500 by more than 2.5%.")  # fmt: skip
    figures.claim("003-hll-no-membership", "003", "selection table",
        "HyperLogLog cannot answer “have I seen this?”; code that relies on it passes tests "
        "without "
        "duplicates and fails in production.",
        "only cardinality",
        "PFADD replied 0 (“nothing changed”) for {hll-zero-late} of brand-new readers between 10^4 "
        "and 10^5, and for {hll-zero-first} of the first 100 (reference run)",
        Verdict.CORRECT,
        "PFADD's reply says whether a register grew; once registers are full, most new elements "
        "change nothing, so they look like repeats.")  # fmt: skip
