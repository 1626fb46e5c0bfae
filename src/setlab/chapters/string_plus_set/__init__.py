"""Chapter "String + Set: the fix, and its own bugs": its seed figures, claims and tables.

Memory figures come from the models (:mod:`setlab.models.redis_memory`, exact against ``MEMORY
USAGE`` on Redis 7.0.15 / jemalloc 5.3, and :mod:`setlab.models.bitmap`); the race and the
missing-key reply come from a tiny deterministic run of :mod:`setlab.lab.runs.like_service` on an
embedded fakeredis, so the page reads the same on every backend. The race under load
(:func:`counters_under_load`) is the page's own run, on its lab.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

import numpy as np

from setlab.chapters import open_page
from setlab.chapters.string_plus_set import claims
from setlab.core.formats import format_bytes
from setlab.lab import backend, reference
from setlab.lab.backend import Lab
from setlab.lab.reference import Measurement, beside
from setlab.lab.runs import like_service
from setlab.lab.runs import memory as memory_runs
from setlab.lab.runs.memory import SetMemoryReference
from setlab.models import bitmap, redis_memory
from setlab.render.claims import Figures

FIGURES = Figures("string-plus-set")

#: Seeds the page's sample of one user's liked post ids (snowflake-sized integers).
POST_ID_SEED = 7
#: How many posts the sample user likes (below set-max-intset-entries: an intset).
SAMPLE_LIKES = 300
#: A like counter's value on the page (a string Redis stores as an integer).
SAMPLE_COUNT = 123_456
#: The seed's comparison (000 §7.5): one post liked by this many users.
LIKER_COUNTS = (10_000, 100_000_000)
#: Key of one post's bitmap in the seed's bitmap design.
BITMAP_KEY = "like:bit:1:42"
#: Seed 000 §7.2: a user likes "几百~几千" (hundreds to thousands) posts; its upper end, past
#: set-max-intset-entries (512), where the user's Set is a hashtable.
HEAVY_USER_LIKES = 3_000
#: The race under real concurrency (:func:`counters_under_load`): 16 threads, each doing 300
#: likes (only likes, so every counter error is a double count) over 20 users and 20 posts.
LOAD = {"threads": 16, "operations": 300, "users": 20, "targets": 20, "like_share": 1.0, "seed": 1}
#: The two likes :func:`counters_under_load` runs, by name: the seed's check-then-act
#: (``seed_version=True``) and the like gated on ``SADD``'s reply.
VERSIONS = {"as the seed wrote it": True, "gated on SADD's reply": False}


def start() -> Lab:
    """Open the page (:func:`open_page`), then name the two keys the page's like service writes
    first, in this lab's namespace: user 7's Set and post 42's counter."""
    lab = open_page(FIGURES)
    service = like_service.LikeService(lab, like_service.LikeStore())
    print(service.user_key(7), "|", service.count_key(42))
    return lab


def counters_under_load(lab: Lab) -> dict[str, dict[int, int]]:
    """Each of :data:`VERSIONS` on a fresh like service in ``lab``'s namespace (emptied first),
    hammered with :data:`LOAD` (:func:`~setlab.lab.runs.like_service.hammer`): by version, each
    post whose counter is wrong and by how much, the counter minus the users whose set holds
    the post (:func:`~setlab.lab.runs.like_service.counter_errors`)."""
    errors = {}
    for name, seed_version in VERSIONS.items():
        lab.cleanup()
        service = like_service.LikeService(lab, like_service.LikeStore())
        like_service.hammer(service, seed_version=seed_version, **LOAD)
        errors[name] = like_service.counter_errors(service, LOAD["users"], LOAD["targets"])
    return errors


def sample_post_ids(rng: np.random.Generator, count: int = SAMPLE_LIKES) -> list[int]:
    """``count`` post ids a user liked: snowflake-sized integers near the seed's example id."""
    return [int(x) for x in like_service.EXAMPLE_POST_ID + rng.integers(0, 10**12, size=count)]


def sample_user_key() -> str:
    """The sample user's set key as the page's :class:`~setlab.lab.runs.like_service.LikeService`
    names it (user 99), in the chapter's namespace without a classroom user: the figures price
    the same key for every reader."""
    lab = dataclasses.replace(_embedded_lab(), namespace=backend.namespace_for("string-plus-set"))
    return like_service.LikeService(lab, like_service.LikeStore()).user_key(99)


@cache
def _embedded_lab() -> backend.Lab:
    return backend.connect("claims-string-plus-set", backend="fake", quiet=True)


def sample_set_cost() -> redis_memory.KeyCost:
    """The models' price of the page's sample user set (:data:`SAMPLE_LIKES` post ids)."""
    ids = sample_post_ids(np.random.default_rng(POST_ID_SEED))
    return redis_memory.set_cost(ids, sample_user_key())


def sample_counter_cost() -> redis_memory.KeyCost:
    """The models' price of one post's like counter holding :data:`SAMPLE_COUNT`."""
    lab = dataclasses.replace(_embedded_lab(), namespace=backend.namespace_for("string-plus-set"))
    key = like_service.LikeService(lab, like_service.LikeStore()).count_key(42)
    return redis_memory.string_cost(SAMPLE_COUNT, key)


@cache
def _sample_set() -> tuple[int, int]:
    """(MEMORY USAGE of the sample user's set, of the same set with one member), bytes."""
    ids = sample_post_ids(np.random.default_rng(POST_ID_SEED))
    one = redis_memory.set_cost(ids[:1], sample_user_key()).memory_usage
    return sample_set_cost().memory_usage, one


@cache
def hashtable_like_bytes(allocator: str = "debian") -> float:
    """``MEMORY USAGE`` per liked post id in a user Set of :data:`HEAVY_USER_LIKES` snowflake
    post ids — a hashtable: the ``dictEntry``, the id's sds string and its share of the bucket
    array (bytes), on the given jemalloc build (:mod:`setlab.models.allocator`)."""
    start = like_service.EXAMPLE_POST_ID
    ids = redis_memory.Members.decimal_range(start, start + HEAVY_USER_LIKES, allocator)
    cost = redis_memory.set_cost(ids, sample_user_key(), allocator=allocator)
    return sum(usage for usage, _ in redis_memory.per_member_parts(cost).values())


@cache
def likers_rows() -> tuple[dict[str, int], ...]:
    """The seed's comparison, one row per :data:`LIKER_COUNTS`: bytes of each design when one
    post is liked by that many users."""
    return tuple(
        {
            "users": n,
            "bitmap, dense ids": bitmap.first_setbit_memory_usage(n - 1, BITMAP_KEY),
            "bitmap, hashed ids": bitmap.first_setbit_memory_usage(bitmap.MAX_OFFSET, BITMAP_KEY),
            "set, intsets (≤ 512 likes)": like_service.likers_memory(n, new_keys=False),
            "set, hashtables (> 512)": round(n * hashtable_like_bytes()),
            "set, a new key each": like_service.likers_memory(n, new_keys=True),
        }
        for n in LIKER_COUNTS
    )


def _users(n: int) -> str:
    """A user count for a narrow column: ``10,000`` or ``100 million``."""
    return f"{n / 1e6:g} million" if n >= 10**6 else f"{n:,}"


def likers_table() -> str:
    """:func:`likers_rows` as a Markdown table (sizes in binary units)."""
    rows = likers_rows()
    names = [k for k in rows[0] if k != "users"]
    lines = ["| users | " + " | ".join(names) + " |", "|" + "--:|" * (len(names) + 1)]
    for row in rows:
        lines.append(
            f"| {_users(row['users'])} | " + " | ".join(format_bytes(row[k]) for k in names) + " |"
        )
    return "\n".join(lines)


def _liker(users: int, column: str) -> str:
    (row,) = [r for r in likers_rows() if r["users"] == users]
    return format_bytes(row[column])


# -- the models against MEMORY USAGE ------------------------------------------------------------


@dataclass(frozen=True)
class LikesCheck:
    """One user's set of liked post ids and one post's counter: ``MEMORY USAGE`` beside the
    models (:func:`~setlab.models.redis_memory.set_cost`, ``string_cost``), in bytes."""

    members: int
    what: str  #: the set's members, in words
    set_measured: int
    set_predicted: int
    counter: tuple[int, int] | None  #: one counter's (MEMORY USAGE, model); None: not stored

    def text(self) -> str:
        counter = (f"one counter {self.counter[0]:,} B, the model {self.counter[1]:,} B"
                   if self.counter else "the stored run has no counter")  # fmt: skip
        return (f"a set of {self.members:,} {self.what}: MEMORY USAGE {self.set_measured:,} B, "
                f"the model {self.set_predicted:,} B; {counter}")  # fmt: skip


def measure_likes_check(lab: Lab) -> LikesCheck:
    """Write the page's sample user set (:data:`SAMPLE_LIKES` snowflake-sized post ids) and
    one counter on ``lab``, then ``MEMORY USAGE key SAMPLES 0`` of each."""
    service = like_service.LikeService(lab, like_service.LikeStore())
    ids = sample_post_ids(np.random.default_rng(POST_ID_SEED))
    user_key, count_key = service.user_key(99), service.count_key(42)
    lab.r.sadd(user_key, *ids)
    lab.r.set(count_key, SAMPLE_COUNT)
    return LikesCheck(
        len(ids), "snowflake-sized post ids",
        int(memory_runs.measure(lab, user_key).memory_usage),
        redis_memory.set_cost(ids, user_key).memory_usage,
        (int(memory_runs.measure(lab, count_key).memory_usage),
         redis_memory.string_cost(SAMPLE_COUNT, count_key).memory_usage),
    )  # fmt: skip


def reference_likes_check() -> LikesCheck:
    """The stored run's intset of :data:`SAMPLE_LIKES` integers (small ones, 2 bytes each: the
    same model, a narrower intset), the model recomputed for its key."""
    (row,) = [r for r in SetMemoryReference.load().growth
              if r.kind == "integer ids" and r.n == SAMPLE_LIKES]  # fmt: skip
    predicted = redis_memory.set_cost(redis_memory.growth_summary(row.kind, row.n), row.key)
    return LikesCheck(row.n, "small integers", int(row.memory_usage), predicted.memory_usage, None)


def likes_check(lab: Lab) -> Measurement[LikesCheck]:
    """The set and counter models against ``MEMORY USAGE``: measured on ``lab`` when it is a
    real server, else the stored reference run's set (labelled either way)."""
    return reference.live_or_reference(
        lab, measure_likes_check, reference_likes_check, needs=("real", "memory_usage"),
        run_info=SetMemoryReference.load().run,
    )  # fmt: skip


def live_likes_check(measurement: Measurement[LikesCheck]) -> str:
    """The sentence the page shows beside the reference check (``live-likes-check``)."""
    return beside(measurement, LikesCheck.text)


# -- figures -----------------------------------------------------------------------------------

FIGURES.add(
    "sps-set-300",
    lambda: format_bytes(_sample_set()[0]),
    quantity="MEMORY USAGE of a Set of 300 like IDs under the page's sample key",
)
FIGURES.add("sps-user-key", sample_user_key)
FIGURES.add(
    "sps-per-like", lambda: f"{(_sample_set()[0] - _sample_set()[1]) / (SAMPLE_LIKES - 1):.1f} B"
)
for _n, _name in ((10_000, "1e4"), (100_000_000, "1e8")):
    FIGURES.add(f"sps-{_name}-marginal", lambda n=_n: _liker(n, "set, intsets (≤ 512 likes)"))
    FIGURES.add(f"sps-{_name}-hashtable", lambda n=_n: _liker(n, "set, hashtables (> 512)"))
    FIGURES.add(f"sps-{_name}-newkeys", lambda n=_n: _liker(n, "set, a new key each"))
FIGURES.add(
    "sps-1e4-hashtable-bundled",
    lambda: format_bytes(round(10_000 * hashtable_like_bytes("bundled"))),
)
FIGURES.add("sps-ht-per-like", lambda: f"{hashtable_like_bytes():.0f} B")
FIGURES.add("sps-ht-per-like-bundled", lambda: f"{hashtable_like_bytes('bundled'):.0f} B")
FIGURES.add("sps-heavy-likes", lambda: f"{HEAVY_USER_LIKES:,}")
FIGURES.add("sps-1e8-bitmap", lambda: _liker(100_000_000, "bitmap, dense ids"))
FIGURES.add("sps-bitmap-hashed", lambda: _liker(100_000_000, "bitmap, hashed ids"))


def _embedded_service() -> like_service.LikeService:
    lab = _embedded_lab()
    lab.cleanup()
    return like_service.LikeService(lab, like_service.LikeStore())


@FIGURES.figure("sps-double-count")
def _double_count() -> str:
    service = _embedded_service()
    members, counter = like_service.forced_double_count(service)
    service.lab.cleanup()
    return f"two interleaved likes: {members} member, counter {counter}"


@FIGURES.figure("sps-missing-reply")
def _missing_sismember() -> str:
    service = _embedded_service()
    reply = service.lab.r.sismember(service.user_key(1), "1")
    return f"SISMEMBER on a missing key replies {reply!r}"


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
