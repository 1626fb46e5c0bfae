"""Why a server refused to load a snapshot, read from its log: one line a reader can act on.

A ``redis-server`` (or ``valkey-server``) that cannot load its ``dbfilename`` at start writes
why to its log and exits. The log's warnings (level ``#``) name the cause in the server's words,
after lines that are no cause at all (the overcommit warning, "Server initialized"):

- ``Can't handle RDB format version 13`` (rdb.c ``rdbLoadRio``): the format is too new;
- ``Module … failed to load: …`` then ``Can't load module from …: server aborting`` (module.c
  ``moduleLoadFromQueue``): the module itself, before any data;
- ``The RDB file contains module data I can't load: no matching module type 'MBbloom--'``
  (rdb.c ``rdbLoadObject``; ``AUX module data … no matching module '…'`` for a module's AUX
  field): data of a module that is not loaded, named by its 9-character type;
- ``Short read or OOM loading DB`` / ``Unexpected EOF reading RDB file``: the file ends in the
  middle of a record (a cut copy, a disk that filled while it was written);
- ``Wrong RDB checksum expected: (…) but got (…)`` / ``RDB CRC error``: the CRC64 at the end
  does not match the bytes before it;
- ``Internal error in RDB reading offset 0, function at rdb.c:2301 -> Hash listpack integrity
  check failed.`` (``rdbReportCorruptRDB``): a value's encoding (ziplist, listpack, intset) is
  inconsistent.

The exit status says little: after a corrupt record the server runs its own ``redis-check-rdb``
(``rdbCheckThenExit``), whose "RDB looks OK" on a file that only holds an unknown module's data
ends the server with code 0. A negative status is the signal that killed it (out of memory).
Measured on Redis 7.0.15, 8.2.3 and Valkey 8.1.8 (tests/lab/test_live_audit_snapshot_failures.py).
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from pathlib import PurePath

#: What a line of a Redis log is: ``pid:role day month year time level message``.
_LOG_LINE = re.compile(r"^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ ([.\-*#]) (.*)$")
#: The server's own words for each cause, checked in this order (a truncated file's log also
#: says "Internal error …", which alone means a corrupt value).
_CAUSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("format", re.compile(r"Can't handle RDB format version (\d+)")),
    ("module-load", re.compile(r"Module (\S+) failed to load: (.*)")),
    ("module-data", re.compile(r"module data I can't load: no matching module(?: type)? '(.+?)'")),
    ("truncated", re.compile(r"(Short read|Unexpected EOF)")),
    ("checksum", re.compile(r"(Wrong RDB checksum|RDB CRC error)")),
    ("corrupt", re.compile(r"Internal error in RDB reading .*? -> (.*)")),
    ("corrupt", re.compile(r"(Bad data format|.*integrity check failed.*)")),
)
#: Warnings that are never the cause.
_NOISE = re.compile(
    r"WARNING|Redis is starting|Valkey is starting|version=|Configuration loaded|"
    r"Server initialized|Terminating server|Fatal error loading|server aborting|"
    r"requested shutdown|ready to exit"
)
#: The modules whose types a snapshot most often holds (each module's ``RedisModule_CreateDataType``
#: name) and the module that brings them.
MODULE_TYPES = {
    "MBbloom--": "RedisBloom", "MBbloomCF": "RedisBloom", "CMSk-TYPE": "RedisBloom",
    "TopK-TYPE": "RedisBloom", "TDIS-TYPE": "RedisBloom", "ReJSON-RL": "RedisJSON",
    "TSDB-TYPE": "RedisTimeSeries", "ft_index0": "RediSearch", "graphdata": "RedisGraph",
}  # fmt: skip
#: Characters a message may take so that ``setlab audit: `` and it fit in one 200-character line.
LINE_BUDGET = 184


@dataclass(frozen=True)
class LoadFailure:
    """A failed load: the cause's kind, the server's words for it, and how the process ended."""

    kind: str  #: format, module-load, module-data, truncated, checksum, corrupt, killed, other
    detail: str = ""  #: the format, the module's path or type, or the server's reason
    reason: str = ""  #: for module-load: why the module did not load
    code: int | None = None  #: the exit status (negative: the signal)


def messages(log: str) -> list[str]:
    """The warnings of a server's log (level ``#``), without their pid and timestamp; a line in
    no known format is kept whole."""
    found = []
    for line in log.splitlines():
        match = _LOG_LINE.match(line)
        if match is None:
            if line.strip():
                found.append(line.strip())
        elif match.group(1) == "#":
            found.append(match.group(2).strip())
    return found


def classify(log: str, code: int | None) -> LoadFailure:
    """The cause a server's ``log`` states for refusing its snapshot, and its exit ``code``."""
    warnings = messages(log)
    for kind, pattern in _CAUSES:
        for text in warnings:
            match = pattern.search(text)
            if match is None:
                continue
            if kind == "module-load":
                return LoadFailure(kind, match.group(1), match.group(2).strip(), code)
            return LoadFailure(kind, match.group(1).strip().rstrip("."), code=code)
    if code is not None and code < 0:
        return LoadFailure("killed", _signal_name(-code), code=code)
    causes = [t for t in warnings if not _NOISE.search(t)]
    return LoadFailure("other", causes[-1] if causes else "", code=code)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe(failure: LoadFailure, name: str, size: int, server: str, bloom: str) -> str:
    """One line for ``failure`` of the snapshot file ``name`` (``size`` bytes) in ``server``
    (``"Redis 8.2.3"``); ``bloom`` says why RedisBloom was not loaded ("" when it was)."""
    again = "copy it again, or take a new snapshot"
    kind, detail = failure.kind, failure.detail
    if kind == "format":
        text = f"{name} is RDB format {detail}, newer than {server} reads"
    elif kind == "module-load":  # dlopen's reason starts with the path again
        module = PurePath(detail).name
        reason = failure.reason.removeprefix(f"{detail}: ")
        text = f"the module {module} failed to load into {server}: {reason}"
    elif kind == "module-data":
        module = MODULE_TYPES.get(detail)
        if module == "RedisBloom" and bloom:
            text = f"{name} holds RedisBloom data (module type {detail}) and {bloom}"
        elif module == "RedisBloom":
            text = (f"{name} holds RedisBloom data of module type {detail}, which the RedisBloom "
                    "loaded here does not know (a newer RedisBloom wrote it)")  # fmt: skip
        else:
            what = f"{module}'s module type {detail}" if module else f"the module type {detail}"
            text = (f"{name} holds data of {what}, a module setlab does not load: audit the "
                    "live server with REDIS_URL")  # fmt: skip
    elif kind == "truncated" and size <= 9:
        text = f"{name} is truncated: it holds only its {size}-byte header, no data; {again}"
    elif kind == "truncated":
        text = f"{name} is truncated: its {size:,} bytes end in the middle of a record; {again}"
    elif kind == "checksum":
        text = (f"{name} is damaged: its CRC64 checksum does not match its content (a byte "
                f"changed after it was saved); {again}")  # fmt: skip
    elif kind == "corrupt":
        text = f"{name} is damaged: a value's encoding is corrupt ({detail}); {again}"
    elif kind == "killed":
        text = (f"{server} was killed by {detail} while loading {name} ({size:,} bytes): out "
                "of memory?")  # fmt: skip
    else:
        said = f": {detail}" if detail else f" (exit status {failure.code}, no reason logged)"
        text = f"{server} refused {name}{said}"
    return _fit(text)


def _fit(text: str, budget: int = LINE_BUDGET) -> str:
    """``text`` on one line of at most ``budget`` characters (a server's reason cut with …)."""
    text = " ".join(text.split())
    return text if len(text) <= budget else text[: budget - 1] + "…"
