"""Chapter string-plus-set: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Run the race timeline twice: the seed's check-then-act (two likes, counter 2) and the "
    "`SADD`-gated fix (counter 1).",
    ("`SISMEMBER` on a missing key is 0, never null: the seed's cold-start test never fires.",
     "A lock without an owner token releases someone else's lock; draw the timeline.",
     "The fix is the reply of `SADD`, not a transaction: many reach for MULTI first."),
)  # fmt: skip
