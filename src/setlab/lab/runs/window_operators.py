"""Redis 8.2's four new ``BITOP`` operators on seed 003's seven-day window, against Redis 7.0.

Seed 003 keeps one bitmap of active users a day and ORs seven of them for "seen this week". A
week of days raises other questions, each a set expression over the days (today is the last):

=============================  ==========================  =====================================
question                       Redis 8.2: one command      Redis 7.0: the fewest commands
=============================  ==========================  =====================================
new today                      ``DIFF d today d0 … d5``    ``OR d d0…d5``, ``AND d today d``,
                                                           ``XOR d today d`` (3)
seen this week, not today      ``DIFF1 d today d0 … d5``   ``OR d today d0…d5``, ``XOR d d today``
back today                     ``ANDOR d today d0 … d5``   ``OR d d0…d5``, ``AND d today d``
seen on exactly one day        ``ONE d d0 … d6``           10 ``BITOP``\\ s into 3 temporary keys,
                                                           and their ``DEL`` (see below)
=============================  ==========================  =====================================

What the operators do, from ``bitopCommand`` in Redis's ``src/bitops.c`` (8.2, PR #13898): for
``BITOP op dest X A B …``, ``DIFF`` = X ∧ ¬(A ∨ B ∨ …), ``DIFF1`` = ¬X ∧ (A ∨ B ∨ …), ``ANDOR``
= X ∧ (A ∨ B ∨ …), ``ONE`` = the bits set in exactly one source. ``DIFF``, ``DIFF1`` and
``ANDOR`` need two sources at least; a missing key reads as zeros and the result is as long as
the longest source, as for the old four. Redis 7.0.15 answers each with ``ERR syntax error``.
The tests check all of this on the real 8.2.3 and 7.0.15 servers against pyroaring.

The 7.0 ways write into the destination key itself where they can, so only ``ONE`` needs
temporary keys. None uses ``BITOP NOT``: its result is only as long as its source, so
¬(d0 ∨ … ∨ d5) ends where the other days' longest bitmap ends, and ``AND``-ing it with a longer
today drops the users past that end. x ∧ ¬y = x ⊕ (x ∧ y) has no such edge. ``DIFF`` cannot be
done in two 7.0 commands (the second would have to be an ``AND``, ``OR`` or ``XOR`` of days and
one other single ``BITOP``, and none gives X ∧ ¬(A ∨ …)); ``DIFF1`` and ``ANDOR`` are no single
``AND``, ``OR``, ``XOR`` or ``NOT``. ``ONE`` in 7.0: number the days 0 … 6 in three bits and
split them by each bit b into halves A_b and B_b; a user seen on exactly one day is in exactly
one half of every split, OR(A_b) ⊕ OR(B_b) = 1, while a user seen on days i ≠ j is in both
halves of a split where i and j differ. So ONE = ⋀_b (OR(A_b) ⊕ OR(B_b)): six ``OR``, three
``XOR``, one ``AND`` — the fewest this module's author found, not proven the fewest.

:func:`window_operators` runs every question both ways on one server, times each inside Redis
(``INFO commandstats``) and checks every answer, ID for ID, against pyroaring's from the same
days. ``reference/measure_window_operators.py`` stores a run on Redis 8.2.3 in
``setlab/data/window-operators.json``, which :class:`OperatorsReference` reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import redis
from pyroaring import BitMap

from setlab.core.validate import check_int
from setlab.lab import guard, reference
from setlab.lab.backend import Lab
from setlab.models.roaring import redis_bitmap_bytes

#: The stored run's name (``setlab/data/window-operators.json``), measured on Redis 8.2.3.
REFERENCE = "window-operators"

#: The operators Redis 8.2 added to ``BITOP``.
OPERATORS = ("DIFF", "DIFF1", "ANDOR", "ONE")

#: One command of a way: ``BITOP``'s arguments after the command name (operator, dest, sources).
Bitop = tuple[str, ...]


def _new_today(
    dest: str, today: str, others: Sequence[str], temporary: Sequence[str]
) -> list[Bitop]:
    # today ∧ ¬U = today ⊕ (today ∧ U), U = the other days' union
    return [("OR", dest, *others), ("AND", dest, today, dest), ("XOR", dest, today, dest)]


def _not_today(
    dest: str, today: str, others: Sequence[str], temporary: Sequence[str]
) -> list[Bitop]:
    # ¬today ∧ U = (today ∨ U) ⊕ today
    return [("OR", dest, today, *others), ("XOR", dest, dest, today)]


def _back_today(
    dest: str, today: str, others: Sequence[str], temporary: Sequence[str]
) -> list[Bitop]:
    return [("OR", dest, *others), ("AND", dest, today, dest)]


def splits(days: int) -> int:
    """How many splits of the days by one bit of their index :func:`_exactly_one` needs."""
    return max(1, (days - 1).bit_length())


def _exactly_one(
    dest: str, today: str, others: Sequence[str], temporary: Sequence[str]
) -> list[Bitop]:
    # ⋀_b (OR(A_b) ⊕ OR(B_b)), A_b/B_b the days whose index has bit b clear/set (module docstring)
    days = [*others, today]
    commands: list[Bitop] = []
    halves = []
    for b in range(splits(len(days))):
        into = dest if b == 0 else temporary[b - 1]
        scratch = temporary[b]
        clear = [d for i, d in enumerate(days) if not i >> b & 1]
        set_ = [d for i, d in enumerate(days) if i >> b & 1]
        commands += [("OR", into, *clear), ("OR", scratch, *set_), ("XOR", into, into, scratch)]
        halves.append(into)
    return [*commands, ("AND", dest, *halves)] if len(halves) > 1 else commands


def _only_in_one(today: BitMap, others: Sequence[BitMap]) -> BitMap:
    ids, seen = np.unique(
        np.concatenate([d.to_array() for d in (*others, today)]), return_counts=True
    )
    return BitMap(ids[seen == 1].astype(np.uint32))


@dataclass(frozen=True)
class Question:
    """One question about a week of daily bitmaps, with its three answers."""

    name: str
    operator: str  #: the Redis 8.2 ``BITOP`` operator that answers it in one command
    #: the 7.0 way: (dest, today, the other days, temporary keys) → its BITOPs, in order
    old_way: Callable[[str, str, Sequence[str], Sequence[str]], list[Bitop]]
    #: pyroaring's answer from (today, the other days): the independent check
    expected: Callable[[BitMap, Sequence[BitMap]], BitMap]

    def sources(self, today: str, others: Sequence[str]) -> list[str]:
        """The 8.2 operator's sources: today first, or (``ONE``) the days in order."""
        return [*others, today] if self.operator == "ONE" else [today, *others]

    def temporaries(self, days: int) -> int:
        """Temporary keys the 7.0 way writes for a window of ``days`` days."""
        return splits(days) if self.operator == "ONE" else 0


QUESTIONS = (
    Question("new today", "DIFF", _new_today, lambda t, o: t - BitMap.union(*o)),
    Question("seen this week, not today", "DIFF1", _not_today, lambda t, o: BitMap.union(*o) - t),
    Question("back today", "ANDOR", _back_today, lambda t, o: t & BitMap.union(*o)),
    Question("seen on exactly one day", "ONE", _exactly_one, _only_in_one),
)


def missing_operators(lab: Lab) -> str:
    """``""`` where the server runs all four new operators, else which it refuses and its reply.

    Tried, not inferred from the version: ``BITOP <op> dest a b`` on two keys that do not exist
    (an 8.2 server stores nothing and answers 0; 7.0 answers ``ERR syntax error``)."""
    probe = [lab.key("bitop-probe", part) for part in ("dest", "a", "b")]
    refused: dict[str, str] = {}
    for op in OPERATORS:
        try:
            lab.r.execute_command("BITOP", op, *probe)
        except redis.ResponseError as err:
            refused[op] = str(err)
    lab.r.delete(*probe)
    if not refused:
        return ""
    names = list(refused)
    listed = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
    return f"no BITOP {listed}: it answers {'; '.join(map(repr, sorted(set(refused.values()))))}"


@dataclass(frozen=True)
class Way:
    """One way of answering a question on one server: its commands, their time, its answer."""

    commands: int  #: commands sent: the BITOPs, and one DEL where it wrote temporary keys
    temporaries: int  #: temporary keys it wrote (and deleted)
    server_s: float  #: median seconds inside Redis (INFO commandstats usec); nan unmeasured
    count: int  #: BITCOUNT of its answer
    same: bool  #: its answer (GET, decoded) is pyroaring's, ID for ID

    def row(self, prefix: str) -> dict[str, Any]:
        return {
            f"{prefix} commands": self.commands,
            f"{prefix} temporary keys": self.temporaries,
            f"{prefix} seconds": self.server_s,
            f"{prefix} count": self.count,
            f"{prefix} same as pyroaring": self.same,
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any], prefix: str) -> Way | None:
        if row.get(f"{prefix} commands") is None:
            return None
        return cls(
            int(row[f"{prefix} commands"]),
            int(row[f"{prefix} temporary keys"]),
            float(row[f"{prefix} seconds"]),
            int(row[f"{prefix} count"]),
            bool(row[f"{prefix} same as pyroaring"]),
        )


@dataclass(frozen=True)
class Answer:
    """One question answered with the 8.2 operator (where the server has it) and the 7.0 way."""

    question: str
    operator: str
    expected: int  #: pyroaring's count from the same days
    operator_way: Way | None  #: ``BITOP <operator>``; None where the server lacks it
    old_way: Way  #: the fewest commands Redis 7.0 needs

    @property
    def agrees(self) -> bool:
        """Every way measured gave pyroaring's bitmap."""
        return self.old_way.same and (self.operator_way is None or self.operator_way.same)

    def row(self) -> dict[str, Any]:
        """This answer as a row of the reference file."""
        new = self.operator_way.row("8.2") if self.operator_way else {"8.2 commands": None}
        return {
            "question": self.question,
            "operator": self.operator,
            "pyroaring count": self.expected,
            **new,
            **self.old_way.row("7.0"),
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Answer:
        old = Way.from_row(row, "7.0")
        if old is None:
            raise ValueError(f"row {row.get('question')!r} has no 7.0 way")
        return cls(
            str(row["question"]),
            str(row["operator"]),
            int(row["pyroaring count"]),
            Way.from_row(row, "8.2"),
            old,
        )


@dataclass(frozen=True)
class WindowOperators:
    """:func:`window_operators`' result: every question answered both ways on one server."""

    answers: tuple[Answer, ...]
    missing: str  #: "" where the server has the operators, else what it refused
    days: int
    users_per_day: float  #: mean IDs a day

    @property
    def available(self) -> bool:
        return not self.missing

    def answer(self, operator: str) -> Answer:
        """The answer to the question ``BITOP <operator>`` answers."""
        for answer in self.answers:
            if answer.operator == operator:
                return answer
        raise ValueError(f"no question for BITOP {operator!r}; have {OPERATORS}")


def _usec(lab: Lab, commands: Sequence[str]) -> int:
    stats = lab.r.info("commandstats")
    return sum(stats.get(f"cmdstat_{c}", {"usec": 0})["usec"] for c in commands)


def _decoded(raw: bytes | None) -> BitMap:
    """A plain Redis bitmap's set bits (bit ``i`` = byte ``i // 8``, MSB first) as a BitMap."""
    bits = np.unpackbits(np.frombuffer(raw or b"", dtype=np.uint8), bitorder="big")
    return BitMap(np.flatnonzero(bits).astype(np.uint32))


def _timed(lab: Lab, commands: Sequence[Bitop], dest: str, temporary: Sequence[str]) -> float:
    """Send ``commands`` (then ``DEL`` the temporaries) once: seconds inside Redis, or nan."""
    lab.r.delete(dest)  # every run creates its answer afresh, outside the timed span
    before = _usec(lab, ("bitop", "del")) if lab.is_real else 0
    for command in commands:
        lab.r.execute_command("BITOP", *command)
    if temporary:
        lab.r.delete(*temporary)
    return (_usec(lab, ("bitop", "del")) - before) / 1e6 if lab.is_real else math.nan


def _checked(lab: Lab, commands: Sequence[Bitop], dest: str, temporary: Sequence[str],
             seconds: Sequence[float], expected: BitMap) -> Way:  # fmt: skip
    """The way that left its answer at ``dest``: counted, compared with pyroaring's, deleted."""
    answer = _decoded(lab.r.get(dest))
    count = int(lab.r.bitcount(dest))
    lab.r.delete(dest)
    return Way(
        commands=len(commands) + bool(temporary),
        temporaries=len(temporary),
        server_s=float(np.median(seconds)),
        count=count,
        same=answer == expected,
    )


def window_operators(lab: Lab, days: Sequence[BitMap], repeat: int = 5) -> WindowOperators:
    """Every question of :data:`QUESTIONS` on the daily bitmaps ``days`` (today is the last),
    answered with Redis 8.2's operator where the server has it and the fewest 7.0 commands.

    The days are written as plain Redis bitmaps (as :func:`setlab.lab.runs.roaring.
    window_timings` writes them for ``BITOP OR``). Each way runs ``repeat`` times, the two ways
    of a question in turn (a burst of load on the machine falls on both); its time is the median
    of what ``INFO commandstats`` adds to ``BITOP`` and ``DEL`` (µs inside Redis, none of the
    round trips; nan on the embedded fakeredis, which has no ``INFO``). Its answer is read back
    (``GET``) and compared, ID for ID, with pyroaring's from the same days, and counted
    (``BITCOUNT``). A server without the operators (Redis 7.0, fakeredis) answers only the 7.0
    way and says what it refused (:attr:`WindowOperators.missing`). Every key written is
    deleted.
    """
    n = check_int("days", len(days), 2, 32)
    repeat = check_int("repeat", repeat, 1, 1_000)
    plain = [redis_bitmap_bytes(d) for d in days]
    longest = max(len(p) for p in plain)
    temporary = [lab.key("week", "temporary", i) for i in range(splits(n))]
    # the days, both answers and the temporaries, a string of the longest day each; each
    # answer is read back alone (GET)
    peak = guard.budget(string=longest, keys=n + 2 + len(temporary))
    lab.check_allocation(peak, "the 7-day window's BITOP questions", reads=longest, scales=True)
    keys = [lab.key("week", "day", i) for i in range(n)]
    *others, today = keys
    old_dest, new_dest = lab.key("week", "answer-7.0"), lab.key("week", "answer-8.2")
    missing = missing_operators(lab)
    lab.r.mset(dict(zip(keys, plain, strict=True)))
    answers = []
    try:
        for q in QUESTIONS:
            used = temporary[: q.temporaries(n)]
            ways = {old_dest: (q.old_way(old_dest, today, others, used), used)}
            if not missing:
                ways[new_dest] = ([(q.operator, new_dest, *q.sources(today, others))], [])
            seconds: dict[str, list[float]] = {dest: [] for dest in ways}
            for _ in range(repeat):
                for dest, (commands, scratch) in ways.items():
                    seconds[dest].append(_timed(lab, commands, dest, scratch))
            expected = q.expected(days[-1], days[:-1])
            done = {
                dest: _checked(lab, commands, dest, scratch, seconds[dest], expected)
                for dest, (commands, scratch) in ways.items()
            }
            answers.append(
                Answer(q.name, q.operator, len(expected), done.get(new_dest), done[old_dest])
            )
    finally:
        lab.r.delete(*keys, *temporary, old_dest, new_dest)
    users = float(np.mean([len(d) for d in days]))
    return WindowOperators(tuple(answers), missing, n, users)


# -- the stored run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OperatorsReference:
    """``window-operators.json``: :func:`window_operators` on Redis 8.2.3, typed."""

    run: reference.RunInfo
    window: WindowOperators
    population: int  #: the days' IDs are drawn from ``0 … population − 1``
    seed: int  #: the days are :func:`setlab.models.roaring.daily_bitmaps` from this seed
    repeat: int

    @classmethod
    def load(cls) -> OperatorsReference:
        """Read the stored run (package data)."""
        doc = reference.load(REFERENCE)
        data = doc.data
        window = WindowOperators(
            tuple(Answer.from_row(r) for r in data["rows"]),
            str(data["missing"]),
            int(data["days"]),
            float(data["users_per_day"]),
        )
        return cls(doc.run, window, int(data["population"]), int(data["seed"]), int(data["repeat"]))
