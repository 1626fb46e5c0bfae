"""Every claim of chapter snowflake-ranges, in the order the seeds make them.

Seed 000's sentences that snowflake-ranges' figures judge beside a claim they used to share.

One registry entry per seed sentence (:mod:`setlab.site.seed_sentences`): the code comment
and the code line, the §3.2 summary and the §4.2 detail, the §4.1 and §8.1 comparisons each get
their own wording, "their figure" and verdict, judged by the chapter's figures. A pure
restatement says "restates <claim id>"; where the verdict differs, the reason says why.
"""

from __future__ import annotations

from setlab.models import bitmap
from setlab.render.claims import Figures, Verdict


def register(figures: Figures) -> None:
    """Register this chapter's claims on its ``FIGURES``, in seed order (called once, at the
    end of :mod:`setlab.chapters.snowflake_ranges`)."""
    figures.claim(
        "000-offset-reaches-4e9", "000", "§2",
        "The code's comment: toOffset(userId) reaches offsets up to 4.29 billion.",
        "up to 4.29 billion",
        "at most {sf-printed-max}: Java evaluates 2^32 - 1 to {sf-printed-modulus}",
        Verdict.WRONG,
        "Restates 000-to-offset-range: the modulus as printed is 2 XOR 31.",
    )  # fmt: skip
    figures.claim(
        "000-to-offset-range", "000", "§2, §4.2",
        "`Math.abs(hash64(userId)) % (2^32 - 1)` spreads users over 0 … 4.29 billion.",
        "0 ~ 4.29 billion",
        "0 … {sf-printed-max}: Java evaluates 2^32 - 1 to {sf-printed-modulus}",
        Verdict.WRONG,
        "^ is XOR in Java and binds looser than -, so 2^32 - 1 is 2 XOR 31: every user lands in "
        "a few bits, and a bitmap that small cannot be the 1.5-s incident.",
    )  # fmt: skip
    figures.claim(
        "000-uniform-mean-2e9", "000", "§3.2",
        "After the hash and the modulo, offsets are uniform over 0 – 4.29 billion, with an "
        "expected value of about 2.14 billion.",
        "uniform on 0 – 4.29 × 10^9, mean ~2.14 × 10^9",
        "mean {sf-expected-offset} for the modulus 2^32 − 1 the section means",
        Verdict.CORRECT,
        "Restates 000-uniform-offsets and 000-expected-offset: right, to a bias of "
        "{sf-excess-meant}, for the modulus the section describes; the code as printed "
        "(2 XOR 31) is judged in 000-to-offset-range.",
    )  # fmt: skip
    figures.claim(
        "000-snowflake-layout", "000", "§4.1",
        "A snowflake ID is 1 sign bit, a 41-bit ms timestamp, 10 machine bits and a 12-bit "
        "sequence.",
        "1 / 41 / 10 / 12",
        "{sf-seed-id} = {sf-seed-ts} ms after Twitter's epoch ({sf-seed-date}), machine "
        "{sf-seed-machine}, sequence {sf-seed-seq}",
        Verdict.CORRECT,
        "Twitter's 41/5/5/12 with the node bits read as one field; the drawing's "
        "'1746000000000+' is Unix time, but the field counts from a custom epoch.",
    )  # fmt: skip
    figures.claim(
        "000-typical-id", "000", "§4.1, §4.4",
        "A typical ID is about 2 × 10^18: 19 digits, ~2^61.",
        "2 × 10^18, 19 digits, ~2^61",
        "{sf-seed-id-short}, {sf-seed-digits} digits, 2^{sf-seed-log2}",
        Verdict.CORRECT,
        "The example decodes to a plausible date with Twitter's epoch.",
    )  # fmt: skip
    figures.claim(
        "000-20yi-times", "000", "§4.1",
        "Snowflake IDs are two billion times beyond the 2^32 bitmap offsets.",
        "2 billion times (20 亿倍)",
        "the ranges the sentence compares: 2^63 / 2^32 = {sf-ratio-range}×; the seed's own ID: "
        "{sf-ratio-seed}×; IDs reach two billion times 2^32 only in {sf-20yi-year}",
        Verdict.CORRECT,
        "Judged as written, range against range. Real IDs are smaller today and grow with "
        "time; either way no bitmap can hold them.",
    )  # fmt: skip
    figures.claim(
        "000-uniform-offsets", "000", "§4.2",
        "After Math.abs and the modulo (as meant), offsets are uniform over 0 ~ 2^32 − 1.",
        "uniform on 0 ~ 2^32 − 1",
        "0 … 2^32 − 2, bias {sf-excess-meant}; Math.abs(Long.MIN_VALUE) gives {sf-minval-meant}",
        Verdict.CORRECT,
        "Uniform to within a few parts in 10^10. Two corners: 2^32 − 1 is never produced, and "
        "Math.abs(Long.MIN_VALUE) is negative, so one hash in 2^64 yields an offset SETBIT "
        "refuses.",
    )  # fmt: skip
    figures.claim(
        "000-expected-offset", "000", "§4.2",
        "The expected offset is about 2.14 billion, so a first write allocates ~256 MB.",
        "2.14 billion, ~256 MB",
        "{sf-expected-offset} for the modulus 2^32 − 1 the section means: a {sf-expected-bytes} "
        "string",
        Verdict.CORRECT,
        "Judged for the modulus the section describes. The code as printed (2 XOR 31, judged in "
        "000-to-offset-range) reaches at most {sf-printed-max}, a "
        "{sf-printed-max-bytes}-byte string.",
    )  # fmt: skip
    figures.claim(
        "000-modulo-many-to-one", "000", "§4.2",
        "A modulo is a compressing map: many IDs necessarily share an offset.",
        "many-to-one, necessarily",
        "{sf-printed-users} users on {sf-printed-offsets} offsets as printed",
        Verdict.CORRECT,
        "The pigeonhole principle: more possible IDs than offsets means shared offsets, whatever "
        "the modulus (000-to-offset-range judges the printed one, which is wrong); how likely a "
        "shared offset is among the users actually present is the birthday table "
        "(000-table-cells).",
    )  # fmt: skip
    figures.claim(
        "000-example-hashes", "000", "§4.3",
        "userId 1, 2, 100 hash to 0x7A3B…, 0x1234…, 0xFEDC… and offsets 1,823,456,789, "
        "3,456,789,012, 987,654,321.",
        "three example rows",
        "those hashes % 2^32 are {sf-example-remainders}",
        Verdict.WRONG,
        "Placeholders: keyboard-pattern hashes whose remainders are not the offsets printed "
        "beside them. The point they illustrate (no order survives) is right.",
    )  # fmt: skip
    figures.claim(
        "000-hash-destroys-order", "000", "§4.3",
        "Hashing destroys the IDs' increasing order.",
        "order completely destroyed",
        "Spearman ρ(ID, offset) = {sf-rho-hash} over {sf-stream-n} IDs of a simulated stream",
        Verdict.CORRECT,
        "True, but a bitmap needs small offsets, not ordered ones: a dense map gives small "
        "offsets in any order.",
    )  # fmt: skip
    figures.claim(
        "000-19-digits-over-2-32", "000", "§4.4",
        "A snowflake ID is itself a 19-digit number (~2^61), far beyond the bitmap's 2^32 limit.",
        "19 digits, ~2^61 ≫ 2^32",
        "{sf-seed-digits} digits, 2^{sf-seed-log2}: {sf-ratio-seed}× the offset limit",
        Verdict.CORRECT,
        "Restates 000-typical-id; SETBIT refuses it ({sf-setbit-error}).",
    )  # fmt: skip
    figures.claim(
        "000-direct-error", "000", "§4.4",
        "SETBIT at a snowflake ID fails with `ERR bit offset is not an integer or out of range`.",
        "ERR bit offset is not an integer or out of range",
        "{sf-setbit-error} (embedded fakeredis; live Redis 7.0 says the same)",
        Verdict.CORRECT,
        f"Offsets end at {bitmap.MAX_OFFSET:,} (proto-max-bulk-len 512 MiB).",
    )  # fmt: skip
    figures.claim(
        "000-dense-mapping", "000", "§4.5",
        "A mapping table or Leaf segments keep offsets up to the number of users, at the cost "
        "of a lookup or a component.",
        "offset ≤ user count",
        "Lua map: largest int {sf-claim-dense-max} for {sf-claim-dense-users} users, +1 round "
        "trip; "
        "Leaf (step {sf-leaf-step}, {sf-leaf-restarts} restarts): largest {sf-leaf-max} for "
        "{sf-leaf-requests} IDs",
        Verdict.CORRECT,
        "Plus gaps (Leaf restarts, a client-side map's lost races) and a map that must persist.",
    )  # fmt: skip
    figures.claim(
        "000-low-32-bits", "000", "§4.5",
        "Keeping only the low 32 bits of the ID collides a lot.",
        "high collision rate",
        "{sf-low32-share} of {sf-stream-n} users share a bit (hash64: {sf-hash-colliding} users)",
        Verdict.CORRECT,
        "Worse than a hash: the low 32 bits are ms mod 1024, machine and sequence, which repeat "
        "about every second.",
    )  # fmt: skip
    figures.claim(
        "000-js-16-digits", "000", "§7.6",
        "A snowflake ID (~19 digits) exceeds JS Number.MAX_SAFE_INTEGER (2^53, about 16 digits).",
        "2^53 ≈ 16 digits",
        "{sf-js-max-safe}: {sf-js-max-digits} digits; the seed's ID has {sf-seed-digits}",
        Verdict.CORRECT,
        "Every integer above 2^53 − 1 may round when JSON is parsed into a JavaScript number.",
    )  # fmt: skip
    figures.claim(
        "000-js-precision", "000", "§7.6",
        "In JavaScript 1234567890123456789 becomes 1234567890123456800.",
        "1234567890123456800",
        "prints {sf-js-print}, holds {sf-js-exact}",
        Verdict.CORRECT,
        "JavaScript prints the shortest digits that identify the double; the double itself is "
        "a little below the original.",
    )  # fmt: skip
    figures.claim(
        "000-js-fix", "000", "§7.6",
        "Serialise Long IDs as JSON strings.",
        "ToStringSerializer",
        "string round trip exact: {sf-js-round-trip}",
        Verdict.CORRECT,
        "Strings are never parsed into doubles.",
    )  # fmt: skip
    figures.claim(
        "000-64-vs-32-bits", "000", "§8.1",
        "64-bit IDs against 32-bit offsets: two billion times apart.",
        "20 亿倍 (2 billion times)",
        "the ranges: 2^63 / 2^32 = {sf-ratio-range}×; the seed's own ID: {sf-ratio-seed}×",
        Verdict.CORRECT,
        "Restates 000-20yi-times: two billion is the whole positive range over 2^32; real IDs "
        "are smaller and grow with time.",
    )  # fmt: skip
