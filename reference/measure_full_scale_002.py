"""Seed 002 at full scale, really run: 8 × 10^8 IDs, 2^17 keys × 2^17 bits, k = 10, one Redis.

Seed 002 (§8) took about 20 hours to load this filter. This script does the whole job on a
private redis-server and prints what it took: generating and hashing the IDs, building every
shard in one packed 2 GiB bit array (:mod:`setlab.models.packed_bloom`), writing the 2^17 keys
with pipelined ``SET``, and verifying against Redis (10^6 inserted IDs must all answer yes;
10^6 never-inserted IDs give the false-positive rate, beside the model's). Also the loader's
peak RSS, and Redis's ``used_memory`` and ``MEMORY USAGE`` against the memory model.

The IDs are 64-bit integers, ``splitmix64(i)``, standing for the hashes of 28-character openids:
the filter only ever sees an item's two 64-bit base hashes, so what the input was does not
change which bits are set or how often a query collides. The measured false-positive rate,
within the model's binomial interval, is the evidence.

    flock /tmp/setlab-heavy.lock .venv/bin/python reference/measure_full_scale_002.py [--dry-run]
    .venv/bin/python reference/measure_full_scale_002.py --ids 1e6        # a small run (2^7 keys)

``--kernel numpy`` sets the same bits without numba, through ``np.bitwise_or.at`` (about
200 ns a bit here: some 30 minutes at full size, which is why the compiled kernel exists; just
hashing 8 × 10^8 IDs into their offsets with numpy alone would take about 7 minutes at the
rate measured on 2^20 IDs).
A full-size run writes ``src/setlab/data/full-scale-002.json``, the reference run the chapter
sharded-bloom shows (unless ``--dry-run``); a smaller one is never stored.
"""

from __future__ import annotations

import argparse

import setlab
from setlab.core.formats import format_bytes, format_duration
from setlab.lab import reference
from setlab.lab.full_scale import machine_limits, sharded_bloom
from setlab.models import packed_bloom


def print_report(out: dict) -> None:
    lay = out["layout"]
    print(
        f"{out['ids']:,} IDs → {lay['shards']:,} keys × {lay['bits_per_shard']:,} bits, "
        f"k = {lay['k']} ({format_bytes(out['payload_bytes'])} payload, kernel {out['kernel']})"
    )
    print(f"{'phase':<10}{'seconds':>10}")
    for name, seconds in out["phases_seconds"].items():
        print(f"{name:<10}{seconds:>10.1f}")
    print(f"{'end to end':<10}{out['wall_seconds']:>10.1f}  ({format_duration(out['wall_seconds'])}"
          f"; seed 002: about {out['seed_002_seconds'] / 3600:.0f} h)")  # fmt: skip
    print(
        f"peak loader RSS {format_bytes(out['peak_rss_bytes'])} "
        f"({out['peak_rss_bytes'] / out['payload_bytes']:.2f}× payload)"
    )
    low, high = out["model_fpr_interval"]
    print(
        f"false negatives {out['false_negatives']} of {out['queries']:,}; false positives "
        f"{out['false_positives']:,} of {out['queries']:,} = {out['measured_fpr']:.3e} "
        f"(model {out['model_fpr']:.3e}, 99.9% interval {low:.3e} … {high:.3e}); Redis = "
        f"local build: {out['redis_matches_local_build']}"
    )
    model = out["memory_model"][out["server_build"]]
    usage = sorted(set(out["memory_usage_sample"].values()))
    print(
        f"used_memory grew {format_bytes(out['used_memory_growth'])} "
        f"(model, {out['server_build']} jemalloc: {format_bytes(model['used_memory_growth'])}); "
        f"MEMORY USAGE of sample keys {usage} (model {model['memory_usage']})"
    )
    for build, m in out["memory_model"].items():
        print(
            f"  {build:<8} build: {m['memory_usage']:,} B per key, value allocation "
            f"{m['value_allocation']:,} B, used_memory {format_bytes(m['used_memory_growth'])}"
        )


def print_limits(out: dict) -> None:
    """The machine's limits, and how far above the floor they set the build is."""
    limits = out["machine_limits"]
    sweeps = -(-out["ids"] // packed_bloom.NUMBA_CHUNK)
    bits = out["ids"] * out["layout"]["k"]
    floor = machine_limits.build_floor(limits, bits, sweeps, out["payload_bytes"])
    out["build_floor_seconds"] = floor
    print(
        f"machine: copy {limits['copy_bytes_per_second'] / 1e9:.1f} GB/s (1 thread, read + "
        f"write); bit writes on {limits['threads']:.0f} threads: "
        f"{limits['random_bits_per_second'] / 1e6:,.0f} M/s into 2 GiB, "
        f"{limits['cached_bits_per_second'] / 1e6:,.0f} M/s into 256 KiB"
    )
    build = out["phases_seconds"]["build"]
    print(
        f"build floor: {bits:,} cached bit writes + {sweeps} sweeps of the payload = "
        f"{floor:.1f} s; the build took {build:.1f} s = {build / floor:.2f}× the floor "
        f"(in ID order, at the random-write rate: {bits / limits['random_bits_per_second']:.0f} s)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", type=float, default=sharded_bloom.SEED_002_IDS, help="IDs to load")
    parser.add_argument("--queries", type=float, default=1e6, help="IDs asked, each kind")
    parser.add_argument("--kernel", choices=("numba", "numpy"), default="numba")
    parser.add_argument("--dry-run", action="store_true", help="measure and print; write nothing")
    args = parser.parse_args(argv)
    ids = int(args.ids)
    lab = setlab.connect("full-scale", backend="live")
    try:
        out = sharded_bloom.run(lab, ids, min(int(args.queries), ids), kernel=args.kernel)
    finally:
        lab.cleanup()
    print_report(out)
    # after the run, so its arrays do not count in the loader's peak RSS measured above
    out["machine_limits"] = machine_limits.measure()
    print_limits(out)
    if not args.dry_run and ids == sharded_bloom.SEED_002_IDS:
        rows = [{"phase": k, "seconds": v} for k, v in out["phases_seconds"].items()]
        path = reference.save(sharded_bloom.REFERENCE, rows, lab, writer=__file__, **out)
        print("wrote", path)


if __name__ == "__main__":
    main()
