"""Every stored per-release measurement beside what its release's model prices it at.

The per-release run (:mod:`setlab.lab.runs.releases`, stored by ``reference/measure_releases.py``)
measured sets, a small key, bitmaps and HyperLogLogs on every server release this project has;
the models (:mod:`setlab.models.redis_memory`, :mod:`setlab.models.hyperloglog`) price the same
keys for each release and the allocator its server was built with. :func:`comparison` pairs
them, and :func:`tolerance` states how far apart each pair may be — the figures the models'
exactness notes (:mod:`setlab.models.exactness`) promise:

- ``MEMORY USAGE``: exact on 6.2, 7.0 and 8.2;
- allocation: exact on 6.2 and 7.0; on 8.2 within 1% for hashtable sets of 10^4 members or
  more and within 5% below (which members share a bucket depends on the process's hash seed);
- on Valkey 8.1 (glibc) both figures within 3% or 32 bytes, whichever is more: ``MEMORY USAGE``
  there reports glibc's usable sizes too, and glibc hands a request a freed chunk larger than
  it asked for (16–32 bytes more for a small key) or, for 128 KiB–32 MiB, a heap chunk instead
  of mapped pages once a mapped block was freed (4 KiB less) — the heap's history, which no
  model of one key can know; its hashtable's child buckets depend on the hash seed as well.

Print the table: ``.venv/bin/python -m setlab.lab.runs.releases_models``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from setlab.lab.runs.releases import KEY, RANDOM_STRINGS
from setlab.lab.runs.releases_reference import ReleasesReference
from setlab.models.allocator import GLIBC_MMAP_THRESHOLD, PAGE_BYTES
from setlab.models.hyperloglog import hll_cost, reader_ids
from setlab.models.key_layout import KeyCost
from setlab.models.redis_memory import Members, bitmap_cost, growth_summary, set_cost, string_cost

#: members per SADD in the run (:func:`setlab.lab.runs.memory.sadd_members`): Valkey's table
#: depends on how many members the first SADD brought
SADD_BATCH = 1_000
#: the cases with a model: every case that stores one key's bytes
MODELLED = ("set", "key", "bitmap", "hll")


@dataclass(frozen=True)
class Pair:
    """One stored measurement and its model, bytes."""

    server: str  #: the release ("8.2")
    case: str  #: "set", "key", "bitmap" or "hll"
    what: str  #: e.g. "10,000 16-hex device ids (hashtable)"
    encoding: str
    size: int  #: members of a set, elements of an HLL, the offset of a bitmap
    usage: int
    usage_model: int
    allocated: int
    allocated_model: int

    @property
    def usage_off(self) -> float:
        """The model's ``MEMORY USAGE`` over the server's, less one."""
        return self.usage_model / self.usage - 1

    @property
    def allocated_off(self) -> float:
        """The model's allocation over the server's, less one."""
        return self.allocated_model / self.allocated - 1


def _summary(kind: str, count: int, allocator: str) -> Members:
    if kind == RANDOM_STRINGS:
        return Members.fixed_length(count, 8, allocator)
    return growth_summary(kind, count)


def model_of(row: dict[str, Any], allocator: str) -> KeyCost:
    """The model's price of the key one stored row measured, on its release and ``allocator``."""
    release, case = row["server"], row["case"]
    if case == "set":
        summary = _summary(row["kind"], row["n"], allocator)
        return set_cost(summary, KEY, version=release, allocator=allocator, sadd_batch=SADD_BATCH)
    if case == "key":
        return string_cost(row["value"], KEY, allocator, version=release)
    if case == "bitmap":
        return bitmap_cost([row["offset"]], KEY, allocator, version=release)
    if case == "hll":
        return hll_cost(reader_ids(0, row["n"]), KEY, allocator, version=release)
    raise ValueError(f"case must be one of {', '.join(MODELLED)}; got {case!r}")


def comparison(run: ReleasesReference | None = None) -> list[Pair]:
    """Every modelled row of the stored run with its model, in the run's order."""
    run = run or ReleasesReference.load()
    allocators = {s.server: s.allocator for s in run.servers}
    pairs = []
    for row in run.rows:
        if row["case"] not in MODELLED:
            continue
        cost = model_of(row, allocators[row["server"]])
        if row["case"] == "set":
            size, what = row["n"], f"{row['n']:,} {row['kind']}"
        elif row["case"] == "hll":
            size, what = row["n"], f"HLL of {row['n']:,} elements"
        elif row["case"] == "bitmap":
            size, what = row["offset"], f"bit at {row['offset']:,}"
        else:
            size, what = 1, f"SET key {row['value']}"
        encoding = row.get("encoding", cost.encoding)
        pairs.append(
            Pair(row["server"], row["case"], what, encoding, size, row["memory_usage"],
                 cost.memory_usage, row["allocated"], cost.allocated)
        )  # fmt: skip
    return pairs


#: glibc's heap history on one key: a larger freed chunk for a small request (bytes)
GLIBC_SLACK_BYTES = 32


def allowed(pair: Pair, quantity: str) -> float:
    """How many bytes the model may be off the server for ``pair``'s ``quantity``
    (``"usage"`` or ``"allocated"``); 0 is exact. See the module docstring."""
    measured = pair.usage if quantity == "usage" else pair.allocated
    if pair.server == "valkey-8.1":
        page = PAGE_BYTES if measured >= GLIBC_MMAP_THRESHOLD else 0  # mapped or heap chunk
        return max(0.03 * measured, GLIBC_SLACK_BYTES) + page
    hashtable = pair.case == "set" and pair.encoding == "hashtable"
    if pair.server in ("7.2", "7.4", "8.0", "8.2") and quantity == "allocated" and hashtable:
        return (0.01 if pair.size >= 10_000 else 0.05) * measured
    return 0.0


def within(pair: Pair) -> bool:
    """Both of ``pair``'s figures within :func:`allowed`."""
    return abs(pair.usage_model - pair.usage) <= allowed(pair, "usage") and abs(
        pair.allocated_model - pair.allocated
    ) <= allowed(pair, "allocated")


def markdown() -> str:
    """The comparison as a Markdown table, a row a measurement, each model's share off."""
    lines = [
        "| server | key | encoding | MEMORY USAGE | model | allocated | model | within |",
        "|:--|:--|:--|--:|--:|--:|--:|:--|",
    ]
    for p in comparison():
        ok = within(p)
        lines.append(
            f"| {p.server} | {p.what} | {p.encoding} | {p.usage:,} | {p.usage_model:,} "
            f"({p.usage_off:+.2%}) | {p.allocated:,} | {p.allocated_model:,} "
            f"({p.allocated_off:+.2%}) | {'yes' if ok else 'NO'} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
