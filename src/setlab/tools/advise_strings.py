"""``setlab advise`` for string IDs: what a SET, a filter, a HyperLogLog or a dense remap of
openids, emails or device names costs.

A bitmap or a Roaring bitmap holds integers; string IDs reach one only through a **dense remap**:
a Redis HASH from each string to the next integer (``HSETNX ids:map <id> <INCR ids:next>``),
then a bitmap over those integers, one bit per string ever seen. The HASH is paid once for
every set over the same IDs; each set is then a bitmap of that many bits (and listing a set's
members back needs the reverse map, integer to string). :func:`candidates` prices it beside
a Redis SET of the strings (:mod:`setlab.models.redis_memory`, exact for Redis 7.0), Bloom and
cuckoo filters at the asked rate and a HyperLogLog, from what
:mod:`setlab.models.string_ids` read; :func:`setlab.tools.calc.choice.recommend` picks one as it
does for integer IDs, and :class:`StringAdvice` prints it (counts by length where integer IDs
have a range and a histogram). The general advisor knows nothing of this module: the caller
(``setlab advise``) picks the advisor by the kind of file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from setlab.core.formats import format_bytes
from setlab.models import redis_memory
from setlab.models.hyperloglog import HLL_REGISTERS
from setlab.models.string_ids import StringIDs, describe_bound
from setlab.tools import advise
from setlab.tools.calc import choice

#: What the remap's keys are called in the advice (any names do).
MAP_KEY, NEXT_KEY = "ids:map", "ids:next"
#: Where the remap lives: in Redis, but as two keys and a script, not one command
REMAP_WHERE = "Redis: two keys and a Lua script"


def remap_costs(s: StringIDs, needs: choice.Needs | None = None) -> dict[str, int]:
    """Bytes of each part of a dense remap of the distinct IDs: the HASH string → integer, the
    reverse HASH integer → string (allocated, Redis 7.0: the hash model's one release), and a
    bitmap with a bit for every ID (``MEMORY USAGE`` on the release ``needs`` prices for)."""
    numbers = redis_memory.Members.decimal_range(0, s.distinct)
    forward = redis_memory.hash_cost(s.members, numbers, MAP_KEY)
    reverse = redis_memory.hash_cost(numbers, s.members, MAP_KEY + ":back")
    return {
        "map": forward.allocated,
        "reverse map": reverse.allocated,
        "bitmap": choice.bitmap_bytes(s.distinct - 1, needs or choice.Needs()),
    }


def _remap_candidate(s: StringIDs, needs: choice.Needs) -> choice.Candidate:
    costs = remap_costs(s, needs)
    caveats = (
        f"a HASH {MAP_KEY} from each ID to a dense integer ({format_bytes(costs['map'])}), "
        f"paid once for every set over these IDs; each set is then a bitmap of "
        f"{s.distinct:,} bits ({format_bytes(costs['bitmap'])})",
        "two lookups per check (HGET, then GETBIT: one round trip as a Lua script), and new "
        f"IDs take the next integer (INCR {NEXT_KEY}, then HSETNX) before their bit is set",
        "listing a set's IDs back needs the reverse map too "
        f"({format_bytes(costs['reverse map'])})",
    )
    if needs.priced_for.build.family != "7.0":
        caveats += (f"the HASHes are priced as on Redis 7.0 (the hash model's one release), "
                    f"the bitmap on {needs.priced_for.server}",)  # fmt: skip
    # not plain "Redis": two keys and a script, worth it only when it saves what
    # choice.recommend asks of a module (NATIVE_PREMIUM, NATIVE_SLACK)
    return choice.Candidate(
        "dense remap: HASH + bitmap", costs["map"] + costs["bitmap"], "exact", "yes (SETBIT 0)",
        REMAP_WHERE, caveats, shared=costs["map"],
    )  # fmt: skip


def candidates(s: StringIDs, needs: choice.Needs | None = None) -> list[choice.Candidate]:
    """Every structure that can hold string IDs, priced for these (memory in bytes)."""
    needs = needs or choice.Needs()
    return [
        choice.set_candidate(s, needs),
        _remap_candidate(s, needs),
        choice.bloom_candidate(s, needs),
        choice.cuckoo_candidate(s, needs),
        choice.hll_candidate(s, needs),
    ]


def advise_strings(s: StringIDs, needs: choice.Needs | None = None) -> StringAdvice:
    """Price every candidate for the string IDs ``s`` and recommend one."""
    needs = needs or choice.Needs()
    options = candidates(s, needs)
    return StringAdvice(s, needs, options, choice.recommend(s, options, needs))


def _count(s: StringIDs) -> str:
    """The distinct and duplicate counts as the terminal shows them: figures, or estimates
    that say so, with their 95 % intervals and the estimator's standard error."""
    if s.exact:
        return f"{s.distinct:,}; {s.duplicates:,} duplicates"
    (low, high), (dup_low, dup_high) = s.distinct_95, s.duplicates_95
    return (
        f"about {s.distinct:,} (95%: {low:,} … {high:,}); about {s.duplicates:,} duplicates "
        f"(95%: {dup_low:,} … {dup_high:,}): HyperLogLog estimates"
    )


def notes(s: StringIDs) -> list[str]:
    """What the reader should know about how these figures were counted."""
    out = [describe_bound(s.exact_limit)]
    if s.exact and s.collisions >= 1e-6:
        out.append(
            f"two distinct IDs sharing a 64-bit hash would count once: {s.collisions:.2g} "
            "expected at this count"
        )
    if not s.exact:
        out.append(
            f"the distinct and duplicate counts are estimates: HyperLogLog's standard error is "
            f"{s.relative_error:.2%} (1.04/√m, m = {HLL_REGISTERS:,} registers); the 95% "
            "intervals are ±1.96 standard errors, cut to the lines read"
        )
    if s.clamped:
        out.append(
            f"the estimate, {s.estimate:,}, is above the {s.ids:,} lines read: no file holds "
            "more distinct IDs than lines, so the count shown is the lines, and the true count "
            f"is at least {s.distinct_95[0]:,} (95%)"
        )
    if not s.exact:
        out.append(
            "the distinct IDs of each length are each length's HyperLogLog, scaled to the "
            "total: the SET's size is an estimate too (raise --memory to count exactly)"
        )
    if s.integers == s.ids:
        out.append(
            "every ID is a decimal integer: read them as integers (--format dec) to price an "
            "intset, a bitmap and Roaring; the SET here is priced as a hash table of strings"
        )
    elif s.integers:
        out.append(
            f"{s.integers:,} of the lines are decimal integers: a SET holds integers in an "
            "intset only when every member is one"
        )
    return out


def length_rows(s: StringIDs, top: int = 8) -> list[tuple[str, int, float]]:
    """``(length, distinct IDs, share)`` for the most common lengths, the rest in one row."""
    ranked = sorted(s.lengths.items(), key=lambda kv: -kv[1])
    rows = [(f"{n} B", c, c / s.distinct) for n, c in ranked[:top]]
    rest = sum(c for _, c in ranked[top:])
    if rest:
        rows.append((f"{len(ranked) - top} other lengths", rest, rest / s.distinct))
    return rows


@dataclass(frozen=True)
class StringAdvice(advise.Advice):
    """The advice for string IDs: the analysis is a :class:`setlab.models.string_ids.StringIDs`
    (counts by length where integer IDs have a range and a histogram)."""

    analysis: StringIDs

    def text(self) -> str:
        """The advice for string IDs as the terminal shows it."""
        s = self.analysis
        lines = [
            f"{s.ids:,} IDs in {s.source}: strings"
            + (f" ({s.blank_lines:,} blank lines skipped)" if s.blank_lines else ""),
            f"  distinct  {_count(s)}",
            f"  length    {s.shortest}–{s.longest} bytes, {s.mean_length:.1f} on average",
        ]
        lines += [f"  note: {note}" for note in notes(s)]
        lines.append("\nDistinct IDs by length:")
        width = max(len(label) for label, _, _ in length_rows(s))
        for label, count, share in length_rows(s):
            bar = "#" * max(1, round(40 * share))
            lines.append(f"  {label.rjust(width)}  {count:>14,}  {share:6.1%}  {bar}")
        return "\n".join(lines) + "\n" + advise.render_candidates(self)

    def as_json(self) -> dict[str, Any]:
        """What was read, the priced candidates and the pick, for ``--json``."""
        s = self.analysis
        return {
            "source": s.source, "kind": "string", "ids": s.ids, "blank_lines": s.blank_lines,
            "distinct": s.distinct, "exact": s.exact, "relative_error": s.relative_error,
            "exact_limit": s.exact_limit, "duplicates": s.duplicates,
            "estimate": s.estimate, "clamped": s.clamped, "distinct_95": list(s.distinct_95),
            "duplicates_95": list(s.duplicates_95),
            "lengths": {str(n): c for n, c in s.lengths.items()},
            "line_lengths": {str(n): c for n, c in s.line_lengths.items()},
            "integers": s.integers, "notes": notes(s),
            **advise.candidates_json(self),
        }  # fmt: skip
