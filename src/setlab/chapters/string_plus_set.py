"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

from setlab.core.units import format_bytes
from setlab.lab import backend, like_service
from setlab.models import bitmap
from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapter "String + Set" ------------------------------------------------------------------------


def _embedded_like_service() -> like_service.LikeService:
    lab = backend.connect("claims-string-plus-set", backend="fake", quiet=True)
    lab.cleanup()
    return like_service.LikeService(lab, like_service.LikeStore())


def _double_count() -> str:
    service = _embedded_like_service()
    members, counter = like_service.forced_double_count(service)
    service.lab.cleanup()
    return f"two interleaved likes: {members} member, counter {counter}"


def _missing_sismember() -> str:
    service = _embedded_like_service()
    reply = service.lab.r.sismember(service.user_key(1), "1")
    return f"SISMEMBER on a missing key replies {reply!r}"


def _likers(users: int) -> str:
    low = like_service.likers_memory(users, new_keys=False)
    high = like_service.likers_memory(users, new_keys=True)
    return f"{format_bytes(low)} (existing sets) to {format_bytes(high)} (a new key each)"


CLAIMS += [
    Claim(
        "000-sadd-atomic", "000", "§7.5", "string-plus-set",
        "SADD/SREM are atomic, so the String + Set design is correct.",
        "✅ atomic",
        _double_count,
        Verdict.WRONG,
        "Each command is atomic, but the seed's like is check-then-act over three commands.",
    ),
    Claim(
        "000-reload-on-null", "000", "§7.4", "string-plus-set",
        "A missing user set is detected by isMember == null and reloaded from MySQL.",
        "isMember == null",
        _missing_sismember,
        Verdict.WRONG,
        "Redis replies 0 (false) for a missing key, so the reload never runs; test EXISTS.",
    ),
    Claim(
        "000-set-1e4-80kb", "000", "§7.5", "string-plus-set",
        "For 10,000 users the Set design costs about 80 KB.",
        "~80 KB",
        lambda: _likers(10_000),
        Verdict.CORRECT,
        "8 bytes per like in an existing intset; a key per user would cost far more.",
    ),
    Claim(
        "000-set-1e8-2gb", "000", "§7.5", "string-plus-set",
        "For 100 million users the Set design costs about 2 GB.",
        "~2 GB",
        lambda: _likers(100_000_000),
        Verdict.IMPRECISE,
        "Neither end of the range: the seed's rows imply 8 bytes a user at 10^4 and 20 at 10^8.",
    ),
    Claim(
        "000-bitmap-1e8-12mb", "000", "§7.5", "string-plus-set",
        "For 100 million users the bitmap costs about 12 MB.",
        "~12 MB",
        lambda: (
            f"{format_bytes(bitmap.first_setbit_memory_usage(10**8 - 1))} with dense ids, "
            f"{format_bytes(bitmap.first_setbit_memory_usage(bitmap.MAX_OFFSET))} with hashed"
        ),
        Verdict.IMPRECISE,
        "True only for dense user ids; the seed's own hashed offsets make it 640 MiB per post.",
    ),
]  # fmt: skip
