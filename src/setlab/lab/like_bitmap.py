"""Seed 000's like/favourite bitmap: one Redis bitmap per content item, one hashed bit per user.

Seed 000 §1–2 keeps a bitmap ``collect:bit:1:<targetId>`` per item and maps a user to a bit with::

    offset = Math.abs(hash64(userId)) % (2^32 - 1)

The seed does not say which ``hash64``. Here it is MurmurHash3 x64_128 (the ``mmh3`` package): the
first 64-bit half of the hash of the ID's 8 little-endian bytes, which are the bytes Guava's
``Hashing.murmur3_128().hashLong(id)`` hashes. Any good 64-bit hash gives the same statistics.

Two users whose offsets are equal share one bit, and the bitmap cannot tell them apart. This
module finds such pairs among real IDs and replays what the bitmap then does.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass

import mmh3
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from setlab.lab.backend import Lab
from setlab.models.bitmap import bytes_for_offset
from setlab.render.plots import PALETTE, new_figure

#: The modulus seed 000 means by ``% (2^32 - 1)``. (Compiled as Java, ``2^32 - 1`` is
#: ``2 XOR 31`` = 29: ``^`` is XOR in Java and binds more loosely than ``-``.)
SEED_MODULUS = 2**32 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _check_user(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer ID, got {value!r} ({type(value).__name__})")
    value = int(value)
    if not _LONG_MIN <= value <= _LONG_MAX:
        raise ValueError(f"{name} must fit in a signed 64-bit long (Java's Long); got {value:,}")
    return value


def _check_modulus(m: object) -> int:
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or not 1 <= m <= SEED_MODULUS:
        raise ValueError(f"m (offsets) must be an integer from 1 to {SEED_MODULUS:,}; got {m!r}")
    return int(m)


def hash64(user_id: int) -> int:
    """``hash64`` of seed 000: MurmurHash3 x64_128's first half, as a signed 64-bit int."""
    user_id = _check_user("user_id", user_id)
    return mmh3.hash64(user_id.to_bytes(8, "little", signed=True))[0]


def user_offset(user_id: int, m: int = SEED_MODULUS) -> int:
    """The bit of ``user_id``: ``|hash64(user_id)| mod m`` (seed 000's ``toOffset``)."""
    return abs(hash64(user_id)) % _check_modulus(m)


@dataclass(frozen=True)
class CollidingPair:
    """Two distinct users that the mapping sends to the same offset."""

    first: int
    second: int
    offset: int
    m: int
    searched: int  #: IDs hashed before the collision showed up (including both)


def find_colliding_users(user_ids: Iterable[int], m: int = SEED_MODULUS) -> CollidingPair:
    """The first pair of IDs in ``user_ids`` (in order) that share an offset mod ``m``.

    Hashes each ID once, with a dict from offset to the first ID seen there; by the birthday
    bound the expected search length is about ``sqrt(pi m / 2)`` IDs (1,283 for 2^20, about
    82,000 for 2^32 - 1). Raises ``ValueError`` if ``user_ids`` runs out first.
    """
    m = _check_modulus(m)
    seen: dict[int, int] = {}
    count = 0
    for user in user_ids:
        user = _check_user("user_ids[i]", user)
        count += 1
        offset = user_offset(user, m)
        other = seen.setdefault(offset, user)
        if other != user:
            return CollidingPair(other, user, offset, m, count)
    raise ValueError(f"no two of the {count:,} IDs share an offset mod {m:,}; pass more IDs")


class LikeBitmap:
    """One item's like bitmap on Redis, with the seed's hashed offsets.

    The key is ``<lab namespace>collect:bit:1:<content_id>``, after the seed's
    ``collect:bit:1:<targetId>``. Every write checks the allocation with the lab first (a first
    SETBIT near 2^32 creates a 512 MiB string).
    """

    def __init__(self, lab: Lab, content_id: int, m: int = SEED_MODULUS) -> None:
        self.lab = lab
        self.content_id = _check_user("content_id", content_id)
        self.m = _check_modulus(m)
        self.key = lab.key("collect", "bit", 1, self.content_id)

    def offset(self, user_id: int) -> int:
        return user_offset(user_id, self.m)

    def _setbit(self, user_id: int, value: int) -> bool:
        offset = self.offset(user_id)
        self.lab.check_allocation(bytes_for_offset(offset), f"SETBIT at offset {offset:,}")
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
    a, b = _check_user("a", a), _check_user("b", b)
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


def story_markdown(rows: list[dict[str, object]]) -> str:
    """:func:`collision_story` as a Markdown table; a read that contradicts the truth is bold."""
    header = ["step", "command", "reply", "A sees", "B sees", "BITCOUNT", "who really likes"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(":--" for _ in header) + "|"]
    for row in rows:
        likers = str(row["truth"]).split(", ")
        cells = [row["step"], f"`{row['command']}`", row["reply"]]
        for name in ("A", "B"):
            shown = bool(row[f"{name} reads"])
            text = "liked" if shown else "not liked"
            cells.append(text if shown == (name in likers) else f"**{text}** (wrong)")
        cells += [row["BITCOUNT"], row["truth"]]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def set_offsets(lab: Lab, key: str, offsets: Iterable[int]) -> int:
    """``SETBIT key o 1`` for every offset (one pipeline), then return ``BITCOUNT key``.

    Seed 004's loading loop, batched: the count is the number of distinct offsets.
    """
    values = [int(o) for o in offsets]
    if values:
        lab.check_allocation(bytes_for_offset(max(values)), f"SETBIT up to offset {max(values):,}")
    pipe = lab.r.pipeline(transaction=False)
    for offset in values:
        pipe.setbit(key, offset, 1)
    pipe.execute()
    return int(lab.r.bitcount(key))


def collision_diagram(m: int = 16) -> Figure:
    """Three users hashed into ``m`` bits; two of them land on the same bit."""
    if isinstance(m, bool) or not isinstance(m, int) or not 8 <= m <= 32:
        raise ValueError(f"m must be an integer from 8 to 32 (bits drawn); got {m!r}")
    fig, ax = new_figure(height=2.8)
    ax.set_xlim(-1, m + 1)
    ax.set_ylim(-1.6, 3.4)
    ax.axis("off")
    shared, alone = m // 3, (2 * m) // 3 + 1
    for i in range(m):
        colour = PALETTE[3] if i == shared else (PALETTE[2] if i == alone else "#eeeeee")
        ax.add_patch(Rectangle((i, 0), 1, 1, facecolor=colour, edgecolor="k", linewidth=0.6))
        ax.text(i + 0.5, -0.35, str(i), ha="center", va="center", fontsize=7)
        ax.text(i + 0.5, 0.5, "1" if i in (shared, alone) else "0", ha="center", va="center")
    users = [("user A", 1.5, shared), ("user B", m / 2 - 0.5, shared), ("user C", m - 2.5, alone)]
    box = {"boxstyle": "round", "facecolor": "white", "edgecolor": PALETTE[0]}
    for name, x, target in users:
        ax.text(x, 2.9, name, ha="center", va="center", fontsize=9, bbox=box)
        colour = PALETTE[3] if target == shared else PALETTE[0]
        arrow = FancyArrowPatch(
            (x, 2.6), (target + 0.5, 1.05), arrowstyle="-|>", mutation_scale=12, color=colour
        )
        ax.add_patch(arrow)
    formula = "offset = |hash64(user id)| mod M"
    plain = {"facecolor": "white", "edgecolor": "none"}
    ax.text(m / 2, 1.9, formula, ha="center", fontsize=9, family="monospace", bbox=plain)
    caption = (
        f"one item's bitmap, M = {m} bits: A and B share bit {shared}, "
        "so GETBIT cannot tell them apart"
    )
    ax.text(m / 2, -1.0, caption, ha="center", fontsize=9)
    return fig
