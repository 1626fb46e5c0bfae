"""Chapter nk-vs-m-saturation: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Plot the false-positive rate against n for a fixed m and k, and mark the half-full "
    "point; then overfill past it.",
    ("n·k ≤ m is a ceiling (63% full), not a sizing rule.",
     "The rate grows like the load to the power k: a 2× overfill is far worse than 2×."),
)  # fmt: skip
