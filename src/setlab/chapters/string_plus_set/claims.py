"""Every claim of chapter string-plus-set, in the order the seeds make them.

Seed 000's sentences on the String + Set design that string-plus-set's figures judge beside a
claim they used to share, or that the book deliberately leaves unjudged.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): the like flow's
code gets its own entry beside the atomicity row it used to share, and the counter's complexity
row an entry marked :attr:`~setlab.render.claims.Verdict.NOT_JUDGED`, with the reason.
"""

from __future__ import annotations

from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.string_plus_set`)."""
    figures.claim(
        "000-ttl-7-days", "000", "§7.2",
        "A TTL (7 days) makes cold per-user sets expire by themselves.",
        "TTL of 7 days",
        "SADD creates keys with no TTL; the seed's only EXPIRE sits in the reload branch, never "
        "entered ({sps-missing-reply})",
        Verdict.WRONG,
        "Keys created by a like live forever: set the TTL on every write (SADD then EXPIRE in one "
        "MULTI or script).",
    )  # fmt: skip
    figures.claim(
        "000-like-check-then-act", "000", "§7.3",
        "The like flow: if SISMEMBER says the user liked already, throw; otherwise SADD and "
        "INCR the counter.",
        "isMember → add + increment",
        "{sps-double-count}",
        Verdict.WRONG,
        "Three commands, not one: two concurrent likes both pass the check and the counter "
        "counts twice; restates the race behind 000-sadd-atomic.",
    )  # fmt: skip
    figures.claim(
        "000-reload-on-null", "000", "§7.4",
        "A missing user set is detected by isMember == null and reloaded from MySQL.",
        "isMember == null",
        "{sps-missing-reply}",
        Verdict.WRONG,
        "Redis replies 0 (false) for a missing key, so the reload never runs; test EXISTS.",
    )  # fmt: skip
    figures.claim(
        "000-set-1e8-2gb", "000", "§7.5",
        "For 100 million users the Set design costs about 2 GB.",
        "~2 GB",
        "{sps-1e8-marginal} (existing sets) to {sps-1e8-newkeys} (a new key each)",
        Verdict.IMPRECISE,
        "Neither end of the range: the seed's rows imply 8 bytes a user at 10^4 and 20 at 10^8.",
        also=("redis-set-memory",),
    )  # fmt: skip
    figures.claim(
        "000-bitmap-1e8-12mb", "000", "§7.5",
        "For 100 million users the bitmap costs about 12 MB.",
        "~12 MB",
        "{sps-1e8-bitmap} with dense ids, {sps-bitmap-hashed} with hashed",
        Verdict.WRONG,
        "True only for dense user ids; the seed's own design hashes them over 2^32, where one "
        "post's key costs {sps-bitmap-hashed}, more than an order of magnitude above the seed's "
        "figure (as for 10^4 users).",
        also=("redis-set-memory",),
    )  # fmt: skip
    figures.claim(
        "000-set-1e4-80kb", "000", "§7.5",
        "One post liked by 10,000 users costs the Set design about 80 KB (against ~1.2 KB for the "
        "bitmap).",
        "~80 KB",
        "{sps-1e4-marginal} if every liker's Set is an intset (≤ 512 likes); {sps-1e4-hashtable} "
        "if "
        "likers hold thousands (hashtables; {sps-1e4-hashtable-bundled} on Redis's own build); "
        "{sps-1e4-newkeys} if each like makes a new key",
        Verdict.DEPENDS,
        "The design stores the post id in each liker's own Set, as an integer: 8 B in an intset, "
        "but a "
        "Set past set-max-intset-entries (512) is a hashtable at {sps-ht-per-like} a member, and "
        "the "
        "seed's users hold hundreds to thousands of likes. 80 KB is the best case.",
    )  # fmt: skip
    figures.claim(
        "000-counter-complexity", "000", "§7.5",
        "Counting: HGET is O(1) for the bitmap design, INCR/GET O(1) for the Set design.",
        "O(1) / O(1)",
        "O(1) each: HGET, INCR and GET per Redis's command docs",
        Verdict.CORRECT,
        "Each touches one field of one key; the counter's real problem is not its complexity but "
        "the hot key (000-set-spreads).",
    )  # fmt: skip
    figures.claim(
        "000-sadd-atomic", "000", "§7.5",
        "SADD/SREM are atomic, so the String + Set design is correct.",
        "✅ atomic",
        "{sps-double-count}",
        Verdict.WRONG,
        "Each command is atomic, but the seed's like is check-then-act over three commands.",
    )  # fmt: skip
