"""A cuckoo filter's first failed insert: the load it reaches, read off the stored simulation grid
(:class:`setlab.models.cuckoo_load.LoadGrid`: random victims, 500 kicks, three seeded fills per
setting), with bits per item and the false-positive rate at that load (Fan et al. 2014)."""

from __future__ import annotations

from setlab.core.formats import format_rate
from setlab.core.validate import check_int
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.report import Report


def cuckoo_load(bucket_size: int = 4, fingerprint_bits: int = 12, slots: int = 2**14) -> Report:
    """Load at a cuckoo filter's first failed insert for one setting of the stored grid (random
    victims, 500 kicks, the mean of three seeded fills), bits per item ``f / load`` and the rate
    ``1 - (1 - 1/(2^f - 1))^(2·b·load)`` there. ``slots`` is a power of two on the grid."""
    from setlab.models.cuckoo_load import LoadGrid

    slots = check_int("slots", slots, 1)
    if slots & (slots - 1):
        raise ValueError(f"slots must be a power of two (2^10 … 2^18 on the grid); got {slots:,}")
    cell = LoadGrid.load().cell(bucket_size, fingerprint_bits, slots.bit_length() - 1)
    report = Report(f"Cuckoo filter, first failed insert: b = {cell.bucket_size}, "
                    f"{cell.fingerprint_bits}-bit fingerprints, {cell.slots:,} slots")  # fmt: skip
    report.rows = [
        ("first failure at", f"{cell.load:.1%} load (seeds: "
                             f"{', '.join(f'{x:.1%}' for x in cell.loads)})"),
        ("bits per item", f"{cell.bits_per_item:.2f} ({cell.fingerprint_bits} / load)"),
        ("rate there", format_rate(cell.fpr)),
        ("source", "simulated grid (setlab.models.cuckoo_load): random victims, 500 kicks"),
    ]  # fmt: skip
    report.data = cell.as_json()
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc cuckoo-load``."""
    return [cuckoo_load(given["bucket_size"], given["fingerprint_bits"], given["slots"])]


CALCULATOR = Calculator(
    "cuckoo-load",
    help="load at a cuckoo filter's first failed insert (simulated grid)",
    description="Load factor at the first failed insert of a cuckoo filter (random victims, "
    "500 kicks; the mean of three seeded simulations stored in the package), with bits per "
    "item and the false-positive rate at that load.",
    options=(
        Option(("-b", "--bucket-size"), "slots per bucket: 1, 2, 4 or 8 (default 4)",
               read=count("bucket size"), default=4),
        Option(("-f", "--fingerprint-bits"), "fingerprint bits, 4 … 16 (default 12)",
               read=count("fingerprint bits"), default=12),
        Option(("--slots",), "slots in the table: 2^10, 2^12, … 2^18 (default 2^14)",
               read=count("slots"), default=2**14),
    ),
    run=_run,
    example="setlab calc cuckoo-load -b 4 -f 12 --slots 2^14",
)  # fmt: skip
