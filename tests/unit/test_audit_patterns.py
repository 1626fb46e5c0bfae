"""Key patterns of ``setlab audit`` (setlab.tools.audit.patterns): what folds and what does not,
and the pattern table's bound on groups and memory.

References: key names of the published formats (WeChat openids: ``o`` and 27 base64url
characters; a base62 UUID; the ULID and KSUID specifications' own examples; a nanoid; the SHA-1
of nothing; a MongoDB ObjectId), names people give keys, and generators whose counts are known
(how many keys of each family were made, and their bytes).
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

from setlab.tools.audit import patterns
from setlab.tools.audit.patterns import GROUPS_KEPT, OTHER, PATTERNS_PER_SHAPE, PatternTable
from setlab.tools.audit.reader import KeyInfo
from setlab.tools.audit.report import Group

BASE64URL = np.frombuffer(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", np.uint8
)
LOWER = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)
HEX = np.frombuffer(b"0123456789abcdef", np.uint8)
CROCKFORD = np.frombuffer(b"0123456789ABCDEFGHJKMNPQRSTVWXYZ", np.uint8)


def _rows(rng: np.random.Generator, alphabet: np.ndarray, length: int, count: int) -> list[bytes]:
    return [bytes(row) for row in alphabet[rng.integers(0, alphabet.size, (count, length))]]


def openid_keys(count: int, seed: int = 0) -> list[bytes]:
    """``openid:`` and an openid: ``o`` and 27 random base64url characters."""
    return [b"openid:o" + body for body in _rows(np.random.default_rng(seed), BASE64URL, 27, count)]


# -- what folds ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, folded",
    [
        ("openid:oLVPpjqs9BhvzwPj5A-vTYAX3GLc", "openid:{token}"),  # a WeChat openid
        ("short:vytxeTZskVKR7C7WgdSP3d", "short:{token}"),  # a base62 UUID (22)
        ("order:01ARZ3NDEKTSV4RRFFQ69G5FAV", "order:{token}"),  # the ULID spec's example
        ("event:0ujtsYcgvSTl8PAuAdqWYSMnLOv", "event:{token}"),  # the KSUID README's example
        ("nano:V1StGXR8_Z5jdHi6B-myT", "nano:{token}"),  # nanoid's README example
        ("blob:dGhpcyBpcyBhIHRlc3Q=", "blob:{token}"),  # base64 with its padding
        ("sess:k3j4h5g6f7d8s9a0x1", "sess:{token}"),  # base36
        ("git:da39a3ee5e6b4b0d3255bfef95601890afd80709", "git:{hex}"),  # SHA-1 of nothing
        ("mongo:507f1f77bcf86cd799439011", "mongo:{hex}"),  # an ObjectId
        ("device:0f3a9c2e1b7d4455:seen", "device:{hex}:seen"),
        ("session:5f1c2a3b-9d8e-4f70-a1b2-c3d4e5f60718", "session:{uuid}"),
        ("user:alice.smith+redis@mail.example.co.uk:cart", "user:{email}:cart"),
        ("like:bit:42", "like:bit:{n}"),
        ("stats:2026-12-07:v2", "stats:{n}-{n}-{n}:v{n}"),
        (b"bin:\xff\xfe:1", "bin:\\xff\\xfe:{n}"),
    ],
)
def test_each_kind_of_token_folds_and_the_words_around_it_stay(key, folded):
    assert patterns.pattern(key) == folded


@pytest.mark.parametrize(
    "key",
    [
        "user:profile",
        "rate-limit:per-minute",
        "cafebabe",  # hex without a digit is a word
        "internationalization:strings",
        "cache:getUserProfileById",
        "orderHistoryByCustomer",
        "HTTPServerError:count",
        "queue:emailNotificationsHighPriority",
        "SpringCacheUserProfiles::",
        "translations:en_US",
        "short:aZkQxPmW",  # a short token: too short to tell from a word
    ],
)
def test_names_do_not_fold(key):
    assert patterns.pattern(key) == key


@pytest.mark.parametrize(
    "key, folded",
    [
        ("user_sessions_archive_2024", "user_sessions_archive_{n}"),
        ("feature_flags:enableNewCheckoutFlowV2", "feature_flags:enableNewCheckoutFlowV{n}"),
        ("x86_64:builds", "x{n}_{n}:builds"),
    ],
)
def test_names_with_numbers_keep_their_words(key, folded):
    assert patterns.pattern(key) == folded


def test_a_pattern_is_cut_and_a_huge_key_is_not_read_whole():
    key = b"name:" + b"a" * (64 << 20)  # 64 MiB, all one word
    start = time.perf_counter()
    folded = patterns.pattern(key)
    assert len(folded) == patterns.PATTERN_CHARS and folded.endswith("…")
    assert time.perf_counter() - start < 0.05


def test_most_openids_fold_on_their_own():
    keys = openid_keys(20_000, seed=1)
    folded = sum(patterns.pattern(k) == "openid:{token}" for k in keys)
    assert folded >= 0.97 * len(keys)  # about one in a hundred reads as words (the doc)


# -- the table -------------------------------------------------------------------------------------


def _table(keys: list[bytes | str], size: int = 100) -> PatternTable[Group]:
    table = PatternTable(Group)
    info = KeyInfo(b"", "string", "embstr", bytes=size)
    for key in keys:
        table.group(key, "string").add(info, [])
    return table


def test_every_openid_is_in_one_group_those_read_as_words_too():
    keys = openid_keys(100_000, seed=2)
    groups = _table(keys).result()
    assert [(g.pattern, g.keys, g.bytes) for g in groups] == [
        ("openid:{token}", 100_000, 100 * 100_000)
    ]


NAMES = ["getUserProfileById", "listOrdersByCustomer", "searchProductsByTag",
         "countActiveSessions", "loadShoppingCartItems", "fetchInvoiceHistory",
         "resolveShippingZones", "computeLoyaltyPoints", "checkInventoryLevels",
         "renderEmailTemplate", "refreshExchangeRates", "rebuildSearchIndex"]  # fmt: skip


def test_names_keep_their_groups_beside_tokens_in_the_same_place():
    tokens = [k.replace(b"openid:", b"cache:") + b":1" for k in openid_keys(2000, seed=5)]
    names = [f"cache:{n}:{i}".encode() for n in NAMES[:PATTERNS_PER_SHAPE] for i in range(50)]
    order = np.random.default_rng(6).permutation(len(tokens) + len(names))
    groups = {g.pattern: g.keys for g in _table([[*tokens, *names][i] for i in order]).result()}
    # the tokens read as words (about 20) joined the others; each name kept its group
    assert set(groups) == {"cache:{token}:{n}"} | {
        f"cache:{n}:{{n}}" for n in NAMES[:PATTERNS_PER_SHAPE]
    }
    assert groups["cache:{token}:{n}"] >= 2000 and sum(groups.values()) == 2500
    assert min(groups.values()) >= 45  # a name seen once may lose that key to the tokens


def test_past_its_share_of_names_a_place_keeps_the_names_with_keys_of_their_own():
    sizes = {n: 10 * (i + 1) for i, n in enumerate(NAMES)}  # 10, 20, … 120 keys
    keys = [f"cache:{n}:{i}" for n in NAMES for i in range(sizes[n])]
    order = np.random.default_rng(7).permutation(len(keys))
    groups = {g.pattern: g.keys for g in _table([keys[i] for i in order]).result()}
    apart = {p: k for p, k in groups.items() if p != "cache:{token}:{n}"}
    assert len(apart) == PATTERNS_PER_SHAPE and sum(groups.values()) == len(keys)
    for n in NAMES[-5:]:  # the biggest names keep their group, nearly whole
        assert apart[f"cache:{n}:{{n}}"] >= 0.95 * sizes[n]


def _word(i: int) -> str:
    """The ``i``-th word of four lower-case letters or more (``aaaa``, ``aaab``, …)."""
    letters = ""
    while i or len(letters) < 4:
        i, digit = divmod(i, 26)
        letters = chr(ord("a") + digit) + letters
    return letters


def test_past_the_cap_the_biggest_groups_stay_and_the_rest_is_one_other_group():
    rng = np.random.default_rng(3)
    sizes = rng.permutation(np.arange(1, 5 * GROUPS_KEPT + 1))  # one key a pattern, sizes known
    table: PatternTable[Group] = PatternTable(Group)
    for i, size in enumerate(sizes.tolist()):
        name = f"tenant-{_word(i)}:config"  # lower-case words: no rule folds them
        table.group(name, "hash").add(KeyInfo(b"", "hash", "listpack", bytes=size), [])
        assert table.held <= 2 * GROUPS_KEPT
    groups = table.result()
    assert len(groups) == GROUPS_KEPT + 1 and groups[-1].pattern == OTHER
    kept = sorted(g.bytes for g in groups[:-1])
    assert kept == sorted(sizes.tolist())[-GROUPS_KEPT:]  # the biggest, whatever their order
    assert sum(g.keys for g in groups) == sizes.size
    assert sum(g.bytes for g in groups) == sum(sizes)
    assert f"top {GROUPS_KEPT:,}" in OTHER


def _fixed(rng: np.random.Generator, count: int, *parts: bytes | np.ndarray | int) -> list[bytes]:
    """``count`` keys, each the concatenation of ``parts``: bytes as they are, and for an
    ``(alphabet, length)`` pair ``length`` characters drawn from ``alphabet``."""
    columns = []
    for part in parts:
        if isinstance(part, bytes):
            columns.append(np.broadcast_to(np.frombuffer(part, np.uint8), (count, len(part))))
        else:
            alphabet, length = part
            columns.append(alphabet[rng.integers(0, alphabet.size, (count, length))])
    rows = np.ascontiguousarray(np.concatenate(columns, axis=1))
    return rows.view(f"S{rows.shape[1]}").ravel().tolist()


def _mixed_keys(count: int, seed: int) -> tuple[list[bytes], list[str], list[int], dict[str, int]]:
    """``count`` keys of seven shapes in random order, their types and bytes, and how many
    keys each folding family holds. Two shapes defeat folding on purpose, one key in ten: names
    of tenants (lower-case words, 26^6 of them) and names of 195 characters past U+FFFF (the
    longest patterns, four bytes a character)."""
    rng = np.random.default_rng(seed)
    share = {"openid:{token}": 0.45, "session:{token}": 0.1, "device:{hex}:seen": 0.1,
             "order:{token}": 0.1, "user:{email}:cart": 0.15, "tenant": 0.08,
             "wide": 0.02}  # fmt: skip
    n = {name: round(count * part) for name, part in share.items()}
    digits = np.frombuffer(b"0123456789", np.uint8)
    made = {
        "openid:{token}": _fixed(rng, n["openid:{token}"], b"openid:o", (BASE64URL, 27)),
        "session:{token}": _fixed(rng, n["session:{token}"], b"session:", (BASE64URL[:62], 22)),
        "device:{hex}:seen": _fixed(rng, n["device:{hex}:seen"], b"device:", (HEX, 16), b":seen"),
        "order:{token}": _fixed(rng, n["order:{token}"], b"order:", (CROCKFORD, 26)),
        "user:{email}:cart": _fixed(rng, n["user:{email}:cart"], b"user:", (LOWER, 6),
                                    (digits, 9), b"@example.com:cart"),
        "tenant": _fixed(rng, n["tenant"], b"tenant-", (LOWER, 6), b":config:", (digits, 9)),
    }  # fmt: skip
    wide = np.array([ord(c) for c in "𝔞𝔟𝔠𝔡𝔢𝔣𝔤𝔥"], dtype=np.uint32)
    points = wide[rng.integers(0, wide.size, (n["wide"], 195))]
    made["wide"] = [b"name:" + name.encode() for name in points.view("U195").ravel().tolist()]
    keys = [key for family in made.values() for key in family]
    types = [t for name, family in made.items()
             for t in ["hash" if name.startswith("device") else "string"]
             * len(family)]  # fmt: skip
    order = rng.permutation(len(keys))
    families = {name: len(family) for name, family in made.items() if "{" in name}
    sizes = rng.integers(40, 400, len(keys)).tolist()
    return [keys[i] for i in order], [types[i] for i in order], sizes, families


def test_a_table_full_of_the_longest_patterns_stays_under_its_bound():
    """Every group held with a pattern of PATTERN_CHARS characters past U+FFFF (four bytes
    each), the table folding again and again: the worst case of patterns.GROUP_BYTES."""
    rng = np.random.default_rng(8)
    wide = np.array([ord(c) for c in "𝔞𝔟𝔠𝔡𝔢𝔣𝔤𝔥"], dtype=np.uint32)
    names = wide[rng.integers(0, wide.size, (3 * GROUPS_KEPT, patterns.PATTERN_CHARS + 20))]
    keys = [name.encode() for name in names.view(f"U{names.shape[1]}").ravel().tolist()]
    table: PatternTable[Group] = PatternTable(Group)
    info = KeyInfo(b"", "string", "embstr", bytes=100)
    tracemalloc.start()
    try:
        for key in keys:
            table.group(key, "string").add(info, [])
        peak = tracemalloc.get_traced_memory()[1]
        groups = table.result()
    finally:
        tracemalloc.stop()
    assert table.held == GROUPS_KEPT and len(groups) == GROUPS_KEPT + 1
    assert all(len(g.pattern) == patterns.PATTERN_CHARS for g in groups[:-1])
    assert peak < patterns.MEMORY_BOUND, f"{peak / 2**20:.1f} MiB"


def test_a_million_keys_fold_into_at_most_the_cap_in_bounded_memory():
    """10^6 keys: token families fold to one group each, names that do not fold push the
    table past its cap again and again; the groups stay at most GROUPS_KEPT + 1 and the
    grouping's peak (tracemalloc) under patterns.MEMORY_BOUND. The peak is traced over the
    first quarter — the table folds over ten times its cap into 'other' there, and holds no more
    groups after — because tracing triples the grouping's time."""
    keys, types, sizes, families = _mixed_keys(1_000_000, seed=4)
    table: PatternTable[Group] = PatternTable(Group)
    info = KeyInfo(b"", "string", "embstr")
    traced = len(keys) // 4
    tracemalloc.start()
    try:
        for key, kind, size in zip(keys[:traced], types, sizes, strict=False):
            info.bytes = size
            table.group(key, kind).add(info, [])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert table.folded > 10 * GROUPS_KEPT, "the traced part pushed the table past its cap"
    for key, kind, size in zip(keys[traced:], types[traced:], sizes[traced:], strict=True):
        info.bytes = size
        table.group(key, kind).add(info, [])
    groups = table.result()
    assert len(groups) <= GROUPS_KEPT + 1 and groups[-1].pattern == OTHER
    assert peak < patterns.MEMORY_BOUND, f"{peak / 2**20:.1f} MiB"
    by_pattern = {g.pattern: g.keys for g in groups}
    assert {p: by_pattern.get(p) for p in families} == families
    assert sum(g.keys for g in groups) == len(keys)
    assert sum(g.bytes for g in groups) == sum(sizes)
