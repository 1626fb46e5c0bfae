"""The sharded Bloom filter on a Redis Cluster, through redis-py's cluster client (issue 16 item 4).

Seed 002 spread its filter over 2^17 keys so that no key is big; in a Redis Cluster the same
keys spread over the masters by their hash slot (CRC16 of the key mod 16,384). Nothing in
:class:`setlab.lab.runs.bloom.RedisBloomFilter` has to change for that:

* every command touches one key — an item's ``k`` bits are one ``BITFIELD`` on the shard its
  hash picks, and a shard is written whole with one ``SET`` — so no hash tag is needed, and
  none is used: a tag would pin every shard to one slot, one master, undoing the spread;
* its batches go through ``lab.r.pipeline(transaction=False)``, which for a
  ``redis.cluster.RedisCluster`` is a ``ClusterPipeline``: it groups the batch's commands by
  the node that owns each key's slot, writes every node's commands, then reads every node's
  replies — one pipelined round trip per node per batch.

:func:`cluster_lab` gives a :class:`setlab.lab.backend.Lab` whose client is the cluster client of
a :class:`setlab.lab.cluster.LocalCluster`; :func:`shard_nodes` says which master holds each
shard (the routing :mod:`setlab.models.cluster_slots` simulates); :func:`write_shards` is the
load that builds the bitmaps locally and SETs each shard whole. :func:`node_cpu_seconds` reads
what each master spent (``INFO cpu``), for the benchmark in ``benchmarks/cluster_bloom.py``.
"""

from __future__ import annotations

import numpy as np

from setlab.lab import guard
from setlab.lab.backend import Lab
from setlab.lab.cluster import LocalCluster
from setlab.lab.runs.bloom import RedisBloomFilter
from setlab.models import cluster_slots
from setlab.models.bloom_sim import BloomSimulator


def cluster_lab(cluster: LocalCluster, chapter: str = "cluster-bloom") -> Lab:
    """A lab on ``cluster`` through redis-py's ``RedisCluster`` (RESP2, bytes replies).

    Its keys are ``setlab:<chapter>:…`` like any lab's; :meth:`Lab.cleanup` scans every master.
    The cluster is one setlab started (:class:`LocalCluster`), so no memory guard applies.
    """
    first = cluster.nodes[0]
    info = first.client().info("server")
    version = tuple(int(part) for part in str(info["redis_version"]).split("."))
    address = ", ".join(f"{node.host}:{node.port}" for node in cluster.nodes)
    namespace = f"setlab:{chapter}:"
    return Lab(cluster.client(namespace), "live", namespace,
               f"Redis Cluster of {len(cluster.nodes)} masters ({address})",
               facts={"version": version})  # fmt: skip


def shard_nodes(bloom: RedisBloomFilter, ranges: list[tuple[int, int]]) -> np.ndarray:
    """The master (index into ``ranges``, as :func:`cluster_slots.slot_ranges` gives them) that
    holds each shard of ``bloom``, from the key's hash slot."""
    return np.array(
        [cluster_slots.node_of_slot(cluster_slots.key_slot(key), ranges) for key in bloom.keys()],
        dtype=np.int64,
    )


def write_shards(bloom: RedisBloomFilter, items: object, batch: int = 64) -> int:
    """Load ``items`` by building the bitmaps here and writing each shard whole with ``SET``,
    ``batch`` shards per pipeline (per node on a cluster); returns the shards written.

    The bits are :class:`setlab.models.bloom_sim.BloomSimulator`'s, the ones ``add_many`` sets
    with ``BITFIELD``. It holds one byte per bit of the filter in memory (a boolean array):
    for a filter of billions of bits use :func:`setlab.lab.wire.loading.load` on one server.
    """
    if batch < 1:
        raise ValueError(f"batch must be at least 1; got {batch!r}")
    simulator = BloomSimulator(bloom.layout)
    simulator.add(items)
    layout = bloom.layout
    bloom.lab.check_allocation(
        guard.budget(string=layout.bytes_per_shard, keys=layout.shards),
        f"Bloom filter {bloom.name!r}",
    )
    keys = bloom.keys()
    for first in range(0, len(keys), batch):
        pipe = bloom.lab.r.pipeline(transaction=False)
        for shard in range(first, min(len(keys), first + batch)):
            pipe.set(keys[shard], simulator.shard_bytes(shard))
        pipe.execute()
    return len(keys)


def node_cpu_seconds(cluster: LocalCluster) -> list[float]:
    """CPU seconds (user + system, ``INFO cpu``) each master has used so far, in node order."""
    seconds = []
    for node in cluster.nodes:
        cpu = node.client().info("cpu")
        seconds.append(float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]))
    return seconds


__all__ = ["cluster_lab", "node_cpu_seconds", "shard_nodes", "write_shards"]
