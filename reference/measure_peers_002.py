"""Write src/setlab/data/peers-002.json: seed 002's filter by every peer, same IDs, one run.

    flock /tmp/setlab-heavy.lock .venv/bin/python reference/measure_peers_002.py [--dry-run]
    .venv/bin/python reference/measure_peers_002.py --ids 1e6 --slice 1e5   # a try-out

Starts a private redis-server with RedisBloom and runs :func:`setlab.lab.full_scale.peers.measure`:
setlab's packed build and SET load, RedisBloom's BF.MADD at the same false-positive rate, rbloom in
this process, and, on a slice of the IDs, the seed's per-bit SETBIT through redis-py pipelines and
through ``redis-cli --pipe`` (scaled linearly to all the IDs, and labelled so). Each peer runs in a
child process of its own, so each client peak RSS is its own. About 25 minutes at full size on 2
cores, most of it RedisBloom's and rbloom's; a full-size run is stored unless ``--dry-run``.
"""

from __future__ import annotations

import argparse

import setlab
from setlab.core.formats import format_bytes
from setlab.lab import reference
from setlab.lab.full_scale import peers, sharded_bloom


def print_rows(out: dict) -> None:
    facts = out["facts"]
    print(
        f"{facts['ids']:,} IDs (slices: {facts['slice_ids']:,}), false-positive rate asked of "
        f"{facts['absent']:,} never-inserted IDs; RedisBloom and rbloom sized for "
        f"{facts['rate']:.3g}"
    )
    head = f"{'peer':<18}{'IDs':>13}{'seconds':>10}{'at all IDs':>12}{'client RSS':>12}"
    print(head + f"{'server RSS':>12}{'used_memory':>13}{'FPR':>11}")
    for r in out["rows"]:
        scaled = "" if r["ids"] == facts["ids"] else " (scaled)"
        server = format_bytes(r["server_peak_rss"]) if r["server_peak_rss"] else "—"
        growth = r["used_memory_growth"]
        used = format_bytes(max(0, growth)) if growth is not None else "—"
        fpr = f"{r['fpr']:.3e}" if r["fpr"] is not None else "—"
        print(
            f"{r['peer']:<18}{r['ids']:>13,}{r['seconds']:>10.1f}{r['full_seconds']:>12.0f}"
            f"{format_bytes(r['client_peak_rss']):>12}{server:>12}{used:>13}{fpr:>11}{scaled}"
        )
        print(f"    {r['how']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", type=float, default=sharded_bloom.SEED_002_IDS, help="IDs to load")
    parser.add_argument("--slice", type=float, default=peers.SLICE, help="IDs of the slices")
    parser.add_argument("--dry-run", action="store_true", help="measure and print; write nothing")
    args = parser.parse_args(argv)
    ids = int(args.ids)
    lab = setlab.connect("peers", backend="live")
    try:
        out, lab = peers.measure(lab, ids, int(args.slice))
    finally:
        lab.cleanup()
    print_rows(out)
    if not args.dry_run and ids == sharded_bloom.SEED_002_IDS:
        path = reference.save(peers.REFERENCE, out["rows"], lab, writer=__file__, **out["facts"])
        print("wrote", path)


if __name__ == "__main__":
    main()
