"""What a Redis SET of the IDs costs (:mod:`setlab.models.redis_memory`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from setlab.core.formats import format_bytes
from setlab.core.validate import check_int
from setlab.tools.calc.calculator import Calculator, Given, Option, count
from setlab.tools.calc.report import Report

if TYPE_CHECKING:
    from setlab.models.ids import IDs
    from setlab.models.redis_memory import Members


MEMBER_TYPES = ("int", "hex", "uuid", "string")
_DEFAULT_LENGTH = {"hex": 16, "uuid": 36}


def _set_report(members: Members, title: str, version: str) -> Report:
    from setlab.models import redis_memory

    cost = redis_memory.set_cost(members, version=version)  # type: ignore[arg-type]
    report = Report(title)
    usage = "not modelled for 7.2" if cost.memory_usage is None else (
        f"{format_bytes(cost.memory_usage)} ({cost.memory_usage:,} bytes, "
        f"{cost.usage_per_member:.1f} B per member)")  # fmt: skip
    report.rows = [
        ("members", f"{cost.size:,}"),
        ("encoding", cost.encoding),
        ("MEMORY USAGE", usage),
        ("allocated", f"{format_bytes(cost.allocated)} ({cost.allocated:,} bytes, "
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
    if version == "7.2":
        report.notes.append("Redis 7.2 is modelled from its source, never measured here")
    report.data = {
        "members": cost.size, "encoding": cost.encoding, "memory_usage": cost.memory_usage,
        "allocated": cost.allocated, "allocated_parts": cost.allocated_parts,
        "version": version,
    }  # fmt: skip
    return report


def set_estimate(
    members: int,
    member_type: str = "int",
    *,
    length: int | None = None,
    start: int = 0,
    version: str = "7.0",
) -> Report:
    """What ``SADD key …`` of ``members`` distinct members costs (Redis 7.0 exact, 7.2 modelled).

    ``member_type``: ``int`` (the integers ``start … start+members-1`` in decimal), ``hex``
    (``length`` hex digits, default 16), ``uuid`` (36 characters) or ``string`` (``length``
    bytes, required).
    """
    from setlab.models import redis_memory

    members = check_int("members", members, 1, 2**40)
    if member_type not in MEMBER_TYPES:
        raise ValueError(f"member type must be one of {', '.join(MEMBER_TYPES)}; "
                         f"got {member_type!r}")  # fmt: skip
    if version not in redis_memory.VERSIONS:
        raise ValueError(f"version must be one of {', '.join(redis_memory.VERSIONS)}; "
                         f"got {version!r}")  # fmt: skip
    if member_type == "int":
        if length is not None:
            raise ValueError("--length is for string members; integers have their own digits")
        start = check_int("start", start, -(2**63), 2**63 - members)
        summary = redis_memory.Members.decimal_range(start, start + members)
        what = f"integers {start:,} … {start + members - 1:,}"
    else:
        if length is None:
            if member_type == "string":
                raise ValueError("give --length for string members (bytes each)")
            length = _DEFAULT_LENGTH[member_type]
        length = check_int("length", length, 1, 2**20)
        summary = redis_memory.Members.fixed_length(members, length)
        what = f"{member_type} strings of {length} bytes"
    return _set_report(summary, f"Redis {version} SET of {members:,} {what}", version)


def set_from_ids(ids: IDs, version: str = "7.0") -> Report:
    """What a Redis SET of the distinct IDs read from a file costs, members as written."""
    from setlab.models.ids import set_members

    members = set_members(ids)
    report = _set_report(members, f"Redis {version} SET of the IDs in {ids.source}", version)
    report.data["duplicates"] = len(ids) - members.count
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc set``: from a file of IDs, or from a number of members of a type."""
    from setlab.models.ids import read_ids

    if given["file"] is not None:
        if given["members"] is not None:
            raise ValueError("give a FILE or --members N, not both")
        ids = read_ids(given["file"], given["progress"], given["format"], given["max_ids"])
        return [set_from_ids(ids, given["redis"])]
    if given["members"] is None:
        raise ValueError("give a FILE of IDs, or --members N (with --type, --length)")
    return [set_estimate(given["members"], given["type"], length=given["length"],
                         start=given["start"], version=given["redis"])]  # fmt: skip


CALCULATOR = Calculator(
    "set",
    help="what a Redis SET costs, by member type and Redis version",
    description="Memory of a Redis SET (Redis 7.0 exact MEMORY USAGE, 7.2 modelled) of N "
    "members of a type, or of the IDs in FILE as written.",
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
    shared=("format", "max-ids", "redis", "progress"),
    key_bytes="allocated",
    example="setlab calc set --members 1e5 --type int",
)  # fmt: skip
