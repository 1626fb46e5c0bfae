"""Chapter scalable-bloom: the instructor's notes (the instructor guide and the deck's speaker
notes show them; the chapter's page does not)."""

from setlab.chapters import InstructorNotes

NOTES = InstructorNotes(
    "Predict a `BF.RESERVE` chain's sub-filters, then show `BF.INFO` agreeing (live backend "
    "with RedisBloom).",
    ("fakeredis sizes filters like pyprobables, not RedisBloom: only the live backend or the "
     "stored run gives the module's numbers.",
     "`BF.ADD` on a missing key silently reserves 100 items at 1%."),
)  # fmt: skip
