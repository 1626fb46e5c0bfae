"""Chapter redis-set-memory: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "`SADD` past 512 integers with `OBJECT ENCODING` before and after: the intset-to-"
    "hashtable jump in `MEMORY USAGE` is the lesson.",
    ("`MEMORY USAGE` without `SAMPLES 0` estimates from a sample.",
     "A set mid-rehash reads up to 8 bytes a member more: settle it before comparing."),
)  # fmt: skip
