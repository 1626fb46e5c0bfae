"""Chapter cuckoo-kick-chains: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Step through one insert's kick chain in the picture, then run the simulator to the "
    "first failure.",
    ("Deleting something never added removes a real member's fingerprint.",
     "The load at first failure is a distribution, not one number: show the spread."),
)  # fmt: skip
