"""What the page "What a Redis SET really costs" measures, each experiment run on the lab's
server where it can and otherwise the stored reference run's record of it
(:func:`setlab.lab.reference.live_or_reference`), labelled either way.

The experiments are :mod:`setlab.lab.runs.memory`'s; this module picks the chapter's inputs
(seed 003's device IDs, seed 004's keys, the ``set-max-intset-entries`` values) and the
stored rows that stand in for them on a backend that cannot measure.
"""

from __future__ import annotations

from collections.abc import Sequence

from setlab.chapters.redis_set_memory import (
    BIG_SET_KIND,
    INTSET_LIMITS,
    SEED_004_PEAK_BYTES,
    SEED_004_USERS,
    reference,
)
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, live_or_reference
from setlab.lab.runs.memory import (
    BigSetRow,
    GrowthRow,
    Sampling,
    Seed004Row,
    big_set_budget,
    measure_all_growth,
    measure_big_set,
    measure_sampling,
    run_seed_004,
    seed_004_keys,
    switch_points,
)

#: The set sizes (members) at which the growth experiment measures each member kind: both
#: sides of the intset limit (512) and of a bucket-array doubling (16,384), then decades.
GROWTH_SIZES = (1, 10, 100, 300, 512, 513, 3_000, 16_384, 16_385, 50_000, 100_000, 300_000)


def big_set(lab: Lab, count: int) -> Measurement[BigSetRow]:
    """One set of ``count`` device IDs (:data:`BIG_SET_KIND`): ``MEMORY USAGE`` and what
    ``DEL`` frees of ``used_memory`` (bytes), where the guard allows the allocation; else the
    stored run's big set (a million members)."""
    ref = reference()
    return live_or_reference(
        lab,
        lambda lab: measure_big_set(lab, BIG_SET_KIND, count),
        lambda: ref.big_set(BIG_SET_KIND),
        allocates=big_set_budget(lab, BIG_SET_KIND, count),
        run_info=ref.run,
    )


def sampling(lab: Lab) -> Measurement[Sampling]:
    """``MEMORY USAGE`` of a settled set of mixed short and long members, with ``SAMPLES 0``
    and with the default five samples (bytes), beside the model."""
    ref = reference()
    return live_or_reference(lab, measure_sampling, lambda: ref.sampling, run_info=ref.run)


def growth(lab: Lab, sizes: Sequence[int]) -> Measurement[list[GrowthRow]]:
    """Each member kind grown through ``sizes`` (members, ascending), settled and measured at
    every size; else the stored run's rows (up to 300,000 members)."""
    ref = reference()
    return live_or_reference(
        lab, lambda lab: measure_all_growth(lab, sizes), lambda: ref.growth, run_info=ref.run
    )


def intset_switch_points(lab: Lab) -> Measurement[dict[int, int | None]]:
    """The member at which a set of integers becomes a hashtable, for each
    ``set-max-intset-entries`` of :data:`INTSET_LIMITS`. Changes the server's setting (and puts
    it back), so it runs only on a real server setlab started; else the stored points."""
    ref = reference()
    return live_or_reference(
        lab,
        lambda lab: switch_points(lab, INTSET_LIMITS),
        lambda: ref.switch_points(INTSET_LIMITS),
        needs=("real", "own_server"),
        run_info=ref.run,
    )


def seed_004(lab: Lab) -> Measurement[list[Seed004Row]]:
    """Seed 004 §2's six keys built from :data:`SEED_004_USERS` users and measured, where the
    guard allows their bitmaps (:data:`SEED_004_PEAK_BYTES`); else the stored rows."""
    ref = reference()
    return live_or_reference(
        lab,
        lambda lab: run_seed_004(lab, seed_004_keys(SEED_004_USERS)),
        lambda: list(ref.seed_004),
        allocates=SEED_004_PEAK_BYTES,
        run_info=ref.run,
    )
