"""Chapter audit: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Run `setlab audit` against the room's classroom server (each participant's keys are "
    "theirs: an ACL user sees what it may read) and read the findings worst first, each "
    "with the chapter that explains it.",
    ("An audit that says it could not run MEMORY USAGE or INFO is the ACL working, not a "
     "failure: read the notes line first.",
     "A sampled bitmap's count is an estimate with an upper bound: the alternative is "
     "priced at the bound, never at the flattering estimate."),
)  # fmt: skip
