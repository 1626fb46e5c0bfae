"""Chapter sharded-bloom: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Compare the mean and the worst shard's rate as the shard count grows; then the "
    "round-trip model of bulk loading with the room's own ping time.",
    ("The average rate hides the tail; ask which queries see the worst shard.",
     "Loading speed is round trips, not Redis CPU: pipelines change it by orders of "
     "magnitude."),
)  # fmt: skip
