"""Chapter snowflake-ranges: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Decode a real snowflake ID on screen (`sf.TWITTER.decode`, `minted_at`) and date it; "
    "then print it through `sf.js_number_string` to show the browser's rounding.",
    ("The longest chapter: skip the Leaf simulation in a short session and keep the "
     "precision section.",
     "Learners confuse the epoch with Unix time; show both dates side by side.",
     "`Math.abs(Long.MIN_VALUE)` being negative needs a whiteboard two's-complement line."),
)  # fmt: skip
