"""Key names folded into patterns, and the patterns' groups held in bounded memory.

A keyspace of ten million keys is a few dozen shapes: ``like:bit:42`` and ``like:bit:7`` are
``like:bit:{n}``. :func:`pattern` folds the parts of a key that vary from key to key, in this
order, each into a placeholder, and keeps the words around them (``openid:``, ``user:``):

- UUIDs (``8-4-4-4-12`` hex digits) → ``{uuid}``;
- e-mail addresses (``name@host.tld``) → ``{email}``;
- hexadecimal runs of eight characters or more with a digit in them, not inside a longer
  word (hashes, device IDs, ObjectIds) → ``{hex}``;
- tokens → ``{token}``: runs of at least :data:`TOKEN_CHARS` characters of the base64
  alphabets (letters, digits, ``_``, ``-``, and ``+``, ``=`` of plain base64) with a capital or a
  digit in them, that read as no word (:func:`looks_random`): WeChat openids (``o`` and 27
  base64 characters), base62 IDs, ULIDs, nanoids, session tokens;
- decimal numbers → ``{n}``.

A key that is not UTF-8 is shown with its odd bytes escaped (``\\xff``); a pattern longer than
:data:`PATTERN_CHARS` is cut there.

No rule reads every token as one: about one random 28-character openid in a hundred looks like
words (lower-case runs with vowels where words have them). What catches it is its *place*:
:func:`shape` folds, in a pattern, every run of :data:`SHAPE_CHARS` characters or more with a
capital in it, or a placeholder glued to a letter, and :class:`PatternTable` keeps apart a few
patterns of one shape (``cache:getUserProfileById:{n}`` beside ``cache:listOrdersByCustomer:{n}``)
but folds those of a single key into the shape's own group (``openid:{token}``) once the place
holds more than :data:`PATTERNS_PER_SHAPE`: in a place of IDs, each ID has a pattern of its own
and one key.

:class:`PatternTable` holds the groups: at most ``2 ×`` :data:`GROUPS_KEPT` of them while the
keys are read (the smallest are folded into one "other" group when there are more), and the
:data:`GROUPS_KEPT` biggest and "other" at the end. So what an audit holds for its groups is
bounded whatever the key names: :data:`MEMORY_BOUND`, 8 MiB, and the groups' findings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

#: Keys of groups the report keeps, biggest first by bytes (``MEMORY USAGE``; by keys when the
#: server refuses it); the rest are one group, :data:`OTHER`. A keyspace is a few dozen
#: patterns once its IDs are folded, and its shapes a few hundred when its names hold a tenant
#: or a day that the folding leaves: a thousand keeps every one of those, and is forty times
#: what the terminal shows (``report.GROUPS_SHOWN``), while the groups held stay a few MiB
#: (:data:`MEMORY_BOUND`, checked in tests/unit/test_audit_patterns.py).
GROUPS_KEPT = 1000
#: Groups held at most while keys are read: twice :data:`GROUPS_KEPT` (the smallest half is
#: folded into "other" when full, so a fold comes once per :data:`GROUPS_KEPT` new patterns)
#: and "other".
GROUPS_HELD = 2 * GROUPS_KEPT + 1
#: Bytes one group costs the table at most, its findings aside: the caller's group (a
#: ``report.Group`` with its Counter of encodings and an empty list: under 0.5 KiB), its pattern
#: and its shape (:data:`PATTERN_CHARS` characters each: 0.9 KiB at most, four bytes a character
#: when one is past U+FFFF), the table's dict and tuple slots for it (a few hundred bytes).
#: A group's findings are the caller's: ``report.Group`` keeps the worst 40 at most.
GROUP_BYTES = 4 << 10
#: What the groups cost at most while keys are read, findings aside: :data:`GROUPS_HELD` groups
#: of :data:`GROUP_BYTES` (8 MiB), whatever the keys and their names.
MEMORY_BOUND = GROUPS_HELD * GROUP_BYTES
#: Patterns one place (shape and type, :func:`shape`) keeps apart beside the shape's own: a key
#: holds a handful of names in one place, not more; past this many, the smallest are folded.
PATTERNS_PER_SHAPE = 10
#: The longest pattern kept, in characters (a key can be 512 MB; a pattern names a group).
PATTERN_CHARS = 200
#: The shortest run :func:`pattern` reads as a token: 16 characters of base64 are 96 bits,
#: enough for an ID that is never guessed (a base62 UUID is 22, an openid 28, a ULID 26).
TOKEN_CHARS = 16
#: The shortest run :func:`shape` folds (a placeholder in it counting its own characters, or
#: the fewest it stands for when more: ``{n}`` three, ``{hex}`` eight): as long as a token, so
#: that prefixes named with capitals (``orderHistory:{n}``, ``userSessions:{n}``) stay apart.
SHAPE_CHARS = TOKEN_CHARS
#: The name of the group of every pattern past the :data:`GROUPS_KEPT` biggest.
OTHER = f"(other patterns, past the top {GROUPS_KEPT:,})"
#: The type of that group: it can hold keys of every type.
OTHER_TYPE = "mixed"

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: RFC 5322's common form: a dot-atom local part, a host name with a top-level domain of letters
_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])"
)
#: eight or more hex characters, at least one a digit, not inside a longer word
_HEX = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}(?![0-9A-Za-z])")
#: a run of the base64 alphabets (plain and URL-safe), with its padding
_RUN = re.compile(
    rf"(?<![A-Za-z0-9_+=-])[A-Za-z0-9_+-]{{{TOKEN_CHARS},}}={{0,2}}(?![A-Za-z0-9_+=-])"
)
_NUMBER = re.compile(r"\d+")
#: in a pattern, a run of word characters and of what was folded in it
_FOLDED = r"\{(?:n|hex|token|uuid|email)\}"
_SHAPE_RUN = re.compile(rf"(?:[A-Za-z0-9_+-]|{_FOLDED})+")
#: a capital, or something folded glued to a letter or to something else folded
#: (``pmvy{n}dwghl``, ``oZpB_{hex}-WJYd``: base36 and base64 that other rules cut)
_MIXED = re.compile(rf"[A-Z]|[A-Za-z]{_FOLDED}|{_FOLDED}[A-Za-z]|\}}\{{")
#: a run's words: a capitalised or lower-case word, an upper-case one, a number
_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SEPARATOR = re.compile(r"[_+=-]+")
#: two numbers, each between two letters, as in ``a7Qk3Zp``: a word has one or none
#: (``utf8Encoding``)
_TWO_EMBEDDED_NUMBERS = re.compile(r"[A-Za-z]\d+(?=[A-Za-z]).*?[A-Za-z]\d+[A-Za-z]")
_VOWELS = frozenset("aeiouyAEIOUY")
_DIGIT = re.compile(r"\d")


def text(key: bytes | str) -> str:
    """A key as text: UTF-8, with bytes that are not escaped as ``\\xNN``."""
    return key if isinstance(key, str) else key.decode("utf-8", "backslashreplace")


def _oddness(segment: str) -> float:
    """How little a run between separators reads as words: each lone letter (not beside a
    number: ``x86``, ``2d``) counts 1, each word without a vowel 1 (½ when of two or three
    letters: ``ctx``, ``Str``); upper-case words of four letters or fewer are acronyms and count
    nothing (``HTTP``, ``SQL``)."""
    pieces = _PIECE.findall(segment)
    odd = 0.0
    for i, piece in enumerate(pieces):
        if piece[0].isdigit():
            continue
        if len(piece) == 1:
            numbered = (i > 0 and pieces[i - 1][0].isdigit()) or (
                i + 1 < len(pieces) and pieces[i + 1][0].isdigit()
            )
            odd += len(pieces) > 1 and not numbered
        elif _VOWELS.isdisjoint(piece) and not (len(piece) <= 4 and piece.isupper()):
            odd += 0.5 if len(piece) <= 3 else 1.0
    return odd


def looks_random(run: str) -> bool:
    """Whether a run of the base64 alphabet is a token rather than words: at least
    :data:`TOKEN_CHARS` long, a capital or a digit in it, and either two numbers between
    letters (``Xk3pQ9z``: ULIDs, base36) or an oddness of 2 (:func:`_oddness`, over the run's
    parts between ``_``, ``-``, ``+``). About one random 28-character openid in a hundred reads
    as words (:func:`shape` catches those); identifiers such as ``getUserProfileById``,
    ``user_sessions_v2`` or ``HTTPServerError`` do not fold (about 1 % of 100,000 long Python
    and JavaScript identifiers did, most of them base64 or hex data)."""
    if len(run) < TOKEN_CHARS or (run.islower() and _DIGIT.search(run) is None):
        return False  # (no capital and no digit: lower-case words)
    if _TWO_EMBEDDED_NUMBERS.search(run) is not None:
        return True
    odd = 0.0
    for part in _SEPARATOR.split(run):
        odd += _oddness(part)
        if odd >= 2:
            return True
    return False


def _token(match: re.Match[str]) -> str:
    run = match.group()
    return "{token}" if looks_random(run.rstrip("=")) else run


def pattern(key: bytes | str) -> str:
    """The key's pattern: UUIDs, e-mail addresses, long hex runs, tokens and numbers folded
    (see the module's doc), cut at :data:`PATTERN_CHARS`."""
    folded = text(key[: 4 * PATTERN_CHARS])  # cut first: a key can be 512 MB
    if folded.count("-") >= 4:  # (each test first: a pass over the key saved)
        folded = _UUID.sub("{uuid}", folded)
    if "@" in folded:
        folded = _EMAIL.sub("{email}", folded)
    folded = _HEX.sub("{hex}", folded)
    if len(folded) >= TOKEN_CHARS:
        folded = _RUN.sub(_token, folded)
    folded = _NUMBER.sub("{n}", folded)
    return folded if len(folded) <= PATTERN_CHARS else folded[: PATTERN_CHARS - 1] + "…"


#: what a placeholder counts in a run's length: its own characters, or the fewest it stands
#: for when more
_HELD = {"{n}": 3, "{hex}": 8, "{token}": TOKEN_CHARS, "{uuid}": 36, "{email}": 7}
_PLACEHOLDER = re.compile(_FOLDED)


def _shape_run(match: re.Match[str]) -> str:
    run = match.group()
    if not _MIXED.search(run):
        return run
    held = len(_PLACEHOLDER.sub("", run))
    held += sum(_HELD[p] for p in _PLACEHOLDER.findall(run))
    return "{token}" if held >= SHAPE_CHARS else run


def shape(folded: str) -> str:
    """The place of a pattern's names: every run of :data:`SHAPE_CHARS` characters or more
    with a capital in it, or a placeholder glued to a letter or to another (long names, and the
    tokens :func:`pattern` missed or cut) folded into ``{token}``. Computed from the pattern,
    so that the keys of one pattern have one shape."""
    return _SHAPE_RUN.sub(_shape_run, folded)


# -- the groups -----------------------------------------------------------------------------------


class Group(Protocol):
    """What :class:`PatternTable` needs of a group: its name and size, and taking in
    another's keys."""

    pattern: str
    keys: int
    bytes: int | None

    def absorb(self, other: Group) -> None: ...


G = TypeVar("G", bound=Group)


def _size(group: Group) -> tuple[int, int]:
    return group.bytes or 0, group.keys


def _biggest_first(group: Group) -> tuple[int, int, str]:
    return -(group.bytes or 0), -group.keys, group.pattern


class PatternTable(Generic[G]):
    """Keys' groups by pattern and type, in bounded memory (see the module's doc).

    ``new(pattern, type)`` makes an empty group; :meth:`group` gives the group a key belongs to,
    for the caller to add it; :meth:`result` the :data:`GROUPS_KEPT` biggest groups, then the
    others as one group named :data:`OTHER`.

    Groups are held by *place*: shape and type. Beside the group of the shape itself, a place
    keeps apart up to :data:`PATTERNS_PER_SHAPE` patterns; when one more comes, a pattern held
    with a single key (an ID, most likely) is folded into the shape's group to make room, and
    if every one has more keys (names), the newcomer's keys go to the shape's group. A token
    read as words thus joins its siblings, and a name with keys of its own keeps its group.
    When the table is full, and at the end, a pattern of one key in a place that has a group of
    its shape joins it; the smallest groups go to "other"."""

    def __init__(self, new: Callable[[str, str], G], kept: int = GROUPS_KEPT) -> None:
        self.new, self.kept = new, kept
        self.places: dict[tuple[str, str], dict[str, G]] = {}
        self.held = 0  #: groups in ``places``
        self.shapes: dict[str, str] = {}  #: the shape of patterns seen lately (a cache)
        self.other: G | None = None
        self.folded = 0  #: groups folded into ``other`` so far

    def group(self, key: bytes | str, type_: str) -> G:
        """The group of ``key`` (a key of type ``type_``), made if it is new."""
        folded = pattern(key)
        if (where := self.shapes.get(folded)) is None:
            if len(self.shapes) >= 2 * self.kept:  # as many as groups held
                self.shapes.clear()
            where = self.shapes[folded] = shape(folded)
        name = (where, type_)
        place = self.places.get(name)
        if place is not None and (found := place.get(folded)) is not None:
            return found
        if self.held >= 2 * self.kept:
            self._fold(self.held - self.kept)
            place = self.places.get(name)
        if place is None:
            place = self.places[name] = {}
        if folded != where and len(place) - (where in place) >= PATTERNS_PER_SHAPE:
            sink = place.get(where) or self._make(place, where, type_)
            single = next((p for p, g in place.items() if p != where and g.keys <= 1), None)
            if single is None:  # names, each with keys of its own: the newcomer is an ID
                return sink
            sink.absorb(place.pop(single))
            self.held -= 1
        return self._make(place, folded, type_)

    def _make(self, place: dict[str, G], folded: str, type_: str) -> G:
        made = place[folded] = self.new(folded, type_)
        self.held += 1
        return made

    def _fold(self, count: int) -> None:
        """Fold the ``count`` smallest groups (bytes, then keys): each into the group of its
        shape when its place has one, else into "other"."""
        held = [(_size(g), name, folded) for name, place in self.places.items()
                for folded, g in place.items()]  # fmt: skip
        held.sort(key=lambda item: item[0])
        for _, name, folded in held[:count]:
            place = self.places[name]
            group = place.pop(folded)
            sink = place.get(name[0])
            if sink is not None:
                sink.absorb(group)
            else:
                if self.other is None:
                    self.other = self.new(OTHER, OTHER_TYPE)
                self.other.absorb(group)
                self.folded += 1
            if not place:
                del self.places[name]
        self.held -= count

    def result(self) -> list[G]:
        """The :data:`GROUPS_KEPT` biggest groups, biggest first, and "other" last if any."""
        for (where, _), place in self.places.items():
            if (sink := place.get(where)) is not None:
                for single in [p for p, g in place.items() if p != where and g.keys <= 1]:
                    sink.absorb(place.pop(single))
                    self.held -= 1
        if self.held > self.kept:
            self._fold(self.held - self.kept)
        groups = sorted((g for place in self.places.values() for g in place.values()),
                        key=_biggest_first)  # fmt: skip
        return groups + ([self.other] if self.other is not None else [])
