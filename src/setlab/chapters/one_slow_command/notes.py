"""Chapter one-slow-command: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "The stall experiment live: one big command, the latency of many small `GET`s around "
    "it. Then compute one key's slot by hand with the room.",
    ("`UNLINK` is not a cure for a big string: the lazy-free rule is about element counts.",
     "Hash tags put keys together on purpose, and hot spots follow.",
     "Shared classroom servers add noise to latencies; compare with the stored run."),
)  # fmt: skip
