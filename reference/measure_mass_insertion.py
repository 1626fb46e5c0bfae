"""The mass-insertion ceiling: ``redis-cli --pipe`` vs setlab's streamed loader, one run.

Starts a private redis-server with RedisBloom and runs
:func:`setlab.lab.full_scale.mass_insertion.measure`: for SETBIT (seed 002's 2^17-bit shards, k =
10) and BF.MADD (1,000 items per command, 1 %), the protocol file is generated, piped through
``redis-cli --pipe``, and the same commands are loaded with :mod:`setlab.lab.wire.pipe`; all must
leave the same data. Prints each repeat and three ratios of speed, setlab / redis-cli (> 1 means
setlab is faster): ``ratio``, both sending the generated protocol (setlab's pump reads the file into
memory first); ``end2end``, both from the items (setlab's loader vs generating the file +
redis-cli); ``strict``, setlab's loader with its encoding vs redis-cli without the generation.

    flock /tmp/setlab-heavy.lock .venv/bin/python reference/measure_mass_insertion.py [--dry-run]

It writes src/setlab/data/mass-insertion.json, the reference run the sharded-bloom chapter
shows, when run at its default sizes (unless ``--dry-run``).
"""

from __future__ import annotations

import argparse

import setlab
from setlab.lab import reference
from setlab.lab.full_scale import mass_insertion
from setlab.lab.full_scale.mass_insertion import PipeRow


def print_rows(rows: list[PipeRow]) -> None:
    print(
        f"{'command':<9}{'run':>4}{'commands':>12}{'writes':>12}{'MB':>7}{'generate':>10}"
        f"{'redis-cli':>11}{'setlab':>9}{'pump':>8}{'ratio':>7}{'end2end':>9}{'strict':>8}"
        "  Redis busy (cli/setlab/pump)"
    )
    for r in rows:
        print(
            f"{r.kind:<9}{r.repeat + 1:>4}{r.commands:>12,}{r.writes:>12,}"
            f"{r.protocol_bytes / 1e6:>7.0f}{r.generate_seconds:>9.2f}s"
            f"{r.redis_cli_seconds:>10.2f}s{r.setlab_seconds:>8.2f}s{r.setlab_pipe_seconds:>7.2f}s"
            f"{r.ratio:>7.2f}{r.ratio_with_generation:>9.2f}{r.ratio_setlab_encoding:>8.2f}"
            "  " + " / ".join(f"{share:.0%}" for share in r.redis_busy.values())
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command kind")
    parser.add_argument("--setbit-items", type=int, default=1_000_000, help="items (× 10 bits)")
    parser.add_argument("--bf-items", type=int, default=10_000_000, help="items for BF.MADD")
    parser.add_argument("--dry-run", action="store_true", help="measure and print; write nothing")
    args = parser.parse_args(argv)
    lab = setlab.connect("mass-insertion", backend="live")
    try:
        out = mass_insertion.measure(lab, args.setbit_items, args.bf_items, args.repeat)
    finally:
        lab.cleanup()
    print(out["facts"]["redis_cli"])
    print_rows([PipeRow(**r) for r in out["rows"]])
    defaults = all(getattr(args, k) == parser.get_default(k) for k in ("setbit_items", "bf_items"))
    if not args.dry_run and defaults:
        print(
            "wrote",
            reference.save(
                mass_insertion.REFERENCE, out["rows"], lab, writer=__file__, **out["facts"]
            ),
        )


if __name__ == "__main__":
    main()
