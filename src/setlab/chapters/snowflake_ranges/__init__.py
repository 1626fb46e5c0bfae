"""Chapter "Snowflake IDs vs a 2^32 offset space" (seed 000 §4, §7.6).

The chapter's seed constants, fixed experiments (an ID stream, one post's likers, Leaf runs, two
fakeredis replies), tables, figures (:data:`FIGURES`) and claims (in seed order, in
:mod:`~setlab.chapters.snowflake_ranges.claims`). Each figure is computed once, from
:mod:`setlab.models.snowflake` and stored reference data, and read by page and verdict table
alike; what depends on this run the page glues under ``live-`` names beside them.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import redis

from setlab.chapters import open_page
from setlab.chapters.snowflake_ranges import claims
from setlab.core.formats import format_bytes, format_count
from setlab.core.hashing import java_long_hash64
from setlab.lab import backend
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, live_or_reference
from setlab.lab.runs.dense_map import DenseMap, DenseMapReference, MapMemory, measure_map_memory
from setlab.models import bitmap
from setlab.models.hashed_offsets import colliding_fraction, rank_correlation
from setlab.models.snowflake import (
    JS_MAX_SAFE_INTEGER,
    SEED_000,
    SEED_000_ID,
    SEED_MODULUS_AS_PRINTED,
    SEED_MODULUS_INTENDED,
    TWITTER,
    TWITTER_EPOCH_MS,
    LeafRun,
    LeafSegments,
    ModBias,
    abs_mod_bias,
    first_seen_ranks,
    float64_spacing,
    java_offset,
    js_number_string,
    simulate_stream,
    unsigned_offset,
    utc,
)
from setlab.render.claims import Figures

FIGURES = Figures("snowflake-ranges")

# -- the seed's figures ----------------------------------------------------------------------------

#: Seed 000 §4.1's "typical" ID (also the item ID of §1).
SEED_ID = SEED_000_ID  # seed 000 §4's example ID
#: Seed 000 §4.3's example rows: user ID → (the hash it prints, the offset it prints).
SEED_ROWS = {
    1: (0x7A3B2C1D4E5F6A7B, 1_823_456_789),
    2: (0x1234567890ABCDEF, 3_456_789_012),
    100: (0xFEDCBA0987654321, 987_654_321),
}
#: Seed 000 §7.6's example of a number JavaScript cannot hold.
SEED_JS_NUMBER = 1234567890123456789

# -- the chapter's fixed experiments (scale 1) ------------------------------------------------

#: The simulated stream: from the seed's ID, 30 s, 4 machines, 2,000 requests a second plus two
#: sign-up bursts of 20,000 in one millisecond each (``span_s`` grows with the scale).
STREAM = {"span_s": 30.0, "machines": 4, "rate_per_s": 2_000.0, "bursts": 2,
          "burst_size": 20_000, "seed": 7}  # fmt: skip
#: Users of the stream who like one post (a sample, in the order they like; grows with the scale).
LIKERS = 20_000
LIKERS_SEED = 7
#: Leaf runs: 4 servers, 200,000 IDs (grows with the scale), 8 restarts, for several steps.
LEAF = {"servers": 4, "requests": 200_000, "restarts": 8, "seed": 3}
LEAF_STEPS = (10, 100, 1_000, 10_000, 100_000)
#: The Leaf step the prose and the verdict table quote.
LEAF_STEP = 1_000
#: Users the seed's code as printed maps (consecutive IDs from the seed's millisecond).
PRINTED_USERS = 2_000
#: New users mapped by the Lua dense map for the verdict table (embedded fakeredis).
DENSE_USERS = 2_000


def start() -> Lab:
    """Open the page: the lab and its banner, every figure glued (:func:`open_page`)."""
    return open_page(FIGURES)


@cache
def stream_ids(scale: float = 1.0) -> np.ndarray:
    """The chapter's simulated stream (:data:`STREAM`), in the order the IDs were minted."""
    params = {**STREAM, "span_s": STREAM["span_s"] * scale}
    return simulate_stream(start_unix_ms=SEED_000.unix_ms(SEED_ID), **params)


@cache
def hashed_offsets(scale: float = 1.0) -> np.ndarray:
    """Each stream ID's offset the way the seed meant it: hash64's low 32 bits."""
    return np.array([unsigned_offset(int(i)) for i in stream_ids(scale)], dtype=np.int64)


@cache
def likers(scale: float = 1.0) -> np.ndarray:
    """:data:`LIKERS` × scale distinct users of the stream, in the order they like the post."""
    rng = np.random.default_rng(LIKERS_SEED)
    return rng.choice(stream_ids(scale), size=int(LIKERS * scale), replace=False)


@cache
def leaf_runs(scale: float = 1.0) -> dict[int, LeafRun]:
    """One :class:`LeafSegments` run per step of :data:`LEAF_STEPS`."""
    requests = int(LEAF["requests"] * scale)
    return {
        step: LeafSegments(step, LEAF["servers"]).run(requests, LEAF["restarts"], LEAF["seed"])
        for step in LEAF_STEPS
    }


@dataclass(frozen=True)
class EmbeddedReplies:
    """What the embedded fakeredis answers the two experiments the verdict table quotes."""

    setbit_error: str  #: the reply to SETBIT at the seed's ID
    dense_max: int  #: the largest int the Lua map hands :data:`DENSE_USERS` new users
    dense_issued: int  #: numbers the map's counter handed out


@cache
def embedded_replies() -> EmbeddedReplies:
    """Run the two tiny experiments on an embedded fakeredis (the same on every machine)."""
    lab = backend.connect("claims-snowflake", backend="fake", quiet=True)
    lab.cleanup()
    try:
        try:
            lab.r.setbit(lab.key("claims", "likes"), SEED_ID, 1)
            error = "no error"
        except redis.ResponseError as err:
            error = f"{err.status_code} {err}"
        dense = DenseMap.for_lab(lab, "claims-dense")
        ints = dense.lookup_many(range(SEED_ID, SEED_ID + DENSE_USERS))
        return EmbeddedReplies(error, max(ints), dense.issued())
    finally:
        lab.cleanup()


def map_memory(lab: Lab) -> Measurement[MapMemory]:
    """What the dense map of the :data:`LIKERS` likers costs (``MEMORY USAGE``): measured on
    ``lab`` when it is a real Redis, else the stored reference run."""
    stored = DenseMapReference.load()
    return live_or_reference(
        lab,
        lambda live: measure_map_memory(live, likers().tolist()),
        lambda: stored.at(LIKERS),
        needs=("real", "memory_usage"),
        run_info=stored.run,
    )


def map_memory_text(memory: MapMemory) -> str:
    """The map's cost in one phrase: total, encoding, per user, and at 100 million users."""
    return (
        f"{format_bytes(memory.bytes)} for {format_count(memory.users)} users "
        f"({memory.encoding} encoding), {memory.per_user:.0f} bytes per user; at 100 million "
        f"users that is about {format_bytes(memory.per_user * 1e8)} in one key"
    )


# -- Markdown tables -----------------------------------------------------------------------------


def _table(header: Sequence[str], align: str, rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table; ``align`` has one character per column, "l" or "r"."""
    rule = {"l": ":--", "r": "--:"}
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def example_rows_markdown() -> str:
    """The seed's three example rows beside what its code computes with a real hash64."""
    header = ["userId", "seed's hash64", "seed's offset", "seed's hash % 2^32", "mmh3 hash64",
              "as printed (% 29)", "as meant (% 4294967295)",
              "low 32 bits of the hash"]  # fmt: skip
    rows = [
        (
            user,
            f"`{their_hash:#018x}`",
            f"{their_offset:,}",
            f"{their_hash % 2**32:,}",
            f"`{java_long_hash64(user) % 2**64:#018x}`",
            java_offset(user),
            f"{java_offset(user, SEED_MODULUS_INTENDED):,}",
            f"{unsigned_offset(user):,}",
        )
        for user, (their_hash, their_offset) in SEED_ROWS.items()
    ]
    return _table(header, "rrrrrrrr", rows)


def bias_markdown() -> str:
    """How each modulus spreads all 2^64 hash values, and what it makes of Long.MIN_VALUE."""
    header = ["modulus", "offsets it can produce", "likeliest vs least likely offset",
              "`Math.abs(Long.MIN_VALUE) % m`"]  # fmt: skip
    rows = []
    for name, m in [
        ("as printed, `2^32 - 1` = 29", SEED_MODULUS_AS_PRINTED),
        ("as meant, 2^32 − 1", SEED_MODULUS_INTENDED),
        ("2^32 (`floorMod(h, 1L << 32)` gives the same)", 2**32),
    ]:
        bias = abs_mod_bias(m)
        rows.append((name, f"0 … {m - 1:,}", f"+{bias.excess:.2g}", f"{bias.min_value_result:,}"))
    return _table(header, "llrr", rows)


def leaf_markdown(runs: dict[int, LeafRun], requests: int) -> str:
    """Database round trips, IDs lost and the highest ID for each Leaf step."""
    restarts = next(iter(runs.values())).restarts
    header = ["step", "database round trips", f"IDs lost to {restarts} restarts",
              "highest ID (offset)", "IDs used / highest"]  # fmt: skip
    rows = [
        (
            f"{step:,}",
            f"{run.db_fetches:,}",
            f"{run.lost:,}",
            f"{run.max_id:,}",
            f"{requests / run.max_id:.1%}",
        )
        for step, run in runs.items()
    ]
    return _table(header, "rrrrr", rows)


def commands_markdown(sent: Mapping[str, Sequence[Counter]]) -> str:
    """:func:`~setlab.lab.runs.dense_map.commands_sent` as a table: one row per way of finding
    the offset, the commands of its first call (a new user) and of its second (the same user
    again), each as ``NAME ×count``, or "none"."""
    rows = [
        (name, *(", ".join(f"{c} ×{n}" for c, n in call.items()) or "none" for call in calls[:2]))
        for name, calls in sent.items()
    ]
    return _table(["offset from", "new user", "same user again"], "lll", rows)


def side_by_side_markdown() -> str:
    """The four ways to get an offset, at scale 1: round trips, memory, range, what breaks."""
    leaf = leaf_runs()[LEAF_STEP]
    n_ids = FIGURES["sf-stream-n"]
    rows = [
        ("hash64 mod 2^32", "1 (the SETBIT)", "none",
         f"≈ 2^32 from the first like ({FIGURES['sf-hash-bytes']})",
         f"a first like allocates hundreds of MB; {FIGURES['sf-hash-colliding']} of these {n_ids} "
         f"users share a bit ({FIGURES['sf-hash-pairs']} colliding pairs expected; collisions "
         "grow as n²)"),
        ("low 32 bits of the ID", "1", "none", "≈ 2^32",
         f"{FIGURES['sf-low32-share']} of the same users share a bit (ms mod 1024, machine, "
         "sequence)"),
        ("Lua map on Redis", "2 (EVALSHA + SETBIT)",
         f"the map: {FIGURES['sf-map-per-user']} B per user", "n − 1",
         "the map is state to persist, and a big key; both keys in one Cluster slot"),
        ("Leaf segment at sign-up", "1 (the ID is a user column)", "a database row",
         f"n + lost IDs ({LEAF['requests'] / leaf.max_id:.1%} dense here)",
         "a DB and a service; gaps of up to 2 × step per restart"),
    ]  # fmt: skip
    header = ["offset from", "round trips per like", "extra memory", "highest offset, n users",
              "what breaks"]  # fmt: skip
    return _table(header, "lllll", rows)


# -- figures: the seed's ID ---------------------------------------------------------------------


FIGURES.add("sf-seed-id", lambda: str(SEED_ID))
FIGURES.add("sf-seed-id-short", lambda: f"{SEED_ID:.3g}")
FIGURES.add("sf-seed-minted", lambda: f"{SEED_000.minted_at(SEED_ID):%Y-%m-%d %H:%M:%S} UTC")
FIGURES.add("sf-seed-date", lambda: f"{SEED_000.minted_at(SEED_ID):%Y-%m-%d}")
FIGURES.add("sf-seed-ts", lambda: f"{SEED_000.decode(SEED_ID)['timestamp']:,}")
FIGURES.add("sf-seed-machine", lambda: str(SEED_000.decode(SEED_ID)["machine"]))
FIGURES.add("sf-seed-seq", lambda: str(SEED_000.decode(SEED_ID)["sequence"]))


@FIGURES.figure("sf-seed-dc-worker")
def _seed_dc_worker() -> str:
    return "datacenter {datacenter}, worker {worker}".format(**TWITTER.decode(SEED_ID))


FIGURES.add("sf-seed-digits", lambda: str(len(str(SEED_ID))))
FIGURES.add("sf-seed-log2", lambda: f"{math.log2(SEED_ID):.2f}")


# -- figures: how far from 2^32 ------------------------------------------------------------------


FIGURES.add("sf-ratio-range", lambda: f"{2**63 / 2**32:.3g}")
FIGURES.add("sf-ratio-seed", lambda: f"{SEED_ID / 2**32:.3g}")
FIGURES.add("sf-cross-32", lambda: f"{TWITTER.ms_until_above(2**32) / 1000:.3f} s")
FIGURES.add("sf-cross-53", lambda: f"{TWITTER.ms_until_above(2**53) / 86_400_000:.1f} days")


@FIGURES.figure("sf-cross-53-date")
def _cross_53_date() -> str:
    return f"{utc(TWITTER_EPOCH_MS + TWITTER.ms_until_above(2**53)):%Y-%m-%d}"


@FIGURES.figure("sf-20yi-year")
def _two_billion_year() -> str:  # when IDs reach two billion times 2^32
    return f"{utc(TWITTER_EPOCH_MS + TWITTER.ms_until_above(2_000_000_000 * 2**32)):%Y}"


FIGURES.add("sf-end-date", lambda: f"{utc(TWITTER.last_unix_ms):%Y-%m-%d}")
FIGURES.add("sf-setbit-error", lambda: embedded_replies().setbit_error)


# -- figures: the seed's mapping, read the way Java reads it -------------------------------------


def _printed_offsets() -> set[int]:
    """Offsets of :data:`PRINTED_USERS` users under the code as printed (% 29): IDs minted in
    the milliseconds before the seed's, one per millisecond, on workers 0-31."""
    start = SEED_000.unix_ms(SEED_ID)
    return {java_offset(TWITTER.id_at(start - k, worker=k % 32)) for k in range(PRINTED_USERS)}


_PRINTED = SEED_MODULUS_AS_PRINTED


def _meant() -> ModBias:
    """How ``Math.abs(h) % (2^32 - 1)``, the modulus the seed meant, spreads every hash."""
    return abs_mod_bias(SEED_MODULUS_INTENDED)


FIGURES.add("sf-printed-modulus", lambda: str(_PRINTED))
FIGURES.add("sf-printed-max", lambda: str(_PRINTED - 1))


FIGURES.add("sf-printed-max-bytes", lambda: str(bitmap.bytes_for_offset(_PRINTED - 1)))
FIGURES.add("sf-printed-users", lambda: format_count(PRINTED_USERS))
FIGURES.add("sf-printed-offsets", lambda: str(len(_printed_offsets())))


@FIGURES.figure("sf-printed-bytes")
def _printed_bytes() -> str:
    return format_bytes(bitmap.bytes_for_offset(max(_printed_offsets())))


FIGURES.add("sf-pigeonhole", lambda: str(_PRINTED + 1))
FIGURES.add("sf-excess-meant", lambda: f"{_meant().excess:.2g}")


FIGURES.add("sf-bias-extra", lambda: str(_meant().most - _meant().least))
FIGURES.add("sf-bias-least", lambda: format_count(_meant().least))
FIGURES.add("sf-minval-meant", lambda: f"{_meant().min_value_result:,}")
FIGURES.add("sf-minval-printed", lambda: f"{abs_mod_bias(_PRINTED).min_value_result:,}")
FIGURES.add("sf-expected-offset", lambda: f"{(SEED_MODULUS_INTENDED - 1) // 2:,}")
FIGURES.add(
    "sf-expected-bytes",
    lambda: format_bytes(bitmap.bytes_for_offset((SEED_MODULUS_INTENDED - 1) // 2)),
)


@FIGURES.figure("sf-example-remainders")
def _example_remainders() -> str:
    return ", ".join(f"{h % 2**32:,}" for h, _ in SEED_ROWS.values())


# -- figures: the simulated stream ---------------------------------------------------------------


FIGURES.add("sf-stream-n", lambda: format_count(len(stream_ids())))
FIGURES.add("sf-stream-machines", lambda: format_count(STREAM["machines"]))
FIGURES.add("sf-stream-rate", lambda: format_count(STREAM["rate_per_s"]))
FIGURES.add("sf-stream-bursts", lambda: format_count(STREAM["bursts"]))
FIGURES.add("sf-stream-burst", lambda: format_count(STREAM["burst_size"]))
FIGURES.add("sf-stream-span", lambda: f"{STREAM['span_s']:g} seconds")
FIGURES.add("sf-likers-n", lambda: format_count(len(likers())))


@FIGURES.figure("sf-rho-time")
def _rho_time() -> str:
    ids = stream_ids()
    return f"{rank_correlation(np.arange(len(ids)), ids).statistic:.6f}"


_RHO = lambda: rank_correlation(stream_ids(), hashed_offsets())  # noqa: E731
FIGURES.add("sf-rho-hash", lambda: f"{_RHO().statistic:+.4f}")
FIGURES.add("sf-rho-hash-p", lambda: f"{_RHO().pvalue:.2f}")


@FIGURES.figure("sf-hash-bytes")
def _hash_bytes() -> str:  # the bitmap the median hashed offset needs
    return format_bytes(bitmap.bytes_for_offset(int(np.median(hashed_offsets()))))


@FIGURES.figure("sf-hash-colliding")
def _hash_colliding() -> str:
    return str(round(colliding_fraction(hashed_offsets()) * len(stream_ids())))


@FIGURES.figure("sf-hash-pairs")
def _hash_pairs() -> str:  # expected colliding pairs for a uniform hash into 2^32
    n = len(stream_ids())
    return f"{n * (n - 1) / 2 / 2**32:.1f}"


FIGURES.add("sf-low32-share", lambda: f"{colliding_fraction(stream_ids() & 0xFFFFFFFF):.1%}")


# -- figures: dense offsets ------------------------------------------------------------------------


def _ranks() -> np.ndarray:
    """The dense int of each liker (what the Lua map hands out, in like order)."""
    return first_seen_ranks(likers())


FIGURES.add("sf-dense-max", lambda: format_count(int(_ranks().max())))
# the bitmap with the largest dense int set
FIGURES.add("sf-dense-strlen", lambda: format_bytes(bitmap.bytes_for_offset(int(_ranks().max()))))


# the counter hands out one number per distinct liker
FIGURES.add("sf-dense-issued", lambda: format_count(len(np.unique(likers()))))


FIGURES.add("sf-rho-dense", lambda: f"{rank_correlation(likers(), _ranks()).statistic:+.4f}")


@FIGURES.figure("sf-map-memory")
def _map_memory() -> str:
    stored = DenseMapReference.load()
    return f"{map_memory_text(stored.at(LIKERS))} ({stored.run.label})"


FIGURES.add("sf-map-per-user", lambda: f"{DenseMapReference.load().at(LIKERS).per_user:.0f}")
FIGURES.add("sf-claim-dense-max", lambda: f"{embedded_replies().dense_max:,}")
FIGURES.add("sf-claim-dense-users", lambda: f"{DENSE_USERS:,}")


def _leaf() -> LeafRun:
    return leaf_runs()[LEAF_STEP]


FIGURES.add("sf-leaf-servers", lambda: format_count(LEAF["servers"]))
FIGURES.add("sf-leaf-restarts", lambda: format_count(LEAF["restarts"]))
FIGURES.add("sf-leaf-step", lambda: format_count(LEAF_STEP))
FIGURES.add("sf-leaf-requests", lambda: format_count(LEAF["requests"]))
FIGURES.add("sf-leaf-fetches", lambda: format_count(_leaf().db_fetches))
FIGURES.add("sf-leaf-lost", lambda: format_count(_leaf().lost))
FIGURES.add("sf-leaf-max", lambda: format_count(_leaf().max_id))


@FIGURES.figure("sf-leaf-rho")
def _leaf_rho() -> str:  # IDs in the order issued against time
    ids = _leaf().ids
    return f"{rank_correlation(np.arange(ids.size), ids).statistic:.4f}"


# -- figures: JavaScript ---------------------------------------------------------------------------


FIGURES.add("sf-js-print", lambda: js_number_string(float(SEED_JS_NUMBER)))
FIGURES.add("sf-js-exact", lambda: str(int(float(SEED_JS_NUMBER))))
FIGURES.add("sf-js-max-safe", lambda: f"{JS_MAX_SAFE_INTEGER:,}")
FIGURES.add("sf-js-max-digits", lambda: str(len(str(JS_MAX_SAFE_INTEGER))))
FIGURES.add("sf-js-spacing", lambda: str(float64_spacing(SEED_JS_NUMBER)))
FIGURES.add("sf-js-seed", lambda: js_number_string(float(SEED_ID)))
FIGURES.add("sf-js-spacing-seed", lambda: str(float64_spacing(SEED_ID)))
FIGURES.add("sf-js-same", lambda: str(float(SEED_ID) == float(SEED_ID + 1)))


@FIGURES.figure("sf-js-round-trip")
def _js_round_trip() -> str:
    wire = json.dumps({"id": str(SEED_JS_NUMBER)})
    return str(json.loads(wire)["id"] == str(SEED_JS_NUMBER))


# exercise 1: a layout that stores Unix milliseconds (epoch 0)


@FIGURES.figure("sf-ex1-years")
def _ex1_years() -> str:
    return f"{SEED_000.max_value('timestamp') / (365.25 * 86_400_000):.1f}"


FIGURES.add("sf-ex1-end", lambda: f"{utc(SEED_000.max_value('timestamp')):%B %Y}")


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
