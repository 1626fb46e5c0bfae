"""LEGACY claims split out of the old claims.py: convert to Figures + claims (see
setlab.render.claims), then delete this note."""

from __future__ import annotations

from functools import cache

from setlab.lab import backend
from setlab.models import bitmap
from setlab.render.claims import Verdict

CLAIMS: list = []
# -- chapter "Snowflake IDs vs a 2^32 offset space" ----------------------------------------------


def _sf() -> dict:
    from setlab.models import snowflake

    return snowflake.claim_figures()


@cache
def _sf_redis() -> dict:
    from setlab.models import snowflake

    lab = backend.connect("claims-snowflake", backend="fake", quiet=True)
    lab.cleanup()
    try:
        return snowflake.claim_redis_figures(lab)
    finally:
        lab.cleanup()


def _sf_layout() -> str:
    from setlab.models import snowflake

    f = _sf()["fields"]
    return (
        f"{snowflake.SEED_ID} = {f['timestamp']:,} ms after Twitter's epoch "
        f"({_sf()['minted']:%Y-%m-%d}), machine {f['machine']}, sequence {f['sequence']}"
    )


def _sf_typical() -> str:
    from setlab.models import snowflake

    return f"{snowflake.SEED_ID:.3g}, {_sf()['digits']} digits, 2^{_sf()['log2']:.2f}"


def _sf_ratio() -> str:
    f = _sf()
    return (
        f"range: {f['ratio_range']:.3g}×; the seed's own ID: {f['ratio_seed']:.3g}×; IDs reach "
        f"two billion times 2^32 only in {f['two_billion_year']}"
    )


def _sf_dense() -> str:
    from setlab.models import snowflake

    leaf = snowflake.CLAIM_LEAF
    return (
        f"Lua map: largest int {_sf_redis()['dense_max']:,} for "
        f"{snowflake.CLAIM_DENSE_USERS:,} users, +1 round trip; Leaf (step {leaf['step']:,}, "
        f"{leaf['restarts']} restarts): largest {_sf()['leaf_max']:,} for "
        f"{leaf['requests']:,} IDs"
    )


def _sf_printed() -> int:
    from setlab.models import snowflake

    return snowflake.SEED_MODULUS_AS_PRINTED


CLAIMS += [
    Claim(
        "000-snowflake-layout", "000", "§4.1", "snowflake-ranges",
        "A snowflake ID is 1 sign bit, a 41-bit ms timestamp, 10 machine bits and a 12-bit "
        "sequence.",
        "1 / 41 / 10 / 12",
        _sf_layout,
        Verdict.CORRECT,
        "Twitter's 41/5/5/12 with the node bits read as one field; the drawing's "
        "'1746000000000+' is Unix time, but the field counts from a custom epoch.",
    ),
    Claim(
        "000-typical-id", "000", "§4.1, §4.4", "snowflake-ranges",
        "A typical ID is about 2 × 10^18: 19 digits, ~2^61.",
        "2 × 10^18, 19 digits, ~2^61",
        _sf_typical,
        Verdict.CORRECT,
        "The example decodes to a plausible date with Twitter's epoch.",
    ),
    Claim(
        "000-20yi-times", "000", "§4.1", "snowflake-ranges",
        "Snowflake IDs are two billion times beyond the 2^32 bitmap offsets.",
        "2 billion times (20 亿倍)",
        _sf_ratio,
        Verdict.IMPRECISE,
        "2^63 / 2^32 = 2^31 is the whole range; real IDs are far smaller and grow with time. "
        "Either way no bitmap can hold them.",
    ),
    Claim(
        "000-to-offset-range", "000", "§2, §4.2", "snowflake-ranges",
        "`Math.abs(hash64(userId)) % (2^32 - 1)` spreads users over 0 … 4.29 billion.",
        "0 ~ 4.29 billion",
        lambda: f"0 … {_sf()['printed_max']}: Java evaluates 2^32 - 1 to {_sf_printed()}",
        Verdict.WRONG,
        "^ is XOR in Java and binds looser than -, so 2^32 - 1 is 2 XOR 31: every user lands in "
        "a few bits, and a bitmap that small cannot be the 1.5-s incident.",
    ),
    Claim(
        "000-uniform-offsets", "000", "§4.2", "snowflake-ranges",
        "After Math.abs and the modulo (as meant), offsets are uniform over 0 ~ 2^32 − 1.",
        "uniform on 0 ~ 2^32 − 1",
        lambda: (
            f"0 … 2^32 − 2, bias {_sf()['bias_excess']:.2g}; Math.abs(Long.MIN_VALUE) gives "
            f"{_sf()['min_value_result']:,}"
        ),
        Verdict.IMPRECISE,
        "Uniform to within a few parts in 10^10, but 2^32 − 1 is never produced and "
        "Math.abs(Long.MIN_VALUE) is negative: one hash in 2^64 yields an offset SETBIT refuses.",
    ),
    Claim(
        "000-expected-offset", "000", "§4.2", "snowflake-ranges",
        "The expected offset is about 2.14 billion, so a first write allocates ~256 MB.",
        "2.14 billion, ~256 MB",
        lambda: (
            f"{_sf()['expected_offset']:,} as meant; as printed at most {_sf()['printed_max']} "
            f"(a {_sf()['printed_bytes']}-byte string)"
        ),
        Verdict.DEPENDS,
        "Right for the modulus the seed meant; the code it prints never allocates more than a "
        "few bytes.",
    ),
    Claim(
        "000-example-hashes", "000", "§4.3", "snowflake-ranges",
        "userId 1, 2, 100 hash to 0x7A3B…, 0x1234…, 0xFEDC… and offsets 1,823,456,789, "
        "3,456,789,012, 987,654,321.",
        "three example rows",
        lambda: "those hashes % 2^32 are " + ", ".join(
            f"{r:,}" for r in _sf()["example_remainders"]),
        Verdict.WRONG,
        "Placeholders: keyboard-pattern hashes whose remainders are not the offsets printed "
        "beside them. The point they illustrate (no order survives) is right.",
    ),
    Claim(
        "000-hash-destroys-order", "000", "§4.3", "snowflake-ranges",
        "Hashing destroys the IDs' increasing order.",
        "order completely destroyed",
        lambda: (
            f"Spearman ρ(ID, offset) = {_sf()['rho']:+.4f} over {_sf()['stream_ids']:,} IDs of "
            "a simulated stream"
        ),
        Verdict.CORRECT,
        "True, but a bitmap needs small offsets, not ordered ones: a dense map gives small "
        "offsets in any order.",
    ),
    Claim(
        "000-direct-error", "000", "§4.4", "snowflake-ranges",
        "SETBIT at a snowflake ID fails with `ERR bit offset is not an integer or out of range`.",
        "ERR bit offset is not an integer or out of range",
        lambda: f"{_sf_redis()['setbit_error']} (embedded fakeredis; live Redis 7.0 says the same)",
        Verdict.CORRECT,
        f"Offsets end at {bitmap.MAX_OFFSET:,} (proto-max-bulk-len 512 MiB).",
    ),
    Claim(
        "000-low-32-bits", "000", "§4.5", "snowflake-ranges",
        "Keeping only the low 32 bits of the ID collides a lot.",
        "high collision rate",
        lambda: (
            f"{_sf()['low32_share']:.1%} of {_sf()['stream_ids']:,} users share a bit "
            f"(hash64: {_sf()['hash_colliding_users']} users)"
        ),
        Verdict.CORRECT,
        "Worse than a hash: the low 32 bits are ms mod 1024, machine and sequence, which repeat "
        "about every second.",
    ),
    Claim(
        "000-dense-mapping", "000", "§4.5", "snowflake-ranges",
        "A mapping table or Leaf segments keep offsets up to the number of users, at the cost "
        "of a lookup or a component.",
        "offset ≤ user count",
        _sf_dense,
        Verdict.CORRECT,
        "Plus gaps (Leaf restarts, a client-side map's lost races) and a map that must persist.",
    ),
    Claim(
        "000-js-precision", "000", "§7.6", "snowflake-ranges",
        "In JavaScript 1234567890123456789 becomes 1234567890123456800.",
        "1234567890123456800",
        lambda: f"prints {_sf()['js_prints']}, holds {_sf()['js_holds']}",
        Verdict.CORRECT,
        "JavaScript prints the shortest digits that identify the double; the double itself is "
        "a little below the original.",
    ),
    Claim(
        "000-js-fix", "000", "§7.6", "snowflake-ranges",
        "Serialise Long IDs as JSON strings.",
        "ToStringSerializer",
        lambda: f"string round trip exact: {_sf()['js_string_round_trip']}",
        Verdict.CORRECT,
        "Strings are never parsed into doubles.",
    ),
]  # fmt: skip
