"""The book's in-page calculators in one table: which chapter holds each and under which
anchor, what question it answers, and the ``setlab calc`` command that prints the same numbers.

The calculators page (``book/calculators.md``), the line under each chapter's title
(``book/_ext/setlab_slides.py``) and the tests read this table; each chapter marks its
calculator with the heading ``(calc-<widget>)=`` / ``### Calculator: …`` just before the
widget's cell.
"""

from __future__ import annotations

from dataclasses import dataclass

from setlab.site.registry import CHAPTERS


@dataclass(frozen=True)
class PageCalculator:
    """One widget of a chapter (:class:`setlab.render.widgets.Widget`), as a reader finds it."""

    widget: str  #: the widget's slug: its figure is ``#widget-<slug>``
    chapter: str  #: the chapter that holds it
    title: str  #: its heading in the chapter, after "Calculator: "
    answers: str  #: the question it answers, for the calculators page
    command: str  #: a ``setlab calc`` line that prints the same numbers

    @property
    def label(self) -> str:
        """The heading's anchor in the chapter."""
        return f"calc-{self.widget}"


CALCULATORS = (
    PageCalculator(
        "setbit", "setbit-offset", "what a first SETBIT at your offset costs",
        "the string, the memory and the time of the first write at a bit offset",
        "setlab calc setbit 1823456789",
    ),
    PageCalculator(
        "birthday", "birthday-collisions", "IDs hashed into a bitmap of 2^bits offsets",
        "the chance that hashed IDs share an offset, and how many do",
        "setlab calc birthday -n 1e5 --bits 32",
    ),
    PageCalculator(
        "bloom", "bloom-basics", "a Bloom filter, and what RedisBloom allocates for it",
        "any two or three of n, p, m and k solved, RedisBloom's bytes, and past capacity",
        "setlab calc bloom -n 1e6 -p 1% --redisbloom",
    ),
    PageCalculator(
        "sharded-bloom", "sharded-bloom", "shard count and capacity per shard",
        "how full the fullest of many Bloom filters gets, and its false-positive rate",
        "setlab calc sharded-bloom -n 8e8 --shards 2^17 --capacity 6104",
    ),
    PageCalculator(
        "cuckoo-load", "cuckoo-kick-chains", "bucket size, fingerprint bits and table size",
        "how full a cuckoo filter gets before an insert fails, and its rate there",
        "setlab calc cuckoo-load -b 4 -f 12 --slots 2^14",
    ),
    PageCalculator(
        "bytes-per-id", "choosing", "bytes per ID for your count, range and rate",
        "every structure's bytes per ID for a count of IDs spread over a range, the pick and why",
        "setlab calc density -n 8e8 --range 2^32 -p 1%",
    ),
)  # fmt: skip


def in_chapter(slug: str) -> PageCalculator | None:
    """The calculator of chapter ``slug``, if it has one."""
    return next((c for c in CALCULATORS if c.chapter == slug), None)


def index_markdown() -> str:
    """The calculators page's table: one row per calculator, in the book's order."""
    rows = [
        "| calculator | what it answers | chapter | the same in a terminal |",
        "|:--|:--|:--|:--|",
    ]
    for calc in sorted(CALCULATORS, key=lambda c: CHAPTERS.index(c.chapter)):
        title = calc.title[0].upper() + calc.title[1:]
        rows.append(
            f"| {{ref}}`{title} <{calc.label}>` | {calc.answers} | {{doc}}`{calc.chapter}` "
            f"| `{calc.command}` |"
        )
    return "\n".join(rows)
