"""Instructor notes per chapter: what to demo live, where learners stumble, and when to be where.

Rendered in the instructor guide (``book/instructors.md``), not on the chapter pages, so they stay
out of a reader's way. The timing checkpoints are not written here: they come from
:mod:`setlab.site.lessons`, which estimates each section's minutes from the chapter's own
words and cells, so they move when the chapter does.
"""

from __future__ import annotations

from dataclasses import dataclass

from setlab.site import lessons, registry


@dataclass(frozen=True)
class Notes:
    demo: str  #: what to run live, in front of the room
    stumbles: tuple[str, ...]  #: where learners go wrong, and what to say


NOTES: dict[str, Notes] = {
    "setbit-offset": Notes(
        "Run the first `SETBIT` at a huge offset on the live backend with a `redis-cli --latency` "
        "window open beside it: the room sees the other client stall, then the second write "
        "return at once.",
        ("Bits versus bytes: the string is offset/8 bytes, and `MEMORY USAGE` counts the size "
         "class, not `STRLEN`.",
         "Learners expect the second write to be slow too; the string already exists.",
         "On the embedded backend the timings are stored ones: say so when showing them."),
    ),
    "birthday-collisions": Notes(
        "Ask the room for a guess at 2^20 offsets before running `bd.max_users`: the answer "
        "(about a thousand) surprises almost everyone.",
        ("Four different \"collision\" measures; insist on naming which one a number is.",
         "Probabilities printing as 100% are rounding: show the log-space result.",
         "`^` in Java and Python is XOR, not a power."),
    ),
    "snowflake-ranges": Notes(
        "Decode a real snowflake ID on screen (`sf.TWITTER.decode`, `minted_at`) and date it; "
        "then print it through `sf.js_number_string` to show the browser's rounding.",
        ("The longest chapter: skip the Leaf simulation in a short session and keep the "
         "precision section.",
         "Learners confuse the epoch with Unix time; show both dates side by side.",
         "`Math.abs(Long.MIN_VALUE)` being negative needs a whiteboard two's-complement line."),
    ),
    "one-slow-command": Notes(
        "The stall experiment live: one big command, the latency of many small `GET`s around "
        "it. Then compute one key's slot by hand with the room.",
        ("`UNLINK` is not a cure for a big string: the lazy-free rule is about element counts.",
         "Hash tags put keys together on purpose, and hot spots follow.",
         "Shared classroom servers add noise to latencies; compare with the stored run."),
    ),
    "string-plus-set": Notes(
        "Run the race timeline twice: the seed's check-then-act (two likes, counter 2) and the "
        "`SADD`-gated fix (counter 1).",
        ("`SISMEMBER` on a missing key is 0, never null: the seed's cold-start test never fires.",
         "A lock without an owner token releases someone else's lock; draw the timeline.",
         "The fix is the reply of `SADD`, not a transaction: many reach for MULTI first."),
    ),
    "bloom-basics": Notes(
        "Add three names to the 32-bit filter and query a fourth that collides: the false "
        "positive on screen makes the idea concrete.",
        ("The seed's Java filter never reads the element: learners look for a hash bug and miss "
         "that every add sets the same bits.",
         "\"Delete\" by clearing bits breaks other members: have them predict which."),
    ),
    "nk-vs-m-saturation": Notes(
        "Plot the false-positive rate against n for a fixed m and k, and mark the half-full "
        "point; then overfill past it.",
        ("n·k ≤ m is a ceiling (63% full), not a sizing rule.",
         "The rate grows like the load to the power k: a 2× overfill is far worse than 2×."),
    ),
    "sharded-bloom": Notes(
        "Compare the mean and the worst shard's rate as the shard count grows; then the "
        "round-trip model of bulk loading with the room's own ping time.",
        ("The average rate hides the tail; ask which queries see the worst shard.",
         "Loading speed is round trips, not Redis CPU: pipelines change it by orders of "
         "magnitude."),
    ),
    "scalable-bloom": Notes(
        "Predict a `BF.RESERVE` chain's sub-filters, then show `BF.INFO` agreeing (live backend "
        "with RedisBloom).",
        ("fakeredis sizes filters like pyprobables, not RedisBloom: only the live backend or the "
         "stored run gives the module's numbers.",
         "`BF.ADD` on a missing key silently reserves 100 items at 1%."),
    ),
    "cuckoo-kick-chains": Notes(
        "Step through one insert's kick chain in the picture, then run the simulator to the "
        "first failure.",
        ("Deleting something never added removes a real member's fingerprint.",
         "The load at first failure is a distribution, not one number: show the spread."),
    ),
    "roaring-containers": Notes(
        "Build the three container kinds from three ID sets and print `get_statistics()`; then "
        "the lost-update race with and without `WATCH`.",
        ("Containers are per 2^16 chunk: density is per chunk, not global.",
         "Run optimisation only helps consecutive IDs."),
    ),
    "redis-set-memory": Notes(
        "`SADD` past 512 integers with `OBJECT ENCODING` before and after: the intset-to-"
        "hashtable jump in `MEMORY USAGE` is the lesson.",
        ("`MEMORY USAGE` without `SAMPLES 0` estimates from a sample.",
         "A set mid-rehash reads up to 8 bytes a member more: settle it before comparing."),
    ),
    "hyperloglog": Notes(
        "`PFADD` one item and read `STRLEN` and `MEMORY USAGE`; then add until the key turns "
        "dense and show the 12 KiB.",
        ("fakeredis's PFCOUNT is exact; the error only shows on a real Redis or the model.",
         "A count cannot answer \"has this user been seen\": that is a set's job."),
    ),
    "choosing": Notes(
        "Run `setlab advise` on an ID file from the room (or the book's samples) and read the "
        "histogram together before looking at the recommendation.",
        ("The same count of IDs lands on different structures by range and density: make the "
         "room say why for each row.",
         "Time order in snowflake IDs does nothing for a bitmap; a dense re-mapping does."),
    ),
    "audit": Notes(
        "Run `setlab audit` against the room's classroom server (each participant's keys are "
        "theirs: an ACL user sees what it may read) and read the findings worst first, each "
        "with the chapter that explains it.",
        ("An audit that says it could not run MEMORY USAGE or INFO is the ACL working, not a "
         "failure: read the notes line first.",
         "A sampled bitmap's count is an estimate with an upper bound: the alternative is "
         "priced at the bound, never at the flattering estimate."),
    ),
}  # fmt: skip


def notes_markdown() -> str:
    """One section per chapter: demo, stumbles, and the timing checkpoints of its teaching."""
    missing = [slug for slug in registry.CHAPTERS if slug not in NOTES]
    if missing:
        raise ValueError(f"no instructor notes for {missing}")
    parts = []
    for slug in registry.CHAPTERS:
        c, n = lessons.chapter(slug), NOTES[slug]
        skip = {"Exercises", "Further reading"}
        stops = [(title, minute) for title, minute in c.checkpoints() if title not in skip]
        checkpoints = "; ".join(f"{title} by {minute} min" for title, minute in stops)
        parts += [
            f"(notes-{slug})=",
            f"### {{doc}}`{slug}`",
            "",
            f"- **Demo live:** {n.demo}",
            "- **Where learners stumble:**",
            *[f"  - {s}" for s in n.stumbles],
            f"- **Checkpoints** ({c.teaching_estimate} min of teaching, "
            f"then {c.exercises_estimate} min of exercises): {checkpoints}.",
            "",
        ]
    return "\n".join(parts)
