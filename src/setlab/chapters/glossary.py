"""The seeds' Chinese terms with the English terms the book uses, and where each is explained.

Rendered by ``book/glossary.md``. Every Chinese term appears in at least one seed (a test reads
the seed files to check), and every chapter named exists in the table of contents.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    zh: str  #: as the seeds write it
    en: str  #: the term the book uses
    chapter: str  #: slug of the chapter that explains it
    meaning: str  #: one line


TERMS: list[Term] = [
    Term("位图", "bitmap", "setbit-offset", "A Redis string used as an array of bits (SETBIT/GETBIT)."),
    Term("偏移量", "offset", "setbit-offset", "The bit position SETBIT writes; at most 2^32 − 1 by default."),
    Term("单线程", "single-threaded", "one-slow-command", "Redis runs one command at a time on its main thread."),
    Term("阻塞", "blocking", "one-slow-command", "Other clients waiting while one slow command runs."),
    Term("碰撞", "collision", "birthday-collisions", "Two ids mapped to the same offset or slot."),
    Term("生日悖论", "birthday paradox", "birthday-collisions", "Collisions become likely after about √M ids, not M."),
    Term("雪花", "snowflake id", "snowflake-ranges", "A 64-bit id: timestamp, machine and sequence bits."),
    Term("号段", "segment (Leaf-style) allocation", "snowflake-ranges", "Handing out id ranges in blocks from a database."),
    Term("映射表", "mapping table", "snowflake-ranges", "A table from sparse ids to dense integers."),
    Term("精度丢失", "precision loss", "snowflake-ranges", "Integers above 2^53 rounded by JavaScript's doubles."),
    Term("自增", "auto-increment", "snowflake-ranges", "Dense integer ids handed out in order."),
    Term("大 Key", "big key", "one-slow-command", "One key holding so much that operations on it stall the server."),
    Term("数据倾斜", "skew (hot key / hot node)", "one-slow-command", "Load concentrated on the node that owns a hot key's slot."),
    Term("主从", "primary–replica", "one-slow-command", "Replication; a big key makes a full resync slow."),
    Term("原子性", "atomicity", "string-plus-set", "A sequence of commands no other client can interleave with."),
    Term("冷启动", "cold start", "string-plus-set", "Reloading a cache from the database after it lost its data."),
    Term("回捞", "reload (from the database)", "string-plus-set", "Re-reading a user's data into the cache on a miss."),
    Term("分布式锁", "distributed lock", "string-plus-set", "SET key token NX PX, released by compare-and-delete."),
    Term("布隆过滤器", "Bloom filter", "bloom-basics", "k hashed bits per item; no false negatives, some false positives."),
    Term("误判率", "false-positive rate", "nk-vs-m-saturation", "The chance a never-added item reads as present."),
    Term("假阳性", "false positive", "bloom-basics", "An item reported present that was never added."),
    Term("哈希函数", "hash function", "bloom-basics", "Maps an item to bit positions; must read the item."),
    Term("位数组", "bit array", "bloom-basics", "The m bits of a Bloom filter."),
    Term("缓存穿透", "cache penetration", "bloom-basics", "Lookups for keys that exist nowhere, reaching the database."),
    Term("分片", "sharding", "sharded-bloom", "Splitting one filter over many Redis keys."),
    Term("容器", "container", "roaring-containers", "A Roaring chunk of 2^16 ids: array, bitmap or run container."),
    Term("压缩位图", "compressed bitmap (Roaring)", "roaring-containers", "A bitmap that stores only the chunks that hold ids."),
    Term("稀疏", "sparse", "roaring-containers", "Few ids spread over a huge range."),
    Term("稠密", "dense", "roaring-containers", "Ids packed into a small range."),
    Term("去重", "deduplication", "redis-set-memory", "Remembering which ids were already seen."),
    Term("基数", "cardinality", "hyperloglog", "How many distinct items a set holds."),
    Term("扩容", "scaling (sub-filter expansion)", "scalable-bloom", "RedisBloom adding a larger, tighter sub-filter when one fills."),
    Term("重建", "rebuild", "scalable-bloom", "Deleting a filter and reloading it, since Bloom filters cannot delete."),
    Term("双写", "dual write", "scalable-bloom", "Writing old and new filters during a rebuild so nothing slips through."),
    Term("影子读", "shadow read", "scalable-bloom", "Querying the new filter beside the old before switching to it."),
    Term("滑动窗口", "sliding window", "scalable-bloom", "Seven daily filters queried together for 'seen in the last 7 days'."),
    Term("踢出链", "kick chain", "cuckoo-kick-chains", "The evictions a cuckoo insert causes before it finds a free slot."),
    Term("负载因子", "load factor", "cuckoo-kick-chains", "The share of a cuckoo filter's slots in use."),
    Term("桶", "bucket", "cuckoo-kick-chains", "A group of b slots; each item may live in one of two buckets."),
    Term("选型", "choosing a structure", "choosing", "Matching the IDs you have to the structure that holds them."),
    Term("直方图", "histogram (of IDs)", "choosing", "Counts of IDs per chunk of the range: look before you choose."),
]  # fmt: skip


def chapters() -> set[str]:
    """Every chapter slug a term points to."""
    return {t.chapter for t in TERMS}


def table_markdown() -> str:
    """The glossary as a MyST table, each English term linking to its chapter."""
    lines = ["| 中文 | English | meaning | chapter |", "|:--|:--|:--|:--|"]
    for t in sorted(TERMS, key=lambda t: t.en.lower()):
        lines.append(f"| {t.zh} | **{t.en}** | {t.meaning} | {{doc}}`{t.chapter}` |")
    return "\n".join(lines)
