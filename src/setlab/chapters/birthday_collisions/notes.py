"""Chapter birthday-collisions: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Ask the room for a guess at 2^20 offsets before running `bd.max_users`: the answer "
    "(about a thousand) surprises almost everyone.",
    ("Four different \"collision\" measures; insist on naming which one a number is.",
     "Probabilities printing as 100% are rounding: show the log-space result.",
     "`^` in Java and Python is XOR, not a power."),
)  # fmt: skip
