"""Chapter hyperloglog: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "`PFADD` one item and read `STRLEN` and `MEMORY USAGE`; then add until the key turns "
    "dense and show the 12 KiB.",
    ("fakeredis's PFCOUNT is exact; the error only shows on a real Redis or the model.",
     "A count cannot answer \"has this user been seen\": that is a set's job."),
)  # fmt: skip
