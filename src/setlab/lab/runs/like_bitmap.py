"""Seed 000's like/favourite bitmap on Redis: one bitmap per content item, one hashed bit per user.

Seed 000 §1–2 keeps a bitmap ``collect:bit:1:<targetId>`` per item and maps a user to a bit with::

    offset = Math.abs(hash64(userId)) % (2^32 - 1)

:func:`setlab.models.hashed_offsets.user_offset` computes that offset (``hash64`` is
MurmurHash3, :func:`setlab.core.hashing.java_long_hash64`) and
:func:`~setlab.models.hashed_offsets.find_colliding_users` finds two real IDs that share one.
This module replays on Redis what the bitmap then does (:class:`LikeBitmap`,
:func:`collision_story`), and loads seed 004's hashed offsets (:func:`set_offsets`).
"""

from __future__ import annotations

from collections.abc import Iterable

from setlab.core.hashing import LONG_MAX, LONG_MIN
from setlab.core.validate import check_int
from setlab.lab import guard
from setlab.lab.backend import Lab
from setlab.models.bitmap import bytes_for_offset
from setlab.models.hashed_offsets import user_offset
from setlab.models.snowflake import SEED_MODULUS_INTENDED


class LikeBitmap:
    """One item's like bitmap on Redis, with the seed's hashed offsets.

    The key is ``<lab namespace>collect:bit:1:<content_id>``, after the seed's
    ``collect:bit:1:<targetId>``. Every write checks the allocation with the lab first (a first
    SETBIT near 2^32 creates a 512 MiB string).
    """

    def __init__(self, lab: Lab, content_id: int, m: int = SEED_MODULUS_INTENDED) -> None:
        self.lab = lab
        self.content_id = check_int("content_id", content_id, LONG_MIN, LONG_MAX)
        self.m = check_int("m (offsets)", m, 1, SEED_MODULUS_INTENDED)
        self.key = lab.key("collect", "bit", 1, self.content_id)

    def offset(self, user_id: int) -> int:
        return user_offset(user_id, self.m)

    def _setbit(self, user_id: int, value: int) -> bool:
        offset = self.offset(user_id)
        self.lab.check_allocation(
            guard.budget(string=bytes_for_offset(offset), key_bytes=len(self.key)),
            f"SETBIT at offset {offset:,}",
        )
        return bool(self.lab.r.setbit(self.key, offset, value))

    def like(self, user_id: int) -> bool:
        """``SETBIT key offset 1``; returns the previous bit (True: "already liked", as the
        seed's ``wasCollected``)."""
        return self._setbit(user_id, 1)

    def unlike(self, user_id: int) -> bool:
        """``SETBIT key offset 0``; returns the previous bit."""
        return self._setbit(user_id, 0)

    def has_liked(self, user_id: int) -> bool:
        """``GETBIT key offset``: what the app shows this user."""
        return bool(self.lab.r.getbit(self.key, self.offset(user_id)))

    def count(self) -> int:
        """``BITCOUNT key``: the like counter the bitmap gives."""
        return int(self.lab.r.bitcount(self.key))

    def clear(self) -> None:
        self.lab.r.delete(self.key)


def collision_story(bitmap: LikeBitmap, a: int, b: int) -> list[dict[str, object]]:
    """Replay "A likes, B likes, B unlikes" for two users on a fresh bitmap.

    One row per step: the command, Redis's reply, what ``GETBIT`` shows A and B, ``BITCOUNT``,
    and the truth (who really likes the item). With a colliding pair, B reads as a liker after
    A's like, B's like is answered "already liked", and B's unlike erases A's like.
    """
    a = check_int("a", a, LONG_MIN, LONG_MAX)
    b = check_int("b", b, LONG_MIN, LONG_MAX)
    if a == b:
        raise ValueError(f"a and b must be two different users; both are {a}")
    bitmap.clear()
    truth: set[str] = set()
    rows = []
    steps = [
        ("A likes", "like", a, "A"),
        ("B likes", "like", b, "B"),
        ("B unlikes", "unlike", b, "B"),
    ]
    for label, action, user, name in steps:
        value = 1 if action == "like" else 0
        reply = getattr(bitmap, action)(user)
        (truth.add if action == "like" else truth.discard)(name)
        rows.append(
            {
                "step": label,
                "command": f"SETBIT … {bitmap.offset(user):,} {value}",
                "reply": int(reply),
                "A reads": bitmap.has_liked(a),
                "B reads": bitmap.has_liked(b),
                "BITCOUNT": bitmap.count(),
                "truth": ", ".join(sorted(truth)) or "nobody",
            }
        )
    return rows


def set_offsets(lab: Lab, key: str, offsets: Iterable[int]) -> int:
    """``SETBIT key o 1`` for every offset (one pipeline), then return ``BITCOUNT key``.

    Seed 004's loading loop, batched: the count is the number of distinct offsets.
    """
    values = [int(o) for o in offsets]
    if values:
        lab.check_allocation(
            guard.budget(setbits=values, key_bytes=len(key)), f"SETBIT up to offset {max(values):,}"
        )
    pipe = lab.r.pipeline(transaction=False)
    for offset in values:
        pipe.setbit(key, offset, 1)
    pipe.execute()
    return int(lab.r.bitcount(key))
