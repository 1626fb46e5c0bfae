"""What a Redis SET of the IDs costs on a release (:mod:`setlab.models.redis_memory`): what
``MEMORY USAGE`` reports and what the server allocates, which on Redis 7.2 and later differ by
a third or more."""

from __future__ import annotations

from typing import TYPE_CHECKING

from setlab.core.formats import format_bytes
from setlab.core.validate import check_int
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.release import PricedFor
from setlab.tools.calc.report import Report

if TYPE_CHECKING:
    from setlab.models.ids import IDs
    from setlab.models.redis_memory import Members


MEMBER_TYPES = ("int", "hex", "uuid", "string")
_DEFAULT_LENGTH = {"hex": 16, "uuid": 36}
#: MEMORY USAGE this far from the allocation (a share of it) gets a note: on Redis 7.2 and later
#: it counts a dictEntry per member that a hash table SET no longer allocates
USAGE_GAP = 0.05


def _set_report(members: Members, title: str, priced: PricedFor) -> Report:
    from setlab.models import redis_memory

    build = priced.build
    cost = redis_memory.set_cost(members, version=build.release, allocator=build.allocator)
    usage, allocated = cost.memory_usage, cost.allocated
    report = Report(title)
    report.rows = [
        ("priced for", priced.text),
        ("members", f"{cost.size:,}"),
        ("encoding", cost.encoding),
        ("MEMORY USAGE", f"{format_bytes(usage)} ({usage:,} bytes, {cost.usage_per_member:.1f} B "
                         "per member): what MEMORY USAGE key SAMPLES 0 reports"),
        ("allocated", f"{format_bytes(allocated)} ({allocated:,} bytes, "
                      f"{cost.allocated_per_member:.1f} B per member): what used_memory grows"),
    ]  # fmt: skip
    for part, nbytes in cost.allocated_parts.items():
        report.rows.append((f"  {part}", format_bytes(nbytes)))
    if cost.encoding == "hashtable" and members.integers:
        limit = redis_memory.SET_MAX_INTSET_ENTRIES
        report.notes.append(
            f"integers, but more than set-max-intset-entries ({limit}): stored as strings in a "
            "hash table"
        )
    gap = usage / allocated - 1
    if abs(gap) >= USAGE_GAP:
        said = "overstates" if gap > 0 else "understates"
        report.notes.append(
            f"on {priced.server} MEMORY USAGE {said} what the set allocates by {abs(gap):.0%}: "
            "size a server by allocated"
        )
    report.data = {
        "members": cost.size, "encoding": cost.encoding, "memory_usage": usage,
        "allocated": allocated, "allocated_parts": cost.allocated_parts, **priced.as_json(),
    }  # fmt: skip
    return report


def set_estimate(
    members: int,
    member_type: str = "int",
    *,
    length: int | None = None,
    start: int = 0,
    release: str | None = None,
    allocator: str | None = None,
) -> Report:
    """What ``SADD key …`` of ``members`` distinct members costs on ``release`` (default: the
    book's reference, Redis 7.0) with ``allocator`` (default: that release's usual one).

    ``member_type``: ``int`` (the integers ``start … start+members-1`` in decimal), ``hex``
    (``length`` hex digits, default 16), ``uuid`` (36 characters) or ``string`` (``length``
    bytes, required).
    """
    from setlab.models import redis_memory

    priced = PricedFor.of(release, allocator)
    members = check_int("members", members, 1, 2**40)
    if member_type not in MEMBER_TYPES:
        raise ValueError(f"member type must be one of {', '.join(MEMBER_TYPES)}; "
                         f"got {member_type!r}")  # fmt: skip
    if member_type == "int":
        if length is not None:
            raise ValueError("--length is for string members; integers have their own digits")
        start = check_int("start", start, -(2**63), 2**63 - members)
        summary = redis_memory.Members.decimal_range(start, start + members, priced.allocator)
        what = f"integers {start:,} … {start + members - 1:,}"
    else:
        if length is None:
            if member_type == "string":
                raise ValueError("give --length for string members (bytes each)")
            length = _DEFAULT_LENGTH[member_type]
        length = check_int("length", length, 1, 2**20)
        summary = redis_memory.Members.fixed_length(members, length, priced.allocator)
        kind = "" if member_type == "string" else f"{member_type} "
        what = f"{kind}strings of {length} bytes"
    return _set_report(summary, f"{priced.server} SET of {members:,} {what}", priced)


def set_from_ids(ids: IDs, release: str | None = None, allocator: str | None = None) -> Report:
    """What a SET of the distinct IDs read from a file costs, members as written, on
    ``release`` with ``allocator`` (defaults as :func:`set_estimate`'s)."""
    from setlab.models.ids import set_members

    priced = PricedFor.of(release, allocator)
    members = set_members(ids)
    report = _set_report(members, f"{priced.server} SET of the IDs in {ids.source}", priced)
    report.data["duplicates"] = len(ids) - members.count
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc set``: from a file of IDs, or from a number of members of a type."""
    from setlab.models.ids import read_ids

    if given["file"] is not None:
        if given["members"] is not None:
            raise ValueError("give a FILE or --members N, not both")
        ids = read_ids(given["file"], given["progress"], given["format"], given["max_ids"])
        return [set_from_ids(ids, given["redis"], given["allocator"])]
    if given["members"] is None:
        raise ValueError("give a FILE of IDs, or --members N (with --type, --length)")
    return [set_estimate(given["members"], given["type"], length=given["length"],
                         start=given["start"], release=given["redis"],
                         allocator=given["allocator"])]  # fmt: skip


CALCULATOR = Calculator(
    "set",
    help="what a Redis SET costs, by member type and release",
    description="Memory of a Redis SET of N members of a type, or of the IDs in FILE as "
    "written: what MEMORY USAGE reports and what the server allocates, for the release and "
    "allocator named (default Redis 7.0, where the models are exact).",
    options=(
        Option(("file",), "file of IDs, one per line ('-' for stdin)", optional=True),
        Option(("-n", "--members"), "how many members", read=count("members")),
        Option(("--type",), "member type (default int)", choices=MEMBER_TYPES, default="int"),
        Option(("--length",), "bytes per member (hex: 16, uuid: 36 by default)",
               read=count("length")),
        Option(("--start",), "first integer for --type int (default 0)",
               read=count("start", low=0), default=0),
    ),
    run=_run,
    shared=("format", "max-ids", "redis", "allocator", "progress"),
    key_bytes="allocated",
    example="setlab calc set --members 1e5 --type int",
)  # fmt: skip
