"""Chapter choosing: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Run `setlab advise` on an ID file from the room (or the book's samples) and read the "
    "histogram together before looking at the recommendation.",
    ("The same count of IDs lands on different structures by range and density: make the "
     "room say why for each row.",
     "Time order in snowflake IDs does nothing for a bitmap; a dense re-mapping does."),
)  # fmt: skip
