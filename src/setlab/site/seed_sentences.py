"""Every quantitative sentence of the four field reports, and its entry in the registry.

The registry (:mod:`setlab.site.registry`) holds the claims; this module is the other half
of the bookkeeping: an enumeration of the seeds themselves, sentence by sentence — numbers,
ratios, constants, command semantics, the code they print, side remarks about threads, ranges
and API arguments — each quoted (in the seed's Chinese, shortened where a table row or a code
block is long).

The registry's unit is the sentence: each one names its **own** registry entry (or, for a table
row that states two figures, its own entries), a claim of the same seed whose wording, "their
figure" and verdict are that sentence's and no other's. Where the book deliberately does not
judge a sentence, its entry carries :attr:`~setlab.render.claims.Verdict.NOT_JUDGED` and the
reason. A sentence may also name claims of other sentences that bear on it (``also``: the time
column of seed 000's §3.2 table judges five rows at once). ``tests/site/test_seed_sentences.py``
checks both directions: every sentence has entries of its own, no entry belongs to two
sentences, and every registered claim is some sentence's entry or bears on one.

The enumeration is one module, not a part of each chapter, because it follows the seeds, not
the book: its order is the seeds' own (the errata and every verdict table sort claims by the
sentence that first says them, :func:`setlab.site.registry.seed_order`), and four sentences are
judged by two chapters each (seed 000 §7.5 twice, seed 002 §7, seed 003's selection table).

Sections follow the registry's naming (``§3.2`` for seed 000's numbered sections, ``坑一`` for
seed 003's headings, ``intro`` for text before the first heading). The seed texts are not
part of the repository; the quotes here are what the book checks (the tests compare them with
the texts where ``SETLAB_SEEDS`` names their folder).
"""

# ruff: noqa: E501 (the Chinese quotes count double width; a quote is not split mid-sentence)

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeedSentence:
    """One quantitative sentence of a seed.

    Attributes:
        seed: seed file number ("000", "002", "003", "004").
        section: where in the seed.
        quote: the sentence, quoted (or a faithful short quote of a table row or code line).
        claims: ids of its own registry entries (claims of its seed that quote it alone).
        also: ids of other sentences' claims that bear on it too.
    """

    seed: str
    section: str
    quote: str
    claims: tuple[str, ...]
    also: tuple[str, ...] = ()


def _s(
    seed: str, section: str, quote: str, *claims: str, also: tuple[str, ...] = ()
) -> SeedSentence:
    return SeedSentence(seed, section, quote, tuple(claims), also)


SENTENCES: tuple[SeedSentence, ...] = (
    # -- seed 000: the 1.5-second favourite button ------------------------------------------------
    _s("000", "§1", "用户首次点击“收藏”按钮，接口响应 1.5 秒", "000-click-1-5s"),
    _s("000", "§1", "再次点击只需 20ms", "000-second-click-20ms"),
    _s("000", "§1", "Redis 中多出了一个占用 256 KB 的 Key", "000-key-256kb"),
    _s("000", "§1", "SETBIT collect:bit:1:2051776854918803458 1823456789 1 → 耗时: 1500ms", "000-first-setbit-1500ms"),
    _s("000", "§1", "Redis 内存增长: 256 KB（分配 offset 0~18 亿的 bit 空间并清零）", "000-memory-256kb"),
    _s("000", "§1", "SETBIT … 3456789012 1 → 耗时: 20ms ← ✅ 正常速度", "000-later-setbit-20ms"),
    _s("000", "§1", "SETBIT … 987654321 1 → 耗时: 18ms ← ✅ 正常速度", "000-third-setbit-18ms"),
    _s("000", "§1", "响应时间 | 1500 ms | 20 ms | 75 倍", "000-summary-75x"),
    _s("000", "§1", "Redis 内存变化 | +256 KB | 无变化", "000-memory-table-row"),
    _s("000", "§2", "首次写入某个 Key 极慢（数秒甚至超时），后续操作正常", "000-symptom-first-slow", also=("000-alloc-time-column",)),
    _s("000", "§2", "toOffset(userId),   // offset 可达 42.9 亿", "000-offset-reaches-4e9"),
    _s("000", "§2", "return Math.abs(hash) % (2^32 - 1);  // 哈希取模，范围 0 ~ 42.9 亿", "000-to-offset-range"),
    _s("000", "§3.1", "Redis 官方文档对 SETBIT 的复杂度定义：已存在 O(1)；不存在 O(offset)", "000-setbit-complexity"),
    _s("000", "§3.1", "首次 SETBIT 时必须把 0 到 offset 之间的所有字节都分配出来并清零", "000-first-zeroes-all"),
    _s("000", "§3.2", "offset 经哈希取模后均匀分布在 0 ~ 42.9 亿之间，期望值约 21.4 亿", "000-uniform-mean-2e9"),
    _s("000", "§3.2", "100 万 | ~125 KB | 毫秒级", "000-alloc-1e6", also=("000-alloc-time-column",)),
    _s("000", "§3.2", "1 亿 | ~12 MB | 百毫秒级", "000-alloc-1e8", also=("000-alloc-time-column",)),
    _s("000", "§3.2", "10 亿 | ~120 MB | 秒级", "000-alloc-1e9", also=("000-alloc-time-column",)),
    _s("000", "§3.2", "21.4 亿（期望值） | ~256 MB | 数秒", "000-alloc-2e9", also=("000-alloc-time-column",)),
    _s("000", "§3.2", "42.9 亿（最坏） | ~512 MB | 超时风险", "000-alloc-4e9", also=("000-alloc-time-column",)),
    _s("000", "§3.3", "Key 一旦存在，内存已分配完毕，后续 SETBIT/GETBIT 都是 O(1)", "000-existing-key-o1"),
    _s("000", "§3.4", "把取模上限从 2^32 缩小到 2^20（约 100 万），首次写入只需分配 128 KB", "000-2-20-128kb"),
    _s("000", "§3.4", "A 收藏后，查询 B 的收藏状态返回 true（误判）；B 取消收藏 把 A 的也清掉了", "000-collision-effects"),
    _s("000", "§3.4", "碰撞概率表：2^32 / 2^28 / 2^24 / 2^20 × 100 / 1000 / 1 万人", "000-table-cells"),
    _s("000", "§3.4", "2^20 (104 万) | ≈ 0.48% | ≈ 100% | ≈ 100%", "000-table-2^20-100", "000-table-2^20-1000"),
    _s("000", "§3.4", "首次分配内存 512 MB / 32 MB / 2 MB / 128 KB", "000-table-memory"),
    _s("000", "§4.1", "1 bit 符号位 | 41 bit 时间戳(ms) | 10 bit 机器ID 0~1023 | 12 bit 序列号 0~4095", "000-snowflake-layout"),
    _s("000", "§4.1", "一个典型的雪花 ID：2051776854918803458（约 2 × 10^18）", "000-typical-id"),
    _s("000", "§4.1", "Bitmap offset 的有效范围是 0 ~ 2^32 - 1（约 42.9 亿）", "000-offset-range-2-32"),
    _s("000", "§4.1", "雪花 ID 的值域是 0 ~ 2^63 - 1（约 9.2 × 10^18），差了 20 亿倍", "000-20yi-times"),
    _s("000", "§4.2", "hash64() 输出均匀分布在 Long.MIN_VALUE ~ Long.MAX_VALUE，取模后均匀分布在 0 ~ 2^32-1", "000-uniform-offsets"),
    _s("000", "§4.2", "期望值约 21.4 亿，首次写入仍需分配 ~256 MB", "000-expected-offset"),
    _s("000", "§4.2", "取模是压缩映射，必然存在多对一关系", "000-modulo-many-to-one", also=("000-table-cells",)),
    _s("000", "§4.3", "userId=1 → 0x7A3B2C1D4E5F6A7B → 1,823,456,789（及 2、100 两行）", "000-example-hashes"),
    _s("000", "§4.3", "即使 userId 很小，hash 后的 offset 仍然可能很大。递增特性被哈希完全破坏了", "000-hash-destroys-order"),
    _s("000", "§4.4", "雪花 ID 本身就是 19 位数字（~2^61），远超 Bitmap offset 上限 2^32", "000-19-digits-over-2-32"),
    _s("000", "§4.4", "直接用会报错：ERR bit offset is not an integer or out of range", "000-direct-error"),
    _s("000", "§4.5", "自增整数 ID / 映射表 / 号段模式（Leaf）：offset 上限等于用户总数，首次分配极小", "000-dense-mapping"),
    _s("000", "§4.5", "压缩雪花 ID：只取低 32 bit，2^32 ≈ 42.9 亿，最大 512 MB，碰撞率高", "000-low-32-bits"),
    _s("000", "§4.6", "Bitmap offset 的本质：紧凑整数、0~2^32、bit 位映射", "000-offset-essence", also=("000-compact-rule",)),
    _s("000", "§5.1", "Redis 是单线程模型（命令串行执行）", "000-single-thread"),
    _s("000", "§5.1", "一个 SETBIT key 2147483648 1 需要分配 256 MB 并清零", "000-setbit-2-31-256mb"),
    _s("000", "§5.1", "在此期间该 Redis 节点无法响应任何其他请求", "000-node-blocked"),
    _s("000", "§5.1", "t4  SETBIT 完成（耗时 2~5 秒） ← 客户端 B/C/D 全部超时", "000-setbit-2e9-2-5s", also=("000-node-blocked",)),
    _s("000", "§5.2", "collect:bit:1:10086 → slot A；collect:bit:1:10087 → slot B；collect:bit:2:10086 → slot C", "000-example-slots"),
    _s("000", "§5.2", "爆款文章所有 SETBIT 操作都打到同一个 Key，即同一个节点；其他节点完全空闲", "000-hot-node"),
    _s("000", "§5.2", "该节点瞬间承受：内存分配压力（单次 256 MB）", "000-hot-node-256mb"),
    _s("000", "§5.3", "KEYS 命令只扫描当前节点，需要用 SCAN 逐节点遍历", "000-keys-one-node"),
    _s("000", "§5.3", "KEYS 是 O(N) 操作，会阻塞当前节点", "000-keys-blocks"),
    _s("000", "§5.4", "DEL collect:bit:1:xxx 释放 256 MB 内存，可能触发内存碎片整理，短暂卡顿", "000-del-256mb-stall"),
    _s("000", "§5.4", "RDB 持久化：大 Key 导致 RDB 生成时间变长，fork() 耗时增加", "000-fork-big-key"),
    _s("000", "§5.4", "AOF 重写：大 Key 导致 AOF 重写时间变长", "000-aof-rewrite"),
    _s("000", "§5.4", "主从同步：全量同步时大 Key 传输耗时，从节点长时间处于“加载中”", "000-replica-full-sync"),
    _s("000", "§5.4", "maxmemory：单个 Key 占用数百 MB，可能触发淘汰策略误杀其他 Key", "000-maxmemory-eviction"),
    _s("000", "§5.5", "单线程阻塞：SADD O(1)，毫秒级", "000-sadd-ms"),
    _s("000", "§5.5", "数据倾斜：用户维度 Key 天然分散到不同 slot", "000-set-spreads"),
    _s("000", "§5.5", "大 Key 风险：单用户 Key 通常几 KB", "000-user-key-few-kb"),
    _s("000", "§6.1", "将 32 位整数空间分成 65536 个桶", "000-roaring-65536-buckets"),
    _s("000", "§6.1", "Array Container 桶内元素 ≤ 4096，2 bytes × 元素数；Bitmap Container 8 KB（固定）；Run Container 连续值多，更压缩", "000-roaring-containers"),
    _s("000", "§6.1", "设置 offset=20 亿时，只需在对应桶里加一个元素（2 bytes），不会分配 250 MB", "000-roaring-2e9-2-bytes"),
    _s("000", "§6.2.1", "RB.SETBIT key 2000000000 1 -- O(1)，不预分配（RedisBloom 模块）", "000-roaring-redisbloom-rb"),
    _s("000", "§6.2.2", "非原子操作：并发 Read-Modify-Write 导致数据丢失", "000-roaring-rmw-loses"),
    _s("000", "§6.3", "RedisBloom 模块：首次写入 ✅ 原子性 ✅ 内存效率 ✅，⭐⭐⭐⭐ 有条件推荐", "000-redisbloom-recommended"),
    _s("000", "§6.2.2", "必须加分布式锁，延迟 5~15ms", "000-roaring-needs-lock"),
    _s("000", "§6.2.2", "每次操作全量序列化/反序列化，数据量大时很慢", "000-roaring-full-serialize"),
    _s("000", "§6.2.3", "Lua 脚本：不可行——Redis 内置 Lua 不支持 RoaringBitmap 库", "000-roaring-no-lua"),
    _s("000", "§7.2", "内容维度：爆款文章百万点赞，单 Key 几百 MB", "000-content-set-1e6"),
    _s("000", "§7.2", "用户维度：单用户操作量可控，通常几百~几千", "000-user-likes-hundreds"),
    _s("000", "§7.2", "加 TTL（如 7 天）冷数据自动淘汰", "000-ttl-7-days"),
    _s("000", "§7.3", "isMember → 已点赞则抛异常，否则 add + increment（操作流程代码）", "000-like-check-then-act"),
    _s("000", "§7.4", "if (isLiked == null) { // key 不存在，从 MySQL 回捞 … expire 7 天 }", "000-reload-on-null"),
    _s("000", "§7.5", "首次写入性能：O(offset)，最大 512 MB vs O(1)，始终毫秒级", "000-compare-first-write", also=("000-setbit-complexity",)),
    _s("000", "§7.5", "判断是否已操作：GETBIT O(1) vs SISMEMBER O(1)", "000-getbit-sismember-o1"),
    _s("000", "§7.5", "数据正确性：哈希碰撞风险 vs 零碰撞（存储原始 ID）", "000-set-no-collisions"),
    _s("000", "§7.5", "内存效率（1 亿用户）：~12 MB vs ~2 GB", "000-bitmap-1e8-12mb", "000-set-1e8-2gb"),
    _s("000", "§7.5", "内存效率（1 万用户）：~1.2 KB vs ~80 KB", "000-bitmap-1e4-1.2kb", "000-set-1e4-80kb"),
    _s("000", "§7.5", "计数查询：HGET O(1) vs INCR/GET O(1)", "000-counter-complexity"),
    _s("000", "§7.5", "原子性：SETBIT 返回旧值 vs SADD/SREM 原子", "000-setbit-returns-old", "000-sadd-atomic"),
    _s("000", "§7.6", "雪花 ID 约 19 位数字，超过 JS Number.MAX_SAFE_INTEGER（2^53 ≈ 16 位）", "000-js-16-digits"),
    _s("000", "§7.6", "1234567890123456789  →  1234567890123456800", "000-js-precision"),
    _s("000", "§7.6", "Jackson 序列化时将 Long 转 String（ToStringSerializer）", "000-js-fix"),
    _s("000", "§8.1", "64 bit vs 32 bit offset，差 20 亿倍", "000-64-vs-32-bits"),
    _s("000", "§8.4", "用户在线状态：userId 为自增小整数，SETBIT online 42 1", "000-online-bitmap"),
    _s("000", "§8.4", "活跃用户统计：自增 ID + 按天 Bitmap，BITCOUNT + BITOP 统计 DAU", "000-dau-bitmaps"),
    _s("000", "§8.4", "签到打卡：日期作为 offset（1~31），SETBIT sign:userId:202601 15 1", "000-sign-in-bitmap"),
    _s("000", "§8.4", "核心判断标准：offset 是否为紧凑小整数（万级以内）", "000-compact-rule"),
    # -- seed 002: a Bloom filter for 800 million openids -----------------------------------------
    _s("002", "intro", "通过埋点简单统计约在每日1000w次", "002-10m-checks-a-day"),
    _s("002", "intro", "约占30%左右，也就是约300w次查询是浪费的", "002-30pct-misses"),
    _s("002", "intro", "需要过滤的openid数据集有8亿", "002-800m-openids"),
    _s("002", "intro", "判重操作只需对位数组进行一次查找，无需遍历整个集合", "002-one-lookup"),
    _s("002", "intro", "误判率取决于哈希函数的数量和位向量的长度", "002-error-k-m"),
    _s("002", "§1", "一个字符串可以存储超过2^32个元素，bloom能存储的最大上限就是2^32个，约42.9亿", "002-max-2-32"),
    _s("002", "§1", "bitmap 和 string 其实是同一个结构，只是提供了不同的命令", "002-bitmap-is-string"),
    _s("002", "§1", "MEMORY USAGE Key，返回的是字节数", "002-memory-usage-bytes"),
    _s("002", "§2", "在10亿位上写1，redis分配了一个完整的10亿长度的数组", "002-1e9-whole-array"),
    _s("002", "§2", "它瞬间分配的内存大概在128M", "002-1e9-bits-128m"),
    _s("002", "§3", "bitmap读取：它的时间复杂度是 O(1)", "002-getbit-o1"),
    _s("002", "§3", "布隆过滤的Hash函数计算基本都是32位，64位长度的Hash值", "002-hash-32-64-bits"),
    _s("002", "§4", "821697800 对应的 16 进制数为 30FA1D08，高 16 位为 30FA，低16位为 1D08", "002-hex-example"),
    _s("002", "§4", "低 16 位的数值 1D08，它相当于是 7432", "002-1d08-7432"),
    _s("002", "§5", "$container = $hash >> 16;  $index = $hash & 0xFFFF;", "002-shift-mask-code"),
    _s("002", "§4", "先取高16位做桶，是为了做分片，取低16位做index", "002-shard-high-bits"),
    _s("002", "§6", "按照预留一倍空间规划，这个布隆过滤器总量为20亿", "002-doubled-20yi"),
    _s("002", "§6", "2^16 = 65525 个container", "002-2-16-65525"),
    _s("002", "§6", "每个container承担3w个元素", "002-3w-per-container"),
    _s("002", "§6", "取低17位，这样一个container可以存储13w个", "002-17-bits-13w"),
    _s("002", "§6", "期望的误差率为千分之一 … 得出需要15个哈希函数", "002-15-hashes-0.1pct"),
    _s("002", "§6", "15个哈希函数，3w个元素 … 15*3w = 45w，而一个container的总长度才13w", "002-container-arith"),
    _s("002", "§6", "45w次hash结果存入一个container中 … 误差率高达50%以上", "002-15-hashes-over-50pct"),
    _s("002", "§6", "元素n *哈希个数k ，不能超过位图长度m（或者超过太多）", "002-nk-le-m"),
    _s("002", "§7", "既然65535个container不能满足需要", "002-65535-containers"),
    _s("002", "§7", "取高17位作为container，公式推导需要10个hash，最终也验证了这个结果是对的", "002-fix-verified", "002-layout-2-34-bits", also=("002-shard-high-bits",)),
    _s("002", "§8", "Redis把所有的key都放在了一个字典当中，它的查询时间复杂度是O(1)", "002-keyspace-dict-o1"),
    _s("002", "§8", "负责数据读取和备份是两个线程，并不影响", "002-rdb-two-threads"),
    _s("002", "§8", "只是多了6w的key而已", "002-6w-keys"),
    _s("002", "§9", "$redis->multi() 支持两种模式，默认是使用Redis::MULTI", "002-phpredis-multi-mode"),
    _s("002", "§9", "Multi … 要比单个命令执行要快的，节省了很多网络io时间", "002-multi-saves-round-trips"),
    _s("002", "§9", "pipeline模式的性能要比Multi快50倍（以100w次 setbit操作测试的）", "002-pipeline-50x"),
    _s("002", "§9", "按照pipeline模式下8亿openid * 10 hash = 20个小时来算", "002-20-hours"),
    _s("002", "§9", "如果用multi，我可能要跑一个月", "002-multi-a-month"),
    # -- seed 003: frequency capping from Redis SETs to Bloom filters ----------------------------
    _s("003", "intro", "内存从 12GB 掉到 380MB", "003-12gb-to-380mb", also=("003-set-12gb", "003-8000-filters-380mb",)),
    _s("003", "intro", "重建那 3 分钟里，2000 万条记录全丢了", "003-rebuild-lost-2e7"),
    _s("003", "intro", "value 是设备 ID 的 16 位十六进制字符串", "003-device-id-16-hex"),
    _s("003", "intro", "单日峰值 1.2 亿个 ID，分散在大约 8000 个活跃计划上", "003-1-2e8-ids-8000-plans"),
    _s("003", "sizing", "m = -n · ln(p) / (ln 2)²；k = (m / n) · ln 2", "003-sizing-formulas"),
    _s("003", "sizing", "m = 1.2e8 × 4.60517 / 0.480453 ≈ 1.15 × 10⁹ bit ≈ 137 MiB", "003-sizing-137mib"),
    _s("003", "sizing", "k = 9.585 × 0.693147 ≈ 6.64，取 7", "003-k-6-64-take-7"),
    _s("003", "sizing", "每个元素摊到 9.6 bit，也就是 1.2 字节", "003-9-6-bits-1-2-bytes"),
    _s("003", "sizing", "实际部署我们用了 380MB，接近理论值的 2.8 倍", "003-8000-filters-380mb"),
    _s("003", "sizing", "8000 个 key 各自按峰值预留之后，空间利用率大概只有 35%", "003-utilisation-35pct"),
    _s("003", "SET memory", "sds 16 字节 + sdshdr8 3 字节，jemalloc 对齐到 24 或 32 字节；robj 16；dictEntry 24；桶位 8", "003-member-breakdown"),
    _s("003", "SET memory", "加起来 70 到 100 字节一个元素", "003-set-member-70-100"),
    _s("003", "SET memory", "1.2 亿 × 90 ≈ 10.8GB，跟实测的 12GB 对得上", "003-set-12gb"),
    _s("003", "SET memory", "set-max-intset-entries 默认只有 512，超过就转 dict 了", "003-intset-512"),
    _s("003", "坑一", "capacity 设成 1 亿，觉得留了 20% 余量够用", "003-capacity-1e8-margin"),
    _s("003", "坑一", "m/n 从 9.585 掉到 4.79，k 还是 7：p ≈ 0.157，15.7%", "003-overfill-15.7pct"),
    _s("003", "坑一", "每 6 台设备里就有 1 台被误判成“已经投过”", "003-one-in-six"),
    _s("003", "坑一", "那天曝光量掉了 9%，我们查了三个小时", "003-exposure-down-9pct"),
    _s("003", "坑一", "capacity 至少按峰值的 1.5 倍设，BF.RESERVE key 0.01 150000000 的第三个参数", "003-reserve-1.5x"),
    _s("003", "坑一", "位数组长度在创建时就定死了，扩容只能新建", "003-fixed-at-creation"),
    _s("003", "坑二", "SCALING 参数，默认是 2。容量满了它会新加一层同大小的过滤器", "003-scaling-layers"),
    _s("003", "坑二", "p_total = 1 - (1-p₁)(1-p₂)(1-p₃)…；三层各 1% 的话，总误判率是 2.97%", "003-three-layers-2.97pct"),
    _s("003", "坑二", "SCALING 设成 1 … 五层之后误判率就接近 5% 了", "003-scaling-1-five-layers"),
    _s("003", "坑二", "单层 BF.EXISTS 大约 0.06ms，三层之后 P99 会抖到 0.3ms 以上", "003-latency-0.06-0.3ms"),
    _s("003", "坑二", "一次查询要算 7 个 murmur 哈希 … 三层就是 21 次，全在单线程里排队", "003-seven-hashes-21"),
    _s("003", "坑二", "7 天滑动窗口 … 开销要乘以 7；P99 从 0.06ms 抖到了 0.4ms 以上", "003-seven-days-7x"),
    _s("003", "坑三", "删 key + 重建，代价是 3 到 5 分钟空窗期", "003-rebuild-3-5min"),
    _s("003", "坑三", "双写 + 影子读：新 key 先写，查询时新老两个都查，等新 key 追平再切", "003-dual-write"),
    _s("003", "坑三", "支持删除的选择是 Cuckoo Filter", "003-cuckoo-deletes"),
    _s("003", "坑三", "95% 负载因子下每元素约 12 bit，比布隆的 9.6 bit 还大", "003-cuckoo-12-bits"),
    _s("003", "坑三", "插入可能失败 … 踢出链太长这次插入就直接失败", "003-cuckoo-insert-fails"),
    _s("003", "坑三", "踢出链超过 500 的情况（项目里设的上限），插入失败率 0.03%", "003-cuckoo-0.03pct"),
    _s("003", "坑三", "0.03% … 在 1.2 亿的量级上就是 3.6 万次插入失败", "003-cuckoo-36000"),
    _s("003", "Roaring", "把 32 位整数切成高 16 位和低 16 位，高 16 位决定落在哪个 chunk", "003-roaring-high-16"),
    _s("003", "Roaring", "Array Container ≤ 4096 每个元素 2 字节；Bitmap Container > 4096 固定 8KB", "003-roaring-array-bitmap"),
    _s("003", "Roaring", "4096 × 2 = 8192 字节，正好等于 8KB", "003-roaring-4096"),
    _s("003", "Roaring", "1e8 / 65536 ≈ 1526 个 chunk … 1526 × 8192 ≈ 12.5 MB", "003-roaring-dense-12-5mb"),
    _s("003", "Roaring", "对比布隆的 137 MiB 加 1% 误判，差 11 倍", "003-roaring-11x"),
    _s("003", "Roaring", "1.2e8 / 65536 ≈ 1830 个元素 … 走 array container … 总共 240MB", "003-roaring-sparse-240mb"),
    _s("003", "Roaring", "Roaring64 … 内存优势也基本没了", "003-roaring64"),
    _s("003", "selection table", "ID 32 位内、区间稠密 → Roaring Bitmap，12.5MB/亿", "003-table-dense-roaring"),
    _s("003", "selection table", "ID 稀疏、64 位 → 布隆过滤器，1.2 字节/元素基本是天花板", "003-table-sparse-bloom"),
    _s("003", "selection table", "需要删除 + 数据量 5000 万以内 → Cuckoo Filter 或直接 Redis SET", "003-table-deletes-set"),
    _s("003", "selection table", "千万级以下 → Redis SET / intset", "003-table-small-set"),
    _s("003", "selection table", "只要算 UV 基数，允许 1% 误差 → HyperLogLog，12KB 固定开销", "003-table-count-hll", "003-hll-12kb", "003-hll-1pct"),
    _s("003", "selection table", "HyperLogLog 确实不能做存在性判断，它是估基数的", "003-hll-no-membership"),
    _s("003", "closing", "保留 7 个日 key，查询时做 7 次 OR；Roaring 的 OR 在应用进程内存里做", "003-roaring-window-or"),
    _s("003", "closing", "先去统计你的 ID 分布，画一张直方图，再决定用哪个", "003-histogram-first"),
    _s("003", "closing", "统计脚本其实二十行代码就能写完", "003-script-20-lines"),
    # -- seed 004: how many people read a post? ---------------------------------------------------
    _s("004", "§1", "setbit key offset value；getbit key offset（每个位置默认是 0）", "004-getbit-default-0"),
    _s("004", "§1", "bitcount bitmap001 0 1000000（按照范围统计为 1）", "004-range-in-bytes"),
    _s("004", "§1", "bitpos bitmap001 1 0 100（获取 0, 100 中第一个 1）", "004-bitpos-range"),
    _s("004", "§1", "它可以快速统计出有多少个 1，也可以快速统计某个区间内有多少个 1", "004-bitcount-fast", also=("004-range-in-bytes",)),
    _s("004", "§2.1", "setBit(\"bitMap10w_hash\", Murmur3.hash_x86_32(uuid …), true)（10w 个 UUID）", "004-hashed-setbit-code"),
    _s("004", "§2.1", "Math.abs(Murmur3.hash_x64_128(…)[0] % 100000)（bitMap10w_hash_size）", "004-hash-mod-1e5"),
    _s("004", "§2.1", "setbit bitMap_1_bitHash 1000000000 1", "004-setbit-1e9"),
    _s("004", "§2.2", "bitmap 偏移量越大，所占用的内存也就越大；通过uuid转成的hashCode值是很大的", "004-hashed-bitmap-huge"),
    _s("004", "§2.2", "incr就是自增的id，所以最大偏移量也就是 100000，占用内存当然很小", "004-dense-bitmap-small"),
    _s("004", "§2.3", "set10w_uuid = 100000 7；set10wIncr = 100000 3；bitMap10w_incr = 100000 35", "004-query-times"),
    _s("004", "§2.3", "bitMap10w_hash = 99998 141", "004-bitcount-99998", also=("004-query-times",)),
    _s("004", "§3", "offset = hash % size，这样计算的目的是防止hash大于 size", "004-hash-mod-size"),
    _s("004", "§3", "hashFunctions[i] = (int) (Math.random() * Integer.MAX_VALUE)（自定义多个hash函数）", "004-random-hash-functions"),
    _s("004", "§3", "new BloomFilter(redisTemplate, \"bloomFilter\", 10000, 3)", "004-java-constructor"),
    _s("004", "§3", "contains(\"element1\") // true；contains(\"element4\") // false", "004-java-bloom-works"),
    _s("004", "§3", "100w的空间所需要的内存也是极少的", "004-1e6-bits-small"),
    _s("004", "§3", "上面不限制大小的冲突是 0.002%", "004-0.002pct"),
    _s("004", "§3", "限制10w大小，生成 10w个数据的冲突是 36.84%", "004-36.84pct"),
    _s("004", "§4", "com.sangupta:murmur:1.0.0（Maven 依赖）", "004-maven-murmur"),
    _s("004", "§4", "在32位机器上计算hash hash_x86_32；在64位机器上计算hash hash_x64_128", "004-murmur-variants"),
)  # fmt: skip


def sentences(seed: str | None = None) -> list[SeedSentence]:
    """The enumerated sentences, or those of one seed."""
    return [s for s in SENTENCES if seed is None or s.seed == seed]
