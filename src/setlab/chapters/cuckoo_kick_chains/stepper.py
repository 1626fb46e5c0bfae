"""Chapter cuckoo-kick-chains, step by step: the chapter's kick chain in a filter of 8 buckets × 2
slots, one eviction at a time.

The insert is :func:`setlab.models.cuckoo.kick_chain_demo`'s (the model's own filter, filled until
an insert needs the chain; the picture above draws the same one). The frames replay its swaps in
order, and each evicted fingerprint's other bucket is the model's ``BucketTable.alt``; the last
frame is the model's table after the insert, which the replay must reach.
"""

from __future__ import annotations

from setlab.models.cuckoo import BucketTable, KickDemo, kick_chain_demo
from setlab.render.steppers import Frame, Stepper


def _cells(slots: list[int]) -> tuple[str, ...]:
    return tuple(f"{fp:02x}" if fp else "\u00b7" for fp in slots)


def _bucket(demo: KickDemo, i: int) -> range:
    return range(i * demo.bucket_size, (i + 1) * demo.bucket_size)


def stepper(num_buckets: int = 8, bucket_size: int = 2, kicks: int = 3, seed: int = 0) -> Stepper:
    """The chain of ``kick_chain_demo(num_buckets, bucket_size, kicks, seed)``, a frame a kick."""
    d = kick_chain_demo(num_buckets, bucket_size, kicks, seed)
    table = BucketTable(d.num_buckets, d.bucket_size)
    slots = list(d.before)
    full = sum(1 for s in slots if s)
    home = {j: "home" for i in (d.i1, d.i2) for j in _bucket(d, i)}
    frames = [Frame(
        f"{full} of {len(slots)} slots are full. A new item has fingerprint {d.fp:02x}; its "
        f"buckets are {d.i1} and {d.i2} (= {d.i1} xor H({d.fp:02x})), and both are full: it "
        "must kick.",
        _cells(slots), home,
    )]  # fmt: skip
    moving = d.fp
    for n, pos in enumerate(d.path, start=1):
        bucket = pos // d.bucket_size
        moving, slots[pos] = slots[pos], moving
        other = table.alt(bucket, moving)
        marks = {j: "home" for j in _bucket(d, other)} | {pos: "kick"}
        frames.append(Frame(
            f"Kick {n}: {slots[pos]:02x} takes slot {pos % d.bucket_size} of bucket {bucket} and "
            f"evicts {moving:02x}, whose other bucket is {other} (= {bucket} xor H({moving:02x})).",
            _cells(slots), marks,
        ))  # fmt: skip
    slots[d.final] = moving
    if slots != d.after:
        raise AssertionError("the replayed chain does not reach the model's table")
    frames.append(Frame(
        f"{moving:02x} finds a free slot in bucket {d.final // d.bucket_size}: the insert is done "
        f"after {len(d.path)} kicks, and every fingerprint sits in one of its two buckets.",
        _cells(slots), {d.final: "new"},
    ))  # fmt: skip
    return Stepper(
        "cuckoo", "Step through a kick chain", frames,
        caption=("Each row is a bucket of two slots holding 8-bit fingerprints (hex; \u00b7 is "
                 "empty). Dashed: where the moving fingerprint may go; red: the slot just "
                 "taken, whose occupant is evicted; green: the free slot that ends the chain."),
        source=f"setlab.models.cuckoo.kick_chain_demo(num_buckets={num_buckets}, "
               f"bucket_size={bucket_size}, kicks={kicks}, seed={seed}), swap by swap",
        columns=d.bucket_size, row_labels=[f"bucket {i}" for i in range(d.num_buckets)],
        cell_name="slot",
    )  # fmt: skip
