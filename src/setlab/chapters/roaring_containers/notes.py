"""Chapter roaring-containers: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Build the three container kinds from three ID sets and print `get_statistics()`; then "
    "the lost-update race with and without `WATCH`.",
    ("Containers are per 2^16 chunk: density is per chunk, not global.",
     "Run optimisation only helps consecutive IDs."),
)  # fmt: skip
