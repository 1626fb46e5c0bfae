"""Chapter setbit-offset: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Run the first `SETBIT` at a huge offset on the live backend with a `redis-cli --latency` "
    "window open beside it: the room sees the other client stall, then the second write "
    "return at once.",
    ("Bits versus bytes: the string is offset/8 bytes, and `MEMORY USAGE` counts the size "
     "class, not `STRLEN`.",
     "Learners expect the second write to be slow too; the string already exists.",
     "On the embedded backend the timings are stored ones: say so when showing them."),
)  # fmt: skip
