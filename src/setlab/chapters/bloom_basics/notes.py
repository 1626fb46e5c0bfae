"""Chapter bloom-basics: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Add three names to the 32-bit filter and query a fourth that collides: the false "
    "positive on screen makes the idea concrete.",
    ("The seed's Java filter never reads the element: learners look for a hash bug and miss "
     "that every add sets the same bits.",
     "\"Delete\" by clearing bits breaks other members: have them predict which."),
)  # fmt: skip
