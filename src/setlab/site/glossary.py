"""The book's glossary: its own jargon, and the seeds' Chinese terms with the English the book
uses, each linked to the chapter that explains it.

Rendered by ``book/glossary.md``. Every Chinese term appears in at least one seed and every book
term in the chapter it links to (tests read both), and every chapter named is in the table of
contents.
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


@dataclass(frozen=True)
class BookTerm:
    en: str  #: the term as the book writes it
    chapter: str  #: slug of the chapter that defines it
    meaning: str  #: one line
    find: str = ""  #: the text the chapter uses, if not ``en`` itself (a test looks for it)

    @property
    def needle(self) -> str:
        return self.find or self.en


#: The book's own jargon: Redis internals, the structures' parts, and the operations.
BOOK_TERMS: list[BookTerm] = [
    BookTerm("sds", "setbit-offset", "Redis's string type: a small header (length, capacity) before the bytes and a NUL after."),
    BookTerm("greedy growth", "setbit-offset", "sdsMakeRoomFor doubles a growing string below 1 MiB and adds 1 MiB above it.", "greedy"),
    BookTerm("size class", "setbit-offset", "The fixed block sizes jemalloc hands out; a request is rounded up to the next one."),
    BookTerm("jemalloc", "setbit-offset", "The allocator Redis links on Linux; its size classes decide MEMORY USAGE."),
    BookTerm("robj", "setbit-offset", "The 16-byte object header Redis keeps for every value."),
    BookTerm("dictEntry", "setbit-offset", "The 24-byte hash-table entry (key, value, next) of every key, and of every hashtable member."),
    BookTerm("MEMORY USAGE", "setbit-offset", "Redis's estimate of a key's bytes: allocations of its value, header and key."),
    BookTerm("proto-max-bulk-len", "setbit-offset", "The largest string Redis accepts (512 MiB by default), so the largest bit offset."),
    BookTerm("hashed offset", "birthday-collisions", "A bitmap position computed by hashing an ID into a smaller range; collisions follow."),
    BookTerm("epoch (snowflake)", "snowflake-ranges", "The instant a snowflake's timestamp field counts from.", "epoch"),
    BookTerm("dense re-mapping", "snowflake-ranges", "Giving each sparse ID a small integer 0 … n − 1, so a bitmap offset stays small.", "dense"),
    BookTerm("hash slot", "one-slow-command", "One of Redis Cluster's 16,384 slots: CRC16 of the key (or its hash tag) mod 16,384."),
    BookTerm("hash tag", "one-slow-command", "The part of a key in braces, {post:42}: only it is hashed, so tagged keys share a slot."),
    BookTerm("head-of-line blocking", "one-slow-command", "Every client waiting behind the one slow command Redis's single thread is running."),
    BookTerm("SCAN", "one-slow-command", "Walking the keyspace a few keys per call instead of one blocking KEYS."),
    BookTerm("UNLINK", "one-slow-command", "DEL whose freeing of a big collection happens on a background thread."),
    BookTerm("check-then-act race", "string-plus-set", "Reading, deciding, then writing in separate commands: another client can act in between.", "check-then-act"),
    BookTerm("Lua script (EVAL)", "string-plus-set", "Commands run as one atomic step on the server.", "Lua"),
    BookTerm("WATCH", "roaring-containers", "Optimistic locking: EXEC fails if a watched key changed since WATCH; the client retries."),
    BookTerm("false negative", "bloom-basics", "A member reported absent: a Bloom filter never gives one, unless bits are cleared."),
    BookTerm("fill ratio", "nk-vs-m-saturation", "The share of a Bloom filter's bits set, 1 − e^(−kn/m); the false-positive rate is its k-th power."),
    BookTerm("load (k·n/m)", "nk-vs-m-saturation", "Hash count times items over bits: the one number a Bloom filter's fill and error depend on.", "load"),
    BookTerm("round trip", "sharded-bloom", "One request and its reply over the network; bulk loads pay it per batch, not per command."),
    BookTerm("pipeline", "sharded-bloom", "Sending many commands before reading the replies, to pay one round trip for all of them."),
    BookTerm("RedisBloom", "scalable-bloom", "The module behind BF.* and CF.* (Bloom and cuckoo filters) up to Redis 7.4; Redis 8 ships the same types built in."),
    BookTerm("sub-filter", "scalable-bloom", "One of the filters a scaling RedisBloom key stacks when the previous one fills."),
    BookTerm("EXPANSION", "scalable-bloom", "How much larger each new RedisBloom sub-filter is than the last."),
    BookTerm("fingerprint", "cuckoo-kick-chains", "The few bits of an item's hash a cuckoo filter stores in a slot instead of the item."),
    BookTerm("kick limit", "cuckoo-kick-chains", "How many evictions an insert may cause before the cuckoo filter gives up (MAXITERATIONS).", "kick"),
    BookTerm("array container", "roaring-containers", "A Roaring chunk stored as sorted 16-bit values: for up to 4,096 IDs."),
    BookTerm("bitmap container", "roaring-containers", "A Roaring chunk stored as 2^16 bits (8 KiB): for more than 4,096 IDs.", "bitset"),
    BookTerm("run container", "roaring-containers", "A Roaring chunk stored as (start, length) runs: for consecutive IDs."),
    BookTerm("intset", "redis-set-memory", "A small set of integers stored as one sorted array (up to set-max-intset-entries)."),
    BookTerm("listpack", "redis-set-memory", "A small set of short strings in one compact allocation (Redis 7.2+)."),
    BookTerm("hashtable (encoding)", "redis-set-memory", "A set as a hash table: a bucket array plus a dictEntry and an sds per member.", "hashtable"),
    BookTerm("rehash", "redis-set-memory", "Growing a hash table step by step; until done, both tables' buckets count in memory."),
    BookTerm("register", "hyperloglog", "One of HyperLogLog's 16,384 slots, holding the longest run of zeros seen."),
    BookTerm("sparse and dense encoding", "hyperloglog", "Redis's run-length HyperLogLog for few items, and the fixed 12 KiB form it switches to.", "dense"),
    BookTerm("standard error", "hyperloglog", "HyperLogLog's typical relative error, 1.04/√m = 0.81% for Redis's 16,384 registers."),
    BookTerm("ID histogram", "choosing", "Counts of IDs per 2^16 chunk of the range: what decides the structure.", "histogram"),
]  # fmt: skip


def chapters() -> set[str]:
    """Every chapter slug a term points to."""
    return {t.chapter for t in TERMS} | {t.chapter for t in BOOK_TERMS}


def table_markdown() -> str:
    """The glossary as a MyST table, each English term linking to its chapter."""
    lines = ["| 中文 | English | meaning | chapter |", "|:--|:--|:--|:--|"]
    for t in sorted(TERMS, key=lambda t: t.en.lower()):
        lines.append(f"| {t.zh} | **{t.en}** | {t.meaning} | {{doc}}`{t.chapter}` |")
    return "\n".join(lines)


def book_table_markdown() -> str:
    """The book's own terms as a MyST table, each linking to the chapter that defines it."""
    lines = ["| term | meaning | defined in |", "|:--|:--|:--|"]
    for t in sorted(BOOK_TERMS, key=lambda t: t.en.lower()):
        lines.append(f"| **{t.en}** | {t.meaning} | {{doc}}`{t.chapter}` |")
    return "\n".join(lines)
