"""Measure the same cases on every Redis and Valkey release this machine has.

Writes src/setlab/data/releases-reference.json, which the chapters "What a Redis SET really
costs", "SETBIT at a big offset", "One slow command", "Scalable Bloom filters" and "HyperLogLog"
show as one column per release. Each release in setlab.lab.servers.available() is started
privately, one at a time, with RedisBloom (setlab.lab.server.RedisServer.start), measured
(setlab.lab.runs.releases) and stopped; a release not installed here is one printed line. Each
release from 7.2 on is then started four more times, fresh, for the hash seed's effect on a
129-member set. Needs about 700 MiB free (a bit at offset 2^32 - 1). Rerun it:

    flock /tmp/setlab-heavy.lock .venv/bin/python reference/measure_releases.py
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from setlab.lab import reference, servers
from setlab.lab.runs import releases
from setlab.lab.runs.releases_reference import NAME
from setlab.lab.server import RedisServer


def measure(r, identity: dict[str, str]) -> list[dict[str, Any]]:
    """Every case on one server, each row labelled with ``identity``."""
    releases.prepare(r)
    rows = [releases.key_row(r)]
    for kind, n in releases.set_cases():
        rows.append(releases.set_row(r, kind, n))
        print(f"  {kind} × {n:,}: {rows[-1]['encoding']}, {rows[-1]['allocated']:,} B")
    rows += [releases.bitmap_row(r, offset) for offset in releases.BITMAP_OFFSETS]
    rows += [releases.hll_row(r, n) for n in releases.HLL_SIZES]
    rows.append(releases.del_row(r))
    print(f"  DEL of {releases.DEL_MEMBERS:,} members: {rows[-1]['server_us']:,} µs")
    bloom = releases.bloom_row(r)
    if bloom is None:
        print(f"  RedisBloom does not load into {identity['flavour']} {identity['version']}")
    else:
        rows.append(bloom)
    return [{**identity, **row} for row in rows]


def hash_seed(release: servers.ServerRelease, path: str) -> dict[str, Any]:
    """The :data:`releases.SEED_MEMBERS`-member set on fresh starts of one release."""
    allocations = []
    for _ in range(releases.SEED_STARTS):
        with RedisServer.start(binary=path) as server:
            r = server.client()
            releases.prepare(r)
            allocations.append(releases.seeded_allocation(r))
    return releases.hash_seed_row(allocations)


def main() -> None:
    sections, all_rows = [], []
    for line in servers.missing():
        print(line)
    for release, path in servers.available():
        print(f"== {release.label} ({release.name}): {path}")
        with RedisServer.start(binary=path) as server:
            r = server.client()
            identity = releases.identity(r, release)
            modules = releases.modules(r)
            version = tuple(int(p) for p in r.info("server")["redis_version"].split("."))
            rows = measure(r, identity)
        if releases.hashes_by_seed(version):
            rows.append({**identity, **hash_seed(release, path)})
            print(f"  hash seed: {rows[-1]['allocations']}")
        sections.append(  # "server" is the facts' block here, as reference.run_info reads it
            {
                "release": identity["server"],
                **{k: v for k, v in identity.items() if k != "server"},
                "label": release.label,
                "measured": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
                "server": {
                    "redis_version": identity["version"],
                    "allocator": identity["mem_allocator"],
                    "modules": modules,
                    "backend": "live",
                },
                "machine": reference.machine_facts(),
            }
        )
        all_rows += rows
    if not sections:
        print("no server measured: nothing written")
        return
    versions = [s["version"] if s["flavour"] == "Redis" else s["label"] for s in sections]
    document = {
        "name": NAME,
        "writer": reference.writer_name(__file__),
        "measured": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "server": {
            "redis_version": " · ".join(versions),
            "allocator": " · ".join(s["mem_allocator"] for s in sections),
            "modules": {},
            "backend": "live",
        },
        "machine": reference.machine_facts(),
        "missing": servers.missing(),
        "servers": sections,
        "rows": all_rows,
    }
    path = reference.data_dir() / f"{NAME}.json"
    reference.write_atomic(path, json.dumps(document, indent=1) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
