"""setlab.models.cuckoo_load: the stored first-failure grid behind the interactive cuckoo figure.

Independent references: the load factors Fan et al. (2014, §2) report for b = 1, 2, 4, 8 with long
fingerprints, the paper's bound 2b/2^f on the rate, and the simulator itself rerun on a few cells
(the stored file must be what the simulator gives today, not a stale copy).
"""

from __future__ import annotations

import pytest

from setlab.models import cuckoo
from setlab.models.cuckoo_load import (
    BUCKET_SIZES,
    FINGERPRINT_BITS,
    LOG_SLOTS,
    LoadGrid,
    simulate_cell,
)

GRID = LoadGrid.load()


def test_the_stored_grid_covers_every_setting_of_its_axes():
    assert GRID.axis("bucket_size") == BUCKET_SIZES
    assert GRID.axis("fingerprint_bits") == FINGERPRINT_BITS
    assert GRID.axis("log_slots") == LOG_SLOTS
    assert len(GRID.cells) == len(BUCKET_SIZES) * len(FINGERPRINT_BITS) * len(LOG_SLOTS)


@pytest.mark.parametrize(
    ("b", "f", "log_slots"), [(1, 8, 10), (2, 4, 10), (4, 12, 12), (8, 16, 10)]
)
def test_stored_cells_are_what_the_simulator_gives_today(b, f, log_slots):
    fresh = simulate_cell(b, f, log_slots)
    assert GRID.cell(b, f, log_slots).loads == pytest.approx(fresh.loads, abs=1e-6)


@pytest.mark.parametrize("b", BUCKET_SIZES)
def test_long_fingerprints_reach_the_papers_load_factors(b):
    # Fan et al. 2014, §2: 50%, 84%, 95%, 98% for b = 1, 2, 4, 8 (2 hashes, 500 kicks)
    assert GRID.cell(b, 16, 18).load == pytest.approx(cuckoo.PAPER_LOAD_FACTORS[b], abs=0.04)


def test_short_fingerprints_fail_earlier():
    # with f = 4 there are only 15 alternate-bucket offsets: chains loop among few buckets,
    # which small buckets feel most (Fan et al. 2014, §4: f must grow with log(n) / b)
    for b in (1, 2):
        assert GRID.cell(b, 4, 18).load < GRID.cell(b, 16, 18).load - 0.2


def test_bits_per_item_and_rate_follow_from_the_load():
    cell = GRID.cell(4, 12, 14)
    assert cell.bits_per_item == pytest.approx(12 / cell.load)
    assert cell.fpr < 2 * 4 / 2**12  # the paper's bound at full load
    assert cell.fpr == pytest.approx(1 - (1 - 1 / (2**12 - 1)) ** (2 * 4 * cell.load))


@pytest.mark.parametrize(
    ("args", "axis"), [((3, 12, 14), "bucket_size"), ((4, 20, 14), "fingerprint_bits"),
                       ((4, 12, 13), "log_slots")],
)  # fmt: skip
def test_a_setting_off_the_grid_names_its_axis(args, axis):
    with pytest.raises(ValueError, match=axis):
        GRID.cell(*args)


def test_the_grid_round_trips_through_json():
    assert LoadGrid.from_json(GRID.as_json()) == GRID
